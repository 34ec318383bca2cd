"""Tournament results feed the club ladder once per game, with the winner of a level game.

* an organiser-entered result of a rated tournament is rated (source ``admin``), once, with its
  winner: 23:23 won by passing 2A is a win, not a draw; an unrated tournament feeds nothing;
* a confirmed sheet of a game is the game's rating (with the engine's winner), whether the tick
  collects it or the organiser enters the result first; a rated sheet confirmed after the
  organiser's result was rated is not rated again;
* a live game is rated by its match; an organiser's result for a match still being played
  takes the match off the ladder first.
"""

import uuid
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.utils import translation

from ladder.apply import apply_result
from ladder.models import RatedResult, RatingChange
from tests.tournaments.test_tournament_services import register_pair
from tournaments.models import Game, GameStatus, Round
from tournaments.services import entries as entry_services
from tournaments.services import results as result_services
from tournaments.services import schedule as schedule_services
from tournaments.services import setup as setup_services
from tournaments.services.errors import TournamentError

START = datetime(2030, 5, 1, 9, 0, tzinfo=UTC)


def running_round(club, admin, people, **extra):
    """A published pair tournament (in person, rated, unless ``extra`` says otherwise) with
    ``people`` registered in pairs and checked in, and its round 1 started at START."""
    fields = {
        "name": "秋季积分赛",
        "variant": "bao2",
        "format": "swiss",
        "unit_kind": "pair",
        "rounds_planned": 2,
        "starts_at": START,
        "registration_closes": START - timedelta(minutes=5),
        "online": False,
        "rated": True,
    }
    fields.update(extra)
    t = setup_services.create_tournament(admin, club, **fields)
    setup_services.publish(admin, t, now=START - timedelta(days=1))
    for a, b in zip(people[0::2], people[1::2], strict=True):
        register_pair(a, b, t, START - timedelta(hours=1))
        entry_services.check_in(b, t, now=START - timedelta(minutes=10))
    with time_machine.travel(START, tick=False):
        schedule_services.tick(START)
    rnd = Round.objects.get(tournament=t, number=1)
    games = list(rnd.games.exclude(status=GameStatus.BYE).order_by("number"))
    return t, games


def seats_of(t, game):
    """Users at seats 0..3 of a game: side 0 at seats 0 and 2, side 1 at 1 and 3."""
    entries = {e.pk: e for e in t.entries.select_related("player1", "player2")}
    a, b = entries[game.side0[0]], entries[game.side1[0]]
    return [a.player1, b.player1, a.player2, b.player2]


def sides_of(t, game):
    seats = seats_of(t, game)
    return [[seats[0].pk, seats[2].pk], [seats[1].pk, seats[3].pk]]


def changes_by_user(result, club):
    apply_result(result)
    return {c.user_id: c for c in RatingChange.objects.filter(result=result, ladder__club=club)}


def play_sheet(club, seats, finishes, *, rated):
    """A sheet of these seats with the given deals, confirmed by a player of each side."""
    from sheets import services as sheets

    sheet = sheets.start_sheet(
        seats[0],
        club,
        variant="bao2",
        players=[sheets.PlayerSpec(user_id=u.pk) for u in seats],
        rated=rated,
    )
    for finish in finishes:
        sheets.add_entry(seats[0], sheet, {"deal": {"finish": finish}}, uuid.uuid4())
    sheets.confirm(seats[0], sheet)
    return sheets.confirm(seats[1], sheet)


#: Side 0 climbs to 2A, then side 1 climbs there too and passes it: 23:23, side 1 won.
LEVEL_WIN_FOR_SIDE_1 = [[0, 2]] * 8 + [[1, 3]] * 9


