"""A knockout's corrections (issue 45: "a corrected result is recorded ... standings, later
pairings that have not started, and ratings follow exactly once"): the pure rule of who
meets whom in the next round while a tie is undecided (:func:`tournaments.series.next_ties`,
with hypothesis against the pairing's own), then on PostgreSQL: a Swiss stage of 8 pairs and
the 4-pair knockout of several games a tie made from it, whose semi-final is corrected after
the final was paired (best of three, rated; the final started, or paired by hand and not
started; a game corrected to equal levels) or whose sum is corrected to a level one — the
semi-final plays its next game in its own round, the final waits without entries, then is
filled and played, each player told once (the outbox's keys), the ratings following once (a
cleared game's replay rated as its own game); a 16-pair single elimination corrected in
round 1 whose other semi-final keeps its result; live tables opened for the filled game."""

from collections import Counter
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from ladder.models import RatedResult
from ladder.ratings import decided_scores
from matches.models import Match
from outbox.models import OutboxMessage
from tests.tournaments.test_series import play_swiss_round
from tests.tournaments.test_tournament_services import START, make_tournament, register_pairs
from tournaments import pairing, selectors
from tournaments.models import Entry, Game, GameStatus, Round, TournamentStatus
from tournaments.series import Fed, next_ties
from tournaments.services import results as result_services
from tournaments.services import rounds as round_services
from tournaments.services import schedule as schedule_services
from tournaments.services import setup as setup_services
from tournaments.services import stages as stage_services
from tournaments.services.errors import TournamentError
from tournaments.services.rating import organiser_source_id as rating_source_id

# --------------------------------------------------------------------------- pure


@st.composite
def rounds_of_ties(draw):
    """A round of 2, 4, 8 or 16 ties, each decided (a winner, a loser or a bye) or not."""
    count = draw(st.sampled_from([2, 4, 8, 16]))
    units = iter(range(1, 2 * count + 1))
    out = []
    for _ in range(count):
        a, b = next(units), next(units)
        kind = draw(st.sampled_from(["a", "b", "bye", "open"]))
        if kind == "a":
            out.append(Fed(a, b))
        elif kind == "b":
            out.append(Fed(b, a))
        elif kind == "bye":
            out.append(Fed(a, None, bye=True))
        else:
            out.append(Fed(None))
    return out


@settings(max_examples=300, deadline=None)
@given(rounds_of_ties(), st.booleans())
def test_the_next_round_waits_only_where_a_tie_feeding_it_is_undecided(previous, third):
    got = next_ties(previous, third)
    # the winners of ties 2k and 2k + 1 meet; an undecided tie leaves its side open (None)
    assert got[: len(previous) // 2] == [
        (previous[i].winner, previous[i + 1].winner) for i in range(0, len(previous), 2)
    ]
    plays_third = len(previous) == 2 and third and not any(f.bye for f in previous)
    assert len(got) == len(previous) // 2 + plays_third
    if plays_third:
        assert got[-1] == (previous[0].loser, previous[1].loser)
    if all(f.winner is not None for f in previous):
        # every tie decided: exactly the pairing's next round
        made = pairing.elimination_next_round(
            [f.winner for f in previous], [f.loser for f in previous], third
        )
        assert got == [tuple(g.sides[0] + g.sides[1]) for g in made]
    else:
        assert any(None in pair for pair in got)


def test_one_tie_is_no_next_round_and_an_odd_number_is_refused():
    assert next_ties([Fed(1, 2)]) == []
    with pytest.raises(ValueError):
        next_ties([Fed(1, 2), Fed(3, 4), Fed(5, 6)])


# --------------------------------------------------------------------------- the database


