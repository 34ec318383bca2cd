"""A correction of a Swiss round while the next round is paired and not started (issue 45,
item 4: "later pairings that have not started ... follow"): the round is paired again from the
corrected standings, exactly as if the result had been right from the start; a pairing the
correction does not change keeps the organiser's edits; a round that has started keeps its
pairing."""

from datetime import timedelta

import pytest

from tournaments.models import Round, RoundStatus
from tournaments.services import results as result_services
from tournaments.services import rounds as round_services
from tournaments.services import schedule as schedule_services
from tournaments.services import setup as setup_services

from .test_tournament_services import START, make_tournament, register_pairs

pytestmark = pytest.mark.django_db

#: Round 1's four games as (side 0's level, side 1's level): side 0 wins each, by 10, 8, 6, 4.
ROUND1 = [(12, 2), (10, 2), (8, 2), (6, 2)]


def _swiss_after_round1(club, admin, people, results):
    """An in-person Swiss of the pairs of ``people`` whose round 1 ended with ``results`` (in
    game order) and whose round 2 is paired, not started."""
    t = make_tournament(club, admin, start_when_ready=False)
    setup_services.publish(admin, t, now=START - timedelta(days=1))
    register_pairs(t, people)
    schedule_services.tick(START)
    r1 = Round.objects.get(tournament=t, number=1)
    for game, (a, b) in zip(r1.games.order_by("number"), results, strict=True):
        result_services.set_result(admin, game, a, b, now=START)
    schedule_services.tick(START + timedelta(minutes=5))
    r1.refresh_from_db()
    assert r1.status == RoundStatus.FINISHED
    round_services.pair_next_round(admin, t, now=START + timedelta(minutes=6))
    return t


def _pairing(t, number):
    """Round ``number``'s games as the first players of their sides (entries differ between
    tournaments, their players do not)."""
    first = {e.pk: e.player1_id for e in t.entries.all()}
    rnd = Round.objects.get(tournament=t, number=number)
    return [
        (tuple(first[u] for u in g.side0), tuple(first[u] for u in g.side1))
        for g in rnd.games.order_by("number")
    ]


def test_a_paired_round_follows_a_correction_as_if_the_result_had_been_right(
    club, club_admin, members
):
    people = members(16)
    t = _swiss_after_round1(club, club_admin, people, ROUND1)
    before = _pairing(t, 2)
    r2_id = Round.objects.get(tournament=t, number=2).pk
    # the first game's result was the other way round
    game = Round.objects.get(tournament=t, number=1).games.get(number=1)
    result_services.set_result(club_admin, game, 2, 12, now=START + timedelta(minutes=7))
    after = _pairing(t, 2)
    assert after != before
    r2 = Round.objects.get(tournament=t, number=2)
    assert r2.pk == r2_id and r2.status == RoundStatus.PAIRED
    # the same pairing as an event whose round 1 had that result from the start
    right = _swiss_after_round1(club, club_admin, people, [(2, 12), *ROUND1[1:]])
    assert after == _pairing(right, 2)


def test_a_pairing_the_correction_leaves_as_it_was_keeps_the_organisers_swap(
    club, club_admin, members
):
    people = members(16)
    t = _swiss_after_round1(club, club_admin, people, ROUND1)
    r2 = Round.objects.get(tournament=t, number=2)
    games = list(r2.games.order_by("number"))
    a, b = games[0].side0[0], games[1].side0[0]
    round_services.swap_entries(club_admin, r2, a, b)
    swapped = _pairing(t, 2)
    ids = sorted(r2.games.values_list("pk", flat=True))
    # the top game won by 9 instead of 10: the same order, so the same pairing
    game = Round.objects.get(tournament=t, number=1).games.get(number=1)
    result_services.set_result(club_admin, game, 11, 2, now=START + timedelta(minutes=7))
    assert _pairing(t, 2) == swapped
    assert sorted(r2.games.values_list("pk", flat=True)) == ids
    assert any(n["code"] == "edited" for n in r2.games.get(number=1).notes)


def test_a_round_that_has_started_keeps_its_pairing(club, club_admin, members):
    people = members(16)
    t = _swiss_after_round1(club, club_admin, people, ROUND1)
    round_services.start_round(club_admin, t, now=START + timedelta(minutes=7))
    before = _pairing(t, 2)
    game = Round.objects.get(tournament=t, number=1).games.get(number=1)
    result_services.set_result(club_admin, game, 2, 12, now=START + timedelta(minutes=8))
    assert _pairing(t, 2) == before
    assert Round.objects.get(tournament=t, number=2).status == RoundStatus.PLAYING
