"""A forfeit the organiser rules with the levels at the stop (第十六条四: "比赛中止时，判负方
场分为 0 分，级分为 0 分；对方场分 2 分，级分 18 分，如果其对手的级分差已超过 18 分的，按其实际级分
计算"): the pure scoring from the rule's text, then the service and the API on the database —
every problem refused at once by field, nothing changed; 18:0, or the game as it stood."""

from datetime import timedelta

import pytest
from rest_framework.test import APIClient

from tournaments import scoring
from tournaments.models import GameSource, GameStatus, Round
from tournaments.scoring import BAO2, GUANDAN
from tournaments.services import entries as entry_services
from tournaments.services import forfeits as forfeit_services
from tournaments.services import rounds as round_services
from tournaments.services import setup as setup_services
from tournaments.services.errors import NotAllowed, TournamentError

from .test_tournament_services import START, make_tournament, register_pairs

# Guandan level indexes: 0 = 2, 5 = 7, 6 = 8, 11 = K, 12 = A
TWO, FIVE, SEVEN, EIGHT, KING, ACE = 0, 3, 5, 6, 11, 12


@pytest.mark.parametrize(
    ("stop", "winner", "grades", "why"),
    [
        ((SEVEN, FIVE), 0, (18, 0), "two levels ahead (15:11): under 18, so 18:0"),
        ((TWO, TWO), 1, (0, 18), "nothing played yet: 18:0 for the side that did not forfeit"),
        ((SEVEN, TWO), 0, (18, 0), "exactly 18 (18:8) does not exceed 18: 18:0"),
        ((EIGHT, TWO), 0, (19, 7), "19:7 exceeds 18: the game counts as it stood"),
        ((TWO, KING), 1, (2, 24), "24:2 for side 2 at K: as it stood"),
        ((ACE, TWO), 1, (0, 18), "the side that forfeits was ahead (A against 2): 18:0"),
    ],
)
def test_guandan_forfeit_scores_from_the_levels_at_the_stop(stop, winner, grades, why):
    assert scoring.grades_of(GUANDAN, stop, winner, forfeit=True) == grades, why
    # 场分: 2 to the winner, 0 to the side that forfeited
    assert scoring.match_points(grades[winner], grades[1 - winner]) == scoring.WIN


def test_bao2_forfeit_keeps_its_own_scale_whatever_the_levels_at_the_stop():
    assert scoring.grades_of(BAO2, (20, 3), 0, forfeit=True) == (23, -23)
    assert scoring.grades_of(BAO2, (20, 3), 1, forfeit=True) == (-23, 23)


# --------------------------------------------------------------------------- the database


def started(club, club_admin, members, **extra):
    t = make_tournament(club, club_admin, **extra)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    if t.unit_kind == "single":
        for person in members(2):
            entry_services.register(person, t, now=START - timedelta(hours=1))
    else:
        register_pairs(t, members(4))
    round_services.start_round(club_admin, t, START)
    return t, Round.objects.get(tournament=t, number=1).games.get()


@pytest.mark.django_db
def test_the_service_and_the_api_rule_a_forfeit_with_the_levels_at_the_stop(
    club, club_admin, members
):
    t, game = started(club, club_admin, members, variant="guandan", scoring="national")
    player = t.entries.get(pk=game.side0[0]).player1
    # a player may not rule it
    with pytest.raises(NotAllowed):
        forfeit_services.rule_forfeit(player, game, {"forfeiting": 0, "stop0": 1, "stop1": 1})
    # three problems at once, each naming its field; nothing changes
    with pytest.raises(TournamentError) as refused:
        forfeit_services.rule_forfeit(
            club_admin, game, {"forfeiting": "2", "stop0": "13", "stop1": "x"}
        )
    assert set(refused.value.fields) == {"forfeiting", "stop0", "stop1"}
    text = refused.value.message
    assert text.count(":") >= 3 or text.count("：") >= 3
    game.refresh_from_db()
    assert game.status != GameStatus.FINISHED and game.grade0 is None
    # side 2 forfeits while side 1 is at 8 and side 2 at 2: 19:7 counts as it stood
    forfeit_services.rule_forfeit(
        club_admin, game, {"forfeiting": "1", "stop0": str(EIGHT), "stop1": str(TWO)}
    )
    game.refresh_from_db()
    assert game.status == GameStatus.FINISHED and game.source == GameSource.FORFEIT
    assert game.winner == 0 and (game.grade0, game.grade1) == (19, 7)
    note = [n for n in game.notes if n["code"] == forfeit_services.FORFEIT_STOP]
    assert len(note) == 1 and note[0]["detail"]["shown"] == "8 : 2"

    # the API: refused by field all at once (in Chinese), then 18:0 for a narrow lead
    api = APIClient()
    api.force_authenticate(club_admin)
    url = f"/api/v1/tournament-games/{game.pk}/forfeit/"
    bad = api.post(
        url, {"forfeiting": None, "stop0": -1}, format="json", HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert bad.status_code == 400, bad.content
    body = bad.json()
    assert {"forfeiting", "stop0", "stop1"} <= set(body)
    # each sentence names its field in the organiser's language
    assert "被判负方：" in body["detail"] and body["detail"].count("中止时的级数：") == 2
    side1 = " / ".join(t.entries.get(pk=pk).name for pk in game.side1)
    assert f"{side1} 中止时的级数：" in body["detail"]  # the side by its names, as the form
    game.refresh_from_db()
    assert (game.grade0, game.grade1) == (19, 7)
    outsider = APIClient()
    outsider.force_authenticate(player)
    assert (
        outsider.post(url, {"forfeiting": 0, "stop0": 0, "stop1": 0}, format="json").status_code
        == 403
    )
    ok = api.post(url, {"forfeiting": 0, "stop0": SEVEN, "stop1": FIVE}, format="json")
    assert ok.status_code == 200, ok.content
    game.refresh_from_db()
    assert game.winner == 1 and (game.grade0, game.grade1) == (0, 18)
    notes = [n for n in game.notes if n["code"] == forfeit_services.FORFEIT_STOP]
    assert len(notes) == 1 and notes[0]["detail"]["levels"] == [SEVEN, FIVE]


@pytest.mark.django_db
def test_a_point_game_is_refused_the_forfeit_with_levels(club, club_admin, members):
    t, game = started(
        club, club_admin, members, variant="shuangkou2", unit_kind="single", checkin_required=False
    )
    with pytest.raises(TournamentError) as refused:
        forfeit_services.rule_forfeit(club_admin, game, {"forfeiting": 0, "stop0": 0, "stop1": 0})
    assert refused.value.code == "no_levels"
