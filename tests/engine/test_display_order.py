"""engine.display: a played combo's cards in reading order (issue 43, point 4)."""

import random

import pytest

from engine.cards import cards_str, parse_cards
from engine.display import display_order
from engine.variants import VARIANT_NAMES, combo_rules


def shown(variant, level, cards, type):
    rules = combo_rules(variant, level)
    combo = rules.read_as(parse_cards(cards), type)
    assert combo is not None, (cards, type)
    return cards_str(display_order(combo, rules))


def test_a_full_house_reads_triple_then_pair():
    # the example: 6♠7♠6♥6♣7♦ (level 2: no wild card among them)
    assert shown("guandan", "2", ["S6", "S7", "H6", "C6", "D7"], "full_house") == [
        "S6",
        "H6",
        "C6",
        "S7",
        "D7",
    ]
    # the pair's rank above or below the triple's: the triple still first
    assert shown("guandan", "2", ["S9", "H9", "SK", "HK", "CK"], "full_house") == [
        "SK",
        "HK",
        "CK",
        "S9",
        "H9",
    ]


def test_a_wild_card_completes_the_triple_of_a_full_house():
    # level 5: ♥5 is wild; 8 8 + wild + 4 4 reads 8 8 (wild) 4 4
    assert shown("guandan", "5", ["S8", "C8", "H5", "S4", "D4"], "full_house") == [
        "S8",
        "C8",
        "H5",
        "S4",
        "D4",
    ]


def test_a_straight_reads_low_to_high_with_the_wild_card_where_it_stands():
    assert shown("guandan", "2", ["S7", "H3", "C5", "D4", "S6"], "straight") == [
        "H3",
        "D4",
        "C5",
        "S6",
        "S7",
    ]
    # level 9: ♥9 wild stands for the 6 in 4 5 _ 7 8
    assert shown("guandan", "9", ["S4", "C5", "D7", "S8", "H9"], "straight") == [
        "S4",
        "C5",
        "H9",
        "D7",
        "S8",
    ]
    # an ace below the 2: A 2 3 4 5
    assert shown("guandan", "T", ["S2", "C3", "DA", "S4", "H5"], "straight") == [
        "DA",
        "S2",
        "C3",
        "S4",
        "H5",
    ]
    # ten to ace
    assert shown("guandan", "2", ["SA", "CK", "DQ", "SJ", "HT"], "straight") == [
        "HT",
        "SJ",
        "DQ",
        "CK",
        "SA",
    ]


def test_chains_read_rank_by_rank():
    assert shown("guandan", "2", ["S5", "H4", "C4", "D3", "S3", "D5"], "pair_chain") == [
        "S3",
        "D3",
        "H4",
        "C4",
        "S5",
        "D5",
    ]
    assert shown("guandan", "2", ["S8", "H7", "C8", "D7", "S7", "D8"], "triple_chain") == [
        "S7",
        "H7",
        "D7",
        "S8",
        "C8",
        "D8",
    ]


def test_a_bomb_shows_its_natural_cards_then_the_wild_cards():
    assert shown("guandan", "6", ["H6", "S9", "C9", "D9"], "bomb") == ["S9", "C9", "D9", "H6"]
    assert shown("guandan", "2", ["HR", "SB", "HR", "SB"], "joker_bomb") == ["SB", "SB", "HR", "HR"]


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_every_legal_combo_keeps_its_cards(variant):
    # whatever the reading, the order is a permutation of the cards played
    rng = random.Random(43)
    for _ in range(6):
        deck = list(range(52 if variant == "honger" else 54)) * 2
        rng.shuffle(deck)
        hand = sorted(deck[:27])
        rules = combo_rules(variant, rng.choice("3579TJQ"))
        for combo in rules.legal_combos(hand)[:400]:
            assert sorted(display_order(combo, rules)) == sorted(combo.cards)
