"""Two-player Shuangkou (shuangkou2): wild jokers, combos, bombs, scoring, conformance vectors."""

import itertools
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import deal, parse_cards
from engine.conformance import run_case
from engine.variants import combo_rules
from engine.variants.shuangkou2 import (
    Shuangkou2Rules,
    contribution,
    multiplier,
    score_abandon,
    score_deal,
)

VECTORS = Path(__file__).parent / "conformance" / "shuangkou2.jsonl"
CASES = [json.loads(line) for line in VECTORS.read_text().splitlines() if line.strip()]
RULES = Shuangkou2Rules()


def cards(text):
    return parse_cards(text.split())


def read(text):
    return sorted((c.reading() for c in RULES.readings(cards(text))), key=lambda r: json.dumps(r))


def combo(text, type):
    got = RULES.read_as(cards(text), type)
    assert got is not None, (text, type)
    return got


def canon(readings):
    return sorted(json.dumps(r, sort_keys=True) for r in readings)


@pytest.mark.parametrize(
    "case",
    [c for c in CASES if c["kind"] in ("classify", "beats", "score")],
    ids=lambda c: c["id"],
)
def test_conformance_vector(case):
    ok, expect, got = run_case(case)
    assert ok, (expect, got)


def test_registered():
    assert isinstance(combo_rules("shuangkou2"), Shuangkou2Rules)


# -- jokers (shuangkou2.md §1 decisions) -------------------------------------------------------


def test_joker_singles_and_pairs():
    assert read("SB") == [{"type": "single", "key": "SB"}]
    assert read("HR") == [{"type": "single", "key": "HR"}]
    assert read("SB SB") == [{"type": "pair", "key": "SB"}]
    assert read("HR HR") == [{"type": "pair", "key": "HR"}]
    assert read("SB HR") == [{"type": "pair", "key": "2"}]
    assert read("S7 HR") == [{"type": "pair", "key": "7"}]
    assert RULES.beats(combo("HR HR", "pair"), combo("SB SB", "pair"))
    assert RULES.beats(combo("SB SB", "pair"), combo("S2 H2", "pair"))
    assert not RULES.beats(combo("SB HR", "pair"), combo("S2 H2", "pair"))


def test_three_and_four_jokers():
    assert canon(read("SB SB HR")) == canon(
        [{"type": "triple", "key": "2"}, {"type": "joker3", "lines": 6}]
    )
    assert canon(read("SB SB HR HR")) == canon(
        [{"type": "bomb", "key": "2", "size": 4, "lines": 4}, {"type": "joker4", "lines": 7}]
    )


def test_wild_keys_are_maximised():
    # one natural + four jokers: a bomb of that rank and the highest straight holding it
    assert canon(read("H5 SB SB HR HR")) == canon(
        [
            {"type": "bomb", "key": "5", "size": 5, "lines": 5},
            {"type": "straight", "key": "9", "length": 5},
        ]
    )
    # the top is clamped at A
    assert read("SQ SK SA SB HR") == [{"type": "straight", "key": "A", "length": 5}]
    assert read("SJ SJ SQ SQ SB HR") == [{"type": "pair_chain", "key": "K", "length": 3}]
    # a gap filled by a joker
    assert read("S3 S4 S6 S7 SB") == [{"type": "straight", "key": "7", "length": 5}]


def test_chain_bomb_with_jokers_maximises_lines_then_top():
    assert read("S9 S9 D9 D9 ST ST DT DT SB SB HR HR") == [
        {"type": "chain_bomb", "key": "T", "size": 12, "lines": 8}
    ]
    # 8 nines + 4 jokers: a 12-line bomb (jokers cannot move naturals into another rank)
    assert read("S9 S9 D9 D9 C9 C9 H9 H9 SB SB HR HR") == [
        {"type": "bomb", "key": "9", "size": 12, "lines": 12}
    ]
    # jokers forming a whole rank: 9999 TTTT + 4 jokers would also be 4x3, but 6x2 has more lines
    assert read("S9 S9 D9 D9 ST ST DT DT SB HR") == [
        {"type": "chain_bomb", "key": "T", "size": 10, "lines": 7}
    ]


# -- combos -----------------------------------------------------------------------------------


def test_straights_and_chains():
    assert read("S3 D4 C5 S6 D7") == [{"type": "straight", "key": "7", "length": 5}]
    assert read("S3 D4 C5 S6") == []
    assert read("SJ SQ SK SA S2") == []  # 2 never in a straight
    twelve = " ".join(f"S{r}" for r in "3456789TJQKA")
    assert read(twelve) == [{"type": "straight", "key": "A", "length": 12}]
    assert read("S3 S3 S3 S4 S4 S4 S5 S5 S5") == [{"type": "triple_chain", "key": "5", "length": 3}]
    assert read("S3 S3 S3 S4 S4 S4") == []
    assert read("SA SA S2 S2 S3 S3") == []


