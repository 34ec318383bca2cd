"""Fixtures of the reliability tests: the outbox tests' real SMTP server (aiosmtpd) and worker
stack (Redis, a fresh database, Celery workers as processes), Celery eager, people and a club."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from django.test import override_settings

OUTBOX_TESTS = Path(__file__).resolve().parents[1] / "outbox"


def _load(name: str):
    """Import a helper module of tests/outbox (the folder is not a package on the path)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, OUTBOX_TESTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


smtp_server = _load("smtp_server")
worker_stack = _load("worker_stack")


@pytest.fixture
def smtp():
    """A running SMTP server that the mail backend sends to; short backoffs for the tests."""
    server = smtp_server.SmtpServer().start()
    with override_settings(
        EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
        EMAIL_HOST=server.host,
        EMAIL_PORT=server.port,
        EMAIL_USE_TLS=False,
        EMAIL_USE_SSL=False,
        OUTBOX_SMTP_TIMEOUT=10,
        OUTBOX_BACKOFF_SECONDS=0.2,
        OUTBOX_BACKOFF_MAX_SECONDS=1.0,
    ):
        yield server
    server.stop()


@pytest.fixture
def celery_eager():
    """Run Celery tasks in-process (``delay`` executes immediately) for the test."""
    from config.celery import app

    old = (app.conf.task_always_eager, app.conf.task_eager_propagates)
    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    yield app
    app.conf.task_always_eager, app.conf.task_eager_propagates = old


@pytest.fixture
def people():
    """(Needs a database: the tests mark it.) A club with an owner, and four members with email addresses (one reads English)."""
    from clubs.models import Club, Membership, Role, User

    club = Club.objects.create(name="南通保二俱乐部", slug="nantong")
    users = [
        User.objects.create_user(
            username=f"r{i}", email=f"r{i}@example.com", language="en" if i == 0 else "zh-hans"
        )
        for i in range(4)
    ]
    Membership.objects.bulk_create(Membership(club=club, user=u, role=Role.MEMBER) for u in users)
    return club, users
