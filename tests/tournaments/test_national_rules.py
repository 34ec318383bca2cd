"""Events run by the national rules (issue 45): 场分 and 级分 stored with each result and
ranked in the rules' order, forfeits 18:0, the scoring refused where it cannot apply, and a
double elimination played to the end by the schedule with a correction on the way."""

from datetime import timedelta

import pytest

from tournaments import brackets, selectors
from tournaments.models import Game, GameSource, GameStatus, Round, TournamentStatus
from tournaments.services import results as result_services
from tournaments.services import schedule as schedule_services
from tournaments.services import setup as setup_services
from tournaments.services.errors import NotAllowed, TournamentError

from .test_tournament_services import START, make_tournament, register_pairs


def test_a_national_rules_swiss_scores_grade_points(club, club_admin, members):
    people = members(8)
    t = make_tournament(club, club_admin, variant="guandan", rounds_planned=2)
    setup_services.update_tournament(club_admin, t, scoring="national")
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    register_pairs(t, people)
    t.refresh_from_db()
    assert selectors.tiebreaks_of(t) == [
        "match_points",
        "grade_points",
        "head_to_head_grades",
        "opponent_grades",
    ]
    schedule_services.tick(START)
    first, second = Round.objects.get(tournament=t, number=1).games.order_by("number")
    # side 0 passed A against 7: 过A:7 is 21:5 on the 26-point table
    result_services.set_result(club_admin, first, 12, 5, now=START)
    # equal levels when the time ran out: 13:13 and one 场分 each
    result_services.set_result(club_admin, second, 6, 6, now=START)
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.grade0, first.grade1) == (21, 5)
    assert (second.grade0, second.grade1) == (13, 13)
    lines = {line.entry.pk: line.row for line in selectors.standings(t)}
    assert lines[first.side0[0]].values["match_points"] == 2
    assert lines[first.side0[0]].values["grade_points"] == 21
    assert lines[second.side0[0]].values["match_points"] == 1
    assert lines[first.side1[0]].values["grade_points"] == 5
    # side 0 of a round-2 game forfeits: 2:0 场分 and 18:0 级分 for side 1
    schedule_services.tick(START + timedelta(minutes=1))
    r2 = Round.objects.get(tournament=t, number=2)
    game = r2.games.order_by("number").first()
    result_services.finish_game(game, 0, 0, 1, GameSource.FORFEIT, START + timedelta(minutes=2))
    game.refresh_from_db()
    assert (game.grade0, game.grade1) == (0, 18)
    # a correction stores the new 级分 with it: an organiser's winner at A passed it, 10:过A
    result_services.set_result(club_admin, first, 8, 12, now=START + timedelta(minutes=3))
    first.refresh_from_db()
    assert (first.grade0, first.grade1, first.winner) == (8, 18, 1)
    assert selectors.game_json(first, {})["grades"] == [8, 18]
    lines = {line.entry.pk: line.row for line in selectors.standings(t)}
    unit = first.side1[0]
    in_round_2 = 0 if unit not in game.side0 + game.side1 else (18 if unit in game.side1 else 0)
    assert lines[unit].values["grade_points"] == 18 + in_round_2
    assert lines[game.side1[0]].values["match_points"] >= 2


def test_bao2_keeps_its_own_levels_under_the_national_rules(club, club_admin, members):
    people = members(4)
    t = make_tournament(club, club_admin, variant="bao2", rounds_planned=1)
    setup_services.update_tournament(club_admin, t, scoring="national")
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    register_pairs(t, people)
    schedule_services.tick(START)
    game = Round.objects.get(tournament=t, number=1).games.get()
    result_services.set_result(club_admin, game, 23, 9, winner=0, now=START)
    game.refresh_from_db()
    assert (game.grade0, game.grade1) == (14, -14)  # the level difference on 0–23


def test_the_scoring_is_refused_where_it_cannot_apply(club, club_admin, members):
    people = members(4)
    points = make_tournament(club, club_admin, variant="shuangkou2", unit_kind="single")
    with pytest.raises(TournamentError) as err:
        setup_services.update_tournament(club_admin, points, scoring="national")
    assert err.value.code == "bad_scoring"
    assert err.value.fields == {  # beside the scoring, in the organiser's words
        "scoring": ["国家规则只用于按级数定胜负的项目：保2和掼蛋。"]
    }
    t = make_tournament(club, club_admin, variant="guandan")
    for bad in ["", "fifa", None, 3]:
        with pytest.raises(TournamentError) as err:
            setup_services.update_tournament(club_admin, t, scoring=bad)
        assert err.value.code == "bad_scoring"
    with pytest.raises(NotAllowed):
        setup_services.update_tournament(people[0], t, scoring="national")
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    register_pairs(t, people)
    schedule_services.tick(START)
    with pytest.raises(TournamentError) as err:
        setup_services.update_tournament(club_admin, t, scoring="national")
    assert err.value.code == "started"
    assert err.value.message == "第一轮编排后，计分方式不能再更改。"
    t.refresh_from_db()
    assert t.scoring == "club"


