"""Red Two (honger): combos, beating, fans and scoring, incl. the conformance vectors."""

import itertools
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import deal, parse_cards
from engine.combo import Combo
from engine.conformance import run_case
from engine.variants import combo_rules
from engine.variants.honger import (
    HongerRules,
    big_bomb_rewards,
    bomb_fan,
    score_compare,
    score_partnership,
    score_solo,
    score_surrender,
)

VECTORS = Path(__file__).parent / "conformance" / "honger.jsonl"
CASES = [json.loads(line) for line in VECTORS.read_text().splitlines() if line.strip()]
RULES = HongerRules()


def cards(text):
    return parse_cards(text.split())


def read(text):
    return [c.reading() for c in RULES.readings(cards(text))]


def combo(text, type):
    got = RULES.read_as(cards(text), type)
    assert got is not None, (text, type)
    return got


def canon(readings):
    return sorted(json.dumps(r, sort_keys=True) for r in readings)


@pytest.mark.parametrize(
    "case",
    [c for c in CASES if c["kind"] in ("classify", "beats", "score", "fan")],
    ids=lambda c: c["id"],
)
def test_conformance_vector(case):
    ok, expect, got = run_case(case)
    assert ok, (expect, got)


def test_registered():
    assert isinstance(combo_rules("honger"), HongerRules)


# -- classification ----------------------------------------------------------------------------


def test_simple_types():
    assert read("S2") == [{"type": "single", "key": "2"}]
    assert read("H9 D9") == [{"type": "pair", "key": "9"}]
    assert read("HK DK SK") == [{"type": "triple", "key": "K"}]
    assert read("H9 D8") == []
    assert read("") == []


def test_chains():
    assert read("S3 S3 S4 S4 S5 S5") == [{"type": "pair_chain", "key": "5", "length": 3}]
    assert read("SQ HQ SK HK SA DA") == [{"type": "pair_chain", "key": "A", "length": 3}]
    assert read("S3 S3 H3 S4 S4 H4") == [{"type": "triple_chain", "key": "4", "length": 2}]
    # gaps, mixed counts and 2s break chains
    assert read("S3 S3 S5 S5") == []
    assert read("S3 S3 S4 S4 S4") == []
    assert read("SA SA HA S2 S2 H2") == []
    # no wrap A-2-3
    assert read("SA SA S2 S2 S3 S3") == []
    # 2 pairs of 6 ranks: every length
    assert read(" ".join(f"S{r} H{r}" for r in "3456789TJQKA"))[0]["length"] == 12


def test_bombs_four_to_eight():
    for size in range(4, 9):
        text = " ".join(["S7", "H7", "C7", "D7"] * 2)
        assert read(" ".join(text.split()[:size])) == [{"type": "bomb", "key": "7", "size": size}]


def test_no_jokers_no_straights():
    assert read("SB") == []
    assert read("S3 S4 S5 S6 S7") == []
    assert read("S3 S3 S3 S4 S4") == []  # no full house


# -- beating -----------------------------------------------------------------------------------


def test_beats_rules():
    b = RULES.beats
    assert b(combo("S2", "single"), combo("SA", "single"))
    assert not b(combo("SA", "single"), combo("S2", "single"))
    assert not b(combo("SA SA", "pair"), combo("S2", "single"))
    assert not b(combo("S5", "single"), combo("S5", "single"))
    # chains: same length only
    assert b(combo("S4 S4 S5 S5", "pair_chain"), combo("S3 S3 S4 S4", "pair_chain"))
    assert not b(combo("S4 S4 S5 S5 S6 S6", "pair_chain"), combo("S3 S3 S4 S4", "pair_chain"))
    # bombs: beat everything else; size, then rank
    assert b(combo("S3 S3 H3 H3", "bomb"), combo("S2 S2 H2", "triple"))
    assert b(combo("S3 S3 H3 H3", "bomb"), combo("SQ SQ SK SK SA SA", "pair_chain"))
    assert b(combo("S3 S3 H3 H3 C3", "bomb"), combo("S2 S2 H2 H2", "bomb"))
    assert b(combo("S2 S2 H2 H2", "bomb"), combo("SA SA HA HA", "bomb"))
    assert not b(combo("SA SA HA HA", "bomb"), combo("S2 S2 H2 H2", "bomb"))
    assert not b(combo("S2 S2 H2", "triple"), combo("S3 S3 H3 H3", "bomb"))


