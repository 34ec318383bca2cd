"""What the schedule does next (``selectors.next_step``), read without changing anything; the
schedule's ``advance`` only does it (its effects are tested through ``tick`` in
test_tournament_services.py)."""

from datetime import timedelta

import pytest

from tests.tournaments.test_tournament_services import START, make_tournament
from tournaments import selectors
from tournaments.models import RoundStatus
from tournaments.services import entries as entry_services
from tournaments.services import results as result_services
from tournaments.services import rounds as round_services
from tournaments.services import setup as setup_services

pytestmark = pytest.mark.django_db


def _published(club, admin, people, **extra):
    t = make_tournament(club, admin, checkin_required=False, **extra)
    setup_services.publish(admin, t, now=START - timedelta(days=1))
    for a, b in zip(people[0::2], people[1::2], strict=True):
        entry_services.register(admin, t, player=a, partner=b, now=START - timedelta(hours=1))
    return t


def _step(t, now):
    t.refresh_from_db()
    step = selectors.next_step(t, t.rounds.order_by("-number").first(), now)
    return step.action, step.number


def test_round_one_waits_for_the_start_and_for_entries(club, club_admin, members):
    # round robin with nobody entered has no rounds yet: it waits for entries, not finishes
    empty = make_tournament(club, club_admin, checkin_required=False, format="round_robin")
    assert _step(empty, START + timedelta(hours=1)) == ("wait", 1)
    t = _published(club, club_admin, members(4))
    assert _step(t, START - timedelta(minutes=1)) == ("wait", 1)
    assert _step(t, START) == ("pair", 1)
    assert t.rounds.count() == 0  # reading changed nothing


def test_a_paired_round_starts_at_its_time_and_a_playing_one_is_waited_for(
    club, club_admin, members
):
    t = _published(club, club_admin, members(4))
    round_services.pair_next_round(club_admin, t, now=START - timedelta(minutes=10))
    assert _step(t, START - timedelta(minutes=1)) == ("wait", 1)
    assert _step(t, START) == ("start", 1)
    rnd = round_services.start_round(club_admin, t, now=START)
    assert rnd.status == RoundStatus.PLAYING
    assert _step(t, START + timedelta(hours=5)) == ("wait", 1)


def test_the_next_round_at_its_time_or_when_ready_and_the_end(club, club_admin, members):
    t = _published(club, club_admin, members(4), rounds_planned=2, start_when_ready=False)
    rnd = round_services.start_round(club_admin, t, now=START)
    result_services.set_result(club_admin, rnd.games.get(), 13, 7, None)
    rnd.status, rnd.finished_at = RoundStatus.FINISHED, START + timedelta(minutes=30)
    rnd.save(update_fields=["status", "finished_at"])
    assert _step(t, START + timedelta(minutes=30)) == ("wait", 2)  # round 2 is due at 10:00
    assert _step(t, START + timedelta(minutes=60)) == ("pair", 2)
    t.start_when_ready = True
    t.save(update_fields=["start_when_ready"])
    assert _step(t, START + timedelta(minutes=30)) == ("pair", 2)
    second = round_services.start_round(club_admin, t, now=START + timedelta(minutes=60))
    result_services.set_result(club_admin, second.games.get(), 7, 13, None)
    second.status = RoundStatus.FINISHED
    second.save(update_fields=["status"])
    assert _step(t, START + timedelta(minutes=90)) == ("finish", 3)
