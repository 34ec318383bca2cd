"""Corrected results in the statistics (records/corrections.py, records.services.follow): an
organiser's or an appeal's correction of a tournament game, an organiser's correction of a
league table, over an entered result, a live match or a score sheet. The old facts leave the tallies and the
new ones enter them once, in one transaction; the last correction stands; a cleared result
leaves the statistics; the honours follow; running the task or the sweep again changes
nothing. The corrections reach records through Django's ``post_save`` of the game or fixture
(eager Celery, the task published on commit) or, a task lost, through beat's sweep."""

import uuid
from collections import Counter, defaultdict
from datetime import date, timedelta

import pytest
import time_machine
from django.utils import timezone

from leagues import models as lg
from leagues.services import play
from officials import services as officials
from records import periods, services, tasks
from records.models import Honour, MatchRecord, PlayerMatch, Source, Tally
from sheets import services as sheet_services
from tests.ladder import conftest as ladder_fixtures
from tests.records.kit import engine_match, store_match
from tests.tournaments.test_tournament_ladder import START, running_round, seats_of
from tournaments.models import Entry, Game, GameSource, GameStatus, Round, RoundStatus, Tournament
from tournaments.services import results as result_services
from tournaments.services import schedule as schedule_services

pytestmark = pytest.mark.django_db
club_admin = ladder_fixtures.club_admin  # the organiser, as the ladder tests make one
AFTER = START + timedelta(minutes=40)


def total(user, variant="bao2"):
    return Tally.objects.get(user=user, variant=variant, period="all", kind="total").counters


def consistent():
    """Every tally equals the sum of its player's recorded facts (no match counted twice, by
    halves, or after it left), for the totals and the partners."""
    facts = defaultdict(Counter)
    with_partner = defaultdict(Counter)
    for row in PlayerMatch.objects.all():
        facts[row.user_id].update(row.counters)
        with_partner[(row.user_id, row.partner_id or 0)].update(row.counters)
    tallies = defaultdict(Counter)
    partners = defaultdict(Counter)
    for t in Tally.objects.filter(period="all"):
        if t.kind == "total":
            tallies[t.user_id].update(t.counters)
        elif t.kind == "partner":
            partners[(t.user_id, t.other_key)].update(t.counters)
    assert {u: dict(c) for u, c in facts.items()} == {u: dict(c) for u, c in tallies.items()}
    assert {k: dict(c) for k, c in with_partner.items()} == {
        k: dict(c) for k, c in partners.items()
    }
    assert all(t.counters for t in Tally.objects.all()), "an empty tally was left"


OUTCOME_AND_LEVELS = ("won", "drawn", "lost", "levels_up", "levels_down")


def net(counters):
    """A team's net levels in one match's counters."""
    return counters.get("levels_up", 0) - counters.get("levels_down", 0)


def snapshot():
    return sorted(
        (t.user_id, t.period, t.kind, t.other_key, sorted(t.counters.items()))
        for t in Tally.objects.all()
    )