# -- fans and scoring --------------------------------------------------------------------------


def test_fan_table():
    two, ace = 12, 11
    assert [bomb_fan(s, ace) for s in range(4, 9)] == [0, 1, 2, 3, 4]
    assert [bomb_fan(s, two) for s in range(4, 9)] == [1, 2, 3, 4, 5]
    assert bomb_fan(4, 0) == 0 and bomb_fan(5, 0) == 1 and bomb_fan(8, 0) == 4


def test_partnership_scores():
    sides = [[0, 2], [1, 3]]
    assert score_partnership(sides, [2, 0], [0, 0, 0, 0]) == [2, -2, 2, -2]
    assert score_partnership(sides, [2, 1, 0], [1, 0, 1, 3]) == [4, -4, 4, -4]
    assert score_partnership(sides, [2, 1, 3], [3, 3, 3, 3]) == [0, 0, 0, 0]
    assert score_partnership(sides, [1, 3], [0, 2, 0, 0], base=5) == [-40, 40, -40, 40]


def test_solo_scores():
    # solo 1st: 3 x 2^n from each opponent, n = solo's fans
    assert score_solo(1, [1], [0, 2, 5, 5]) == [-12, 36, -12, -12]
    # solo last: pays 2 x 2^n to each, n = the opponents' fans
    assert score_solo(1, [0, 2, 3], [1, 4, 0, 1]) == [8, -24, 8, 8]
    # solo 2nd or 3rd: draw
    assert score_solo(1, [0, 1], [3, 3, 3, 3]) == [0, 0, 0, 0]
    assert score_solo(1, [0, 2, 1], [0, 0, 0, 0]) == [0, 0, 0, 0]


def test_surrender_pays_biggest_bomb_holder():
    hands = [
        cards("H2 H2 S3"),
        cards("S5 S5 H5 H5"),
        cards("S9 S9 H9 H9"),
        cards("S4 S4 H4 H4 C4"),
    ]
    assert score_surrender(0, hands) == [-1, 0, 0, 1]
    # ties: the first in turn order after the solo player
    hands[3] = cards("S9 S9 H9 H9")
    assert score_surrender(0, hands) == [-1, 0, 1, 0]
    # nobody holds a bomb: the next player
    assert score_surrender(2, [cards("S3")] * 2 + [cards("H2 H2")] + [cards("S4")]) == [
        0,
        0,
        -1,
        1,
    ]


def test_compare():
    solo_big = [cards("H2 H2 S8 S8 H8 H8 C8"), cards("S5 S5 H5 H5"), [], []]
    assert score_compare(0, solo_big) == [0, 0, 0, 0]
    nobody = [cards("H2 H2"), cards("S5"), cards("S6"), cards("S7")]
    assert score_compare(0, nobody) == [0, 0, 0, 0]
    tie = [cards("H2 H2 S5 S5 H5 H5"), cards("S5 S5 H5 H5"), [], []]
    assert score_compare(0, tie) == [0, 0, 0, 0]
    # the opponent with 2222 (1 fan) and 55555 (1 fan) gets 2^2 from the solo player
    opp = [
        cards("H2 H2 S8 S8 H8 H8"),
        [],
        cards("S2 S2 C2 D2 S5 S5 H5 H5 C5"),
        cards("SK SK HK HK"),
    ]
    assert score_compare(0, opp) == [-4, 0, 4, 0]