# ----------------------------------------------------------------- organiser-entered results
def test_organiser_result_is_rated_once_with_its_winner(
    club, club_admin, members, celery_eager, django_capture_on_commit_callbacks
):
    t, (game, other) = running_round(club, club_admin, members(8))
    later = START + timedelta(minutes=40)
    with time_machine.travel(later, tick=False):
        result_services.set_result(club_admin, game, 23, 23, winner=1, now=later)
        rated = RatedResult.objects.get(source="admin", source_id=str(game.pk))
        # the level game was won by side 1 with level scores: a one-level win, not a draw
        assert (rated.score0, rated.score1, rated.winning_side) == (23, 24, 1)
        assert rated.club_id == club.pk and rated.variant == "bao2"
        assert rated.ended_at == later
        players = {(p.side, p.user_id) for p in rated.players.all()}
        sides = sides_of(t, game)
        assert players == {(s, u) for s in (0, 1) for u in sides[s]}
        by_user = changes_by_user(rated, club)
        assert all(by_user[u].score == 1.0 and by_user[u].after > 1500 for u in sides[1])
        assert all(by_user[u].score == 0.0 and by_user[u].after < 1500 for u in sides[0])
        # a correction corrects the game's one rating: its ladders are rebuilt with it
        first = {u: c.after for u, c in by_user.items()}
        with django_capture_on_commit_callbacks(execute=True):
            result_services.set_result(club_admin, game, 5, 12, now=later + timedelta(minutes=1))
        game.refresh_from_db()
        assert (game.score0, game.score1, game.winner, game.source) == (5, 12, 1, "admin")
        assert RatedResult.objects.filter(source="admin").count() == 1
        rated.refresh_from_db()
        assert (rated.score0, rated.score1) == (5, 12)
        fixed = {c.user_id: c for c in RatingChange.objects.filter(result=rated, ladder__club=club)}
        assert set(fixed) == set(first)
        # side 1 still won, now by 7 levels instead of 1: a bigger margin, a bigger change
        assert all(fixed[u].score == 1.0 and fixed[u].after > first[u] for u in sides[1])
        assert all(fixed[u].score == 0.0 and fixed[u].after < first[u] for u in sides[0])
        assert all(c.multiplier > by_user[c.user_id].multiplier for c in fixed.values())
        # the same correction again rebuilds nothing (a rebuild writes every change anew)
        ids = set(RatingChange.objects.values_list("pk", flat=True))
        with django_capture_on_commit_callbacks(execute=True):
            result_services.set_result(club_admin, game, 5, 12, now=later + timedelta(minutes=2))
        assert set(RatingChange.objects.values_list("pk", flat=True)) == ids
        # a plain result keeps its margin; a draw (no winner) stays a draw
        result_services.set_result(club_admin, other, 9, 9, now=later)
        drawn = RatedResult.objects.get(source="admin", source_id=str(other.pk))
        assert (drawn.score0, drawn.score1, drawn.winning_side) == (9, 9, None)
        assert all(c.score == 0.5 for c in changes_by_user(drawn, club).values())
    assert RatedResult.objects.count() == 2


def test_unrated_tournament_feeds_nothing(club, club_admin, members):
    t, (game, _other) = running_round(club, club_admin, members(8), rated=False)
    with time_machine.travel(START + timedelta(minutes=40), tick=False):
        result_services.set_result(club_admin, game, 23, 23, winner=0)
    game.refresh_from_db()
    assert (game.score0, game.score1, game.winner) == (23, 23, 0)
    assert not RatedResult.objects.exists()


@pytest.mark.parametrize(("score0", "score1"), [(24, 0), (3, -1)])
def test_levels_out_of_range_are_refused_and_change_nothing(
    club, club_admin, members, score0, score1
):
    t, (game, _other) = running_round(club, club_admin, members(8))
    # the language is set here: an earlier test on the same worker may have left English active
    with translation.override("zh-hans"), pytest.raises(TournamentError) as err:
        result_services.set_result(club_admin, game, score0, score1)
    assert err.value.code == "bad_score" and "A（第2轮）" in err.value.message
    game.refresh_from_db()
    assert (game.status, game.score0, game.source) == (GameStatus.PLAYING, None, "")
    assert not RatedResult.objects.exists()


def test_shuangkou_tie_named_by_the_organiser_is_a_draw_for_the_ladder(club, club_admin, members):
    people = members(4)
    t = setup_services.create_tournament(
        club_admin,
        club,
        name="二人双扣淘汰赛",
        variant="shuangkou2",
        format="elimination",
        unit_kind="single",
        starts_at=START,
        registration_closes=START - timedelta(minutes=5),
        online=False,
        rated=True,
        checkin_required=False,
    )
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    for person in people:
        entry_services.register(person, t, now=START - timedelta(hours=1))
    with time_machine.travel(START, tick=False):
        schedule_services.tick(START)
        game = Game.objects.filter(round__tournament=t, round__number=1).first()
        # points are not levels: 40 is a fine score, and the knockout tie-break is no win
        result_services.set_result(club_admin, game, 40, 40, winner=0)
    game.refresh_from_db()
    assert game.winner == 0
    rated = RatedResult.objects.get(source="admin", source_id=str(game.pk))
    assert (rated.score0, rated.score1, rated.winning_side) == (40, 40, None)
    assert rated.variant == "shuangkou2" and rated.players.count() == 2


# ----------------------------------------------------------------- score sheets
def test_collected_sheet_won_at_level_scores_is_rated_a_win(club, club_admin, members):
    t, (game, _other) = running_round(club, club_admin, members(8))
    seats = seats_of(t, game)
    later = START + timedelta(minutes=40)
    with time_machine.travel(START + timedelta(minutes=5), tick=False):
        # the scorer did not rate the sheet: the rated tournament does
        sheet = play_sheet(club, seats, LEVEL_WIN_FOR_SIDE_1, rated=False)
    assert sheet.state["result"]["score"] == [23, 23] and sheet.state["result"]["winner"] == 1
    assert not RatedResult.objects.exists()
    with time_machine.travel(later, tick=False):
        schedule_services.tick(later)
    game.refresh_from_db()
    assert (game.source, game.sheet_id, game.winner) == ("sheet", sheet.pk, 1)
    rated = RatedResult.objects.get(source="sheet", source_id=str(sheet.pk))
    assert (rated.score0, rated.score1, rated.winning_side) == (23, 24, 1)
    by_user = changes_by_user(rated, club)
    assert {u for u, c in by_user.items() if c.score == 1.0} == {seats[1].pk, seats[3].pk}
    # the organiser corrects the game: the sheet stays its rating, nothing is added
    with time_machine.travel(later, tick=False):
        result_services.set_result(club_admin, game, 20, 23, now=later)
    assert RatedResult.objects.count() == 1


