"""Corrections followed by real processes: a Celery worker (4 threads, with beat) on a real
Redis broker and a database of its own (PostgreSQL in the servers' run).

Entered tournament results are recorded, then each is corrected (side 0's win turned into
side 1's) through the tournament's correction service, whose save publishes the statistics'
task on commit; every task is published a second time (a redelivery). The worker is SIGKILLed
while it follows them, so some tasks die unacknowledged, mid-transaction or not; a new
worker's beat sweep follows what is left. Every match must then hold its corrected outcome
exactly once, and every tally equal the sum of its players' recorded facts."""

from __future__ import annotations

import time

import pytest

from tests.records.test_worker import CHECK, stack  # noqa: F401  (the worker stack fixture)

pytestmark = pytest.mark.integration

COUNT = 80

CREATE = """
from celery import current_app
from django.utils import timezone
from clubs.models import Club, Membership, Role, User
from records import services
from tournaments.models import Entry, Game, GameSource, GameStatus, Round, RoundStatus, Tournament
from tournaments.services import results
club = Club.objects.create(name="Corrections club", slug="corrections-club")
users = [User.objects.create_user(username=f"c{i}", email=f"c{i}@example.com") for i in range(6)]
Membership.objects.bulk_create(Membership(club=club, user=u, role=Role.MEMBER) for u in users)
now = timezone.now()
ids = []
for n in range(%(count)d):
    four = [users[(n + k) %% 6] for k in range(4)]
    t = Tournament.objects.create(club=club, name=f"T{n}", variant="bao2", starts_at=now)
    rnd = Round.objects.create(tournament=t, number=1, scheduled_at=now, status=RoundStatus.FINISHED)
    a = Entry.objects.create(tournament=t, player1=four[0], player2=four[2])
    b = Entry.objects.create(tournament=t, player1=four[1], player2=four[3])
    game = Game.objects.create(
        round=rnd, number=1, side0=[a.pk], side1=[b.pk], status=GameStatus.FINISHED,
        source=GameSource.ADMIN, score0=5 + n %% 3, score1=2, winner=0, finished_at=now,
    )
    assert services.record_entered(f"t{game.pk}")
    ids.append(game.pk)
for pk in ids:  # each correction publishes its task on commit; published again: a redelivery
    game = Game.objects.get(pk=pk)
    results.correct_result(users[0], game, 1, 4 + pk %% 5, "记错了")
    current_app.send_task("records.tasks.follow_game_task", (pk,))
out = ids
"""

FOLLOWED = (
    "SELECT COUNT(*) FROM records_playermatch p JOIN records_matchrecord r ON r.id = p.record_id "
    "WHERE r.source = 'entered' AND p.seat = 0 AND p.outcome = 'lost'"
)

CORRECTED = """
from records.models import PlayerMatch
from tournaments.models import Game
wrong = []
for pk, score0, score1 in Game.objects.values_list("pk", "score0", "score1"):
    rows = {r.seat: r for r in PlayerMatch.objects.filter(record__source_id=f"t{pk}")}
    expected = {0: ("lost", score0), 1: ("won", score1), 2: ("lost", score0), 3: ("won", score1)}
    got = {s: (r.outcome, r.counters.get("levels_up", 0)) for s, r in rows.items()}
    if got != expected or rows[1].counters.get("won") != 1 or "won" in rows[0].counters:
        wrong.append(pk)
out = wrong
"""


def followed(stack) -> int:  # noqa: F811  (the fixture's value)
    """How many matches hold their corrected outcome, read straight from the database."""
    url = stack.env["DATABASE_URL"]
    if url.startswith("sqlite"):
        import sqlite3

        with sqlite3.connect(url.removeprefix("sqlite:///"), timeout=30) as db:
            return db.execute(FOLLOWED).fetchone()[0]
    import psycopg

    with psycopg.connect(url) as db:
        return db.execute(FOLLOWED).fetchone()[0]


def test_a_worker_killed_while_following_corrections_leaves_each_followed_once(stack):  # noqa: F811
    ids = stack.python(CREATE % {"count": COUNT})
    assert len(ids) == COUNT
    assert followed(stack) == 0
    stack.start_worker()
    deadline = time.monotonic() + 180
    while followed(stack) < 1:
        assert time.monotonic() < deadline, stack.log()[-3000:]
        time.sleep(0.02)
    stack.kill_worker()
    at_kill = followed(stack)
    assert at_kill < COUNT, "the worker followed everything before the kill: more matches"

    stack.start_worker()  # its tasks redelivered, and its beat sweep, follow what is left
    try:
        deadline = time.monotonic() + 300
        while followed(stack) < COUNT:
            assert time.monotonic() < deadline, stack.log()[-3000:]
            time.sleep(1)
        time.sleep(3)  # a task following anything twice would do it now
    finally:
        stack.kill_worker()
    assert stack.python(CORRECTED) == []
    check = stack.python(CHECK)
    assert check["twice"] == [] and check["records"] == COUNT
    assert check["players"] == 4 * COUNT
    assert check["same"] and all(check["same"].values()), check["same"]
