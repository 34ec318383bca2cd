"""An appeal's corrected result of a game rated from its confirmed score sheet (issue 45,
item 4: "ratings follow exactly once"): the sheet's rating takes the corrected scores, each
side's to its own players, whichever way round the sheet was kept."""

from datetime import timedelta

import pytest
import time_machine

from ladder.models import RatedResult
from tournaments.models import GameStatus, Round
from tournaments.services import results as result_services
from tournaments.services import schedule as schedule_services
from tournaments.services import setup as setup_services

from .test_tournament_services import START, make_tournament, register_pairs, score_on_sheet

pytestmark = pytest.mark.django_db


def test_a_corrected_sheet_rated_game_corrects_the_sheets_rating(club, club_admin, members):
    people = members(8)
    t = make_tournament(club, club_admin, rated=True)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    entries = {e.pk: e for e in register_pairs(t, people)}
    schedule_services.tick(START)
    rnd = Round.objects.get(tournament=t, number=1)
    games = list(rnd.games.filter(status=GameStatus.PLAYING).order_by("number"))
    assert len(games) == 2
    with time_machine.travel(START + timedelta(minutes=10), tick=False):
        for flipped, game in zip((False, True), games, strict=True):
            e0, e1 = entries[game.side0[0]], entries[game.side1[0]]
            if flipped:  # the second table kept its sheet with the game's side 1 first
                e0, e1 = e1, e0
            score_on_sheet(club, e0, e1)
    with time_machine.travel(START + timedelta(minutes=30), tick=False):
        schedule_services.tick(START + timedelta(minutes=30))
    sides_met = set()
    for game in games:
        game.refresh_from_db()
        assert game.sheet_id and game.score0 is not None
        rated = RatedResult.objects.get(source="sheet", source_id=str(game.sheet_id))
        side0 = {u.pk for e in game.side0 for u in (entries[e].player1, entries[e].player2)}
        own = rated.players.filter(side=0).values_list("user_id", flat=True)
        rated_side = 0 if set(own) == side0 else 1
        sides_met.add(rated_side)
        # the committee decides the game's side 0 won 12 : 4
        result_services.correct_result(club_admin, game, 12, 4, "记分错误")
        rated.refresh_from_db()
        scores = (rated.score0, rated.score1)
        assert scores == ((12, 4) if rated_side == 0 else (4, 12))
        assert rated.winning_side == rated_side
    assert sides_met == {0, 1}  # a sheet kept each way round
