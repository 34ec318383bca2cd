"""Fixtures of the reliability tests: the outbox tests' real SMTP server (aiosmtpd) and worker
stack (Redis, a fresh database, Celery workers as processes), Celery eager, people and a club."""

from __future__ import annotations

import pytest

# the outbox tests' SMTP server and worker stack (their conftest loads both helper modules)
from tests.outbox.conftest import smtp, smtp_server, worker_stack  # noqa: F401


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


@pytest.fixture
def server():
    """A bare SMTP server for a stack of processes to send to (not the test process's backend,
    which the ``smtp`` fixture sets)."""
    server = smtp_server.SmtpServer().start()
    yield server
    server.stop()
