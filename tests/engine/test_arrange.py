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
    # consecutive rank bombs that read together as a stronger bomb are one group (连炸)
    bombs = sorted(
        (parse_cards(g["cards"]) for g in out["groups"] if g["type"] == "bomb"),
        key=lambda cards: cards[0] % 13,
    )
    for a in range(len(bombs)):
        for b in range(a + 1, len(bombs)):
            run = bombs[a : b + 1]
            if [c[0] % 13 for c in run] != list(range(run[0][0] % 13, run[0][0] % 13 + len(run))):
                break
            joined = [r for r in rules.readings([c for g in run for c in g]) if rules.is_bomb(r)]
            parts = [rules.bomb_strength(rules.read_as(g, "bomb")) for g in run]
            for reading in joined:
                assert not all(rules.bomb_strength(reading) > p for p in parts), (run, reading)
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


def test_shuangkou_groups_consecutive_bombs_into_a_chain_bomb():
    # 4444 5555 6666: one chain bomb of 7 lines (m 4 + 3 ranks), stronger than each bomb of 4
    out = check("shuangkou2", None, "S4 H4 C4 D4 S5 H5 C5 D5 S6 H6 C6 D6 S9 H3".split())
    assert [g["type"] for g in out["groups"]] == ["chain_bomb"]
    assert out["groups"][0]["cards"] == "S4 H4 C4 D4 S5 H5 C5 D5 S6 H6 C6 D6".split()
    assert sorted(out["rest"]) == ["H3", "S9"]
    # two ranks of 4 are no chain bomb (m 4 needs 3 ranks): two bombs
    out = check("shuangkou2", None, "S4 H4 C4 D4 S5 H5 C5 D5".split())
    assert [g["type"] for g in out["groups"]] == ["bomb", "bomb"]
    # 44444 55555 6666: the chain of the two fives (7 lines in 10 cards) beats the chain of
    # all three (7 lines in 14 cards); the 6s stay a bomb of their own
    out = check("shuangkou2", None, "S4 H4 C4 D4 S4 S5 H5 C5 D5 S5 S6 H6 C6 D6".split())
    assert [(g["type"], len(g["cards"])) for g in out["groups"]] == [
        ("chain_bomb", 10),
        ("bomb", 4),
    ]


def test_a_chain_that_would_be_weaker_than_one_of_its_bombs_is_left_apart():
    # eight 3s are a bomb of 8 lines; with 4444 5555 the chain would be 7 lines
    hand = "S3 H3 C3 D3 S3 H3 C3 D3 S4 H4 C4 D4 S5 H5 C5 D5 S9".split()
    out = check("shuangkou2", None, hand)
    assert [(g["type"], len(g["cards"])) for g in out["groups"]] == [
        ("bomb", 8),
        ("bomb", 4),
        ("bomb", 4),
    ]
    # and the 2s (above the A) start no chain: 2222 3333 4444 are three bombs
    out = check("shuangkou2", None, "S2 H2 C2 D2 S3 H3 C3 D3 S4 H4 C4 D4".split())
    assert [g["type"] for g in out["groups"]] == ["bomb", "bomb", "bomb"]


def test_chain_bombs_of_dealt_shuangkou_hands_are_engine_readings():
    # dealt hands holding a chain bomb are rare (about 1 in 80): look for a few
    found = 0
    for seed in range(3000):
        match = Match.new("shuangkou2", f"chain-{seed}", {})
        for seat in range(2):
            out = check("shuangkou2", None, match.observation(seat)["hand"])
            found += any(g["type"] == "chain_bomb" for g in out["groups"])
        if found >= 5:
            break
    assert found >= 5


def test_other_games_never_join_bombs():
    # Guandan, Bao 2 and Red Two have no chain bomb: consecutive bombs stay apart
    for variant, level in (("guandan", "2"), ("bao2", "3"), ("honger", None)):
        out = check(variant, level, "S4 H4 C4 D4 S5 H5 C5 D5 S6 H6 C6 D6".split())
        assert [g["type"] for g in out["groups"]] == ["bomb", "bomb", "bomb"], variant
