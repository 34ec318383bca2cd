"""A match's end starts its review: live play's hook (matches.hooks.match_finished, called in
the finishing transaction as matches.services.play does) publishes the task, and a real Celery
worker (Redis broker, its own database) whose beat runs no sweep reviews it, once."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.outbox.conftest import smtp_server, worker_stack
from tests.reviews.test_worker import rows

pytestmark = pytest.mark.integration

HERE = Path(__file__).resolve().parent

FINISH = """
from django.db import transaction
from clubs import services as club_services
from clubs.models import Membership, Role, User
from matches import hooks
from tests.reviews.conftest import finish_match
people = [User.objects.create_user(username=f"e{i}", email=f"e{i}@example.com") for i in range(4)]
club = club_services.create_club(people[0], name="End club")
for user in people[1:]:
    Membership.objects.create(club=club, user=user, role=Role.MEMBER)
match = finish_match(club, people, seed="end1")
with transaction.atomic():  # as live play finishes a match
    hooks.match_finished(match.pk)
out = match.pk
"""


@pytest.fixture
def stack():
    server = smtp_server.SmtpServer().start()
    stack = worker_stack.WorkerStack(server.port)
    stack.env["DJANGO_SETTINGS_MODULE"] = "reviews_end_settings"
    stack.env["PYTHONPATH"] = os.pathsep.join([str(HERE), stack.env["PYTHONPATH"]])
    stack.start()
    yield stack
    stack.stop()
    server.stop()


def test_the_review_starts_at_the_matchs_end(stack):
    stack.start_worker()
    try:
        match_id = stack.python(FINISH)
        deadline = time.monotonic() + 300
        while not any(status == "done" for _, status, _ in rows(stack)):
            assert time.monotonic() < deadline, (rows(stack), stack.log()[-3000:])
            time.sleep(0.5)
    finally:
        stack.kill_worker()
    assert rows(stack) == [(match_id, "done", 1)]  # one claim, by the task of the end
