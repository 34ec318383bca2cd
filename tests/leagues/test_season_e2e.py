"""A season played end to end by bots: the beat's tick (through Celery, eager) with time
moved forward opens rounds, opens the tables at the agreed times, collects the live results
and closes the rounds; the standings follow, an organiser's correction reaches the ladder,
and the next season is seeded from the final standings."""

from datetime import timedelta

import pytest
import time_machine

from ladder.models import RatedResult
from leagues import selectors
from leagues.models import FixtureStatus, FixtureTable, RoundStatus, SeasonStatus
from leagues.services import fixtures, play, setup
from leagues.tasks import league_tick_task
from matches.models import Match
from matches.services import clock, presence
from tests.leagues.leaguekit import at


def play_for_a_minute(match_id, when):
    """Bots (auto-play) play a live match; its one-minute time limit ends it after the
    deal under way (the engine's ``time_up``)."""
    with time_machine.travel(when + timedelta(minutes=2), tick=False):
        for seat in range(4):
            presence.set_autoplay(match_id, seat, "disconnect")
        assert clock.apply_time_limit(match_id)
        for _ in range(3000):
            match = Match.objects.get(pk=match_id)
            if match.status == "finished":
                return
            clock.act_on_deadline(match_id, match.version, force=True)
    raise AssertionError("the match did not finish")


def tick(when):
    with time_machine.travel(when, tick=False):
        return league_tick_task.delay(when.isoformat()).get()


@pytest.mark.integration
def test_a_season_played_by_bots(world, celery_eager):
    season = world.season(window_days=7, time_limit_minutes=1)
    teams = [
        world.team(season, world.host, world.host_admin, "南通一队"),
        world.team(season, world.guest, world.guest_admin, "如皋一队"),
        world.team(season, world.host, world.host_admin, "南通二队"),
    ]
    captain = {entry.pk: players[0] for entry, players in teams}
    roster = {entry.pk: players for entry, players in teams}
    setup.start_season(world.host_admin, season)
    rounds = list(season.rounds.order_by("number"))
    assert len(rounds) == 3
    for rnd in rounds:
        tick(at(rnd.opens_on, 8))  # the round opens on its first day (or at the last close)
        rnd.refresh_from_db()
        assert rnd.status == RoundStatus.OPEN
        (fixture,) = rnd.fixtures.exclude(status=FixtureStatus.BYE)
        when = at(rnd.opens_on + timedelta(days=2), 19)
        with time_machine.travel(at(rnd.opens_on, 9), tick=False):
            fixtures.propose_time(captain[fixture.away_id], fixture, when)
            fixtures.accept_time(captain[fixture.home_id], fixture)
            for entry_id in (fixture.home_id, fixture.away_id):
                p = roster[entry_id]
                fixtures.submit_lineup(captain[entry_id], fixture, [p[:2], p[2:]])
        assert tick(when)["tables_opened"] == 1
        for table in FixtureTable.objects.filter(fixture=fixture):
            play_for_a_minute(Match.objects.get(table_id=table.table_ref).pk, when)
        assert tick(when + timedelta(hours=3))["fixtures_done"] == 1
        fixture.refresh_from_db()
        assert fixture.status == FixtureStatus.DONE and fixture.source == "played"
        tables = list(fixture.tables.all())
        assert fixture.home_score == sum(t.home_score for t in tables)
        assert fixture.away_score == sum(t.away_score for t in tables)
        assert tick(at(rnd.closes_on + timedelta(days=1), 0))["rounds_closed"] == 1
        rnd.refresh_from_db()
        assert rnd.status == RoundStatus.CLOSED
    division = season.divisions.get()
    rows = selectors.standings(division)
    assert sum(r.played for r in rows) == 6 and sum(r.byes for r in rows) == 3
    points = {r.unit: r.values["match_points"] for r in rows}
    expected = {entry.pk: 0 for entry, _ in teams}
    for f in division.fixtures.all():
        if f.away_id is None:
            expected[f.home_id] += season.points_win
        elif f.winner is None:
            expected[f.home_id] += season.points_draw
            expected[f.away_id] += season.points_draw
        else:
            expected[(f.home_id, f.away_id)[f.winner]] += season.points_win
    assert points == expected
    assert [r.values["match_points"] for r in rows] == sorted(points.values(), reverse=True)
    # the organiser corrects a table: the fixture, the standings and the ladder follow
    table = FixtureTable.objects.filter(fixture__division=division).order_by("pk").last()
    match = Match.objects.get(table_id=table.table_ref)
    rated = RatedResult.objects.get(source="live", source_id=str(match.pk))
    play.correct_table(world.host_admin, table, 14, 2)
    rated.refresh_from_db()
    home_side = table.home_side
    assert [rated.score0, rated.score1][home_side] == 14
    assert [rated.score0, rated.score1][1 - home_side] == 2
    table.fixture.refresh_from_db()
    assert table.fixture.source == "organiser"
    setup.close_season(world.host_admin, season)
    season.refresh_from_db()
    assert season.status == SeasonStatus.CLOSED
    # the next season is proposed from the final standings: its entries seeded in their order
    final = [r.unit for r in selectors.standings(division)]
    names = dict(division.entries.values_list("pk", "name"))
    new = setup.next_season(
        world.host_admin, season, name="2030 秋季", starts_on=rounds[-1].closes_on + timedelta(30)
    )
    seeded = list(new.entries.order_by("seed").values_list("name", flat=True))
    assert seeded == [names[pk] for pk in final]
