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
