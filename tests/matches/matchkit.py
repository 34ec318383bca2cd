"""Helpers shared by the live-play tests (and the ladder's concurrency tests)."""

import threading

from django.db import connections

from clubs.models import User
from engine.match import Match as EngineMatch
from matches import store
from matches.models import Match
from matches.services import clock, presence, tables


def make_user(username, **extra):
    return User.objects.create_user(username=username, password="pw-Secret-123", **extra)


def full_match(club, players, variant="bao2"):
    """Open a table of ``variant`` and seat the four ``players``: its match starts."""
    table = tables.open_table(players[0], club, variant=variant)
    for i in (1, 2, 3):
        tables.take_seat(players[i], table, i)
    return Match.objects.get(table=table)


def assert_replays(match):
    match.refresh_from_db()
    seqs = list(match.events.order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, match.version + 1))
    replayed = store.replay_events(match)
    stored = EngineMatch.from_json(match.snapshot)
    assert replayed.state_json() == stored.state_json()
    assert [a.to_compact() for a in replayed.log] == match.snapshot["actions"]
    assert (match.status == "finished") == replayed.over


def run_until_over(match_id, limit=5000):
    """Drive a match whose seats are all bots / auto-play by forcing deadlines."""
    for _ in range(limit):
        # only the three fields asked: the whole row (its snapshot) is read when it is over
        status, version, deadline_version = Match.objects.values_list(
            "status", "version", "deadline_version"
        ).get(pk=match_id)
        if status == "finished":
            return Match.objects.get(pk=match_id)
        assert deadline_version == version
        clock.act_on_deadline(match_id, version, force=True)
    raise AssertionError("match did not finish")


def play_out(match):
    """Leave every seat of ``match`` to auto-play (as players who disconnected) and drive it
    to its end (:func:`run_until_over`)."""
    for seat in range(len(match.seats)):
        presence.set_autoplay(match.pk, seat, "disconnect")
    return run_until_over(match.pk)


def at_once(task, count=4):
    """Run ``task()`` in ``count`` threads released together; return (results, errors). Each
    thread closes its database connections when done."""
    barrier = threading.Barrier(count)
    results, errors = [], []

    def worker():
        try:
            barrier.wait()
            results.append(task())
        except Exception as error:  # pragma: no cover - reported to the caller
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results, errors
