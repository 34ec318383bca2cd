"""A specific reason for each refused selection (matches.refusals; issue 43, point 4), in both
languages: which cards make no combination and what their count could make, which card is not
of the rank of the others, what stands on the table; a play that does not beat (the same type:
both plays named; another type: what must answer); the 小2 rule; not your turn. The engine's
code is kept. (Unit tests of pure functions: the rules are the engine's own.)"""

import pytest
from django.utils import translation

from engine.cards import parse_cards
from engine.variants import combo_rules
from matches.refusals import explain, no_combination

STANDING = {"standing": {"type": "pair", "cards": ["SK", "HK"], "seat": 1}}


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("zh-hans", ["♥3 ♠9", "组不成牌型", "两张牌同点数才是对子", "♥3", "点数不同"]),
        ("en", ["♥3 ♠9", "make no combination", "pair only when", "♥3", "not of the same rank"]),
    ],
)
def test_cards_that_make_nothing_are_named_with_what_they_could_make(language, words):
    rules = combo_rules("guandan", "2")
    with translation.override(language):
        error = no_combination(parse_cards(["S9", "H3"]), rules, None)
    assert error.code == "invalid_combo"
    for word in words:
        assert word in error.message, (word, error.message)


@pytest.mark.parametrize(
    ("language", "said"),
    [("zh-hans", "桌上是 2 张的对子"), ("en", "On the table: a pair of 2 cards")],
)
def test_what_stands_on_the_table_is_said_with_a_selection_that_makes_nothing(language, said):
    rules = combo_rules("guandan", "2")
    with translation.override(language):
        error = no_combination(parse_cards(["S9", "H3"]), rules, STANDING["standing"])
    assert said in error.message, error.message


def test_other_games_get_their_own_words_for_what_cards_can_make():
    # Shuangkou has longer chains and its own bombs: no Guandan shapes are told
    rules = combo_rules("shuangkou2", None)
    with translation.override("zh-hans"):
        error = no_combination(parse_cards(["S9", "H3"]), rules, None)
    assert "这些牌不是本游戏的单张、对子、三张、连牌或炸弹" in error.message
    assert "两张牌同点数才是对子" not in error.message


@pytest.mark.parametrize(
    ("language", "same", "other"),
    [
        (
            "zh-hans",
            "你的对子（♠9 ♥9）压不过桌上的对子（♠K ♥K）。",
            "你的单张不能接桌上的对子：要出更大的对子，或者炸弹。",
        ),
        (
            "en",
            "Your pair (♠9 ♥9) does not beat the pair on the table (♠K ♥K).",
            "cannot answer the pair on the table",
        ),
    ],
)
def test_a_play_that_does_not_beat_says_what_stands(language, same, other):
    rules = combo_rules("guandan", "2")
    with translation.override(language):
        error = explain("does_not_beat", "", parse_cards(["S9", "H9"]), "pair", rules, STANDING)
        assert error.code == "does_not_beat" and error.message == same
        error = explain("does_not_beat", "", parse_cards(["SA"]), "single", rules, STANDING)
        assert error.code == "does_not_beat" and other in error.message, error.message


@pytest.mark.parametrize(
    ("language", "little_two", "turn"),
    [
        ("zh-hans", "♠2 ♥2：没有主动出牌权", "还没轮到你"),
        ("en", "♠2 ♥2: a natural 2 is played only with the initiative", "It is not your turn"),
    ],
)
def test_the_little_two_rule_and_not_your_turn_are_said(language, little_two, turn):
    rules = combo_rules("bao2", "3")
    with translation.override(language):
        error = explain("needs_initiative", "", parse_cards(["S2", "H2"]), "pair", rules, {})
        assert error.code == "needs_initiative" and error.message.startswith(little_two)
        error = explain("not_your_turn", "", parse_cards(["S2"]), None, rules, {})
        assert error.code == "not_your_turn" and error.message.startswith(turn)
