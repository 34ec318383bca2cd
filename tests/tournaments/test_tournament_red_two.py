"""Nanping Red Two (南平红二) tournaments: individual Swiss events whose games are four players
each scored on their own points (partnerships change every deal), from live matches, score
sheets, organisers (web and API) and no-show forfeits; tables that keep players apart."""

import random
import uuid
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from rest_framework.test import APIClient

from tournaments import pairing, selectors, standings
from tournaments.models import Game, GameStatus, Round, TournamentStatus
from tournaments.services import entries as entry_services
from tournaments.services import results as result_services
from tournaments.services import schedule as schedule_services
from tournaments.services import setup as setup_services
from tournaments.services.errors import TournamentError

START = datetime(2030, 5, 1, 9, 0, tzinfo=UTC)


def red_two(club, admin, people, **extra):
    """A published Red Two tournament with ``people`` registered (no check-in needed)."""
    fields = {
        "name": "南平红二个人赛",
        "variant": "honger",
        "rounds_planned": 2,
        "starts_at": START,
        "registration_closes": START - timedelta(minutes=5),
        "online": False,
        "checkin_required": False,
        "match_options": {"deals": 1},
    }
    fields.update(extra)
    t = setup_services.create_tournament(admin, club, **fields)
    setup_services.publish(admin, t, now=START - timedelta(days=1))
    entries = {entry_services.register(p, t, now=START - timedelta(hours=1)).pk: p for p in people}
    return t, entries


def one_table(club, admin, people, **extra):
    """A Red Two tournament of four with its round 1 started at START: the tournament, its
    one game and the users in seat order."""
    t, entries = red_two(club, admin, people, **extra)
    with time_machine.travel(START, tick=False):
        schedule_services.tick(START)
    game = Game.objects.get(round__tournament=t)
    return t, game, [entries[e] for e in game.seat_entries]


def expected_standings(games, totals_of):
    """Match points and point totals computed here from each game's four totals: the most
    points wins (2), a shared top is a draw (1)."""
    points, diff = {}, {}
    for game in games:
        totals = totals_of(game)
        top = max(totals)
        leaders = [i for i, t in enumerate(totals) if t == top]
        for i, entry in enumerate(game.seat_entries):
            won = 2 if leaders == [i] else 1 if i in leaders else 0
            points[entry] = points.get(entry, 0) + won
            diff[entry] = diff.get(entry, 0) + totals[i]
    return points, diff


# --------------------------------------------------------------------------------- pure
def test_the_most_points_wins_a_shared_top_draws_and_a_forfeit_loses():
    win = standings.records_of_table([1, 2, 3, 4], [6, -2, -2, -2])
    assert [r.outcome for r in win] == ["win", "loss", "loss", "loss"]
    assert win[0].opponents == (2, 3, 4) and (win[0].score_for, win[0].score_against) == (6, 0)
    tied = standings.records_of_table([1, 2, 3, 4], [4, 4, -4, -4])
    assert [r.outcome for r in tied] == ["draw", "draw", "loss", "loss"]
    forfeit = standings.records_of_table([1, 2, 3, 4], [8, 0, -4, -4], forfeited=[0])
    assert [r.outcome for r in forfeit] == ["loss", "win", "loss", "loss"]
    rows = {r.unit: r for r in standings.standings([1, 2, 3, 4], win + tied)}
    assert rows[1].values["match_points"] == 3 and rows[1].values["level_diff"] == 10
    assert rows[1].values["buchholz"] == 0 + 1 + 0 + 1 + 0 + 0  # 2, 3, 4 then 2, 3, 4


@pytest.mark.parametrize("players,rounds", [(16, 3), (13, 4), (20, 2), (9, 3)])
def test_table_rounds_seat_everyone_once_and_keep_table_mates_apart(players, rounds):
    rng = random.Random(players)
    units = list(range(1, players + 1))
    history = pairing.History()
    records = []
    for number in range(rounds):
        scores = standings.match_points(records)
        games = pairing.table_round(units, scores, history)
        seated = sorted(u for g in games for u in g.units)
        assert seated == units
        tables = [g for g in games if not g.is_bye]
        assert len(tables) == players // 4 and all(len(g.units) == 4 for g in tables)
        byes = [g.units[0] for g in games if g.is_bye]
        assert all(history.byes[u] <= min(history.byes[v] for v in units) for u in byes)
        for g in tables:
            repeats = [
                n for n in g.notes if n.code == "repeat_tablemate" and set(n.units) <= set(g.units)
            ]
            met = sum(
                history.met[pairing._key(a, b)]
                for i, a in enumerate(g.units)
                for b in g.units[i + 1 :]
            )
            assert len(repeats) == sum(
                1
                for i, a in enumerate(g.units)
                for b in g.units[i + 1 :]
                if history.met[pairing._key(a, b)]
            )
            if players == 16 and number < 3:
                assert met == 0, "16 players meet 3 new players a round for 3 rounds"
            totals = [rng.randint(-8, 8) for _ in range(3)]
            records += standings.records_of_table(g.units, [*totals, -sum(totals)])
        records += [standings.Record(u, (), 0, 0, "bye") for u in byes]
        for g in games:
            history.add_table(g)


