"""An in-person inter-club team fixture, through the beat's tick (Celery, eager) and the
score sheet services: at the agreed time the tick starts one score sheet per table (the
invited club's players seated at the host's sheets), the result comes only from the
confirmed sheets, and the fixture adds its tables."""

import uuid
from datetime import timedelta

import pytest
import time_machine
from django.test import Client

from ladder.models import RatedResult
from leagues import selectors
from leagues.models import FixtureStatus, FixtureTable
from leagues.services import entries, fixtures, setup
from leagues.tasks import league_tick_task
from outbox.models import Notification, OutboxMessage
from sheets import services as sheets
from sheets.models import ScoreSheet, SheetStatus
from tests.leagues.leaguekit import START, at


def tick(when):
    with time_machine.travel(when, tick=False):
        return league_tick_task.delay(when.isoformat()).get()


def deals(sheet, scorer, finishes):
    """The scorer enters deals (the finishing seats of each) and ends the match on time."""
    for finish in finishes:
        sheets.add_entry(scorer, sheet, {"deal": {"finish": finish}}, uuid.uuid4())
    sheets.add_entry(scorer, sheet, {"time_up": True}, uuid.uuid4())
    sheet.refresh_from_db()
    assert sheet.status == SheetStatus.FINISHED
    return sheet.state["result"]["score"]


@pytest.mark.integration
def test_an_in_person_inter_club_fixture_is_scored_on_sheets(world, celery_eager):
    season = world.season(online=False, time_limit_minutes=90)
    (a, pa) = world.team(season, world.host, world.host_admin, "南通一队")
    (b, pb) = world.team(season, world.guest, world.guest_admin, "如皋一队")
    setup.start_season(world.host_admin, season)
    fixture = season.rounds.get(number=1).fixtures.get()
    when = at(START + timedelta(days=2))
    tick(at(START, 8))
    with time_machine.travel(at(START, 9), tick=False):
        fixtures.propose_time(pb[0], fixture, when)
        fixtures.accept_time(pa[0], fixture)
        fixtures.submit_lineup(pa[0], fixture, [pa[:2], pa[2:]])
        fixtures.submit_lineup(pb[0], fixture, [pb[:2], pb[2:]])
    assert tick(when - timedelta(minutes=1))["tables_opened"] == 0
    assert tick(when)["tables_opened"] == 1
    assert tick(when + timedelta(minutes=1))["tables_opened"] == 0  # once only
    t1, t2 = FixtureTable.objects.filter(fixture=fixture).order_by("number")
    assert t1.table_ref is None and t2.table_ref is None
    s1, s2 = ScoreSheet.objects.get(pk=t1.sheet_ref), ScoreSheet.objects.get(pk=t2.sheet_ref)
    for table, sheet in ((t1, s1), (t2, s2)):
        assert sheet.club_id == world.host.pk and sheet.variant == "bao2"
        assert sheet.options == {"time_limit_minutes": 90}
        seated = list(sheet.players.order_by("seat").values_list("user_id", flat=True))
        assert seated == table.seat_users
        assert sheet.scorer_id == table.seat_users[table.home_side]  # a home player keeps it
    assert s1.scorer == pa[0] and s2.scorer == pa[2]
    assert set(t2.seat_users) == {pa[2].pk, pa[3].pk, pb[2].pk, pb[3].pk}
    notified = OutboxMessage.objects.filter(key__startswith=f"league:sheets:{fixture.pk}:")
    assert {m.user_id for m in notified} == {u.pk for u in pa + pb}
    # each one's notice links the fixture's page, where the sheets are opened
    listed = Notification.objects.filter(key__startswith=f"league:sheets:{fixture.pk}:")
    assert {n.url for n in listed} == {f"/leagues/fixtures/{fixture.pk}/"}
    assert listed.count() == len(pa + pb)

    # the guest club's players open the sheets from the fixture's page
    guest = Client()
    guest.force_login(pb[3])
    page = guest.get(f"/leagues/fixtures/{fixture.pk}/").content.decode()
    assert f"/matches/sheets/{s1.pk}/" in page and f"/matches/sheets/{s2.pk}/" in page
    assert guest.get(f"/matches/sheets/{s2.pk}/").status_code == 200

    # table 1: the home pair (north-south) wins; table 2: the away pair (north-south there)
    # wins by more, so the away team wins the fixture on the sum of the levels
    score1 = deals(s1, pa[0], [[0, 2]])
    score2 = deals(s2, pa[2], [[0, 2], [0, 2]])
    assert tick(when + timedelta(hours=3))["fixtures_done"] == 0  # not confirmed yet
    for sheet, players in ((s1, (pa[1], pb[0])), (s2, (pb[3], pa[3]))):
        for player in players:  # a player of each side, the guest club's included
            sheets.confirm(player, sheet)
        sheet.refresh_from_db()
        assert sheet.status == SheetStatus.CONFIRMED
    assert tick(when + timedelta(hours=3, minutes=1))["fixtures_done"] == 1
    fixture.refresh_from_db()
    t1.refresh_from_db()
    t2.refresh_from_db()
    assert (t1.home_score, t1.away_score, t1.winner) == (score1[0], score1[1], 0)
    assert (t2.home_score, t2.away_score, t2.winner) == (score2[1], score2[0], 1)
    assert fixture.status == FixtureStatus.DONE and fixture.source == "played"
    assert fixture.home_score == score1[0] + score2[1]
    assert fixture.away_score == score1[1] + score2[0]
    assert fixture.away_score > fixture.home_score and fixture.winner == 1
    assert [r.unit for r in selectors.standings(fixture.division)] == [b.pk, a.pk]
    rated = RatedResult.objects.filter(source="sheet", source_id__in=[str(s1.pk), str(s2.pk)])
    assert rated.count() == 2


def test_a_pair_fixture_in_person_starts_one_sheet(world, celery_eager):
    single_club = setup.create_league(world.host_admin, world.host, name="南通双人联赛")
    season = setup.create_season(
        world.host_admin,
        single_club,
        name="春",
        variant="guandan",
        entry_kind="pair",
        online=False,
        starts_on=START,
    )
    pairs = [[world.member(world.host) for _ in range(2)] for _ in range(2)]
    for pair in pairs:
        entries.enter_players(world.host_admin, season, world.host, players=pair)
    setup.start_season(world.host_admin, season)
    fixture = season.rounds.get(number=1).fixtures.get()
    home = pairs[0] if fixture.home.player1_id == pairs[0][0].pk else pairs[1]
    away = pairs[1] if home is pairs[0] else pairs[0]
    when = at(START + timedelta(days=1))
    tick(at(START, 8))
    with time_machine.travel(at(START, 9), tick=False):
        fixtures.propose_time(home[0], fixture, when)
        fixtures.accept_time(away[1], fixture)
    assert tick(when)["tables_opened"] == 1
    (table,) = fixture.tables.all()
    sheet = ScoreSheet.objects.get(pk=table.sheet_ref)
    assert table.seat_users == [home[0].pk, away[0].pk, home[1].pk, away[1].pk]
    assert sheet.scorer == home[0] and sheet.options == {}
    score = deals(sheet, home[0], [[1, 3]])  # the away pair (east-west) wins
    sheets.confirm(world.host_admin, sheet)  # a club admin's confirmation counts at once
    assert tick(when + timedelta(hours=2))["fixtures_done"] == 1
    fixture.refresh_from_db()
    assert (fixture.home_score, fixture.away_score, fixture.winner) == (score[0], score[1], 1)