def test_big_bomb_rewards():
    hands = [
        cards("S2 S2 H2 H2 C2 C2"),  # six 2s (222222..AAAAAAA): 1 from each
        cards("SA SA HA HA CA CA"),  # six aces: below 222222, nothing
        cards("S7 S7 H7 H7 C7 C7 D7"),  # seven 7s (222222..AAAAAAA): 1 from each
        cards("S3"),
    ]
    assert big_bomb_rewards(hands) == [3 - 1, -1 - 1, -1 + 3, -1 - 1]
    seven_twos = [cards("S2 S2 H2 H2 C2 C2 D2"), cards("S8 S8 H8 H8 C8 C8 D8 D8"), [], []]
    assert big_bomb_rewards(seven_twos) == [6 - 2, -2 + 6, -4, -4]
    eight_twos = [cards("S2 S2 H2 H2 C2 C2 D2 D2"), [], [], []]
    assert big_bomb_rewards(eight_twos) == [12, -4, -4, -4]
    assert sum(big_bomb_rewards(hands, base=3)) == 0


@given(
    st.permutations(range(4)),
    st.integers(1, 4),
    st.lists(st.integers(0, 5), min_size=4, max_size=4),
    st.integers(0, 3),
)
def test_scores_zero_sum(order, cut, fans, solo):
    finish = list(order[:cut])
    sides = [list(order[:2]), list(order[2:])]
    assert sum(score_partnership(sides, finish, fans)) == 0
    assert sum(score_solo(solo, finish, fans)) == 0


# -- legal combos ------------------------------------------------------------------------------


def brute_force(hand, standing=None):
    """Every distinct (cards, reading) by trying every sub-multiset of the hand."""
    out = set()
    hand = sorted(hand)
    for r in range(1, len(hand) + 1):
        for sub in set(itertools.combinations(hand, r)):
            for c in RULES.readings(list(sub)):
                if standing is None or RULES.beats(c, standing):
                    out.add((c.cards, c.type))
    return out


POOL = cards("S3 H3 C3 S4 H4 S5 H5 SA HA S2 H2") * 2
small_hands = st.lists(st.integers(0, len(POOL) - 1), unique=True, min_size=1, max_size=11).map(
    lambda idx: sorted(POOL[i] for i in idx)
)


@settings(max_examples=60, deadline=None)
@given(small_hands, st.sampled_from([None, "S4", "H3 H3", "S3 S3 S4 S4", "S3 H3 C3 D3"]))
def test_legal_combos_equal_brute_force(hand, standing_text):
    standing = None
    if standing_text:
        standing = RULES.readings(cards(standing_text))[0]
    got = RULES.legal_combos(hand, standing)
    keys = [(c.cards, c.type) for c in got]
    assert len(keys) == len(set(keys))
    assert set(keys) == brute_force(hand, standing)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000))
def test_legal_combos_reread_and_bot_moves(seed):
    hand = list(deal(seed, players=4, decks=2, jokers=False).hands[0])
    combos = RULES.legal_combos(hand)
    for c in combos:
        assert c in RULES.readings(list(c.cards))
    as_set = set(combos)
    counts = RULES.hand_counts(hand)
    for move in RULES.moves(counts):
        c = RULES.combo_of(move, hand)
        assert c in as_set
        assert RULES.move_of(c) == move
    # filter consistency: moves beating a standing combo are exactly the beating leads
    standing = combos[len(combos) // 2]
    follows = set(RULES.legal_combos(hand, standing))
    assert follows == {c for c in combos if RULES.beats(c, standing)}


def test_combo_json_round_trip():
    c = combo("S3 S3 S4 S4", "pair_chain")
    assert Combo.from_json(c.to_json()) == c


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_hand_moves_view_matches_abstract_moves(seed):
    from types import SimpleNamespace

    hand = list(deal(seed, players=4, decks=2, jokers=False).hands[2])
    view = RULES.hand_moves(hand)
    assert view.moves(None) == RULES.abstract_moves(hand)
    leads = RULES.legal_combos(hand)
    for standing in leads[:: max(1, len(leads) // 15)]:
        entry = standing.reading()
        reading = SimpleNamespace(
            type=entry["type"],
            key=entry.get("key"),
            size=entry.get("size"),
            length=entry.get("length"),
            lines=None,
        )
        assert view.moves(reading) == RULES.abstract_moves(hand, standing)
