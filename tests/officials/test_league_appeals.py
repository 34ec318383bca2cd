"""Appeals about league fixtures (issue 45, item 4), through the officials services on the
real database: the same flow as a tournament's appeals, aimed at a league fixture's table.

* a player seated at a table of a finished fixture files a written appeal within the
  season's appeal time after the fixture finished; a late appeal, and anyone not seated
  there, are refused with a translated reason;
* the committee (odd, at least three) decides by majority; an upheld appeal changes the
  table through ``leagues.services.play.correct_table`` — the fixture, the standings, the
  ladder and the statistics follow, once; who decided and why is kept on the appeal;
* a dismissed appeal leaves everything as it was.
"""

import uuid
from datetime import timedelta

import pytest
import time_machine
from django.utils import translation

from ladder.apply import apply_result
from ladder.models import RatedResult, RatingChange
from leagues import selectors as league_selectors
from leagues.models import FixtureStatus, ResultSource
from leagues.services import entries, fixtures, setup
from leagues.services import play as league_play
from leagues.tasks import league_tick_task
from officials import selectors, services
from officials.models import Appeal, AppealStatus
from outbox.models import Notification, OutboxMessage
from records import tasks as records_tasks
from records.models import PlayerMatch
from sheets import services as sheets
from sheets.models import ScoreSheet, SheetStatus
from tests.leagues.leaguekit import START, at

WHEN = at(START + timedelta(days=1))
DONE = WHEN + timedelta(hours=2)


def tick(when):
    with time_machine.travel(when, tick=False):
        return league_tick_task.delay(when.isoformat()).get()


@pytest.fixture
def league(club, club_admin, members, celery_eager):
    """A rated Guandan pair season of one club played in person: its one fixture's score
    sheet won by the home pair, confirmed, the fixture done at DONE; a chief referee, a
    referee and an appeals committee of three appointed."""
    home, away = members(2), members(2)
    league = setup.create_league(club_admin, club, name="南通双人联赛")
    season = setup.create_season(
        club_admin,
        league,
        name="春",
        variant="guandan",
        entry_kind="pair",
        online=False,
        rated=True,
        starts_on=START,
        today=START - timedelta(days=7),
    )
    for pair in (home, away):
        entries.enter_players(club_admin, season, club, players=pair)
    setup.start_season(club_admin, season)
    fixture = season.rounds.get(number=1).fixtures.get()
    if fixture.home.player1_id != home[0].pk:
        home, away = away, home
    tick(at(START, 8))
    with time_machine.travel(at(START, 9), tick=False):
        fixtures.propose_time(home[0], fixture, WHEN)
        fixtures.accept_time(away[1], fixture)
    assert tick(WHEN)["tables_opened"] == 1
    (table,) = fixture.tables.all()
    sheet = ScoreSheet.objects.get(pk=table.sheet_ref)
    for finish in ([0, 2], [0, 2]):  # the home pair (seats 0 and 2) finishes first twice
        sheets.add_entry(home[0], sheet, {"deal": {"finish": finish}}, uuid.uuid4())
    sheets.add_entry(home[0], sheet, {"time_up": True}, uuid.uuid4())
    sheet.refresh_from_db()
    assert sheet.status == SheetStatus.FINISHED
    sheets.confirm(club_admin, sheet)
    assert tick(DONE)["fixtures_done"] == 1
    fixture.refresh_from_db()
    table.refresh_from_db()
    assert fixture.status == FixtureStatus.DONE and fixture.winner == 0
    assert table.home_score > table.away_score
    committee = members(3)
    chief, referee = members(2)
    services.appoint(club_admin, season, chief, "chief")
    services.appoint(club_admin, season, referee, "referee")
    for person in committee:
        services.appoint(club_admin, season, person, "committee")
    return {
        "season": season,
        "fixture": fixture,
        "table": table,
        "sheet": sheet,
        "home": home,
        "away": away,
        "admin": club_admin,
        "committee": committee,
        "chief": chief,
        "referee": referee,
    }


def order(fixture):
    return [row.unit for row in league_selectors.standings(fixture.division)]


