"""Swiss then a multi-game knockout (积分编排赛 + 多局制淘汰赛, 第三十条): the pure scoring of a
tie (2 or 3 games added up by 级分, best of three or five, a tie in the sum), then on
PostgreSQL a Swiss stage of 8 pairs and the 4-pair knockout made from its ranking, each tie
a series, played to the end with results entered by the organiser; the settings check and
the API."""

from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from outbox.models import OutboxMessage
from tests.tournaments.test_tournament_services import START, make_tournament, register_pairs
from tournaments import selectors
from tournaments import series as tie_series
from tournaments.forms import check_settings
from tournaments.models import Entry, GameStatus, Round, TournamentNotice, TournamentStatus
from tournaments.series import SeriesGame
from tournaments.services import results as result_services
from tournaments.services import schedule as schedule_services
from tournaments.services import setup as setup_services
from tournaments.services import stages as stage_services
from tournaments.services.errors import TournamentError
from tournaments.services.rounds import table_options


def won(winner, grades):
    return SeriesGame(True, winner, grades)


# --------------------------------------------------------------------------- pure


def test_two_games_added_up_the_higher_sum_goes_through_even_with_fewer_games_won():
    # side 1 wins game 1 by a level (12:14), side 0 wins game 2 by five (18:8): 30 v 22
    state = tie_series.series_state("sum2", [won(1, (12, 14)), won(0, (18, 8))])
    assert state.decided and state.winner == 0
    assert state.grades == (30, 22) and state.wins == (1, 1) and state.points == (2, 2)
    # after one game nothing is decided, whatever the margin: both games are played
    first = tie_series.series_state("sum2", [won(0, (26, 0))])
    assert not first.decided and first.next_game == "game"


def test_three_games_added_up_a_drawn_game_counts_its_13_13():
    games = [won(None, (13, 13)), won(1, (11, 15)), won(0, (16, 10))]
    state = tie_series.series_state("sum3", games)
    assert state.decided and state.winner == 0  # 40 v 38
    assert state.grades == (40, 38) and state.points == (3, 3)
    assert not tie_series.series_state("sum3", games[:2]).decided


def test_a_tie_in_the_sum_goes_to_the_games_won_then_to_a_deciding_game():
    # 3 games: equal 级分 (39:39), side 0 won two games: its 场分 4 against 2
    games = [won(0, (14, 12)), won(0, (14, 12)), won(1, (11, 15))]
    state = tie_series.series_state("sum3", games)
    assert state.grades == (39, 39) and state.points == (4, 2)
    assert state.decided and state.winner == 0 and not state.decider
    # 2 games, one each by the same margin: equal in both, a deciding game
    tied = [won(0, (16, 10)), won(1, (10, 16))]
    state = tie_series.series_state("sum2", tied)
    assert not state.decided and state.next_game == "decider" and state.decider
    # the deciding game must have a winner: drawn, it waits for one (it plays on live)
    waiting = tie_series.series_state("sum2", [*tied, won(None, (13, 13))])
    assert not waiting.decided and waiting.next_game == "wait"
    done = tie_series.series_state("sum2", [*tied, won(1, (12, 14))])
    assert done.decided and done.winner == 1 and done.grades == (26, 26)  # not added up
    assert tie_series.must_have_winner("sum2", 2) and not tie_series.must_have_winner("sum2", 1)


def test_best_of_three_and_five_stop_when_a_side_has_its_wins():
    assert tie_series.series_state("best3", [won(0, None), won(0, None)]).winner == 0
    two_one = tie_series.series_state("best3", [won(1, None), won(0, None), won(0, None)])
    assert two_one.decided and two_one.winner == 0 and two_one.wins == (2, 1)
    one_one = tie_series.series_state("best3", [won(1, None), won(0, None)])
    assert not one_one.decided and one_one.next_game == "game"
    five = [won(0, None), won(1, None), won(1, None), won(0, None)]
    assert tie_series.series_state("best5", five).next_game == "game"
    state = tie_series.series_state("best5", [*five, won(1, None)])
    assert state.decided and state.winner == 1 and state.wins == (2, 3) and state.games == 5
    # a game with no winner yet (a draw plays on; an entered tie needs the winner named)
    assert tie_series.series_state("best3", [won(None, (13, 13))]).next_game == "wait"
    unfinished = tie_series.series_state("best3", [won(0, None), SeriesGame(False)])
    assert unfinished.next_game == "wait" and unfinished.wins == (1, 0)
    # every game of a best-of tie is played on at a tie
    assert all(tie_series.must_have_winner("best5", i) for i in range(5))