def test_an_organisers_correction_of_an_entered_result_follows_once_and_the_last_stands(
    club, club_admin, members, celery_eager, django_capture_on_commit_callbacks
):
    people = members(8)
    t, (game, _other) = running_round(club, club_admin, people, rounds_planned=2)
    seats = seats_of(t, game)
    side0, side1 = [seats[0], seats[2]], [seats[1], seats[3]]
    with django_capture_on_commit_callbacks(execute=True):
        result_services.set_result(club_admin, game, 2, 0, now=AFTER)
    # the entry itself is recorded at once (the game's save queued the task)
    assert total(side0[0]) == {"matches": 1, "won": 1, "levels_up": 2}
    assert total(side1[0]) == {"matches": 1, "lost": 1}
    with django_capture_on_commit_callbacks(execute=True):
        result_services.set_result(club_admin, game, 0, 2, now=AFTER)
    for user in side0:
        assert total(user) == {"matches": 1, "lost": 1}
    for user in side1:
        assert total(user) == {"matches": 1, "won": 1, "levels_up": 2}
    assert MatchRecord.objects.filter(source=Source.ENTERED).count() == 1
    consistent()
    # corrected again: the last result stands (a draw at 3 : 3)
    with django_capture_on_commit_callbacks(execute=True):
        result_services.set_result(club_admin, game, 3, 3, now=AFTER)
    for user in side0 + side1:
        assert total(user) == {"matches": 1, "drawn": 1, "levels_up": 3}
    partner = Tally.objects.get(user=side1[0], period="all", kind="partner")
    assert partner.other_id == side1[1].pk
    assert partner.counters == {"matches": 1, "drawn": 1, "levels_up": 3}
    head = Tally.objects.get(user=side0[0], other=side1[0], period="all", kind="opponent")
    assert head.counters == {"matches": 1, "drawn": 1}  # no won nor lost left at 0
    consistent()
    # the month and season the match was recorded in keep it
    month = periods.month_key(AFTER)
    assert Tally.objects.get(user=side0[0], period=month, kind="total").counters["drawn"] == 1
    # the task again, and the sweep: nothing changes
    before = snapshot()
    assert services.follow_game(game.pk) == 0
    assert tasks.sweep_records_task() == 0
    assert snapshot() == before


def test_an_appeal_corrects_a_live_match_the_deals_stay_the_outcome_and_levels_follow(
    club, club_admin, members, celery_eager, django_capture_on_commit_callbacks
):
    people = members(8)
    t, (game, other) = running_round(club, club_admin, people, rounds_planned=2)
    seats = seats_of(t, game)
    # a match won by levels (the first seed the bots give one: a draw has no loser to appeal)
    played = next(
        m
        for seed in range(3, 60)
        if (m := engine_match("bao2", seed, 2)).winner is not None
        and len(set(m.result()["score"])) == 2
    )
    match = store_match(played, club, seats, rated=False, ended_at=START + timedelta(minutes=30))
    Game.objects.filter(pk=game.pk).update(table=match.table)
    result = played.result()
    a, b = result["score"]
    assert services.record_live_match(match.pk)
    recorded = {r.user_id: r for r in PlayerMatch.objects.filter(record__source_id=str(match.pk))}
    with time_machine.travel(AFTER, tick=False), django_capture_on_commit_callbacks(execute=True):
        result_services.set_result(club_admin, other, 9, 3, now=AFTER)
        schedule_services.tick(AFTER)  # takes the live game's result from its match
    game.refresh_from_db()
    assert (game.score0, game.score1, game.source) == (a, b, GameSource.LIVE)
    assert Round.objects.get(pk=game.round_id).finished_at is not None
    committee = members(3)
    for person in committee:
        officials.appoint(club_admin, t, person, "committee")
    loser = seats[1] if result["winner"] == 0 else seats[0]
    filed_at = AFTER + timedelta(minutes=10)
    with django_capture_on_commit_callbacks(execute=True):
        appeal = officials.file_appeal(
            loser, game, "result", "对方出牌违规，应判负。", now=filed_at
        )
    with django_capture_on_commit_callbacks(execute=True):
        for person in committee[:2]:
            officials.cast_vote(
                person, appeal, "uphold", "违规属实", score0=b, score1=a, now=filed_at
            )
    game.refresh_from_db()
    assert (game.score0, game.score1, game.source) == (b, a, GameSource.ADMIN)
    rows = {r.user_id: r for r in PlayerMatch.objects.filter(record__source_id=str(match.pk))}
    winner = 1 - result["winner"]
    corrected = [b, a]
    for seat, user in enumerate(seats):
        old, new = recorded[user.pk], rows[user.pk]
        side = seat % 2
        assert new.outcome == ("won" if side == winner else "lost") != old.outcome
        # the deals stay as played: every counter but the outcome and the levels
        kept = {k: v for k, v in old.counters.items() if k not in OUTCOME_AND_LEVELS}
        assert {k: v for k, v in new.counters.items() if k not in OUTCOME_AND_LEVELS} == kept
        assert new.counters[new.outcome] == 1 and old.outcome not in new.counters
        # the team's net levels end where the corrected result says
        assert net(new.counters) - net(old.counters) == corrected[side] - result["score"][side]
    # a live game corrected is no entered result: the match is counted once, as the live one
    assert MatchRecord.objects.filter(source=Source.LIVE).count() == 1
    entered = MatchRecord.objects.filter(source=Source.ENTERED).values_list("source_id", flat=True)
    assert list(entered) == [f"t{other.pk}"]
    consistent()
    before = snapshot()
    assert services.follow_game(game.pk) == 0
    assert services.record_live_match(match.pk) is False
    assert tasks.sweep_records_task() == 0
    assert snapshot() == before


