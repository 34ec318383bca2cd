import io

from django.core.management import call_command

from leagues import selectors
from leagues.models import FixtureStatus, League, RoundStatus


def test_demo_league_is_under_way_and_idempotent(db):
    call_command("demo", stdout=io.StringIO())
    call_command("demo", stdout=io.StringIO())
    (league,) = League.objects.all()
    season = league.seasons.get()
    assert league.inter_club and season.divisions.count() == 2
    assert season.rounds.get(number=1).status == RoundStatus.CLOSED
    assert season.rounds.get(number=2).status == RoundStatus.OPEN
    assert season.rounds.get(number=2).fixtures.filter(status=FixtureStatus.AGREED).count() == 3
    for division in season.divisions.all():
        rows = selectors.standings(division)
        assert len(rows) == 4 and sum(r.played for r in rows) == 4


def test_bench_generates_a_season_and_times_its_pages(db):
    from django.test import Client

    from bench import league_season as bench
    from leagues.models import Season

    season_id, _seconds = bench.generate(divisions=2, teams=4, seed=1)
    season = Season.objects.get(pk=season_id)
    assert season.divisions.count() == 2 and season.entries.count() == 8
    assert season.rounds.count() == 3
    client = Client()
    page = bench._time(lambda: client.get(f"/leagues/seasons/{season_id}/"), 2)
    assert page["queries"] == 2 and page["min_ms"] <= page["max_ms"]
