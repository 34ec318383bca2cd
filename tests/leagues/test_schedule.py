from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from leagues.schedule import promote_relegate, round_robin, rounds_needed

entries = st.lists(st.integers(min_value=1, max_value=10_000), min_size=2, max_size=24, unique=True)


@given(entries, st.sampled_from([1, 2]))
def test_every_pair_meets_the_right_number_of_times(ids, cycles):
    rounds = round_robin(ids, cycles)
    assert len(rounds) == rounds_needed(len(ids), cycles)
    met = Counter(frozenset((p.home, p.away)) for r in rounds for p in r if not p.is_bye)
    expected = {frozenset((a, b)) for i, a in enumerate(ids) for b in ids[i + 1 :]}
    assert set(met) == expected
    assert set(met.values()) == {cycles}


@given(entries, st.sampled_from([1, 2]))
def test_no_entry_twice_in_a_round(ids, cycles):
    for games in round_robin(ids, cycles):
        seen = [e for p in games for e in (p.home, p.away) if e is not None]
        assert len(seen) == len(set(seen)) == len(ids)


@given(entries, st.sampled_from([1, 2]))
def test_byes_spread_one_per_cycle(ids, cycles):
    rounds = round_robin(ids, cycles)
    byes = [[p.home for p in games if p.is_bye] for games in rounds]
    assert all(len(b) == len(ids) % 2 for b in byes)
    if len(ids) % 2:
        counts = Counter(e for b in byes for e in b)
        assert counts == Counter({e: cycles for e in ids})
        # two byes of one entry are a whole cycle apart
        where = {e: [i for i, b in enumerate(byes) if e in b] for e in ids}
        assert all(len(w) < 2 or w[1] - w[0] == len(rounds) // 2 for w in where.values())


@given(entries, st.sampled_from([1, 2]))
def test_home_and_away_balanced(ids, cycles):
    home, away = Counter(), Counter()
    for games in round_robin(ids, cycles):
        for p in games:
            if not p.is_bye:
                home[p.home] += 1
                away[p.away] += 1
    limit = 1 if cycles == 1 else 0
    assert all(abs(home[e] - away[e]) <= limit for e in ids)


def test_refuses_repeats_and_bounds():
    with pytest.raises(ValueError):
        round_robin([1, 1])
    with pytest.raises(ValueError):
        round_robin(list(range(100)))
    with pytest.raises(ValueError):
        round_robin([1, 2], cycles=3)
    assert round_robin([1]) == []


@given(
    st.lists(st.integers(min_value=0, max_value=8), min_size=1, max_size=6),
    st.integers(min_value=0, max_value=4),
    st.integers(min_value=0, max_value=4),
)
def test_promotion_keeps_every_entry_once(sizes, up, down):
    next_id = iter(range(1000))
    divisions = [[next(next_id) for _ in range(n)] for n in sizes]
    moved = promote_relegate(divisions, up, down)
    assert len(moved) == len(divisions)
    assert sorted(e for d in moved for e in d) == sorted(e for d in divisions for e in d)
    for i, new in enumerate(moved):
        for e in new:
            old = next(j for j, d in enumerate(divisions) if e in d)
            assert abs(old - i) <= 1


def test_promotion_moves_top_and_bottom():
    moved = promote_relegate([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]], 1, 1)
    assert moved == [[1, 2, 3, 5], [4, 6, 7, 9], [8, 10, 11, 12]]