def test_bombs_and_chain_bombs():
    assert read("S4 S4 H4 H4") == [{"type": "bomb", "key": "4", "size": 4, "lines": 4}]
    assert read("S2 S2 H2 H2 C2") == [{"type": "bomb", "key": "2", "size": 5, "lines": 5}]
    # unequal counts (千变): lines = smallest count + number of ranks
    unequal = "S5 S5 H5 H5 C5 C5 S6 S6 H6 H6 S7 S7 H7 H7 C7"
    assert read(unequal) == [{"type": "chain_bomb", "key": "7", "size": 15, "lines": 7}]
    # m > 4 allows 2 ranks; 4 needs 3
    assert read("S5 S5 H5 H5 C5 S6 S6 H6 H6 C6") == [
        {"type": "chain_bomb", "key": "6", "size": 10, "lines": 7}
    ]
    assert read("S5 S5 H5 H5 C5 S6 S6 H6 H6") == []
    # at most 6 ranks
    six = " ".join(f"S{r} S{r} H{r} H{r}" for r in "345678")
    assert read(six) == [{"type": "chain_bomb", "key": "8", "size": 24, "lines": 10}]
    seven = " ".join(f"S{r} S{r} H{r} H{r}" for r in "3456789")
    assert read(seven) == []
    # 2s never in a chain bomb
    assert read("SA SA HA HA CA S2 S2 H2 H2 C2") == []


def test_bomb_order():
    b = RULES.beats
    four9 = combo("S9 S9 D9 D9", "bomb")
    assert b(combo("S3 S3 D3 D3", "bomb"), combo("S8 S8", "pair"))
    assert b(combo("S3 S3 D3 D3 C3", "bomb"), four9)
    assert b(combo("ST ST DT DT", "bomb"), four9)
    assert not b(four9, four9)
    six3 = combo("S3 S3 D3 D3 C3 C3", "bomb")
    j3 = combo("SB SB HR", "joker3")
    assert b(six3, j3) and not b(j3, six3)
    assert b(j3, combo("S2 S2 H2 H2 C2", "bomb"))
    j4 = combo("SB SB HR HR", "joker4")
    seven = combo("S3 S3 D3 D3 C3 C3 H3", "bomb")
    assert b(seven, j4) and b(j4, six3)
    # equal lines: fewer cards wins (8-bomb over 6x2 chain bomb)
    chain8 = combo("S5 S5 H5 H5 C5 C5 S6 S6 H6 H6 C6 C6", "chain_bomb")
    assert chain8.lines == 8
    assert b(combo("S3 S3 D3 D3 C3 C3 H3 H3", "bomb"), chain8)
    # non-bombs: same type and number of cards
    assert not b(combo("S4 S5 S6 S7 S8 S9", "straight"), combo("S3 S4 S5 S6 S7", "straight"))
    assert b(combo("S4 S5 S6 S7 S8", "straight"), combo("S3 S4 S5 S6 S7", "straight"))


# -- scoring -----------------------------------------------------------------------------------


def test_scoring():
    assert multiplier([]) == 1 and multiplier([5, 4]) == 1 and multiplier([6]) == 2
    assert multiplier([9, 6]) == 16
    assert contribution([4, 6, 8]) == 1 + 3
    assert score_deal(1, [12, 0], [[5], [8]], base=2) == [-(2 * 12 * 8 + 2 * 3), 2 * 12 * 8 + 6]
    # the loser's big bomb earns its contribution, the multiplier is the winner's
    assert score_deal(1, [12, 0], [[8], [5]], base=2) == [-(2 * 12 - 2 * 3), 2 * 12 - 6]
    # the loser's contribution counts against the winner
    assert score_deal(0, [0, 3], [[], [10]]) == [3 - 5, 5 - 3]
    # abandonment: p = the quitter's cards, m from the other player's biggest bomb held
    assert score_abandon(0, [20, 5], [[], []], held_lines=7) == [-80, 80]
    assert score_abandon(1, [5, 9], [[6], [7]], held_lines=0) == [9 * 2 + 1 - 2, -(18 - 1)]


@given(
    st.integers(0, 1),
    st.lists(st.integers(1, 27), min_size=2, max_size=2),
    st.lists(st.lists(st.integers(4, 12), max_size=4), min_size=2, max_size=2),
)
def test_scores_zero_sum(winner, left, bombs):
    assert sum(score_deal(winner, left, bombs)) == 0
    assert sum(score_abandon(winner, left, bombs, held_lines=8)) == 0


