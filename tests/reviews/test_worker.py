"""The review task with real processes: a Celery worker (4 threads, with beat) on a real Redis
broker and a fresh database (SQLite file; PostgreSQL in the second ./test run).

Every finished match's review task is published twice (a redelivery); the worker is SIGKILLed
while it reviews, so a claim is left running. A new worker's beat sweep takes the dead claim
over once its lease ran out. Every match must end with exactly one review, done, and a claim
the kill left must have been taken over (a second attempt), not given up or left running."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.outbox.conftest import smtp_server, worker_stack

pytestmark = pytest.mark.integration

HERE = Path(__file__).resolve().parent
COUNT = 4

CREATE = """
from celery import current_app
from clubs import services as club_services
from clubs.models import Membership, Role, User
from tests.reviews.conftest import finish_match
people = [User.objects.create_user(username=f"w{i}", email=f"w{i}@example.com") for i in range(4)]
club = club_services.create_club(people[0], name="Worker club")
for user in people[1:]:
    Membership.objects.create(club=club, user=user, role=Role.MEMBER)
ids = [finish_match(club, people, seed=f"worker{n}").pk for n in range(%(count)d)]
for pk in ids + ids:  # each task twice: a redelivered task must change nothing
    current_app.send_task("reviews.tasks.review_match_task", (pk,))
out = ids
"""

STATE = """
from reviews.models import MatchReview
out = list(MatchReview.objects.values_list("match_id", "status", "attempts"))
"""


@pytest.fixture
def stack():
    server = smtp_server.SmtpServer().start()
    stack = worker_stack.WorkerStack(server.port)
    stack.env["DJANGO_SETTINGS_MODULE"] = "reviews_worker_settings"
    stack.env["PYTHONPATH"] = os.pathsep.join([str(HERE), stack.env["PYTHONPATH"]])
    stack.start()
    yield stack
    stack.stop()
    server.stop()


def rows(stack):
    """The review rows straight from the stack's database: (match, status, attempts)."""
    url = stack.env["DATABASE_URL"]
    sql = "SELECT match_id, status, attempts FROM reviews_matchreview"
    if url.startswith("sqlite"):
        import sqlite3

        with sqlite3.connect(url.removeprefix("sqlite:///"), timeout=30) as db:
            return db.execute(sql).fetchall()
    import psycopg

    with psycopg.connect(url) as db:
        return db.execute(sql).fetchall()


def test_a_worker_killed_while_reviewing_leaves_every_match_reviewed_once(stack):
    ids = stack.python(CREATE % {"count": COUNT})
    assert len(ids) == COUNT
    stack.start_worker()
    deadline = time.monotonic() + 180
    while not any(status == "running" for _, status, _ in rows(stack)):
        assert time.monotonic() < deadline, stack.log()[-3000:]
        time.sleep(0.05)
    stack.kill_worker()
    at_kill = rows(stack)
    running = {match for match, status, _ in at_kill if status == "running"}
    assert running, at_kill

    stack.start_worker()  # its beat sweep takes the dead claims over after their lease
    try:
        deadline = time.monotonic() + 600
        while sum(status == "done" for _, status, _ in rows(stack)) < COUNT:
            assert time.monotonic() < deadline, (rows(stack), stack.log()[-3000:])
            time.sleep(1)
        time.sleep(3)  # a task reviewing anything again would do it now
    finally:
        stack.kill_worker()
    state = {match: (status, attempts) for match, status, attempts in stack.python(STATE)}
    assert sorted(state) == sorted(ids)
    assert all(status == "done" for status, _ in state.values()), state
    assert all(state[match][1] >= 2 for match in running), (running, state)
