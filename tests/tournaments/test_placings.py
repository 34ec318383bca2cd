"""Final placings of knockouts (pure, no database): every entry of a complete bracket has
exactly one band, the bands partition 1 … n, the winner is 1, a double elimination's bands
follow the stage each entry went out in, and a band given while the event runs holds."""

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments import brackets, pairing, placings
from tournaments.placings import KnockoutTie, Placing


def partitions(result, count):
    """The bands cover 1 … count, each band holding exactly as many units as it is wide."""
    bands = Counter((p.first, p.last) for p in result.values())
    covered = []
    for (first, last), units in bands.items():
        assert units == last - first + 1, (first, last, units)
        covered.extend(range(first, last + 1))
    return sorted(covered) == list(range(1, count + 1))


# ------------------------------------------------------------------ single elimination
def play_single(count, third_place, choose, stop=None):
    """Play a single elimination as the schedule does (pairing's rounds); ``stop``: how many
    ties to decide before stopping. Returns the ties (decided or not) and the champion."""
    seeds = list(range(101, 101 + count))
    ties, decided = [], 0
    games = pairing.elimination_first_round(seeds)
    number = 1
    while True:
        winners, losers = [], []
        this_round = []
        for i, game in enumerate(games):
            a = game.sides[0][0]
            b = game.sides[1][0] if game.sides[1] else None
            final_round = number > 1 and number == pairing.elimination_rounds(count)
            third = third_place and final_round and len(games) == 2 and i == 1
            if b is None:
                winner = a
            elif stop is not None and decided >= stop:
                winner = None
            else:
                winner = choose(a, b)
                decided += 1
            this_round.append(KnockoutTie(number, (a, b), winner, third))
            if not third:
                winners.append(winner)
                losers.append(None if b is None or winner is None else (b if winner == a else a))
        ties.extend(this_round)
        if any(w is None for w in winners) or len(winners) < 2:
            return ties, winners[0] if len(winners) == 1 else None
        games = pairing.elimination_next_round(winners, losers, third_place)
        number += 1


def pick(data):
    return lambda a, b: a if data.draw(st.booleans()) else b


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 64), st.booleans(), st.data())
def test_a_complete_single_elimination_places_everyone_once(count, third_place, data):
    ties, champion = play_single(count, third_place, pick(data))
    result = placings.single_elimination(count, ties, third_place)
    assert set(result) == set(range(101, 101 + count))
    assert not any(p.in_play for p in result.values())
    assert result[champion] == Placing(1, 1)
    assert partitions(result, count)
    if third_place and count >= 4:
        assert sorted(p.first for p in result.values())[:4] == [1, 2, 3, 4]
        assert all(p.first == p.last for p in result.values() if p.first <= 4)


def test_eight_pairs_by_round_out():
    ties, champion = play_single(8, False, lambda a, b: min(a, b))  # the better seed wins
    result = placings.single_elimination(8, ties)
    # seeds 101..108: 1 beats all, 2 loses the final, 3 and 4 the semi-finals
    assert result[101] == Placing(1, 1) and result[102] == Placing(2, 2)
    assert result[103] == result[104] == Placing(3, 4)
    assert {result[u] for u in range(105, 109)} == {Placing(5, 8)}
    assert [placings.ranked(result, list(range(108, 100, -1)))[i] for i in (0, 1)] == [101, 102]


def test_byes_give_a_narrower_first_band():
    ties, _ = play_single(6, False, lambda a, b: min(a, b))
    result = placings.single_elimination(6, ties)
    assert {result[105], result[106]} == {Placing(5, 6)}  # two first-round games only


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 40), st.booleans(), st.integers(0, 80), st.data())
def test_a_band_given_while_the_event_runs_holds(count, third_place, stop, data):
    flips = [data.draw(st.booleans()) for _ in range(2 * count)]

    flips_once = iter(flips)
    partial, _ = play_single(
        count, third_place, lambda a, b: a if next(flips_once, True) else b, stop=stop
    )
    flips_again = iter(flips)
    complete, _ = play_single(count, third_place, lambda a, b: a if next(flips_again, True) else b)
    now = placings.single_elimination(count, partial, third_place)
    final = placings.single_elimination(count, complete, third_place)
    assert set(now) == set(final)
    for unit, p in now.items():
        if p.in_play:
            assert p.first <= final[unit].first and final[unit].last <= p.last
        else:
            assert final[unit] == p


# ------------------------------------------------------------------ double elimination
def play_double(count, choose, stop=None):
    seeds = list(range(101, 101 + count))
    winners, played = {}, []
    for number in range(1, brackets.rounds_of(count) + 1):
        try:
            games = brackets.round_games(seeds, number, winners)
        except ValueError:
            break
        for slot, game in games:
            if game.is_bye:
                continue
            if stop is not None and len(played) >= stop:
                continue
            a, b = game.sides[0][0], game.sides[1][0]
            winners[slot.id] = choose(a, b)
            played.append((slot, a, b, winners[slot.id]))
    return seeds, played, winners


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 64), st.data())
def test_a_complete_double_elimination_places_everyone_by_the_stage_they_went_out(count, data):
    seeds, played, winners = play_double(count, pick(data))
    result = placings.double_elimination(seeds, winners)
    assert set(result) == set(seeds)
    assert not any(p.in_play for p in result.values())
    champion = played[-1][3]
    assert result[champion] == Placing(1, 1)
    assert partitions(result, count)
    # out in the losers' bracket: a later stage is a better band; one stage, one band
    out_in = {}
    for slot, a, b, w in played:
        if slot.bracket == brackets.LOSERS:
            out_in[b if w == a else a] = slot.stage
    by_stage = {}
    for unit, stage in out_in.items():
        by_stage.setdefault(stage, set()).add(result[unit])
    assert all(len(bands) == 1 for bands in by_stage.values())
    ordered = sorted(by_stage, reverse=True)
    firsts = [next(iter(by_stage[s])).first for s in ordered]
    assert firsts == sorted(firsts) and len(set(firsts)) == len(firsts)
    if ordered:
        assert next(iter(by_stage[ordered[0]])).first == 3
    assert all(result[u].first >= 3 for u in out_in)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 40), st.integers(0, 90), st.data())
def test_a_double_elimination_band_given_while_it_runs_holds(count, stop, data):
    flips = [data.draw(st.booleans()) for _ in range(2 * count)]
    it1, it2 = iter(flips), iter(flips)
    seeds, _, partial = play_double(count, lambda a, b: a if next(it1) else b, stop=stop)
    _, _, complete = play_double(count, lambda a, b: a if next(it2) else b)
    now = placings.double_elimination(seeds, partial)
    final = placings.double_elimination(seeds, complete)
    assert set(now) == set(final) == set(seeds)
    for unit, p in now.items():
        if p.in_play:
            assert p.first <= final[unit].first and final[unit].last <= p.last
        else:
            assert final[unit] == p


def test_sixteen_pairs_bands():
    seeds, _, winners = play_double(16, lambda a, b: min(a, b))
    result = placings.double_elimination(seeds, winners)
    bands = sorted(
        Counter(p.label for p in result.values()).items(), key=lambda x: int(x[0].split("–")[0])
    )
    # final 1, 2; losers' final 3; losers' stage 5 4; stage 4 5–6; stage 3 7–8; 2 9–12; 1 13–16
    assert bands == [
        ("1", 1),
        ("2", 1),
        ("3", 1),
        ("4", 1),
        ("5–6", 2),
        ("7–8", 2),
        ("9–12", 4),
        ("13–16", 4),
    ]
    assert result[101].label == "1"