def test_games_after_the_deciding_one_do_not_count():
    state = tie_series.series_state("best3", [won(0, None), won(0, None), won(1, None)])
    assert state.winner == 0 and state.games == 2 and state.wins == (2, 0)
    with pytest.raises(ValueError):
        tie_series.series_state("best7", [])


@settings(deadline=None)  # a loaded machine's pause is no failure of the rule
@given(
    st.sampled_from(["best3", "best5"]),
    st.lists(st.integers(min_value=0, max_value=1), min_size=5, max_size=5),
)
def test_best_of_is_won_by_the_first_to_the_majority(mode, winners):
    need = tie_series.wins_needed(mode)
    state = tie_series.series_state(mode, [won(w, None) for w in winners])
    assert state.decided
    counts = [0, 0]
    for played, w in enumerate(winners, start=1):
        counts[w] += 1
        if counts[w] == need:
            assert state.winner == w and state.games == played
            assert state.games <= tie_series.planned_games(mode)
            break


@settings(deadline=None)
@given(
    st.sampled_from(["sum2", "sum3"]),
    st.lists(
        st.tuples(st.integers(min_value=-13, max_value=13), st.booleans()),
        min_size=3,
        max_size=3,
    ),
)
def test_added_up_the_sum_decides_unless_equal(mode, diffs):
    planned = tie_series.planned_games(mode)
    games = [
        won(None if d == 0 else (0 if d > 0 else 1), (13 + d, 13 - d)) for d, _ in diffs[:planned]
    ]
    state = tie_series.series_state(mode, games)
    total = sum(d for d, _ in diffs[:planned])
    if total:
        assert state.decided and state.winner == (0 if total > 0 else 1)
    elif state.points[0] != state.points[1]:
        assert state.decided and state.winner == (0 if state.points[0] > state.points[1] else 1)
    else:
        assert state.next_game == "decider"


# --------------------------------------------------------------------------- the database


def play_swiss_round(admin, t, number, now):
    """The lower seed number wins, by a margin that differs per table (Bao 2 levels)."""
    rnd = Round.objects.get(tournament=t, number=number)
    seeds = {e.pk: e.seed for e in selectors.entries(t)}
    for game in rnd.games.exclude(status=GameStatus.BYE).order_by("number"):
        winner = 0 if seeds[game.side0[0]] < seeds[game.side1[0]] else 1
        margin = 3 + game.number
        scores = (2 + margin, 2) if winner == 0 else (2, 2 + margin)
        result_services.set_result(admin, game, *scores, now=now)


def swiss_stage(club, club_admin, members):
    """A finished national-rules Swiss of 8 pairs of Bao 2, three rounds."""
    people = members(16)
    t = make_tournament(club, club_admin, scoring="national", start_when_ready=True)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    entries = register_pairs(t, people)
    now = START
    schedule_services.tick(now)
    for number in (1, 2, 3):
        play_swiss_round(club_admin, t, number, now)
        now += timedelta(minutes=1)
        schedule_services.tick(now)
    t.refresh_from_db()
    assert t.status == TournamentStatus.FINISHED
    return t, entries, now


def open_games(t, number):
    rnd = Round.objects.get(tournament=t, number=number)
    return {g.slot: g for g in rnd.games.filter(status=GameStatus.PLAYING)}