def test_a_repeated_table_mate_is_explained_in_both_languages():
    from django.utils import translation

    note = {"code": "repeat_tablemate", "units": [1, 2], "detail": {"times": 2}}
    with translation.override("zh-hans"):
        assert selectors.note_text(note) == "再次同桌（第 2 次）：没有其他可行的座位安排。"
    with translation.override("en"):
        assert "again (no. 2)" in selectors.note_text(note)


# --------------------------------------------------------------------------------- services
def test_red_two_is_an_individual_swiss_event(club, club_admin):
    t = setup_services.create_tournament(
        club_admin, club, name="红二", variant="honger", starts_at=START, rounds_planned=3
    )
    assert (t.unit_kind, t.format, t.per_seat) == ("individual", "swiss", True)
    for extra, code in (
        ({"unit_kind": "pair"}, "bad_unit_kind"),
        ({"format": "elimination"}, "bad_format"),
        ({"variant": "mahjong"}, "bad_variant"),
    ):
        with pytest.raises(TournamentError) as err:
            setup_services.create_tournament(
                club_admin,
                club,
                **{"name": "x", "variant": "honger", "starts_at": START, **extra},
            )
        assert err.value.code == code


@pytest.mark.integration
def test_red_two_online_rounds_played_by_bots_give_individual_standings(
    club, club_admin, members, no_deadline_tasks
):
    from matchkit import play_out

    from matches.models import Match

    people = members(9)
    t, entries = red_two(club, club_admin, people, online=True, rounds_planned=2)
    now = START
    for number in (1, 2):
        with time_machine.travel(now, tick=False):
            schedule_services.tick(now)
            rnd = Round.objects.get(tournament=t, number=number)
            games = list(rnd.games.order_by("number"))
            assert [g.status for g in games].count(GameStatus.BYE) == 1  # 9 = 2 tables + 1
            for game in games:
                if game.is_bye:
                    continue
                match = Match.objects.get(table_id=game.table_id)
                seats = [s["user"] for s in match.seats]
                assert seats == [entries[e].pk for e in game.seat_entries]
                play_out(match)
        now += timedelta(minutes=1)
    with time_machine.travel(now, tick=False):
        schedule_services.tick(now)
    t.refresh_from_db()
    assert t.status == TournamentStatus.FINISHED
    played = [g for g in Game.objects.filter(round__tournament=t) if not g.is_bye]
    assert all((g.status, g.source) == ("finished", "live") for g in played)
    for g in played:
        result = Match.objects.get(table_id=g.table_id).result
        assert g.seat_scores == result["score"] and g.score0 is None
    points, diff = expected_standings(played, lambda g: g.seat_scores)
    byes = [g.side0[0] for g in Game.objects.filter(round__tournament=t, status="bye")]
    for entry in byes:
        points[entry] = points.get(entry, 0) + 2
        diff.setdefault(entry, 0)
    lines = selectors.standings(t)
    assert {line.entry.pk: line.row.values["match_points"] for line in lines} == points
    assert {line.entry.pk: line.row.values["level_diff"] for line in lines} == diff
    first = played[0]
    rows = selectors.player_results(t, t.entries.get(pk=first.seat_entries[0]))
    mine = next(r for r in rows if r["game"].pk == first.pk)
    assert len(mine["opponents"]) == 3 and mine["partners"] == []
    assert mine["score"] == (first.seat_scores[0],)


