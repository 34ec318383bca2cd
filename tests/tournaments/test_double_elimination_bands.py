"""A double elimination's band for an entry still in play is every place still open to it,
no wider (pure, :func:`tournaments.placings.double_elimination`): from 1 — an entry in the
losers' bracket can still win the losers' final and then the one-game final, so 1 is open
to it — down to the place it has if it loses its next games. Checked by playing each entry
in play to the end both ways from where the event stands."""

from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments import brackets, placings
from tournaments.placings import Placing

from .test_placings import play_double


def chooser(flips, stop, unit, wins):
    """The first ``stop`` games as ``flips`` say, then ``unit`` wins (or loses) every game
    it plays and the lower seed wins the others."""
    played = iter(range(10**6))
    flips = iter(flips)

    def choose(a, b):
        if next(played) < stop:
            return a if next(flips) else b
        if unit in (a, b):
            return unit if wins else (b if unit == a else a)
        return min(a, b)

    return choose


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 24), st.integers(0, 50), st.data())
def test_an_entry_in_play_can_still_reach_each_end_of_its_band(count, stop, data):
    flips = [data.draw(st.booleans()) for _ in range(2 * count)]
    seeds, played, partial = play_double(count, chooser(flips, stop, None, True), stop=stop)
    now = placings.double_elimination(seeds, partial)
    in_losers = {
        unit
        for slot, a, b, w in played
        if slot.bracket == brackets.WINNERS
        for unit in (a, b)
        if unit != w
    }
    for unit, band in now.items():
        if not band.in_play:
            continue
        assert band.first == 1  # whichever bracket it is in
        _, _, best = play_double(count, chooser(flips, stop, unit, True))
        _, _, worst = play_double(count, chooser(flips, stop, unit, False))
        assert placings.double_elimination(seeds, best)[unit] == Placing(1, 1)
        assert placings.double_elimination(seeds, worst)[unit].last == band.last
        if unit in in_losers:  # one loss already: its next one puts it out (losers' or final)
            lost = [(s, a, b) for s, a, b, w in worst_games(count, flips, stop, unit) if w != unit]
            assert len(lost) == 1 and lost[0][0].bracket != brackets.WINNERS


def worst_games(count, flips, stop, unit):
    """The games ``unit`` plays after the first ``stop`` when it loses each."""
    _, played, _ = play_double(count, chooser(flips, stop, unit, False))
    return [(s, a, b, w) for s, a, b, w in played[stop:] if unit in (a, b)]


def test_eight_pairs_a_first_round_loser_can_still_win():
    flips = [True] * 4  # the higher seeds win the winners' bracket's first round
    seeds, _, partial = play_double(8, chooser(flips, 4, None, True), stop=4)
    now = placings.double_elimination(seeds, partial)
    assert now[108] == Placing(1, now[108].last, in_play=True) and now[108].last == 8
    _, _, best = play_double(8, chooser(flips, 4, 108, True))
    assert placings.double_elimination(seeds, best)[108] == Placing(1, 1)