def test_an_upheld_league_appeal_changes_the_table_standings_ratings_and_records_once(
    league, django_capture_on_commit_callbacks
):
    fixture, table, away = league["fixture"], league["table"], league["away"]
    home_won = (table.home_score, table.away_score)
    assert order(fixture) == [fixture.home_id, fixture.away_id]
    rated = RatedResult.objects.get(source="sheet", source_id=str(table.sheet_ref))
    if not RatingChange.objects.filter(result=rated).exists():
        apply_result(rated)
    before = {c.user_id: c.after for c in RatingChange.objects.filter(result=rated)}
    assert len(before) == 4
    records_tasks.sweep_records_task()
    assert {r.user_id: r.outcome for r in PlayerMatch.objects.filter(user__in=league["home"])} == {
        u.pk: "won" for u in league["home"]
    }

    filed_at = fixture.finished_at + timedelta(minutes=10)
    with django_capture_on_commit_callbacks(execute=True):
        appeal = services.file_appeal(
            away[0], table, "result", "最后一副记错了，是我们过A。", now=filed_at
        )
    assert appeal.table_id == table.pk and appeal.game_id is None
    assert (appeal.before0, appeal.before1) == home_won
    told = set(
        Notification.objects.filter(
            key__startswith=f"officials:appeal:{appeal.pk}:filed"
        ).values_list("user_id", flat=True)
    )
    assert told == {p.pk for p in league["committee"]} | {league["chief"].pk}
    # the player's page lists the appeal, the committee's too; the referee reads nothing
    panel = selectors.panel_of(league["season"])
    assert list(selectors.appeals_for(away[1], panel)) == [appeal]
    assert list(selectors.appeals_for(league["committee"][0], panel)) == [appeal]
    assert list(selectors.appeals_for(league["referee"], panel)) == []

    first, second, third = league["committee"]
    corrected = (home_won[1], home_won[0])  # the away pair won by as much
    with django_capture_on_commit_callbacks(execute=True):
        services.cast_vote(first, appeal, "uphold", "记分表有误", *corrected, now=filed_at)
        services.cast_vote(second, appeal, "dismiss", "证据不足", now=filed_at)
    appeal.refresh_from_db()
    table.refresh_from_db()
    assert appeal.status == AppealStatus.OPEN and (table.home_score, table.away_score) == home_won
    with django_capture_on_commit_callbacks(execute=True):
        services.cast_vote(third, appeal, "uphold", "双方确认", *corrected, now=filed_at)
    appeal.refresh_from_db()
    assert appeal.status == AppealStatus.UPHELD and (appeal.after0, appeal.after1) == corrected
    assert appeal.decided_by == third and appeal.decided_at == filed_at
    assert {v.reason for v in appeal.votes.all()} == {"记分表有误", "证据不足", "双方确认"}
    # the table and the fixture follow, as an organiser's correction does
    table.refresh_from_db()
    fixture.refresh_from_db()
    assert (table.home_score, table.away_score, table.winner) == (*corrected, 1)
    assert (fixture.home_score, fixture.away_score, fixture.winner) == (*corrected, 1)
    assert fixture.source == ResultSource.ORGANISER
    # the standings at once
    assert order(fixture) == [fixture.away_id, fixture.home_id]
    # the ladder: the sheet's one rating corrected and its ladder rebuilt
    assert RatedResult.objects.filter(source="sheet", source_id=str(table.sheet_ref)).count() == 1
    rated.refresh_from_db()
    assert (rated.score0, rated.score1) == corrected  # the home pair sat at seats 0 and 2
    after = {c.user_id: c for c in RatingChange.objects.filter(result=rated)}
    assert set(after) == set(before)
    for person in away:
        assert after[person.pk].score == 1.0 and after[person.pk].after > before[person.pk]
    for person in league["home"]:
        assert after[person.pk].score == 0.0 and after[person.pk].after < before[person.pk]
    # the statistics: the outcome follows for all four
    outcomes = {r.user_id: r.outcome for r in PlayerMatch.objects.all()}
    assert {outcomes[u.pk] for u in away} == {"won"}
    assert {outcomes[u.pk] for u in league["home"]} == {"lost"}
    # exactly once: no more votes, nothing rebuilt again, nothing recorded twice
    ids = set(RatingChange.objects.values_list("pk", flat=True))
    with pytest.raises(services.OfficialsError) as refused:
        services.cast_vote(first, appeal, "dismiss", "again", now=filed_at)
    assert refused.value.code in ("decided", "voted")
    assert set(RatingChange.objects.values_list("pk", flat=True)) == ids
    assert records_tasks.sweep_records_task() == 0
    assert PlayerMatch.objects.count() == 4
    # the decision is final: no appeal about the result again, even in the time that the
    # correction (the fixture's new end) opened; a sanction may still be appealed
    reopened = fixture.finished_at + timedelta(minutes=1)
    with pytest.raises(services.OfficialsError) as refused:
        services.file_appeal(league["home"][0], table, "result", "不服", now=reopened)
    assert refused.value.code == "final"
    services.file_appeal(league["home"][0], table, "sanction", "判罚不公", now=reopened)
    # the filer and the table's players are told, once each, in the league e-mails
    decided = Notification.objects.filter(key__startswith=f"officials:appeal:{appeal.pk}:decided")
    assert set(decided.values_list("user_id", flat=True)) == {
        u.pk for u in (*league["home"], *away)
    }
    assert set(decided.values_list("kind", flat=True)) == {"leagues"}
    mails = OutboxMessage.objects.filter(key__startswith=f"officials:appeal:{appeal.pk}:decided")
    assert mails.count() == 4


