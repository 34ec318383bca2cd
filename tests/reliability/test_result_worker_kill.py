"""Results with real processes: Celery workers (4 threads, with beat) on a real Redis broker and
a fresh database (SQLite file; PostgreSQL in the second ./test run), emailing a real SMTP
server (issue 20, items 9 and 10).

The workers are SIGKILLed while they apply results: held (by the test's cache) right after a
ladder of a result committed and before the next, so a result whose platform ladder a worker
had just committed is on one of its two ladders (each result has its own club, so no other
result's club ladder rebuild can bring it in). Their tasks stay unacknowledged (the broker would hand them out again
only after its visibility timeout, an hour): a new worker's beat sweep finds those results.
Every result must then be on every ladder exactly once, and every player's email must arrive
exactly once."""

from __future__ import annotations

import os
import time
from collections import Counter
from pathlib import Path

import pytest
import worker_stack

pytestmark = pytest.mark.integration

HERE = Path(__file__).resolve().parent
COUNT = 24

RECORD = """
import random
from datetime import timedelta
from django.utils import timezone
from clubs.models import Club, Membership, Role, User
from ladder import services
users = [User.objects.create_user(username=f"k{i}", email=f"kill-{i}@example.com")
         for i in range(8)]
rng = random.Random(20)
start = timezone.now() - timedelta(days=1)
out = []
for n in range(%(count)d):
    # a club per result: a club ladder's rebuild then brings in no other result
    club = Club.objects.create(name=f"Kill club {n}", slug=f"kill-{n}")
    four = rng.sample(users, 4)
    Membership.objects.bulk_create(Membership(club=club, user=u, role=Role.MEMBER) for u in four)
    result = services.record_result(  # commits, then publishes the apply task to the broker
        source="live", source_id=f"kill-{n}", variant="bao2",
        sides=[[four[0].pk, four[1].pk], [four[2].pk, four[3].pk]],
        scores=[23, rng.randint(2, 20)] if rng.random() < 0.5 else [rng.randint(2, 20), 23],
        ended_at=start + timedelta(minutes=rng.randint(0, 600)), club_id=club.pk,
    )
    out.append(result.pk)
"""

STATE = """
from django.db.models import Count
from ladder.models import Ladder, RatedResult, RatingChange
from outbox.models import OutboxMessage
ladders = {l.pk: l.club_id is None for l in Ladder.objects.all()}
on = {}
for result_id, ladder_id, n in (RatingChange.objects.values_list("result_id", "ladder_id")
                                .annotate(n=Count("id"))):
    on.setdefault(str(result_id), {})["platform" if ladders[ladder_id] else "club"] = n
out = {
    "on": on,
    "unclaimed": RatedResult.objects.filter(emails_sent_at__isnull=True).count(),
    "rows": list(OutboxMessage.objects.filter(key__startswith="result:")
                 .values_list("key", "status", "message_id")),
}
"""

CHECK = """
from collections import Counter
from ladder.apply import rebuild_ladder
from ladder.models import Ladder, Rating, ResultPlayer
out = {"ladders": Ladder.objects.count(), "same_as_replay": [], "matches_as_played": []}
for ladder in Ladder.objects.all():
    def snapshot():
        return sorted(Rating.objects.filter(ladder=ladder).values_list("user_id", "rating",
                                                                       "matches"))
    applied = snapshot()
    rebuild_ladder(ladder)
    out["same_as_replay"].append(applied == snapshot())
    players = ResultPlayer.objects.filter(result__club_id=ladder.club_id) if ladder.club_id \
        else ResultPlayer.objects.all()
    played = Counter(players.values_list("user_id", flat=True))
    out["matches_as_played"].append({u: m for u, _r, m in applied} == dict(played))
"""


@pytest.fixture
def stack(server):
    stack = worker_stack.WorkerStack(server.port)
    stack.env["DJANGO_SETTINGS_MODULE"] = "reliability_worker_settings"
    stack.env["PYTHONPATH"] = os.pathsep.join([str(HERE), stack.env["PYTHONPATH"]])
    stack.start()
    yield stack
    (stack.tmp / "hold-cache").unlink(missing_ok=True)
    stack.stop()


def held(stack) -> int:
    path = stack.tmp / "held"
    return len(path.read_text().splitlines()) if path.exists() else 0


def test_workers_killed_while_applying_leave_every_result_on_every_ladder_once(stack, server):
    (stack.tmp / "hold-cache").touch()
    result_ids = stack.python(RECORD % {"count": COUNT})
    assert len(result_ids) == COUNT
    stack.start_worker()
    deadline = time.monotonic() + 120
    while held(stack) < 4:  # every thread is held between two ladders of a result
        assert time.monotonic() < deadline, stack.log()[-3000:]
        time.sleep(0.1)
    stack.kill_worker()
    (stack.tmp / "hold-cache").unlink()
    at_kill = stack.python(STATE)
    half_applied = [r for r, on in at_kill["on"].items() if set(on) == {"platform"}]
    assert len(half_applied) >= 1, at_kill  # the kill left results on the platform ladder only
    assert at_kill["unclaimed"] == COUNT and at_kill["rows"] == []

    stack.start_worker()
    try:
        deadline = time.monotonic() + 240
        while True:
            state = stack.python(STATE)
            rows = state["rows"]
            if (
                state["unclaimed"] == 0
                and len(rows) == 4 * COUNT
                and all(status == "sent" for _k, status, _m in rows)
            ):
                break
            assert time.monotonic() < deadline, (state, stack.log()[-3000:])
            time.sleep(1)
        time.sleep(2)  # anything sent twice would arrive now
    finally:
        stack.kill_worker()

    # every result on both its ladders, once: 4 rating changes on each
    assert set(state["on"]) == {str(r) for r in result_ids}
    assert all(on == {"platform": 4, "club": 4} for on in state["on"].values()), state["on"]
    check = stack.python(CHECK)
    assert check == {
        "ladders": 1 + COUNT,  # the platform ladder and each result's club ladder
        "same_as_replay": [True] * (1 + COUNT),
        "matches_as_played": [True] * (1 + COUNT),
    }
    # every player's email about every result arrived once
    received = Counter(r.message_id for r in server.received if r.to.startswith("kill-"))
    assert sorted(received.values()) == [1] * (4 * COUNT)
    assert set(received) == {m for _k, _s, m in rows}
    per_result = Counter(key.split(":")[1] for key, _s, _m in rows)
    assert per_result == {str(r): 4 for r in result_ids}
