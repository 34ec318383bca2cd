"""Card-level legal plays and abstract moves of Guandan and Bao 2 (engine.variants.guandan)."""

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import deal, parse_cards
from engine.variants import combo_rules
from engine.variants.guandan import has_natural_two

RANKS = "23456789TJQKA"


def hand_of(text):
    return parse_cards(text.split())


def submultisets(hand):
    items = sorted(Counter(hand).items())

    def rec(i):
        if i == len(items):
            yield ()
            return
        card, n = items[i]
        for rest in rec(i + 1):
            for k in range(n + 1):
                yield (card,) * k + rest

    for sub in rec(0):
        if sub:
            yield sub


def brute_force_leads(rules, hand):
    """Every reading of every distinct sub-multiset (what legal_combos must list)."""
    out = set()
    for sub in submultisets(hand):
        for combo in rules.readings(sub):
            if combo.type != "immune":
                out.add(combo)
    return out


@st.composite
def rules_and_hand(draw, max_cards=11, band=True):
    variant = draw(st.sampled_from(["guandan", "bao2"]))
    levels = RANKS[1:] if variant == "bao2" else RANKS
    level = draw(st.sampled_from(levels))
    rules = combo_rules(variant, level)
    if band:
        low = draw(st.integers(0, 12))
        width = draw(st.integers(2, 7))
        pool = [c for c in range(52) if (c % 13 - low) % 13 < width]
        pool += [rules.wild, 52, 53]
    else:
        pool = list(range(54))
    picks = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=max_cards))
    counts = Counter()
    hand = []
    for c in picks:
        if counts[c] < 2:
            counts[c] += 1
            hand.append(c)
    return rules, hand


@settings(max_examples=150, deadline=None)
@given(rules_and_hand())
def test_leads_are_exactly_every_reading_of_every_submultiset(data):
    rules, hand = data
    leads = rules.legal_combos(hand)
    assert len(leads) == len(set(leads))
    assert set(leads) == brute_force_leads(rules, hand)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**9), st.sampled_from(["guandan", "bao2"]), st.data())
def test_full_hands_leads_follows_and_abstract_moves(seed, variant, data):
    level = data.draw(st.sampled_from(RANKS[1:] if variant == "bao2" else RANKS))
    rules = combo_rules(variant, level)
    hands = deal(seed).hands
    hand = list(hands[0])
    leads = rules.legal_combos(hand)
    assert len(leads) == len(set(leads))
    for combo in leads:
        assert rules.read_as(combo.cards, combo.type) == combo
        assert not Counter(combo.cards) - Counter(hand)
    # follows: exactly the leads that beat the standing combo
    other = rules.legal_combos(list(hands[1]))
    rng = random.Random(seed)
    for standing in rng.sample(other, min(6, len(other))):
        follows = rules.legal_combos(hand, standing)
        assert len(follows) == len(set(follows))
        assert set(follows) == {c for c in leads if rules.beats(c, standing)}
        _check_abstract(rules, hand, standing, set(follows))
    _check_abstract(rules, hand, None, set(leads))
    # the little-2 restriction
    no_two = rules.without_natural_twos(hand)
    assert set(rules.legal_combos(no_two)) == {c for c in leads if not has_natural_two(c, rules)}
    _check_abstract(rules, hand, None, set(rules.legal_combos(no_two)), allow_two=False)


def _check_abstract(rules, hand, standing, expected, allow_two=True):
    moves = rules.abstract_moves(hand, standing, allow_two=allow_two)
    readings = [(m.type, m.key, m.size) for m in moves]
    assert len(readings) == len(set(readings))
    assert set(readings) == {(c.type, c.key, c.size) for c in expected}
    for move in moves:
        combo = rules.materialize(hand, move)
        assert combo in expected, (move, combo)
        assert combo.cards.count(rules.wild) == move.wilds