def rated_swiss_stage(club, club_admin, members, rated):
    """A finished national-rules Swiss of 8 pairs of Bao 2 (rated or not), three rounds."""
    people = members(16)
    t = make_tournament(club, club_admin, scoring="national", start_when_ready=True, rated=rated)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    register_pairs(t, people)
    now = START
    schedule_services.tick(now)
    for number in (1, 2, 3):
        play_swiss_round(club_admin, t, number, now)
        now += timedelta(minutes=1)
        schedule_services.tick(now)
    t.refresh_from_db()
    assert t.status == TournamentStatus.FINISHED
    return t, now


def knockout_of(club, club_admin, members, series, rated=False):
    t, now = rated_swiss_stage(club, club_admin, members, rated)
    knockout = stage_services.create_next_stage(
        club_admin, t, format="elimination", qualifiers_count=4, series=series, now=now
    )
    assert knockout.rated == rated
    seeds = [e.pk for e in knockout.entries.order_by("seed")]
    return knockout, seeds, knockout.starts_at


def enter(admin, game, winner_entry, levels, now):
    """The organiser enters ``game``'s result: ``winner_entry`` at ``levels[0]``."""
    winner = 0 if game.side0[0] == winner_entry else 1
    scores = levels if winner == 0 else levels[::-1]
    return result_services.set_result(admin, game, *scores, now=now)


def correct(admin, game, winner_entry, levels, now):
    """An appeal's correction of ``game``: ``winner_entry`` at ``levels[0]``."""
    game.refresh_from_db()
    winner = 0 if game.side0[0] == winner_entry else 1
    scores = levels if winner == 0 else levels[::-1]
    return result_services.correct_result(admin, game, *scores, "记分错误", now=now)


def tie_games(t, number, entry):
    """The games of round ``number``'s tie that ``entry`` plays, in the order played."""
    games = Game.objects.filter(round__tournament=t, round__number=number).order_by("number")
    return [g for g in games if entry in g.side0 + g.side1]


def players(*entries):
    return {u for e in Entry.objects.filter(pk__in=entries) for u in e.user_ids}


def told(game):
    """The users told of ``game`` as the next game of its tie, one outbox key each."""
    keys = list(
        OutboxMessage.objects.filter(key__startswith=f"series-game:{game.pk}:user:").values_list(
            "key", flat=True
        )
    )
    assert len(keys) == len(set(keys))
    return sorted(int(k.rsplit(":", 1)[1]) for k in keys)


def results_snapshot(games):
    return [(g.pk, g.side0, g.side1, g.score0, g.score1, g.winner, g.status) for g in games]