def play_round(admin, t, number, now, pick=lambda g: 0):
    rnd = Round.objects.get(tournament=t, number=number)
    for game in rnd.games.exclude(status=GameStatus.BYE).order_by("number"):
        winner = pick(game)
        scores = (10, 4) if winner == 0 else (4, 10)
        result_services.set_result(admin, game, *scores, now=now)
    return rnd


def test_a_double_elimination_is_played_to_the_end(club, club_admin, members):
    people = members(12)
    t = make_tournament(club, club_admin, format="double_elim", start_when_ready=True)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    entries = register_pairs(t, people)
    total = brackets.rounds_of(6)
    assert selectors.total_rounds(t) == total == 6
    now = START
    schedule_services.tick(now)
    r1 = Round.objects.get(tournament=t, number=1)
    assert r1.games.filter(status=GameStatus.BYE).count() == 2  # seeds 1 and 2
    # the lower side wins every game of round 1 ...
    play_round(club_admin, t, 1, now, pick=lambda g: 1)
    now += timedelta(minutes=1)
    schedule_services.tick(now)
    r2 = Round.objects.get(tournament=t, number=2)
    assert r2.status == "playing"
    # ... then round 1's first played game is corrected: its other side goes on instead
    wrong = r1.games.exclude(status=GameStatus.BYE).order_by("slot").first()
    result_services.set_result(club_admin, wrong, 10, 4, now=now)
    in_r2 = {u for g in r2.games.all() for u in g.side0 + g.side1}
    assert wrong.side0[0] in in_r2 and wrong.side1[0] in in_r2  # one above, one below
    moved = [g for g in r2.games.all() if any(n["code"] == "bracket_corrected" for n in g.notes)]
    assert moved
    for number in range(2, total + 1):
        play_round(club_admin, t, number, now)
        now += timedelta(minutes=1)
        schedule_services.tick(now)
    t.refresh_from_db()
    assert t.status == TournamentStatus.FINISHED
    played = Game.objects.filter(round__tournament=t).exclude(status=GameStatus.BYE)
    assert played.count() == 2 * len(entries) - 2
    final = Game.objects.get(round__tournament=t, round__number=total)
    assert final.winner == 0
    bracket = selectors.double_bracket(t)
    assert [part["code"] for part in bracket] == ["W", "L", "F"]
    assert all(
        item["resolved"] is not None and item["resolved"].decided
        for part in bracket
        for stage in part["stages"]
        for item in stage
    )


def test_a_double_elimination_refuses_more_than_64_entries(club, club_admin, members):
    from tournaments.services import rounds as round_services

    t = make_tournament(club, club_admin, format="double_elim")
    assert round_services.DOUBLE_ELIMINATION_MAX == 64
    people = members(4)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    register_pairs(t, people)
    with pytest.raises(TournamentError):
        round_services.planned_games(t, 2)  # round 1 has no winners yet: round 2 waits


def test_a_knockout_is_seeded_by_an_earlier_stage(club, club_admin, members):
    """第二十六条: the knockout's seeds are the earlier stage's places, placed serpentine."""
    from tournaments.services import entries as entry_services

    people = members(8)
    swiss = make_tournament(club, club_admin, variant="guandan", rounds_planned=1)
    setup_services.publish(club_admin, swiss, now=START - timedelta(days=1))
    register_pairs(swiss, people)
    schedule_services.tick(START)
    games = list(Round.objects.get(tournament=swiss, number=1).games.order_by("number"))
    for game, scores in zip(games, [(12, 2), (5, 4)], strict=True):
        result_services.set_result(club_admin, game, *scores, now=START)
    schedule_services.tick(START + timedelta(minutes=1))
    schedule_services.tick(START + timedelta(hours=2))
    swiss.refresh_from_db()
    assert swiss.status == TournamentStatus.FINISHED
    places = [line.entry.user_ids for line in selectors.standings(swiss)]
    knockout = make_tournament(
        club,
        club_admin,
        variant="guandan",
        format="elimination",
        starts_at=START + timedelta(days=1),
    )
    with pytest.raises(TournamentError) as err:
        entry_services.seed_by_stage(club_admin, knockout, knockout)
    assert err.value.code == "bad_stage"
    setup_services.publish(club_admin, knockout, now=START)
    # the organiser registers the qualifiers, in the reverse order of their places
    for users in reversed(places):
        a, b = (u for u in people if u.pk in users)
        entry_services.register(club_admin, knockout, player=a, partner=b, now=START)
    seeded = entry_services.seed_by_stage(club_admin, knockout, swiss)
    assert [e.user_ids for e in seeded] == places
    with pytest.raises(NotAllowed):
        entry_services.seed_by_stage(people[0], knockout, swiss)
    # the same through the API: an unknown or out-of-range stage is refused
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(club_admin)
    url = f"/api/v1/tournaments/{knockout.pk}/seed-by-stage/"
    response = api.post(url, {"stage": swiss.pk}, format="json")
    assert response.status_code == 200
    assert [e["id"] for e in response.json()] == [e.pk for e in seeded]
    assert api.post(url, {"stage": 10**12}, format="json").status_code == 400
    assert api.post(url, {"stage": 999999}, format="json").status_code == 404
