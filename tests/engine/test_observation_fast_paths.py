"""The shortcuts the observation and the combo rules take for speed (issue 44) give what the
long way gives: a one-rank play's reading order, the bomb move table shared by every level,
a recorded summary's copy."""

import json

import pytest

from engine.bots import RandomBot
from engine.cards import card_str, rank_of
from engine.display import display_order
from engine.match import Match
from engine.observation import _entry, copy_previous
from engine.variants import VARIANT_NAMES, combo_rules, deal_rules
from engine.variants import guandan as guandan_mod
from engine.variants.bao2 import Bao2Rules
from engine.variants.guandan import GuandanRules


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_a_cards_strength_goes_by_its_rank(variant):
    """The one-rank shortcut of the trick entries relies on it (display_order sorts by
    strength, then suit)."""
    rules = deal_rules(variant)
    for level in rules.level_ranks or (None,):
        combos = combo_rules(variant, level)
        by_rank: dict[int, set[int]] = {}
        for c in range(54):
            by_rank.setdefault(rank_of(c), set()).add(combos.card_strength(c))
        assert all(len(v) == 1 for v in by_rank.values()), (variant, level)


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_trick_entries_show_every_play_in_its_reading_order(variant):
    seats = deal_rules(variant).seats
    plays = 0
    for seed in range(3):
        m = Match.new(variant, 300 + seed)
        bots = [RandomBot(f"{seed}/{s}") for s in range(seats)]
        while not m.over and m.deal_no < 3:
            deal = m.deal
            for s, combo in deal.trick:
                if combo is not None:
                    plays += 1
                    want = [card_str(c) for c in display_order(combo, deal.combos)]
                    assert _entry(s, combo, deal.combos)["cards"] == want
            seat = m.to_move()
            m.apply(bots[seat].choose(m.observation(seat), m.legal_actions(seat)))
    assert plays > 100


@pytest.mark.parametrize("cls", [GuandanRules, Bao2Rules])
def test_every_level_shares_the_bomb_table_a_level_would_build(cls):
    key = (cls, cls.max_bomb)
    shared = cls(cls.level_names[0])._t_bomb
    for level in cls.level_names:
        assert cls(level)._t_bomb is shared
        saved = guandan_mod._BOMB_TABLES.pop(key)
        try:
            own = cls(level)._t_bomb  # built anew for this level
        finally:
            guandan_mod._BOMB_TABLES[key] = saved
        assert own == shared, level


def test_a_previous_summary_copy_is_equal_and_its_lists_fresh():
    m = Match.new("guandan", 11)
    bots = [RandomBot(f"11/{s}") for s in range(4)]
    while len(m.deals) < 2:
        seat = m.to_move()
        m.apply(bots[seat].choose(m.observation(seat), m.legal_actions(seat)))
    for summary in m.deals:
        copy = copy_previous(summary)
        assert json.dumps(copy) == json.dumps(summary) and copy == summary
        for k, v in summary.items():
            if isinstance(v, list):
                assert copy[k] is not v
    # a summary with one list and with none
    for summary in ({"finish": [1, 0], "level": "2"}, {"level": "3"}):
        copy = copy_previous(summary)
        assert copy == summary and list(copy) == list(summary)
        if "finish" in summary:
            assert copy["finish"] is not summary["finish"]