def pair_games(club, people, results):
    """A finished round of one rated tournament, one entered game per result (side 0 = people
    0 and 2, side 1 = people 1 and 3)."""
    now = timezone.now()
    t = Tournament.objects.create(
        club=club, name="月赛", variant="bao2", starts_at=now, rated=False
    )
    rnd = Round.objects.create(
        tournament=t, number=1, scheduled_at=now, status=RoundStatus.FINISHED
    )
    pairs = [
        Entry.objects.create(tournament=t, player1=people[0], player2=people[2]),
        Entry.objects.create(tournament=t, player1=people[1], player2=people[3]),
    ]
    return [
        Game.objects.create(
            round=rnd,
            number=n + 1,
            side0=[pairs[0].pk],
            side1=[pairs[1].pk],
            status=GameStatus.FINISHED,
            source=GameSource.ADMIN,
            score0=s0,
            score1=s1,
            winner=0 if s0 > s1 else 1,
            finished_at=now,
        )
        for n, (s0, s1) in enumerate(results)
    ]


def best_pair(club):
    month = periods.month_key(timezone.now())
    honour = Honour.objects.get(club=club, period=month, code="best_partnership")
    return {honour.user_id, honour.partner_id}, honour.value, honour.matches


def test_the_honours_follow_a_correction_and_a_lost_task_is_followed_by_the_sweep(
    club, club_admin, members
):
    people = members(4)
    games = pair_games(club, people, [(5, 3), (6, 1), (4, 2), (1, 5), (2, 7)])
    assert tasks.sweep_records_task() == 5
    assert best_pair(club) == ({people[0].pk, people[2].pk}, 60.0, 5)
    # two of the first pair's wins corrected to losses; no task runs (no on-commit here):
    # beat's sweep is the safety net
    for game in games[:2]:
        result_services.correct_result(club_admin, game, 0, 3, "记分错误")
    assert total(people[0])["won"] == 3  # not followed yet
    assert tasks.sweep_records_task() == 2
    assert total(people[0]) == {"matches": 5, "won": 1, "lost": 4, "levels_up": 4 + 1 + 2}
    assert total(people[1]) == {"matches": 5, "won": 4, "lost": 1, "levels_up": 3 + 3 + 2 + 5 + 7}
    assert best_pair(club) == ({people[1].pk, people[3].pk}, 80.0, 5)
    consistent()
    before = snapshot()
    assert tasks.sweep_records_task() == 0
    assert snapshot() == before


def test_a_cleared_entered_result_leaves_the_statistics(
    club, members, celery_eager, django_capture_on_commit_callbacks
):
    people = members(4)
    (game,) = pair_games(club, people, [(5, 3)])
    assert tasks.sweep_records_task() == 1
    # a knockout re-bracketed clears a game's result (tournaments.services.results._rebracket)
    game.score0 = game.score1 = game.winner = None
    game.source, game.status, game.finished_at = "", GameStatus.PLAYING, None
    with django_capture_on_commit_callbacks(execute=True):
        game.save()
    assert not MatchRecord.objects.exists() and not PlayerMatch.objects.exists()
    assert not Tally.objects.exists()  # as if it had never been counted
    month = periods.month_key(timezone.now())
    assert not Honour.objects.filter(club=club, period=month).exists()
    assert tasks.sweep_records_task() == 0