@settings(max_examples=100, deadline=None)
@given(rules_and_hand(max_cards=14))
def test_abstract_moves_on_small_hands(data):
    rules, hand = data
    leads = set(rules.legal_combos(hand))
    _check_abstract(rules, hand, None, leads)
    for standing in list(leads)[:5]:
        _check_abstract(rules, hand, standing, {c for c in leads if rules.beats(c, standing)})


# --- worked examples -------------------------------------------------------------------------


def kinds(combos):
    return Counter(c.type for c in combos)


def test_distinct_multisets_of_card_ids():
    rules = combo_rules("guandan", "7")
    leads = rules.legal_combos(hand_of("S3 S3 D3"))
    # singles S3, D3; pairs S3S3, S3D3; triple S3S3D3
    assert kinds(leads) == {"single": 2, "pair": 2, "triple": 1}


def test_wild_pairs_and_level_pair():
    rules = combo_rules("guandan", "7")
    leads = rules.legal_combos(hand_of("S3 H7 H7"))
    pairs = sorted((c.key, len(c.cards)) for c in leads if c.type == "pair")
    assert pairs == [("3", 2), ("7", 2)]  # S3+wild, wild+wild
    assert [c.key for c in leads if c.type == "triple"] == ["3"]


def test_suits_matter_for_straight_flushes():
    rules = combo_rules("guandan", "2")
    leads = rules.legal_combos(hand_of("S3 S4 S5 S6 S7 D7"))
    assert kinds(leads)["straight_flush"] == 1
    assert kinds(leads)["straight"] == 1  # S3 S4 S5 S6 D7 only
    straight = next(c for c in leads if c.type == "straight")
    assert straight.cards == tuple(sorted(hand_of("S3 S4 S5 S6 D7")))


def test_full_house_multiset_listed_once_with_max_key():
    rules = combo_rules("guandan", "7")
    leads = rules.legal_combos(hand_of("S3 D3 S9 D9 H7"))
    full = [c for c in leads if c.type == "full_house"]
    assert [(c.key, len(c.cards)) for c in full] == [("9", 5)]


def test_bao2_two_bomb_and_immune_not_offered():
    rules = combo_rules("bao2", "9")
    leads = rules.legal_combos(hand_of("S2 D2 C2 H2"))
    assert [c.type for c in leads if len(c.cards) == 4] == ["two_bomb"]
    big = hand_of("S8 S8 D8 D8 C8 C8 H8 H8 H9 H9")
    types = kinds(rules.legal_combos(big))
    assert "immune" not in types
    assert types["supreme"] >= 1
    assert rules.read_as(big, "immune") is not None


def test_follow_of_immune_and_by_immune_is_empty():
    rules = combo_rules("bao2", "9")
    immune = rules.read_as(hand_of("S8 S8 D8 D8 C8 C8 H8 H8 H9 H9"), "immune")
    assert rules.legal_combos(hand_of("SB SB HR HR S3"), immune) == []
    assert rules.abstract_moves(hand_of("SB SB HR HR S3"), immune) == []


def test_materialize_keeps_wilds_and_breaks_one_suit_straights():
    rules = combo_rules("guandan", "7")
    hand = hand_of("S3 S4 S5 S6 S7 H7")
    moves = {(m.type, m.key): m for m in rules.abstract_moves(hand)}
    straight = rules.materialize(hand, moves[("straight", "7")])
    assert straight.type == "straight" and rules.wild in straight.cards
    flush = rules.materialize(hand, moves[("straight_flush", "7")])
    assert rules.wild not in flush.cards
    small = hand_of("S3 D3 H7")
    pair_move = next(m for m in rules.abstract_moves(small) if m.type == "pair")
    pair = rules.materialize(small, pair_move)
    assert pair.key == "3" and rules.wild not in pair.cards  # natural pair preferred
    triple = next(m for m in rules.abstract_moves(small) if m.type == "triple")
    assert rules.materialize(small, triple).cards == tuple(sorted(small))