def test_organiser_result_before_the_tick_rates_the_confirmed_sheet(club, club_admin, members):
    t, (game, _other) = running_round(club, club_admin, members(8))
    seats = seats_of(t, game)
    later = START + timedelta(minutes=40)
    with time_machine.travel(START + timedelta(minutes=5), tick=False):
        sheet = play_sheet(club, seats, LEVEL_WIN_FOR_SIDE_1, rated=False)
    with time_machine.travel(later, tick=False):
        result_services.set_result(club_admin, game, 23, 23, winner=1, now=later)
    game.refresh_from_db()
    assert game.sheet_id == sheet.pk and game.source == "admin"
    rated = RatedResult.objects.get()
    assert (rated.source, rated.source_id) == ("sheet", str(sheet.pk))
    assert (rated.score0, rated.score1) == (23, 24)


def test_rated_sheet_confirmed_after_the_organiser_result_is_not_rated_again(
    club, club_admin, members
):
    t, (game, other) = running_round(club, club_admin, members(8))
    seats = seats_of(t, game)
    from sheets import services as sheets

    with time_machine.travel(START + timedelta(minutes=5), tick=False):
        sheet = sheets.start_sheet(
            seats[0],
            club,
            variant="bao2",
            players=[sheets.PlayerSpec(user_id=u.pk) for u in seats],
            rated=True,
        )
    with time_machine.travel(START + timedelta(minutes=30), tick=False):
        result_services.set_result(club_admin, game, 23, 23, winner=1)
    assert RatedResult.objects.get().source == "admin"
    with time_machine.travel(START + timedelta(minutes=45), tick=False):
        for finish in LEVEL_WIN_FOR_SIDE_1:
            sheets.add_entry(seats[0], sheet, {"deal": {"finish": finish}}, uuid.uuid4())
        sheets.confirm(seats[0], sheet)
        sheet = sheets.confirm(seats[1], sheet)
    assert sheet.status == "confirmed"
    assert RatedResult.objects.count() == 1  # the game is rated once
    game.refresh_from_db()
    assert game.sheet_id == sheet.pk  # and the sheet is linked as its record
    # the same players' rated sheet of another evening is a match of its own
    with time_machine.travel(START + timedelta(days=2), tick=False):
        friendly = play_sheet(club, seats, [[0, 2]] * 9, rated=True)
    assert RatedResult.objects.filter(source="sheet", source_id=str(friendly.pk)).exists()
    other.refresh_from_db()
    assert other.sheet_id is None


# ----------------------------------------------------------------- live games
def test_live_games_are_rated_by_their_match_or_by_the_organiser(
    club, club_admin, members, no_deadline_tasks
):
    from matches.models import Actor, Match, Table
    from matches.services import play

    t, (broken, played) = running_round(club, club_admin, members(8), online=True)
    assert broken.table_id and played.table_id
    later = START + timedelta(minutes=40)
    with time_machine.travel(later, tick=False):
        # the organiser settles a game whose match is still being played ...
        match = Match.objects.get(table_id=broken.table_id)
        revision = match.revision
        result_services.set_result(club_admin, broken, 23, 23, winner=0, now=later)
        rated = RatedResult.objects.get(source="admin", source_id=str(broken.pk))
        assert (rated.score0, rated.score1, rated.winning_side) == (24, 23, 0)
        assert not Table.objects.get(pk=broken.table_id).rated
        match.refresh_from_db()
        assert match.revision == revision + 1  # a move being written now re-reads the table
        # ... so its match, ending later, is not rated a second time
        play.submit_action(
            match.pk, {"sanction": "forfeit", "target": 0}, seat=None, actor=Actor.SYSTEM
        )
        match.refresh_from_db()
        assert match.status == "finished"
        assert not RatedResult.objects.filter(source="live").exists()
        # a finished rated match is the game's rating; the organiser's correction adds nothing
        finished = Match.objects.get(table_id=played.table_id)
        play.submit_action(
            finished.pk, {"sanction": "forfeit", "target": 1}, seat=None, actor=Actor.SYSTEM
        )
        live = RatedResult.objects.get(source="live", source_id=str(finished.pk))
        assert (live.score0, live.score1) == (23, 0)
        result_services.set_result(club_admin, played, 23, 10, now=later)
    assert RatedResult.objects.count() == 2
    assert not RatedResult.objects.filter(source="admin", source_id=str(played.pk)).exists()
