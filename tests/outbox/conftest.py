"""Fixtures of the outbox tests: a real SMTP server (aiosmtpd), Django's SMTP backend pointed at
it, Celery in eager mode for the in-process tests, and the worker stack for the SIGKILL tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from django.test import override_settings

from tests.ladder.conftest import (  # noqa: F401  (fixtures: a club, its admin and members)
    club,
    club_admin,
    make_users,
    members,
)

HERE = Path(__file__).resolve().parent


def _load(name: str):
    """Import a helper module of this folder (the folder is not a package on the path)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
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
def eager():
    """Celery in eager mode: a published message is delivered in-process at once (the
    in-process tests must not leave tasks on the session's broker)."""
    from config.celery import app

    old = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield app
    app.conf.task_always_eager = old


@pytest.fixture
def make_user(db):
    from clubs.models import User

    def make(name: str, **extra):
        extra.setdefault("email", f"{name}@example.com")
        return User.objects.create_user(username=name, **extra)

    return make