@pytest.mark.django_db
def test_a_swiss_stage_then_a_best_of_three_knockout_played_to_the_end(club, club_admin, members):
    t, _entries, now = swiss_stage(club, club_admin, members)
    ranking = [line.entry for line in selectors.standings(t)]
    knockout = stage_services.create_next_stage(
        club_admin, t, format="elimination", qualifiers_count=4, series="best3", now=now
    )
    assert knockout.series == "best3" and knockout.scoring == "national"
    seeds = list(knockout.entries.order_by("seed"))
    assert [e.player1_id for e in seeds] == [e.player1_id for e in ranking[:4]]
    s1, s2, s3, s4 = (e.pk for e in seeds)

    now = knockout.starts_at
    schedule_services.tick(now)
    semi = Round.objects.get(tournament=knockout, number=1)
    assert {frozenset(g.side0 + g.side1) for g in semi.games.all()} == {
        frozenset((s1, s4)),
        frozenset((s2, s3)),
    }
    # game 1 of each tie: the top seed's tie goes 2-0, the other goes to a third game
    top = {g.slot: g for g in semi.games.all()}
    slot_a = next(s for s, g in top.items() if s1 in g.side0 + g.side1)
    slot_b = 1 - slot_a

    def enter(game, winner_entry, levels=(9, 4)):
        winner = 0 if game.side0[0] == winner_entry else 1
        scores = levels if winner == 0 else levels[::-1]
        result_services.set_result(club_admin, game, *scores, now=now)

    enter(top[slot_a], s1)
    enter(top[slot_b], s3)  # the lower seed takes game 1
    games = open_games(knockout, 1)
    assert set(games) == {slot_a, slot_b}  # each tie's game 2, made at once
    assert all(g.notes[0]["code"] == "series_game" for g in games.values())
    # each player of a tie is told where its next game is, once, through the outbox
    for game in games.values():
        players = {
            u for e in Entry.objects.filter(pk__in=game.side0 + game.side1) for u in e.user_ids
        }
        told = TournamentNotice.objects.filter(tournament=knockout, text__contains="第 2 局")
        assert sorted(told.filter(user_id__in=players).values_list("user_id", flat=True)) == sorted(
            players
        )
        mail = OutboxMessage.objects.filter(key__startswith=f"series-game:{game.pk}:user:")
        assert set(mail.values_list("user_id", flat=True)) == players
    assert sorted(g.sides for g in games.values()) == sorted(t.sides for t in top.values())
    enter(games[slot_a], s1)
    enter(games[slot_b], s2)
    games = open_games(knockout, 1)
    assert set(games) == {slot_b}  # 2-0 is over; 1-1 plays a third game
    # a tied game of a best-of tie needs its winner: without it the tie waits
    result_services.set_result(club_admin, games[slot_b], 6, 6, now=now)
    schedule_services.tick(now + timedelta(seconds=30))
    assert not Round.objects.filter(tournament=knockout, number=2).exists()
    assert Round.objects.get(pk=semi.pk).status != "finished"
    games[slot_b].refresh_from_db()
    side_of_s2 = 0 if games[slot_b].side0[0] == s2 else 1
    result_services.set_result(club_admin, games[slot_b], 6, 6, winner=side_of_s2, now=now)
    ties = [tie for tie in selectors.ties_of(knockout) if tie.round == 1]
    assert {tie.winner_entry for tie in ties} == {s1, s2}
    by_slot = {tie.slot: tie for tie in ties}
    assert sorted(by_slot[slot_a].state.wins) == [0, 2] and len(by_slot[slot_a].games) == 2
    assert sorted(by_slot[slot_b].state.wins) == [1, 2] and len(by_slot[slot_b].games) == 3

    now += timedelta(minutes=1)
    schedule_services.tick(now)
    final = Round.objects.get(tournament=knockout, number=2)
    (first,) = final.games.all()
    assert set(first.side0 + first.side1) == {s1, s2}  # the ties' winners
    enter(first, s2, (12, 10))
    enter(open_games(knockout, 2)[0], s1, (12, 10))
    enter(open_games(knockout, 2)[0], s2, (12, 10))
    schedule_services.tick(now + timedelta(minutes=1))
    knockout.refresh_from_db()
    assert knockout.status == TournamentStatus.FINISHED
    (champion,) = [tie for tie in selectors.ties_of(knockout) if tie.round == 2]
    assert champion.winner_entry == s2 and champion.state.wins in ((1, 2), (2, 1))