def test_max_lines():
    assert RULES.max_lines(RULES.hand_counts(cards("S3 S4"))) == 0
    assert RULES.max_lines(RULES.hand_counts(cards("S3 S3 H3 SB"))) == 4
    assert RULES.max_lines(RULES.hand_counts(cards("S3 SB SB HR"))) == 6
    nine_ten = cards("S9 S9 D9 D9 ST ST DT DT SB SB HR HR")
    assert RULES.max_lines(RULES.hand_counts(nine_ten)) == 8


# -- legal combos ------------------------------------------------------------------------------


def brute_force(hand, standing=None):
    out = set()
    hand = sorted(hand)
    for r in range(1, len(hand) + 1):
        for sub in set(itertools.combinations(hand, r)):
            for c in RULES.readings(list(sub)):
                if standing is None or RULES.beats(c, standing):
                    out.add((c.cards, c.type, c.key))
    return out


POOL = cards("S3 H3 S4 H4 S5 S6 H6 S7 SA S2 SB HR")


def hands_from(pool, min_size, max_size):
    """Hands of real two-deck multisets: each card of ``pool`` at most twice."""
    doubled = pool * 2
    return st.lists(
        st.integers(0, len(doubled) - 1), unique=True, min_size=min_size, max_size=max_size
    ).map(lambda idx: sorted(doubled[i] for i in idx))


small_hands = hands_from(POOL, 1, 11)
STANDINGS = [None, "S6", "SB SB", "S3 S4 S5 S6 S7", "S3 S3 S4 S4 S5 S5", "S4 S4 H4 H4"]


@settings(max_examples=80, deadline=None)
@given(small_hands, st.sampled_from(STANDINGS))
def test_legal_combos_equal_brute_force(hand, standing_text):
    standing = None
    if standing_text:
        standing = RULES.readings(cards(standing_text))[0]
    got = RULES.legal_combos(hand, standing)
    keys = [(c.cards, c.type, c.key) for c in got]
    assert len(keys) == len(set(keys))
    assert set(keys) == brute_force(hand, standing)


chain_hands = hands_from(cards("S5 H5 C5 S6 H6 C6 S7 SB HR"), 8, 12)


@settings(max_examples=40, deadline=None)
@given(chain_hands)
def test_chain_bomb_hands_equal_brute_force(hand):
    got = RULES.legal_combos(hand)
    assert {(c.cards, c.type, c.key) for c in got} == brute_force(hand)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_bot_moves_are_legal_and_reread(seed):
    hand = list(deal(seed, players=2, decks=2, jokers=True, hands=4).hands[0])
    counts = RULES.hand_counts(hand)
    exact = {(m.type, m.parts, m.sb, m.hr): m for m in RULES.all_moves(counts)}
    for move in RULES.moves(counts):
        assert exact[(move.type, move.parts, move.sb, move.hr)] == move
        c = RULES.combo_of(move, hand)
        assert c in RULES.readings(list(c.cards))
        assert RULES.move_of(c) == move
    # beats-filter consistency, for the bot API and the exact one
    leads = RULES.all_moves(counts)
    for standing in leads[:: max(1, len(leads) // 6)]:
        want = {m for m in leads if RULES.move_beats(m, standing)}
        assert set(RULES.all_moves(counts, standing)) == want
        assert set(RULES.moves(counts, standing)) <= want
        bot_all = set(RULES.moves(counts))
        assert set(RULES.moves(counts, standing)) == {
            m for m in bot_all if RULES.move_beats(m, standing)
        }


def test_joker_bomb_equals_natural_bomb():
    natural = combo("S5 H5 C5 D5", "bomb")
    soft = combo("S5 H5 C5 SB", "bomb")
    assert natural.reading() == soft.reading()
    assert not RULES.beats(natural, soft) and not RULES.beats(soft, natural)
    assert RULES.beats(combo("S6 H6 SB HR", "bomb"), natural)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_hand_moves_view_matches_abstract_moves(seed):
    """The bots' lean path: a standing given as an observation's reading (type, key, size,
    length, lines; no cards) selects exactly the moves a full combo selects."""
    from types import SimpleNamespace

    hand = list(deal(seed, players=2, decks=2, jokers=True, hands=4).hands[1])
    view = RULES.hand_moves(hand)
    assert view.moves(None) == RULES.abstract_moves(hand)
    leads = RULES.legal_combos(hand[:12])
    for standing in leads[:: max(1, len(leads) // 15)]:
        entry = standing.reading()
        reading = SimpleNamespace(
            type=entry["type"],
            key=entry.get("key"),
            size=entry.get("size"),
            length=entry.get("length"),
            lines=entry.get("lines"),
        )
        assert view.moves(reading) == RULES.abstract_moves(hand, standing)
    for move in view.moves(None):
        assert view.materialize(move) == RULES.materialize(hand, move)
