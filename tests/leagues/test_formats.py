"""Swiss seasons and single-player seasons (two-player Shuangkou)."""

from collections import Counter
from datetime import timedelta

import time_machine

from leagues.models import Fixture, FixtureStatus, FixtureTable, RoundStatus
from leagues.services import entries, fixtures, play, setup
from matches.models import Match
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
