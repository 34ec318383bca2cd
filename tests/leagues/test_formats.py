"""Swiss seasons and single-player seasons (two-player Shuangkou)."""

from collections import Counter
from datetime import timedelta

import time_machine

from leagues.models import Fixture, FixtureStatus, FixtureTable, RoundStatus
from leagues.services import entries, fixtures, play, setup
from matches.models import Match
from sheets.models import ScoreSheet
from tests.leagues.leaguekit import START, at


def test_swiss_draws_round_by_round_without_rematches(world):
    season = world.season(format="swiss", swiss_rounds=3)
    teams = [world.team(season, world.host, world.host_admin, f"队{i}")[0] for i in range(5)]
    setup.start_season(world.host_admin, season)
    assert season.rounds.count() == 3
    assert Fixture.objects.filter(round__season=season, round__number=1).count() == 3
    assert not Fixture.objects.filter(round__season=season, round__number=2).exists()
    for number in (1, 2, 3):
        rnd = season.rounds.get(number=number)
        with time_machine.travel(at(rnd.opens_on, 9), tick=False):
            play.tick()
        for fixture in rnd.fixtures.exclude(away__isnull=True):
            play.award(world.host_admin, fixture, 0)
        with time_machine.travel(at(rnd.closes_on + timedelta(days=1), 1), tick=False):
            play.tick()
        rnd.refresh_from_db()
        assert rnd.status == RoundStatus.CLOSED
    played = Fixture.objects.filter(round__season=season)
    met = Counter(frozenset((f.home_id, f.away_id)) for f in played if f.away_id)
    assert max(met.values()) == 1
    byes = Counter(f.home_id for f in played if f.away_id is None)
    assert len(byes) == 3 and set(byes.values()) == {1}
    assert {e.pk for e in teams} == {f.home_id for f in played} | {
        f.away_id for f in played if f.away_id
    }


def test_single_player_season_opens_a_two_seat_table(world):
    season = world.season(variant="shuangkou2", entry_kind="single", deals=2)
    a, b = world.member(world.host), world.member(world.guest)
    entries.enter_players(a, season, world.host, players=[a])  # players enter themselves
    entries.enter_players(world.guest_admin, season, world.guest, players=[b])
    setup.start_season(world.host_admin, season)
    fixture = season.rounds.get(number=1).fixtures.get()
    with time_machine.travel(at(START, 9), tick=False):
        play.tick()
        fixtures.propose_time(b, fixture, at(START, 20))
        fixtures.accept_time(a, fixture)
    with time_machine.travel(at(START, 20), tick=False):
        assert play.tick()["tables_opened"] == 1
    (table,) = FixtureTable.objects.filter(fixture=fixture)
    home = fixture.home.player1_id
    assert table.seat_users[0] == home and len(table.seat_users) == 2
    match = Match.objects.get(table_id=table.table_ref)
    assert match.options["deals"] == 2
    fixture.refresh_from_db()
    assert fixture.status == FixtureStatus.PLAYING


def test_in_person_fixture_starts_score_sheets(world):
    league = setup.create_league(world.host_admin, world.host, name="南通内部联赛")
    season = setup.create_season(
        world.host_admin,
        league,
        name="冬季",
        variant="bao2",
        entry_kind="pair",
        starts_on=START,
        online=False,
        colour_twos=True,
    )
    pairs = [[world.member(world.host) for _ in range(2)] for _ in range(2)]
    for pair in pairs:
        entries.enter_players(world.host_admin, season, world.host, players=pair)
    setup.start_season(world.host_admin, season)
    fixture = season.rounds.get(number=1).fixtures.get()
    with time_machine.travel(at(START, 9), tick=False):
        play.tick()
        fixtures.propose_time(pairs[0][0], fixture, at(START, 19))
        fixtures.accept_time(pairs[1][1], fixture)
    with time_machine.travel(at(START, 19), tick=False):
        assert play.tick()["tables_opened"] == 1
    (table,) = FixtureTable.objects.filter(fixture=fixture)
    sheet = ScoreSheet.objects.get(pk=table.sheet_ref)
    assert sheet.options == {"colour_twos": True}
    home = [fixture.home.player1_id, fixture.home.player2_id]
    assert sorted(table.seat_users[0::2]) == sorted(home)