def test_a_dismissed_league_appeal_leaves_the_result(league):
    fixture, table = league["fixture"], league["table"]
    scores = (table.home_score, table.away_score)
    appeal = services.file_appeal(
        league["away"][1], table, "sanction", "裁判判罚不公", now=fixture.finished_at
    )
    for member in league["committee"][1:]:
        services.cast_vote(member, appeal, "dismiss", "判罚正确", now=fixture.finished_at)
    appeal.refresh_from_db()
    table.refresh_from_db()
    fixture.refresh_from_db()
    assert appeal.status == AppealStatus.DISMISSED and appeal.after0 is None
    assert (table.home_score, table.away_score) == scores
    assert fixture.source == ResultSource.PLAYED and fixture.winner == 0
    assert order(fixture) == [fixture.home_id, fixture.away_id]


def test_the_league_appeal_time_and_who_may_appeal(league, members, make_users):
    fixture, table, season = league["fixture"], league["table"], league["season"]
    player = league["away"][0]
    late = fixture.finished_at + timedelta(minutes=31)
    assert selectors.table_deadline(selectors.panel_of(season), table) == (
        fixture.finished_at + timedelta(minutes=30)
    )
    assert selectors.appealable_tables(player, season, late) == []
    with translation.override("zh-hans"), pytest.raises(services.OfficialsError) as refused:
        services.file_appeal(player, table, "result", "迟到的申诉", now=late)
    assert refused.value.code == "too_late" and "30" in refused.value.message
    assert "申诉" in refused.value.message  # said in the player's language
    # the season's organiser gives more time: the same appeal is in time
    services.set_appeal_minutes(league["admin"], season, 60)
    assert selectors.appealable_tables(player, season, late) == [table]
    services.file_appeal(player, table, "result", "迟到的申诉", now=late)
    with pytest.raises(services.OfficialsError) as refused:
        services.file_appeal(player, table, "result", "再一次", now=late)
    assert refused.value.code == "open_already"
    # not seated at the table: the officials, a club member, someone of no club
    (stranger,) = make_users(1, prefix="out")
    for outsider in (league["referee"], league["committee"][0], members(1)[0], stranger):
        with pytest.raises(services.NotAllowed):
            services.file_appeal(outsider, table, "result", "x", now=late)
    # every field's error at once, translated, nothing written
    count = Appeal.objects.count()
    with translation.override("zh-hans"), pytest.raises(services.OfficialsError) as refused:
        services.file_appeal(league["home"][1], table, "weather", "  ", now=late)
    assert set(refused.value.fields) == {"subject", "text"}
    assert Appeal.objects.count() == count


def test_the_league_committee_decides_only_odd_and_at_least_three(league, members):
    season, table, admin = league["season"], league["table"], league["admin"]
    now = league["fixture"].finished_at
    appeal = services.file_appeal(league["away"][0], table, "result", "申诉", now=now)
    fourth = members(1)[0]
    services.appoint(admin, season, fourth, "committee")
    with translation.override("zh-hans"), pytest.raises(services.OfficialsError) as refused:
        services.cast_vote(league["committee"][0], appeal, "dismiss", "理由", now=now)
    assert refused.value.code == "committee_size" and "4" in refused.value.message
    assert not appeal.votes.exists()
    fifth = members(1)[0]
    services.appoint(admin, season, fifth, "committee")  # five: three decide
    services.cast_vote(league["committee"][0], appeal, "dismiss", "理由", now=now)
    services.cast_vote(league["committee"][1], appeal, "dismiss", "理由", now=now)
    appeal.refresh_from_db()
    assert appeal.status == AppealStatus.OPEN
    # a bad proposal is refused whole: scores beyond the levels, no reason
    with pytest.raises(services.OfficialsError) as refused:
        services.cast_vote(fourth, appeal, "uphold", "", 30, 2)
    assert set(refused.value.fields) == {"reason", "score"}
    services.cast_vote(fourth, appeal, "dismiss", "理由", now=now)
    appeal.refresh_from_db()
    assert appeal.status == AppealStatus.DISMISSED and appeal.decided_by == fourth


def test_a_committee_member_with_a_stake_in_the_fixture_does_not_vote(league):
    season, table, admin = league["season"], league["table"], league["admin"]
    now = league["fixture"].finished_at
    appeal = services.file_appeal(league["away"][0], table, "result", "申诉", now=now)
    opponent = league["home"][0]
    services.appoint(admin, season, opponent, "committee")
    with pytest.raises(services.NotAllowed):
        services.cast_vote(opponent, appeal, "dismiss", "我们赢了", now=now)
    with pytest.raises(services.NotAllowed):
        services.cast_vote(league["away"][0], appeal, "uphold", "x", 1, 2, now=now)
    with pytest.raises(services.NotAllowed):
        services.cast_vote(league["chief"], appeal, "dismiss", "x", now=now)


def test_an_organisers_correction_still_needs_the_organiser(league):
    table = league["table"]
    with pytest.raises(league_play.not_allowed().__class__):
        league_play.correct_table(league["committee"][0], table, 0, 5)
