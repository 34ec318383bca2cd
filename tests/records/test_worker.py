"""The statistics' task with real processes: a Celery worker (4 threads, with beat) on a real
Redis broker and a fresh database (SQLite file; PostgreSQL in the second ./test run).

Every finished match's task is published twice (a redelivery); the worker is SIGKILLed while
it records them, so some tasks die unacknowledged, mid-transaction or not. A new worker's beat
sweep records what is left. Every match must then be recorded exactly once, and every tally
must equal the sum of its players' recorded facts: no match counted twice or by halves."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.outbox.conftest import smtp_server, worker_stack

pytestmark = pytest.mark.integration

HERE = Path(__file__).resolve().parent
COUNT = 60

CREATE = """
from celery import current_app
from clubs.models import Club, Membership, Role, User
from kit import engine_match, store_match
club = Club.objects.create(name="Worker club", slug="worker-club")
users = [User.objects.create_user(username=f"w{i}", email=f"w{i}@example.com") for i in range(6)]
Membership.objects.bulk_create(Membership(club=club, user=u, role=Role.MEMBER) for u in users)
pool = [engine_match("bao2", 3, 2), engine_match("guandan", 2, 2)]
ids = []
for n in range(%(count)d):
    four = [users[(n + k) %% 6] for k in range(4)]
    ids.append(store_match(pool[n %% 2], club, four, rated=bool(n %% 3)).pk)
for pk in ids + ids:  # each task twice: a redelivered task must change nothing
    current_app.send_task("records.tasks.record_match_task", (pk,))
out = ids
"""


def recorded(stack) -> int:
    """How many matches are recorded, read straight from the stack's database (a Python
    process with Django would take seconds to start)."""
    url = stack.env["DATABASE_URL"]
    sql = "SELECT COUNT(*) FROM records_matchrecord"
    if url.startswith("sqlite"):
        import sqlite3

        with sqlite3.connect(url.removeprefix("sqlite:///"), timeout=30) as db:
            return db.execute(sql).fetchone()[0]
    import psycopg

    with psycopg.connect(url) as db:
        return db.execute(sql).fetchone()[0]


CHECK = """
from collections import Counter, defaultdict
from records.models import MatchRecord, PlayerMatch, Tally
per_source = Counter(MatchRecord.objects.values_list("source_id", flat=True))
facts = defaultdict(Counter)
for user_id, counters in PlayerMatch.objects.values_list("user_id", "counters"):
    facts[user_id].update(counters)
tallies = defaultdict(Counter)
for user_id, counters in Tally.objects.filter(period="all", kind="total").values_list(
        "user_id", "counters"):
    tallies[user_id].update(counters)
out = {
    "twice": [s for s, n in per_source.items() if n != 1],
    "records": len(per_source),
    "players": PlayerMatch.objects.count(),
    "same": {str(u): dict(facts[u]) == dict(tallies[u]) for u in facts},
}
"""


@pytest.fixture
def stack():
    server = smtp_server.SmtpServer().start()
    stack = worker_stack.WorkerStack(server.port)
    stack.env["DJANGO_SETTINGS_MODULE"] = "records_worker_settings"
    stack.env["PYTHONPATH"] = os.pathsep.join([str(HERE), stack.env["PYTHONPATH"]])
    stack.start()
    yield stack
    stack.stop()
    server.stop()


def test_a_worker_killed_while_recording_leaves_every_match_recorded_once(stack):
    ids = stack.python(CREATE % {"count": COUNT})
    assert len(ids) == COUNT
    stack.start_worker()
    deadline = time.monotonic() + 180
    while recorded(stack) < 1:
        assert time.monotonic() < deadline, stack.log()[-3000:]
        time.sleep(0.05)
    stack.kill_worker()
    at_kill = recorded(stack)
    assert at_kill < COUNT, "the worker recorded everything before the kill: more matches"

    stack.start_worker()  # its beat sweep finds what the killed worker left
    try:
        deadline = time.monotonic() + 300
        while recorded(stack) < COUNT:
            assert time.monotonic() < deadline, stack.log()[-3000:]
            time.sleep(1)
        time.sleep(3)  # a task recording anything twice would do it now
    finally:
        stack.kill_worker()
    check = stack.python(CHECK)
    assert check["twice"] == [] and check["records"] == COUNT
    assert check["players"] == 4 * COUNT
    assert check["same"] and all(check["same"].values()), check["same"]