def league_table(club, people, **table):
    """A league fixture of ``people``'s two pairs (home: people 1 and 3, seats 1 and 3, unless
    ``table`` says) with one table of ``table``'s fields."""
    league = lg.League.objects.create(host=club, name="联赛")
    season = lg.Season.objects.create(
        league=league, name="2026", variant="guandan", starts_on=date.today(), rated=False
    )
    division = lg.Division.objects.create(season=season, name="甲级", level=1)
    home, away = (
        lg.Entry.objects.create(
            season=season, division=division, club=club, name=n, player1=a, player2=b
        )
        for n, a, b in (("主", people[1], people[3]), ("客", people[0], people[2]))
    )
    rnd = lg.Round.objects.create(
        season=season, number=1, opens_on=date.today(), closes_on=date.today() + timedelta(7)
    )
    fixture = lg.Fixture.objects.create(
        round=rnd, division=division, home=home, away=away, finished_at=timezone.now()
    )
    fields = {"home_side": 1, "seat_users": [p.pk for p in people], "done": True, **table}
    return lg.FixtureTable.objects.create(fixture=fixture, number=1, **fields)


def test_an_organisers_league_table_correction_follows(
    club, club_admin, members, celery_eager, django_capture_on_commit_callbacks
):
    people = members(4)
    table = league_table(club, people, home_score=9, away_score=4, winner=0)
    assert tasks.sweep_records_task() == 1
    assert total(people[1], "guandan") == {"matches": 1, "won": 1, "levels_up": 9}
    with django_capture_on_commit_callbacks(execute=True):
        play.correct_table(club_admin, table, 4, 9)
    assert total(people[1], "guandan") == {"matches": 1, "lost": 1, "levels_up": 4}
    assert total(people[3], "guandan") == total(people[1], "guandan")
    assert total(people[0], "guandan") == {"matches": 1, "won": 1, "levels_up": 9}
    consistent()
    before = snapshot()
    assert services.follow_fixture(table.fixture_id) == 0
    assert tasks.sweep_records_task() == 0
    assert snapshot() == before


def test_a_league_correction_of_a_score_sheets_result_keeps_its_deals(
    club, club_admin, members, celery_eager, django_capture_on_commit_callbacks
):
    people = members(4)
    sheet = sheet_services.start_sheet(
        people[0],
        club,
        variant="guandan",
        players=[sheet_services.PlayerSpec(user_id=p.pk) for p in people],
    )
    for finish in ([0, 2], [1, 0, 3, 2]):
        sheet_services.add_entry(people[0], sheet, {"deal": {"finish": finish}}, uuid.uuid4())
    sheet_services.add_entry(people[0], sheet, {"time_up": True}, uuid.uuid4())
    sheet_services.confirm(people[0], sheet)
    sheet_services.confirm(people[1], sheet)
    sheet.refresh_from_db()
    played = sheet.state["result"]["score"]
    assert played[0] > played[1]  # team 0 (people 0 and 2) won
    # the sheet played a league table: the home pair at seats 0 and 2 here
    table = league_table(
        club,
        people,
        home_side=0,
        sheet_ref=sheet.pk,
        home_score=played[0],
        away_score=played[1],
        winner=0,
    )
    assert tasks.sweep_records_task() == 1  # the sheet (the table is no entered result)
    before = {r.user_id: r.counters for r in PlayerMatch.objects.all()}
    with django_capture_on_commit_callbacks(execute=True):
        play.correct_table(club_admin, table, 1, 5)  # the away pair won 5 : 1
    after = {r.user_id: r for r in PlayerMatch.objects.all()}
    assert MatchRecord.objects.get().source == Source.SHEET
    for seat, person in enumerate(people):
        side = seat % 2
        row = after[person.pk]
        assert row.outcome == ("lost" if side == 0 else "won")
        kept = {k: v for k, v in before[person.pk].items() if k not in OUTCOME_AND_LEVELS}
        assert {k: v for k, v in row.counters.items() if k not in OUTCOME_AND_LEVELS} == kept
        assert net(row.counters) - net(before[person.pk]) == [1, 5][side] - played[side]
    consistent()
    assert tasks.sweep_records_task() == 0