@pytest.mark.django_db
def test_two_games_added_up_with_a_tie_in_the_sum_play_a_deciding_game(club, club_admin, members):
    t, _entries, now = swiss_stage(club, club_admin, members)
    knockout = stage_services.create_next_stage(
        club_admin, t, format="elimination", qualifiers_count=2, series="sum2", now=now
    )
    now = knockout.starts_at
    schedule_services.tick(now)
    (game,) = Round.objects.get(tournament=knockout, number=1).games.all()
    assert "play_on_tie" not in table_options(knockout, game)  # a game added up may draw
    result_services.set_result(club_admin, game, 8, 5, now=now)  # Bao 2: +3 for side 0
    (second,) = open_games(knockout, 1).values()
    assert "play_on_tie" not in table_options(knockout, second)
    result_services.set_result(club_admin, second, 5, 8, now=now)  # +3 for side 1
    game.refresh_from_db()
    assert (game.grade0, game.grade1) == (3, -3)
    (decider,) = open_games(knockout, 1).values()
    assert decider.notes[0]["detail"]["decider"] is True
    assert table_options(knockout, decider)["play_on_tie"] is True  # it must have a winner
    (tie,) = selectors.ties_of(knockout)
    assert tie.state.grades == (0, 0) and tie.state.next_game == "wait"
    result_services.set_result(club_admin, decider, 7, 7, winner=1, now=now)
    (tie,) = selectors.ties_of(knockout)
    assert tie.state.decided and tie.winner_entry == game.side1[0]
    schedule_services.tick(now + timedelta(minutes=1))
    knockout.refresh_from_db()
    assert knockout.status == TournamentStatus.FINISHED


@pytest.mark.django_db
def test_the_games_per_tie_are_checked_with_every_other_setting(club, club_admin, members):
    with pytest.raises(TournamentError) as refused:
        check_settings(
            {
                "name": "x",
                "variant": "bao2",
                "format": "swiss",
                "series": "sum2",
                "rounds_planned": 99,
                "starts_at": START,
            },
            None,
            START - timedelta(days=1),
        )
    fields = refused.value.fields
    assert set(fields) == {"series", "rounds_planned"}  # every problem at once
    assert len(fields["series"]) == 2  # a single elimination's; added up needs national
    with pytest.raises(TournamentError) as refused:
        check_settings(
            {"name": "x", "variant": "bao2", "series": "best7", "starts_at": START}, None, START
        )
    assert refused.value.code == "bad_series"
    ok = check_settings(
        {
            "name": "x",
            "variant": "guandan",
            "format": "elimination",
            "series": "sum3",
            "scoring": "national",
            "starts_at": START,
        },
        None,
        START - timedelta(days=1),
    )
    assert ok["series"] == "sum3"
    # in Chinese, naming the field
    from django.utils import translation

    with translation.override("zh-hans"), pytest.raises(TournamentError) as refused:
        check_settings(
            {"name": "x", "variant": "bao2", "format": "swiss", "series": "best3"},
            None,
            START,
        )
    assert "单败淘汰" in refused.value.message


@pytest.mark.django_db
def test_the_api_makes_a_series_knockout_and_answers_its_ties(club, club_admin, members):
    t, _entries, now = swiss_stage(club, club_admin, members)
    admin = APIClient()
    admin.force_authenticate(club_admin)
    bad = admin.post(
        f"/api/v1/tournaments/{t.pk}/next-stage/",
        {"format": "swiss", "qualifiers": 4, "series": "best3"},
        format="json",
    )
    assert bad.status_code == 400 and "series" in str(bad.json())
    made = admin.post(
        f"/api/v1/tournaments/{t.pk}/next-stage/",
        {"format": "elimination", "qualifiers": 4, "series": "best5"},
        format="json",
    )
    assert made.status_code == 201 and made.json()["series"] == "best5"
    stage = made.json()["id"]
    from tournaments.models import Tournament

    knockout = Tournament.objects.get(pk=stage)
    schedule_services.tick(knockout.starts_at)
    game = Round.objects.get(tournament=knockout, number=1).games.first()
    result_services.set_result(club_admin, game, 9, 4, now=knockout.starts_at)
    answer = admin.get(f"/api/v1/tournaments/{stage}/ties/").json()
    assert [len(r) for r in answer] == [2]
    tie = next(x for x in answer[0] if len(x["games"]) == 2)
    assert tie["mode"] == "best5" and tie["wins"] == [1, 0] and tie["decided"] is False
    assert tie["winner"] is None and tie["next_game"] == "wait"  # game 2 is being played
    assert [g["score"] for g in tie["games"]] == [[9, 4], None]
