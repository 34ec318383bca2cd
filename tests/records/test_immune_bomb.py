"""The immune bomb in the facts (engine/facts.py): a short Bao 2 deal built by hand from chosen
hands (the engine's own position, as tests/engine fixes hands), so the immune window opens on
the first 保2 rather than on a seed searched for one. Counted by hand:

seat 0 holds ♠10 ♠2 ♦2 and leads ♠10; everyone passes; it leads ♠2 ♦2, its whole hand, only
natural 2s: a 保2 (team 0's bonus 2), and the immune window opens. Seat 1 holds eight 9s and
the two level cards (♥3 ♥3, level 3): with its immune bomb the 保2 is voided (failed, never
made); passing instead, the 保2 stands (made).
"""

from __future__ import annotations

import pytest

from engine.deal import Deal
from engine.facts import match_facts
from engine.match import Match
from engine.variants import deal_rules

POSITION = {
    "variant": "bao2",
    "level": "3",
    "hands": [
        ["ST", "S2", "D2"],
        ["S9", "S9", "D9", "D9", "C9", "C9", "H9", "H9", "H3", "H3", "SK"],
        ["D6", "D7"],
        ["H8", "C8"],
    ],
    "leader": 0,
    "lead_kind": "trick",
    "initiative": [True, False, False, False],
    "finished": [],
}
OPENING = [
    {"seat": 0, "play": ["ST"], "type": "single"},
    {"seat": 1, "pass": True},
    {"seat": 2, "pass": True},
    {"seat": 3, "pass": True},
    {"seat": 0, "play": ["S2", "D2"], "type": "pair"},
]
IMMUNE = {"seat": 1, "immune": ["S9", "S9", "D9", "D9", "C9", "C9", "H9", "H9", "H3", "H3"]}


@pytest.fixture
def chosen_hands(monkeypatch):
    """The match's first deal is :data:`POSITION` (later ones are dealt from the seed)."""
    rules = deal_rules("bao2")
    dealt = rules.new_deal
    monkeypatch.setattr(
        rules,
        "new_deal",
        lambda match: dealt(match) if match.deals else Deal.from_position(rules, POSITION),
    )


def deal_log(window_action):
    """The first deal's actions: :data:`OPENING`, ``window_action`` in the immune window,
    then each seat's first legal action until the deal is over."""
    match = Match.new("bao2", "immune")
    for action in OPENING:
        match.apply(action)
    assert match.deal.phase == "immune" and match.deal.bao2 == [2, 0]
    match.apply(window_action)
    while not match.deals:
        seat = match.to_move()
        match.apply(match.legal_actions(seat)[0])
    return match.log


def test_an_immune_bomb_voids_the_bao2_and_is_counted(chosen_hands):
    facts = match_facts("bao2", "immune", None, deal_log(IMMUNE))
    assert facts.deals == 1
    counters = [s.counters for s in facts.seats]
    assert [c.get("immune_bombs", 0) for c in counters] == [0, 1, 0, 0]
    assert counters[0].get("bao2_failed") == 1 and "bao2_made" not in counters[0]
    assert counters[0]["place_1"] == 1  # out first all the same


def test_without_the_immune_bomb_the_bao2_is_made(chosen_hands):
    facts = match_facts("bao2", "immune", None, deal_log({"seat": 1, "pass": True}))
    counters = [s.counters for s in facts.seats]
    assert [c.get("immune_bombs", 0) for c in counters] == [0, 0, 0, 0]
    assert counters[0].get("bao2_made") == 1 and "bao2_failed" not in counters[0]
