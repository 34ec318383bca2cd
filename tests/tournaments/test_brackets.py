"""Double-elimination brackets (pure, no database): every bracket complete, each loser drops
to its place, nobody meets twice in the first half of the losers' bracket, places."""

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments import brackets, pairing, placings
from tournaments.brackets import FINAL, LOSERS, WINNERS


def play_out(count, choose):
    """Play a whole bracket round by round; ``choose(slot, a, b)`` picks each winner.
    Returns the played games (slot, a, b, winner) and the winners by slot."""
    seeds = list(range(101, 101 + count))
    winners, played = {}, []
    for number in range(1, brackets.rounds_of(count) + 1):
        games = brackets.round_games(seeds, number, winners)
        in_round = Counter(u for _slot, g in games for u in g.units)
        assert all(n == 1 for n in in_round.values()), "a unit twice in one round"
        for slot, game in games:
            assert slot.round == number
            if game.is_bye:
                continue
            a, b = game.sides[0][0], game.sides[1][0]
            w = choose(slot, a, b)
            winners[slot.id] = w
            played.append((slot, a, b, w))
    return seeds, played, winners


def chooser(data):
    return lambda slot, a, b: a if data.draw(st.booleans()) else b


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 64), st.data())
def test_every_bracket_is_complete(count, data):
    seeds, played, winners = play_out(count, chooser(data))
    # every unit but the champion is out: 2n - 2 games whatever the results
    assert len(played) == 2 * count - 2
    losses = Counter(lost for _s, a, b, w in played for lost in [b if w == a else a])
    final = played[-1][0]
    assert final.bracket == FINAL
    champion = played[-1][3]
    assert losses[champion] <= 1
    for unit in seeds:
        if unit == champion:
            continue
        # out after a second loss, or after losing the final as the winners' champion
        assert losses[unit] == 2 or (losses[unit] == 1 and unit in played[-1][1:3])
    # the places: tournaments.placings (tests/tournaments/test_placings.py)
    places = placings.double_elimination(seeds, winners)
    assert set(places) == set(seeds)
    assert places[champion].first == 1
    assert sorted(p.first for p in places.values())[:2] == [1, 2]


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 64), st.data())
def test_a_loser_drops_to_its_place(count, data):
    seeds, played, winners = play_out(count, chooser(data))
    size, k = brackets._size(count)
    slots = brackets.double_elimination(count)
    by_place = {(s.bracket, s.stage, s.index): s for s in slots}
    resolved = brackets.resolve(slots, seeds, winners)
    for slot, a, b, w in played:
        loser = b if w == a else a
        later = [s for s, x, y, _w in played if s.id > slot.id and loser in (x, y)]
        if slot.bracket == LOSERS or slot.bracket == FINAL:
            assert later == [], "out after a loss in the losers' bracket or the final"
            continue
        r, g = slot.stage, slot.index
        if r == 1:
            expected = by_place[(LOSERS, 1, g // 2)] if k >= 2 else by_place[(FINAL, 1, 0)]
        else:
            stage, places = 2 * (r - 1), size // 2**r
            index = brackets.drop_place(r, places, g)
            expected = by_place[(LOSERS, stage, index)]
        found = resolved[expected.id]
        assert loser in found.units
        if found.kind == "game":
            assert later[0].id == expected.id
        else:  # a bye for it (the first round's byes carry nobody into the losers' bracket)
            assert found.kind == "bye" and found.winner == loser


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 64), st.data())
def test_nobody_meets_twice_in_the_first_half_of_the_losers_bracket(count, data):
    _seeds, played, _winners = play_out(count, chooser(data))
    _size, k = brackets._size(count)
    met = Counter()
    for slot, a, b, _w in played:
        key = (min(a, b), max(a, b))
        if slot.bracket == WINNERS or (slot.bracket == LOSERS and slot.stage <= k - 1):
            assert not met[key], (slot, a, b)
        met[key] += 1


def test_sixteen_pairs_take_eight_rounds_as_in_the_appendix():
    slots = brackets.double_elimination(16)
    per_round = Counter((s.round, s.bracket) for s in slots)
    assert brackets.rounds_of(16) == 8
    assert per_round[(1, WINNERS)] == 8
    assert per_round[(2, WINNERS)] == 4 and per_round[(2, LOSERS)] == 4
    assert per_round[(3, WINNERS)] == 2 and per_round[(3, LOSERS)] == 4
    assert per_round[(4, WINNERS)] == 1 and per_round[(4, LOSERS)] == 2
    assert per_round[(5, LOSERS)] == 2 and per_round[(6, LOSERS)] == 1
    assert per_round[(7, LOSERS)] == 1 and per_round[(8, FINAL)] == 1
    assert len(slots) == 8 + 4 + 2 + 1 + 4 + 4 + 2 + 2 + 1 + 1 + 1


def test_seeds_are_placed_serpentine_with_byes_to_the_top_seeds():
    seeds = [11, 12, 13, 14, 15, 16]
    first = brackets.round_games(seeds, 1, {})
    assert [g.units for _s, g in first] == [(11,), (14, 15), (12,), (13, 16)]
    assert pairing.bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    # the byes' nobody carries into the losers' bracket: its first stage has byes only
    won = {s.id: g.sides[0][0] for s, g in first if not g.is_bye}
    second = brackets.round_games(seeds, 2, won)
    losers_first = [g for s, g in second if s.bracket == LOSERS]
    assert [g.units for g in losers_first] == [(15,), (16,)]


def test_an_undecided_game_holds_the_next_round():
    with pytest.raises(ValueError):
        brackets.round_games([1, 2, 3, 4], 2, {})
    with pytest.raises(ValueError):
        brackets.double_elimination(1)
    slots = brackets.double_elimination(4)
    with pytest.raises(ValueError):
        brackets.resolve(slots, [1, 2, 3, 4], {slots[0].id: 3})  # 3 did not play there


def test_two_units_play_twice_at_most():
    _seeds, played, _w = play_out(2, lambda slot, a, b: b)
    assert [(s.bracket, a, b) for s, a, b, _w in played] == [(WINNERS, 101, 102), (FINAL, 102, 101)]
