"""Swiss pairing of a duplicate event (复式赛, issue 45): from round 2 entries are paired by
the duplicate score that ranks them (the comparison of the tables), not by match points —
the pure order, then a 4-pair Guandan event whose round 1 is played by bots on live tables
and whose round 2 the schedule pairs from the comparison."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from engine.match import Match as EngineMatch
from matches.models import Match
from matches.services import clock, presence
from tests.tournaments.test_duplicate import drive, make_event, register_pairs
from tests.tournaments.test_tournament_services import START
from tournaments import comparisons, pairing, selectors, standings
from tournaments.models import Round, RoundStatus
from tournaments.services import schedule as schedule_services
from tournaments.services import setup as setup_services
from tournaments.services.rounds import NOT_COMPARED, duplicate_pairing_order


def test_the_duplicate_score_brings_entries_together_not_the_match_points():
    units = [1, 2, 3, 4]
    points = {1: 2, 2: 0, 3: 2, 4: 0}  # 1 and 3 won their games
    scores = {1: 25.0, 2: 75.0, 3: 75.0, 4: 25.0}  # 2 and 3 did best with the cards
    ordered, paired_on = duplicate_pairing_order(units, points, scores)
    assert ordered == [1, 3, 2, 4] and paired_on == scores
    games = pairing.swiss_round(ordered, paired_on, pairing.History())
    assert {frozenset(g.units) for g in games} == {frozenset((3, 2)), frozenset((1, 4))}
    # by match points the winners would meet instead
    by_points = pairing.swiss_round(units, points, pairing.History())
    assert {frozenset(g.units) for g in by_points} == {frozenset((1, 3)), frozenset((2, 4))}
    # among equal duplicate scores the match points order; a unit not compared pairs at 50
    ordered, paired_on = duplicate_pairing_order([5, 6], {6: 2}, {})
    assert ordered == [6, 5] and paired_on == {5: NOT_COMPARED, 6: NOT_COMPARED}


@pytest.mark.integration
def test_round_two_of_a_duplicate_swiss_is_paired_by_the_comparison(
    transactional_db, club, club_admin, members, no_deadline_tasks, settings
):
    settings.MATCHES_BOT_DELAY_SECONDS = 0
    people = members(8)
    event = make_event(club, club_admin, rounds_planned=2, start_when_ready=True)
    setup_services.publish(club_admin, event, now=START - timedelta(days=1))
    register_pairs(event, people)
    schedule_services.tick(START)
    first = Round.objects.get(tournament=event, number=1)
    games = list(first.games.order_by("number").select_related("table"))
    assert len(games) == 2
    matches = [Match.objects.get(table=g.table) for g in games]
    for match in matches:
        for seat in range(4):
            presence.set_autoplay(match.pk, seat, "disconnect")
        drive(match.pk, lambda e: len(e.deal.log) >= 1)
    with time_machine.travel(timezone.now() + timedelta(minutes=1, seconds=1), tick=False):
        for match in matches:
            assert clock.apply_time_limit(match.pk)
    done = [drive(m.pk, lambda e: False) for m in matches]
    assert all(len(EngineMatch.from_json(m.snapshot).deals) == 1 for m in done)
    schedule_services.tick(START + timedelta(minutes=2))
    first.refresh_from_db()
    assert first.status == RoundStatus.FINISHED
    (deal,) = comparisons.round_comparison(first)
    assert deal.tables == (1, 2)
    scores = comparisons.scores(event, 1)
    assert sorted(scores) == sorted(u for g in games for u in g.side0 + g.side1)

    second = Round.objects.get(tournament=event, number=2)
    pairs = {frozenset(g.side0 + g.side1) for g in second.games.all()}
    met = {frozenset(g.side0 + g.side1) for g in games}
    assert not pairs & met  # nobody meets twice
    # the pairing the duplicate scores make (and the standings' first column is that score)
    lines = selectors.standings(event)
    assert [line.row.values["duplicate"] for line in lines] == sorted(scores.values(), reverse=True)
    records = selectors.records_of(list(first.games.all()))
    points = standings.match_points(records, selectors.points_of(event))
    history = pairing.History()
    for g in games:
        history.add(pairing.Game((tuple(g.side0), tuple(g.side1))))
    units = [e.pk for e in selectors.active_entries(event, first_round=False)]
    expected = pairing.swiss_round(*duplicate_pairing_order(units, points, scores), history)
    assert pairs == {frozenset(g.units) for g in expected}
