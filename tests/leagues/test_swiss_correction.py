"""A Swiss season's result corrected while the next round is drawn and not yet open (issue
45, item 4: later pairings that have not started follow a correction): the round is drawn
again from the corrected standings; an open round keeps its draw."""

from datetime import timedelta

import time_machine

from leagues import bridge
from leagues.models import Fixture, RoundStatus
from leagues.services import play, setup
from tests.leagues.leaguekit import at


def _season_after_round1(world):
    """A Swiss season of six teams whose round 1 ended (every home side won) and whose
    round 2 is drawn, not yet open."""
    season = world.season(format="swiss", swiss_rounds=3)
    for i in range(6):
        world.team(season, world.host, world.host_admin, f"队{i}")
    setup.start_season(world.host_admin, season)
    rnd = season.rounds.get(number=1)
    with time_machine.travel(at(rnd.opens_on, 9), tick=False):
        play.tick()
    for fixture in rnd.fixtures.order_by("pk"):
        play.award(world.host_admin, fixture, 0)
    with time_machine.travel(at(rnd.closes_on + timedelta(days=1), 1), tick=False):
        play.tick()
    nxt = season.rounds.get(number=2)
    assert nxt.status == RoundStatus.DRAWN and nxt.fixtures.count() == 3
    return season, rnd, nxt


def _draw(rnd):
    return sorted((f.home_id, f.away_id) for f in rnd.fixtures.all())


def test_a_drawn_round_is_drawn_again_from_the_corrected_standings(world):
    season, r1, r2 = _season_after_round1(world)
    before = _draw(r2)
    first = r1.fixtures.order_by("pk").first()
    play.award(world.host_admin, first, 1)  # the away side had won
    after = _draw(r2)
    assert after != before
    # the draw of the standings as they are now: the winners (2 points each: 场分) first
    results = list(r1.fixtures.order_by("pk"))
    winners = [f.away_id if f.winner == 1 else f.home_id for f in results]
    assert winners[0] == first.away_id
    entries = list(season.divisions.get().entries.order_by("pk").values_list("pk", flat=True))
    scores = {e: (2 if e in winners else 0) for e in entries}
    met = [(f.home_id, f.away_id) for f in results]
    expected = bridge.swiss_round(entries, scores, met, [])
    assert after == sorted((home, away) for home, away in expected)
    assert Fixture.objects.filter(round=r2).count() == 3
    # nobody meets twice
    assert not {frozenset(p) for p in after} & {frozenset(p) for p in met}


def test_an_open_round_keeps_its_draw(world):
    season, r1, r2 = _season_after_round1(world)
    with time_machine.travel(at(r2.opens_on, 9), tick=False):
        play.tick()
    r2.refresh_from_db()
    assert r2.status == RoundStatus.OPEN
    before = _draw(r2)
    play.award(world.host_admin, r1.fixtures.order_by("pk").first(), 1)
    assert _draw(r2) == before
