"""理牌 (engine.arrange): the groups of a hand are bombs and straight flushes as the variant's own
rules read them, the rest is what is left, and together they are exactly the hand."""

from collections import Counter

import pytest

from engine.arrange import arrange
from engine.cards import parse_cards
from engine.match import Match
from engine.variants import combo_rules

GAMES = ["bao2", "guandan", "honger", "shuangkou2"]


def check(variant, level, hand):
    """The arrangement of ``hand`` and the facts every arrangement must keep."""
    rules = combo_rules(variant, level)
    out = arrange(variant, level, parse_cards(hand))
    grouped = [c for g in out["groups"] for c in g["cards"]]
    assert Counter(grouped + out["rest"]) == Counter(hand)
    for group in out["groups"]:
        readings = rules.readings(parse_cards(group["cards"]))
        assert any(r.type == group["type"] and rules.is_bomb(r) for r in readings), group
        assert not any(rules.is_wild(c) for c in parse_cards(group["cards"]))
    strengths = [
        rules.bomb_strength(rules.read_as(parse_cards(g["cards"]), g["type"]))
        for g in out["groups"]
    ]
    assert strengths == sorted(strengths, reverse=True)
    return out


@pytest.mark.parametrize("variant", GAMES)
def test_every_group_is_a_bomb_reading_and_the_hand_is_kept(variant):
    seen = Counter()
    for seed in range(150):
        match = Match.new(variant, f"arrange-{seed}", {})
        for seat in range(len(match.deal.hands)):
            obs = match.observation(seat)
            out = check(variant, obs.get("level"), obs["hand"])
            seen.update(g["type"] for g in out["groups"])
            # no bomb left in the rest: every rank with a bomb reading is grouped
            rules = combo_rules(variant, obs.get("level"))
            rest = [c for c in parse_cards(out["rest"]) if not rules.is_wild(c)]
            for rank in set(c % 13 for c in rest if c < 52):
                cards = [c for c in rest if c < 52 and c % 13 == rank]
                assert not any(rules.is_bomb(r) for r in rules.readings(cards)), (rank, out)
    assert seen["bomb"] > 0


def test_a_straight_flush_leaves_a_four_card_bomb_whole():
    # ♠ 9 T J Q K, and four 9s: taking ♠9 into the straight flush would break the bomb
    hand = ["S9", "ST", "SJ", "SQ", "SK", "H9", "C9", "D9", "S3", "H5"]
    out = check("guandan", "2", hand)
    assert [g["type"] for g in out["groups"]] == ["bomb"]
    assert sorted(out["groups"][0]["cards"]) == ["C9", "D9", "H9", "S9"]
    # with a fifth 9 the straight flush takes one and the bomb of four stays
    out = check("guandan", "2", [*hand, "D9"])
    assert sorted(g["type"] for g in out["groups"]) == ["bomb", "straight_flush"]
    flush = next(g for g in out["groups"] if g["type"] == "straight_flush")
    assert flush["cards"] == ["S9", "ST", "SJ", "SQ", "SK"]


def test_a_low_straight_flush_is_shown_from_the_ace_and_the_wild_card_stays_loose():
    hand = ["HA", "H2", "H3", "H4", "H5", "HQ", "SQ", "CQ", "DQ", "H7"]
    out = check("guandan", "7", hand)  # ♥7 is this deal's wild card
    types = {g["type"]: g["cards"] for g in out["groups"]}
    assert types["straight_flush"] == ["HA", "H2", "H3", "H4", "H5"]
    assert sorted(types["bomb"]) == ["CQ", "DQ", "HQ", "SQ"]
    assert out["rest"] == ["H7"]


def test_the_jokers_group_when_they_read_as_a_bomb():
    out = check("guandan", "2", ["SB", "SB", "HR", "HR", "S3"])
    assert out["groups"] == [{"type": "joker_bomb", "cards": ["SB", "SB", "HR", "HR"]}]
    assert out["rest"] == ["S3"]