@pytest.mark.django_db
def test_a_best_of_three_semi_final_corrected_after_the_final_was_paired(club, club_admin, members):
    knockout, (s1, s2, s3, s4), now = knockout_of(club, club_admin, members, "best3", rated=True)
    schedule_services.tick(now)
    # the semi-finals: s1 beats s4 2-0, s2 beats s3 2-0
    for entry in (s1, s2):
        (first,) = tie_games(knockout, 1, entry)
        enter(club_admin, first, entry, (9, 4), now)
        second = tie_games(knockout, 1, entry)[1]
        enter(club_admin, second, entry, (9, 4), now)
    now += timedelta(minutes=1)
    assert "started:2" in schedule_services.tick(now)[knockout.pk]
    (final,) = Round.objects.get(tournament=knockout, number=2).games.all()
    assert set(final.side0 + final.side1) == {s1, s2} and final.status == GameStatus.PLAYING
    semi_a = results_snapshot(tie_games(knockout, 1, s1))
    rated_before = RatedResult.objects.filter(source="admin").count()

    # an appeal: s3 won the second game of its semi-final, so the tie stands at one win each
    second = tie_games(knockout, 1, s3)[1]
    correct(club_admin, second, s3, (10, 6), now)
    knockout.refresh_from_db()
    semi, final_round = (Round.objects.get(tournament=knockout, number=n) for n in (1, 2))
    assert knockout.status == TournamentStatus.RUNNING
    assert semi.status == "playing" and final_round.status == "playing"
    # the semi-final's third game, in its own round, at once
    third = tie_games(knockout, 1, s3)[2]
    assert third.status == GameStatus.PLAYING and third.sides == second.sides
    assert third.notes[0]["code"] == "series_game" and third.notes[0]["detail"]["game"] == 3
    assert told(third) == sorted(players(s2, s3))
    # the final waits: no entries, not started, noted
    (waiting,) = Round.objects.get(pk=final_round.pk).games.all()
    assert waiting.pk == final.pk and waiting.sides == [[], []]
    assert waiting.status == GameStatus.PENDING and waiting.score0 is None
    assert waiting.notes[-1]["code"] == "bracket_corrected"
    (tie,) = [t for t in selectors.ties_of(knockout) if t.round == 2]
    assert not tie.state.decided and tie.winner_entry is None
    # the bracket page and the API show it waiting, not as a bye
    page = Client().get(f"/tournaments/{knockout.pk}/bracket/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    final_part = page.content.decode().split("第 2 轮")[-1]
    assert page.status_code == 200 and "未开始" in final_part and "轮空" not in final_part
    api = APIClient().get(f"/api/v1/tournaments/{knockout.pk}/ties/").json()
    (waiting_tie,) = api[1]
    assert waiting_tie["sides"] == [[], []] and waiting_tie["next_game"] == "wait"
    assert waiting_tie["decided"] is False and waiting_tie["winner"] is None
    # the other semi-final is untouched; s1 is in play, waiting for its opponent
    assert results_snapshot(tie_games(knockout, 1, s1)) == semi_a
    band = {line.entry.pk: line.placing for line in selectors.standings(knockout)}
    assert all(band[e].in_play for e in (s1, s2, s3)) and not band[s4].in_play
    # the ladder: the corrected game's one rating follows (no second one)
    assert RatedResult.objects.filter(source="admin").count() == rated_before
    rated = RatedResult.objects.get(source="admin", source_id=str(second.pk))
    second.refresh_from_db()
    assert (rated.score0, rated.score1) == (second.score0, second.score1)

    # the schedule plays the semi-final on; nothing of the final starts, the event goes on
    now += timedelta(minutes=1)
    assert "tournament_finished" not in schedule_services.tick(now).get(knockout.pk, [])
    with pytest.raises(TournamentError) as refused:
        round_services.start_round(club_admin, knockout, now=now)
    assert refused.value.code == "round_running"
    # the same correction again changes nothing and tells nobody again
    correct(club_admin, second, s3, (10, 6), now)
    assert len(tie_games(knockout, 1, s3)) == 3 and told(third) == sorted(players(s2, s3))
    with pytest.raises(TournamentError):
        result_services.set_result(club_admin, waiting, 9, 4, now=now)  # it has not started

    # s3 wins the third game: the tie is decided, the schedule finishes the round and the
    # final is filled with s1 and s3 and played
    enter(club_admin, third, s3, (9, 5), now)
    now += timedelta(minutes=1)
    done = schedule_services.tick(now)[knockout.pk]
    assert "finished:1" in done
    (filled,) = Round.objects.get(pk=final_round.pk).games.all()
    assert filled.pk == final.pk and set(filled.side0 + filled.side1) == {s1, s3}
    assert filled.status == GameStatus.PLAYING
    assert told(filled) == sorted(players(s1, s3))  # where the final is, once
    schedule_services.tick(now + timedelta(seconds=30))
    assert told(filled) == sorted(players(s1, s3))
    enter(club_admin, filled, s3, (12, 10), now)
    enter(club_admin, tie_games(knockout, 2, s3)[1], s3, (12, 10), now)
    now += timedelta(minutes=1)
    assert "tournament_finished" in schedule_services.tick(now)[knockout.pk]
    knockout.refresh_from_db()
    assert knockout.status == TournamentStatus.FINISHED
    labels = {line.entry.pk: line.placing.label for line in selectors.standings(knockout)}
    assert (labels[s3], labels[s1]) == ("1", "2")
    assert {labels[s2], labels[s4]} == {"3–4"}
    # every knockout game rated once, with the result it has now
    games = Game.objects.filter(round__tournament=knockout).exclude(status=GameStatus.BYE)
    assert games.count() == 5 + 2  # the semi-finals' 2 and 3 games, the final's 2
    for game in games:
        (one,) = RatedResult.objects.filter(source="admin", source_id=str(game.pk))
        assert (one.score0, one.score1) == (game.score0, game.score1)
    # every player of each series game told once (one key a game and user)
    keys = list(OutboxMessage.objects.filter(key__startswith="series-game:").values_list("key"))
    assert len(keys) == len(set(keys))


@pytest.mark.django_db
def test_a_two_game_sum_corrected_to_a_level_sum_plays_its_deciding_game_in_its_round(
    club, club_admin, members
):
    knockout, (s1, s2, s3, s4), now = knockout_of(club, club_admin, members, "sum2", rated=True)
    schedule_services.tick(now)
    for entry in (s1, s2):  # each higher seed wins both its games 9:4
        enter(club_admin, tie_games(knockout, 1, entry)[0], entry, (9, 4), now)
        enter(club_admin, tie_games(knockout, 1, entry)[1], entry, (9, 4), now)
    now += timedelta(minutes=1)
    schedule_services.tick(now)
    (final,) = Round.objects.get(tournament=knockout, number=2).games.all()
    assert set(final.side0 + final.side1) == {s1, s2}
    final_sides = final.sides
    enter(club_admin, final, s1, (9, 7), now)  # the final's first game is played
    played = RatedResult.objects.get(source="admin", source_id=str(final.pk))
    played_as = (played.score0, played.score1, sorted(played.players.values_list("user_id")))
    (second_final,) = [g for g in tie_games(knockout, 2, s1) if g.pk != final.pk]
    semi_b = results_snapshot(tie_games(knockout, 1, s2))

    # s1's tie corrected: its second game won by s4 by as much as s1 won the first — a level
    # sum and a win each: the deciding game in round 1; the final waits, its played game
    # cleared (a result played while a side was in question does not stand)
    _first, second = tie_games(knockout, 1, s1)
    correct(club_admin, second, s4, (9, 4), now)
    (tie,) = [
        t for t in selectors.ties_of(knockout) if t.round == 1 and s1 in t.sides[0] + t.sides[1]
    ]
    assert tie.state.grades == (0, 0) and tie.state.wins == (1, 1) and not tie.state.decided
    decider = tie_games(knockout, 1, s1)[2]
    assert decider.notes[0]["detail"]["decider"] is True and decider.status == GameStatus.PLAYING
    assert told(decider) == sorted(players(s1, s4))
    assert Round.objects.get(tournament=knockout, number=1).status == "playing"
    (waiting,) = Round.objects.get(tournament=knockout, number=2).games.all()
    assert waiting.pk == final.pk and waiting.sides == [[], []]
    assert waiting.score0 is None and waiting.status == GameStatus.PENDING
    assert waiting.notes[-1]["code"] == "bracket_corrected"
    assert not Game.objects.filter(pk=second_final.pk).exists()  # its tie starts again
    assert results_snapshot(tie_games(knockout, 1, s2)) == semi_b

    # s1 wins the deciding game (a tie at the table: the organiser names the winner): the
    # final is filled again, with the same sides, to be played from its first game
    side = 0 if decider.side0[0] == s1 else 1
    result_services.set_result(club_admin, decider, 7, 7, winner=side, now=now)
    (filled,) = Round.objects.get(tournament=knockout, number=2).games.all()
    assert filled.sides == final_sides and filled.status == GameStatus.PLAYING
    assert filled.score0 is None
    assert told(filled) == sorted(players(s1, s2))
    now += timedelta(minutes=1)
    assert "finished:1" in schedule_services.tick(now)[knockout.pk]
    enter(club_admin, filled, s1, (9, 7), now)
    enter(club_admin, tie_games(knockout, 2, s1)[1], s1, (9, 7), now)
    now += timedelta(minutes=1)
    assert "tournament_finished" in schedule_services.tick(now)[knockout.pk]
    labels = {line.entry.pk: line.placing.label for line in selectors.standings(knockout)}
    assert (labels[s1], labels[s2]) == ("1", "2")
    assert told(filled) == sorted(players(s1, s2))
    # the ladder: the final's game as first played keeps its rating (it was played), and
    # its replay is rated once as a game of its own; every other game once, as it stands
    played.refresh_from_db()
    assert (played.score0, played.score1, sorted(played.players.values_list("user_id"))) == (
        played_as
    )
    filled.refresh_from_db()
    assert filled.notes[-1]["detail"]["cleared"] is True
    assert rating_source_id(filled) == f"{final.pk}.1"
    (replay,) = RatedResult.objects.filter(source="admin", source_id=f"{final.pk}.1")
    assert (replay.score0, replay.score1) == (filled.score0, filled.score1)
    games = Game.objects.filter(round__tournament=knockout)
    assert (
        RatedResult.objects.filter(source="admin", source_id__in=[str(g.pk) for g in games]).count()
        == games.count()
    )  # each game's own rating (the final's first: as first played)
    for game in games:
        (one,) = RatedResult.objects.filter(source="admin", source_id=rating_source_id(game))
        # a level tie with its winner named is rated as won by one level
        assert (one.score0, one.score1) == decided_scores((game.score0, game.score1), game.winner)


@pytest.mark.django_db
def test_a_final_paired_but_not_started_waits_and_starts_once_the_tie_is_decided(
    club, club_admin, members
):
    """The organiser paused the event and paired the final by hand; a correction then leaves
    a semi-final undecided: the final's game waits, nobody may start the round, the schedule
    starts it only once the semi-final is decided, and its players are told once."""
    knockout, (s1, s2, s3, s4), now = knockout_of(club, club_admin, members, "best3")
    schedule_services.tick(now)
    setup_services.pause(club_admin, knockout)
    for entry in (s1, s2):
        enter(club_admin, tie_games(knockout, 1, entry)[0], entry, (9, 4), now)
        enter(club_admin, tie_games(knockout, 1, entry)[1], entry, (9, 4), now)
    schedule_services.tick(now)  # paused: the round finishes, nothing new starts
    final_round = round_services.pair_next_round(club_admin, knockout, now=now)
    assert final_round.status == "paired"
    setup_services.resume(club_admin, knockout)
    knockout.refresh_from_db()

    correct(club_admin, tie_games(knockout, 1, s2)[1], s3, (10, 6), now)
    (waiting,) = final_round.games.all()
    assert waiting.sides == [[], []] and waiting.status == GameStatus.PENDING
    with pytest.raises(TournamentError) as refused:
        round_services.start_round(club_admin, knockout, now=now + timedelta(hours=3))
    assert refused.value.code == "undecided"
    later = now + timedelta(hours=3)  # the final's time has come: it still waits
    assert not any(
        step.startswith("started") for step in schedule_services.tick(later).get(knockout.pk, [])
    )
    assert Round.objects.get(pk=final_round.pk).status == "paired"

    third = tie_games(knockout, 1, s2)[2]
    enter(club_admin, third, s2, (9, 5), later)
    (filled,) = final_round.games.all()
    assert set(filled.side0 + filled.side1) == {s1, s2} and filled.status == GameStatus.PENDING
    assert told(filled) == []  # a round not started tells its players when it starts
    done = schedule_services.tick(later + timedelta(minutes=1))[knockout.pk]
    assert "finished:1" in done and "started:2" in done
    keys = OutboxMessage.objects.filter(key__startswith=f"round:{final_round.pk}:user:")
    assert sorted(int(k.rsplit(":", 1)[1]) for k in keys.values_list("key", flat=True)) == sorted(
        players(s1, s2)
    )


@pytest.mark.django_db
def test_a_semi_final_game_corrected_to_equal_levels_waits_for_its_winner_to_be_named(
    club, club_admin, members
):
    """A best-of game must have a winner: corrected to equal levels without one, its tie is
    undecided, its round is played again and the final waits until the organiser names
    the winner (no game is made meanwhile); then the final is filled."""
    knockout, (s1, s2, s3, s4), now = knockout_of(club, club_admin, members, "best3")
    schedule_services.tick(now)
    for entry in (s1, s2):
        enter(club_admin, tie_games(knockout, 1, entry)[0], entry, (9, 4), now)
        enter(club_admin, tie_games(knockout, 1, entry)[1], entry, (9, 4), now)
    now += timedelta(minutes=1)
    assert "started:2" in schedule_services.tick(now)[knockout.pk]
    second = tie_games(knockout, 1, s2)[1]
    result_services.correct_result(club_admin, second, 6, 6, "记分错误", now=now)
    assert Round.objects.get(tournament=knockout, number=1).status == "playing"
    assert len(tie_games(knockout, 1, s2)) == 2  # nothing to play: a winner to name
    (waiting,) = Round.objects.get(tournament=knockout, number=2).games.all()
    assert waiting.sides == [[], []]
    assert "tournament_finished" not in schedule_services.tick(now).get(knockout.pk, [])
    side = 0 if second.side0[0] == s2 else 1
    result_services.correct_result(club_admin, second, 6, 6, "第二方先过A", winner=side, now=now)
    (filled,) = Round.objects.get(tournament=knockout, number=2).games.all()
    assert set(filled.side0 + filled.side1) == {s1, s2} and filled.status == GameStatus.PLAYING
    assert "finished:1" in schedule_services.tick(now + timedelta(minutes=1))[knockout.pk]


@pytest.mark.django_db
def test_a_first_round_correction_reaches_only_the_games_it_feeds(club, club_admin, members):
    """A single elimination of 16 pairs, one game a tie: round 1 corrected while the
    semi-finals (round 3) are played — the quarter-final it feeds gets its new entry and
    loses its result, the semi-final that quarter-final feeds waits, the other semi-final
    keeps its result; the schedule plays round 2 again, then the waiting semi-final."""
    people = members(32)
    t = make_tournament(club, club_admin, format="elimination", start_when_ready=True)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    register_pairs(t, people)
    now = START
    schedule_services.tick(now)

    def play(number):
        for game in Round.objects.get(tournament=t, number=number).games.filter(
            status=GameStatus.PLAYING
        ):
            result_services.set_result(club_admin, game, 10, 4, now=now)

    for number in (1, 2):
        play(number)
        now += timedelta(minutes=1)
        assert f"started:{number + 1}" in schedule_services.tick(now)[t.pk]
    semi_a, semi_b = Round.objects.get(tournament=t, number=3).games.order_by("slot")
    result_services.set_result(club_admin, semi_b, 10, 4, now=now)
    semi_b.refresh_from_db()
    kept = results_snapshot([semi_b])
    quarter = Round.objects.get(tournament=t, number=2).games.get(slot=0)
    wrong = Round.objects.get(tournament=t, number=1).games.get(slot=0)
    assert wrong.side0[0] in quarter.side0 + quarter.side1

    correct(club_admin, wrong, wrong.side1[0], (10, 4), now)  # the other pair won
    quarter.refresh_from_db()
    assert wrong.side1[0] in quarter.side0 + quarter.side1 and quarter.score0 is None
    assert quarter.status == GameStatus.PLAYING
    assert quarter.notes[-1]["code"] == "bracket_corrected"
    assert quarter.notes[-1]["detail"]["cleared"] is True
    assert told(quarter) == sorted(players(*quarter.side0, *quarter.side1))  # where, once
    semi_a.refresh_from_db()
    assert semi_a.sides == [[], []] and semi_a.status == GameStatus.PENDING
    assert results_snapshot([Game.objects.get(pk=semi_b.pk)]) == kept
    statuses = dict(Round.objects.filter(tournament=t).values_list("number", "status"))
    assert statuses == {1: "finished", 2: "playing", 3: "playing"}
    assert not any(s.startswith("started") for s in schedule_services.tick(now).get(t.pk, []))

    result_services.set_result(club_admin, quarter, 10, 4, now=now)
    semi_a.refresh_from_db()
    assert quarter.side0[0] in semi_a.side0 + semi_a.side1
    assert semi_a.status == GameStatus.PLAYING
    assert told(semi_a) == sorted(players(*semi_a.side0, *semi_a.side1))
    now += timedelta(minutes=1)
    assert "finished:2" in schedule_services.tick(now)[t.pk]
    assert told(semi_a) == sorted(players(*semi_a.side0, *semi_a.side1))  # not again
    result_services.set_result(club_admin, semi_a, 10, 4, now=now)
    now += timedelta(minutes=1)
    assert "started:4" in schedule_services.tick(now)[t.pk]
    play(4)
    now += timedelta(minutes=1)
    assert "tournament_finished" in schedule_services.tick(now)[t.pk]
    labels = Counter(line.placing.label for line in selectors.standings(t))
    assert labels == {"1": 1, "2": 1, "3–4": 2, "5–8": 4, "9–16": 8}


@pytest.mark.django_db
def test_online_the_waiting_final_gets_a_new_live_table_with_its_new_players(
    club, club_admin, members
):
    """Live tables: the semi-final's third game opens its table at once; the final's game,
    emptied, leaves its table; filled, it opens a new one with the right players seated."""
    people = members(8)
    t = make_tournament(
        club, club_admin, format="elimination", series="best3", online=True, start_when_ready=True
    )
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    register_pairs(t, people)
    with time_machine.travel(START, tick=False):
        schedule_services.tick(START)
        semis = list(Round.objects.get(tournament=t, number=1).games.order_by("slot"))
        assert all(g.table_id for g in semis)
        for game in semis:  # side 0 wins each tie 2-0
            result_services.set_result(club_admin, game, 10, 4, now=START)
            (second,) = Game.objects.filter(
                round=game.round, slot=game.slot, status=GameStatus.PLAYING
            )
            assert second.table_id and second.table_id != game.table_id
            result_services.set_result(club_admin, second, 10, 4, now=START)
        schedule_services.tick(START + timedelta(minutes=1))
        (final,) = Round.objects.get(tournament=t, number=2).games.all()
        old_table = final.table_id
        assert old_table and set(final.side0 + final.side1) == {g.side0[0] for g in semis}

        lower = semis[1]
        second = Game.objects.filter(round=lower.round, slot=lower.slot).order_by("number")[1]
        correct(club_admin, second, lower.side1[0], (10, 4), START)
        third = Game.objects.filter(round=lower.round, slot=lower.slot).order_by("number")[2]
        assert third.status == GameStatus.PLAYING and third.table_id
        final.refresh_from_db()
        assert final.sides == [[], []] and final.table_id is None
        assert final.status == GameStatus.PENDING

        enter(club_admin, third, lower.side1[0], (10, 4), START)
        final.refresh_from_db()
        assert set(final.side0 + final.side1) == {semis[0].side0[0], lower.side1[0]}
        assert final.status == GameStatus.PLAYING and final.table_id not in (None, old_table)
        seated = {s["user"] for s in Match.objects.get(table_id=final.table_id).seats}
        assert seated == players(*final.side0, *final.side1)
