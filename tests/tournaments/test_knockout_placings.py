"""A knockout's final placings on the database (tournaments.placings through the selectors):
an 8-pair single elimination and a 16-pair double elimination played to the end by the
schedule, their standings ranked by the bracket on the page, in the CSV and the API, partial
placings while they run, and a next stage seeded from them."""

from collections import Counter
from datetime import timedelta

from django.test import Client
from django.utils import translation
from rest_framework.test import APIClient

from tournaments import exports, selectors, standings
from tournaments.models import GameStatus, Round, TournamentStatus
from tournaments.services import results as result_services
from tournaments.services import schedule as schedule_services
from tournaments.services import setup as setup_services
from tournaments.services import stages as stage_services

from .test_tournament_services import START, make_tournament, register_pairs


def play(admin, t, number, now, pick=lambda g: 0, scores=lambda g: (10, 4)):
    for game in Round.objects.get(tournament=t, number=number).games.exclude(status=GameStatus.BYE):
        a, b = scores(game)
        winner = pick(game)
        result_services.set_result(admin, game, *((a, b) if winner == 0 else (b, a)), now=now)


def labels(t):
    return [
        (line.entry.pk, "in play" if line.placing.in_play else line.placing.label)
        for line in selectors.standings(t)
    ]


def test_an_eight_pair_single_elimination_is_ranked_by_its_bracket(club, club_admin, members):
    people = members(16)
    t = make_tournament(club, club_admin, format="elimination", start_when_ready=True)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    entries = register_pairs(t, people)
    seed = {e.pk: i + 1 for i, e in enumerate(entries)}  # registration order is the seeding
    now = START
    schedule_services.tick(now)
    assert selectors.knockout_placings(t) == {} or all(
        p.in_play for p in selectors.knockout_placings(t).values()
    )
    # round 1: the better seed wins (side 0), with big margins for the lower seeds' games
    play(club_admin, t, 1, now)
    now += timedelta(minutes=1)
    schedule_services.tick(now)
    partial = labels(t)
    assert [label for _pk, label in partial] == ["in play"] * 4 + ["5–8"] * 4
    assert {seed[pk] for pk, _ in partial[:4]} == {1, 2, 3, 4}
    # the semi-finals: the lower seed wins the first, by a wide margin; then the final
    play(club_admin, t, 2, now, pick=lambda g: 1 if g.number == 1 else 0)
    now += timedelta(minutes=1)
    schedule_services.tick(now)
    play(club_admin, t, 3, now)
    now += timedelta(minutes=1)
    schedule_services.tick(now)
    t.refresh_from_db()
    assert t.status == TournamentStatus.FINISHED
    final = labels(t)
    assert [label for _pk, label in final] == ["1", "2", "3–4", "3–4"] + ["5–8"] * 4
    champion = selectors.winner_entry(Round.objects.get(tournament=t, number=3).games.get())
    assert final[0][0] == champion
    assert [line.row.place for line in selectors.standings(t)] == [1, 2, 3, 3, 5, 5, 5, 5]
    # the page: a final placings section and the bands in the table
    page = Client().get(f"/tournaments/{t.pk}/standings/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    html = page.content.decode()
    assert page.status_code == 200 and 'id="placings"' in html and "最终名次" in html
    assert html.count('<span class="place">3–4</span>') == 2
    # the printable page too, and after round 1 the bands then
    printed = Client().get(f"/tournaments/{t.pk}/print/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert printed.content.decode().count('data-label="#">3–4</td>') == 2
    after_1 = Client().get(f"/tournaments/{t.pk}/print/?round=1", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert after_1.content.decode().count('data-label="#">仍在比赛</td>') == 4
    # the CSV and the API say the same
    with translation.override("en"):
        csv = exports.standings_csv(t, {k: k for k in standings.TIEBREAKS}).splitlines()
    assert [row.split(",", 1)[0] for row in csv[1:]] == [label for _pk, label in final]
    api = APIClient().get(f"/api/v1/tournaments/{t.pk}/standings/").json()
    assert [row["entry"] for row in api] == [pk for pk, _ in final]
    assert [row["placing"]["label"] for row in api] == [label for _pk, label in final]
    assert api[2]["placing"] == {"first": 3, "last": 4, "label": "3–4", "in_play": False}
    # a next stage takes the best four by these placings
    chosen = stage_services.qualifiers(t, 4)
    assert [q.entry.pk for q in chosen] == [pk for pk, _ in final[:4]]
    stage = stage_services.create_next_stage(
        club_admin, t, format="swiss", qualifiers_count=4, now=now
    )
    seeded = list(stage.entries.order_by("seed", "id"))
    assert [e.user_ids for e in seeded] == [
        next(e for e in entries if e.pk == pk).user_ids for pk, _ in final[:4]
    ]


def test_a_sixteen_pair_double_elimination_is_ranked_by_where_each_went_out(
    club, club_admin, members
):
    people = members(32)
    t = make_tournament(club, club_admin, format="double_elim", start_when_ready=True)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    register_pairs(t, people)
    total = selectors.total_rounds(t)
    assert total == 8
    now = START
    schedule_services.tick(now)
    for number in range(1, total + 1):
        # side 0 wins, but the losers' champion takes the final
        side = 1 if number == total else 0
        play(club_admin, t, number, now, pick=lambda g, side=side: side)
        now += timedelta(minutes=1)
        schedule_services.tick(now)
        if number == 2:
            # losers' stage 1 played: its losers share 13–16, everyone else is in play
            found = labels(t)
            assert [label for _pk, label in found] == ["in play"] * 12 + ["13–16"] * 4
    t.refresh_from_db()
    assert t.status == TournamentStatus.FINISHED
    found = labels(t)
    assert [label for _pk, label in found] == (
        ["1", "2", "3", "4", "5–6", "5–6", "7–8", "7–8"] + ["9–12"] * 4 + ["13–16"] * 4
    )
    final = Round.objects.get(tournament=t, number=total).games.get()
    assert found[0][0] == final.side1[0] and found[1][0] == final.side0[0]
    # each entry out in the losers' bracket has the band of the stage it lost in
    by_stage = {}
    for part in selectors.double_bracket(t):
        if part["code"] != "L":
            continue
        for stage_items in part["stages"]:
            for item in stage_items:
                resolved = item["resolved"]
                if resolved.kind == "game":
                    by_stage.setdefault(item["slot"].stage, set()).add(resolved.loser)
    band = dict(found)
    assert Counter(len(v) for v in by_stage.values()) == Counter({4: 2, 2: 2, 1: 2})
    for stage, units in by_stage.items():
        assert len({band[u] for u in units}) == 1, stage
    api = APIClient().get(f"/api/v1/tournaments/{t.pk}/standings/").json()
    assert [row["placing"]["label"] for row in api] == [label for _pk, label in found]
    page = Client().get(f"/tournaments/{t.pk}/standings/", HTTP_ACCEPT_LANGUAGE="en")
    assert "Final placings" in page.content.decode()


def test_a_correction_that_undoes_a_best_of_three_final_makes_its_next_game(
    club, club_admin, members
):
    """第三十条: a corrected result in the finished final leaves its tie at one win each —
    the round is played again, its third game made as after an entered result, the placings
    back in play until it is decided, then final again."""
    people = members(4)
    t = make_tournament(
        club, club_admin, format="elimination", series="best3", start_when_ready=True
    )
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    first_pair, second_pair = register_pairs(t, people)
    now = START
    schedule_services.tick(now)
    rnd = Round.objects.get(tournament=t, number=1)
    (game1,) = rnd.games.all()
    result_services.set_result(club_admin, game1, 10, 4, now=now)
    (game2,) = rnd.games.filter(status=GameStatus.PLAYING)
    result_services.set_result(club_admin, game2, 10, 4, now=now)
    now += timedelta(minutes=1)
    schedule_services.tick(now)
    t.refresh_from_db()
    assert t.status == TournamentStatus.FINISHED
    won, lost = game1.side0[0], game1.side1[0]
    assert [(pk, label) for pk, label in labels(t)] == [(won, "1"), (lost, "2")]
    # the second game is corrected: one win each, so the tie is undecided again
    result_services.set_result(club_admin, game2, 4, 10, now=now)
    rnd.refresh_from_db()
    t.refresh_from_db()
    assert rnd.status == "playing" and t.status == TournamentStatus.RUNNING
    (game3,) = rnd.games.filter(status=GameStatus.PLAYING)
    assert game3.sides == game1.sides and game3.notes[0]["detail"]["game"] == 3
    assert [label for _pk, label in labels(t)] == ["in play", "in play"]
    # asked again (a second correction to the same result) makes no fourth game
    result_services.set_result(club_admin, game2, 4, 10, now=now)
    assert rnd.games.count() == 3
    result_services.set_result(club_admin, game3, 4, 10, now=now)
    now += timedelta(minutes=1)
    schedule_services.tick(now)
    t.refresh_from_db()
    assert t.status == TournamentStatus.FINISHED
    assert labels(t) == [(lost, "1"), (won, "2")]
    assert {first_pair.pk, second_pair.pk} == {won, lost}


def test_a_third_place_game_splits_the_semi_finals_band(club, club_admin, members):
    people = members(8)
    t = make_tournament(
        club, club_admin, format="elimination", third_place=True, start_when_ready=True
    )
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    register_pairs(t, people)
    now = START
    schedule_services.tick(now)
    play(club_admin, t, 1, now)
    now += timedelta(minutes=1)
    schedule_services.tick(now)
    # the semi-finals' losers play for third place: in play for 3–4 until it is decided
    assert [label for _pk, label in labels(t)] == ["in play"] * 4
    placed = selectors.knockout_placings(t)
    assert sorted((p.first, p.last) for p in placed.values()) == [(1, 2), (1, 2), (3, 4), (3, 4)]
    third = Round.objects.get(tournament=t, number=2).games.get(third_place=True)
    play(club_admin, t, 2, now, pick=lambda g: 1)  # the lower side wins both
    now += timedelta(minutes=1)
    schedule_services.tick(now)
    t.refresh_from_db()
    assert t.status == TournamentStatus.FINISHED
    found = labels(t)
    assert [label for _pk, label in found] == ["1", "2", "3", "4"]
    assert found[2][0] == third.side1[0] and found[3][0] == third.side0[0]