def test_organisers_enter_each_players_points_on_the_web_and_the_api(
    client, club, club_admin, members
):
    t, game, seat_users = one_table(club, club_admin, members(4))
    api = APIClient()
    api.force_authenticate(seat_users[0])
    url = f"/api/v1/tournament-games/{game.pk}/result/"
    assert api.post(url, {"seat_scores": [6, -2, -2, -2]}, format="json").status_code == 403
    api.force_authenticate(club_admin)
    for body, code in (
        ({"seat_scores": [6, -2, -2, -1]}, "bad_score"),  # not zero-sum
        ({"score0": 3, "score1": 1}, "bad_score"),  # a side score is not a Red Two result
        ({"seat_scores": [1, -1, 0, 0], "forfeits": [7]}, None),
    ):
        answer = api.post(url, body, format="json")
        assert answer.status_code == 400
        if code:
            assert answer.json()["code"] == code
    game.refresh_from_db()
    assert (game.status, game.seat_scores) == ("playing", [])
    answer = api.post(url, {"seat_scores": [6, -2, -2, -2]}, format="json")
    assert answer.status_code == 200
    seats = answer.json()["seats"]
    assert [(s["score"], s["outcome"]) for s in seats] == [
        (6, "win"),
        (-2, "loss"),
        (-2, "loss"),
        (-2, "loss"),
    ]
    with pytest.raises(TournamentError) as err:
        result_services.set_result(club_admin, game, 3, 1)
    assert err.value.code == "per_seat"
    # the web form corrects it: the first player forfeited, the second has the most points
    client.force_login(club_admin)
    form = {"game": game.pk, "seat0": 4, "seat1": 2, "seat2": -3, "seat3": -3, "forfeit": "0"}
    answer = client.post(f"/tournaments/{t.pk}/do/result/", form)
    assert answer.status_code == 302
    game.refresh_from_db()
    assert (game.seat_scores, game.seat_forfeits, game.source) == ([4, 2, -3, -3], [0], "admin")
    rows = {line.entry.pk: line.row for line in selectors.standings(t)}
    assert rows[game.seat_entries[1]].wins == 1 and rows[game.seat_entries[0]].losses == 1
    page = client.get(f"/tournaments/{t.pk}/rounds/1/")
    assert page.status_code == 200
    text = page.content.decode()
    for user in seat_users:
        assert user.display_name in text or user.username in text
    assert "<strong" in text and ">2</strong>" in text
    entry_page = client.get(f"/tournaments/{t.pk}/entries/{game.seat_entries[1]}/")
    assert entry_page.status_code == 200 and "<th>对家</th>" not in entry_page.content.decode()
    run = client.get(f"/tournaments/{t.pk}/run/").content.decode()
    assert 'name="seat3"' in run and 'name="score0"' not in run


@pytest.mark.integration
def test_no_shows_lose_and_the_players_present_share_the_win(
    club, club_admin, members, no_deadline_tasks
):
    from matches.models import Match, Presence

    t, game, _seats = one_table(club, club_admin, members(4), online=True, no_show_minutes=5)
    match = Match.objects.get(table_id=game.table_id)
    for seat in (0, 1):
        Presence.objects.create(match=match, seat=seat, channel_name=f"c-{seat}")
    later = START + timedelta(minutes=6)
    with time_machine.travel(later, tick=False):
        assert "forfeits:1" in schedule_services.tick(later)[t.pk]
    game.refresh_from_db()
    match.refresh_from_db()
    assert match.status == "finished" and match.result["reason"] == "forfeit"
    assert (game.status, game.source, game.seat_forfeits) == ("finished", "forfeit", [2, 3])
    rows = {line.entry.pk: line.row for line in selectors.standings(t)}
    outcomes = [(rows[e].draws, rows[e].losses) for e in game.seat_entries]
    assert outcomes == [(1, 0), (1, 0), (0, 1), (0, 1)]


def test_a_confirmed_sheet_gives_each_player_their_points_whatever_their_seat(
    club, club_admin, members
):
    from sheets import services as sheets

    t, game, seat_users = one_table(club, club_admin, members(4))
    at_table = seat_users[::-1]  # they sat the other way round
    with time_machine.travel(START + timedelta(minutes=1), tick=False):
        sheet = sheets.start_sheet(
            at_table[0],
            club,
            variant="honger",
            players=[sheets.PlayerSpec(user_id=u.pk) for u in at_table],
            options={"deals": 1},
        )
        sheets.add_entry(
            at_table[0],
            sheet,
            {"deal": {"mode": "surrender", "solo": 0, "receiver": 1}},
            uuid.uuid4(),
        )
        for user in at_table:
            sheet = sheets.confirm(user, sheet)
    assert sheet.status == "confirmed"
    totals = {u.pk: t for u, t in zip(at_table, sheet.state["result"]["score"], strict=True)}
    assert sorted(totals.values()) != [0, 0, 0, 0]
    later = START + timedelta(minutes=2)
    with time_machine.travel(later, tick=False):
        schedule_services.tick(later)
    game.refresh_from_db()
    assert (game.status, game.source, game.sheet_id) == ("finished", "sheet", sheet.pk)
    assert game.seat_scores == [totals[u.pk] for u in seat_users]
