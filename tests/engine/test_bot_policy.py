"""engine.bots.policy: the hand plan (fewest plays, 手数) the heuristic leads and follows by."""

from __future__ import annotations

from engine.bots.policy import bombs_in, move_cost, plays_needed
from engine.cards import RANKS


def counts(text: str) -> list[int]:
    """Natural counts of ranks written like ``"34567 99 KKK"`` (``B``/``R``: the jokers)."""
    cnt = [0] * 15
    for ch in text.replace(" ", ""):
        cnt[13 if ch == "B" else 14 if ch == "R" else RANKS.index(ch)] += 1
    return cnt


def test_the_plan_uses_sequences_and_full_houses():
    assert plays_needed(tuple(counts("34567 99 KKK"))) == 2  # straight, full house
    assert plays_needed(tuple(counts("A2345"))) == 1  # the ace low
    assert plays_needed(tuple(counts("TJQKA"))) == 1  # the ace high
    assert plays_needed(tuple(counts("334455"))) == 1  # three consecutive pairs
    assert plays_needed(tuple(counts("777888 3"))) == 2  # two consecutive triples, a single
    assert plays_needed(tuple(counts("3 5 7 9 J"))) == 5


def test_bombs_are_kept_apart_and_breaking_one_costs():
    cnt = counts("8888 34567")
    assert bombs_in(tuple(cnt)) == 1 and plays_needed(tuple(cnt)) == 1
    assert move_cost(cnt, ((6, 1),)) == (1, 1)  # a single 8 breaks the bomb
    assert move_cost(cnt, ((1, 1), (2, 1), (3, 1), (4, 1), (5, 1))) == (0, -1)  # the straight
    assert bombs_in(tuple(counts("BBRR"))) == 1


def test_a_play_of_the_plan_costs_one_play_less():
    cnt = counts("33 5")
    assert move_cost(cnt, ((3, 1),)) == (0, -1)  # the lone 5
    assert move_cost(cnt, ((1, 1),)) == (0, 0)  # one 3 of the pair: no progress
