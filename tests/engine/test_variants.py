"""The variant table (engine.variants): names, rules, facts and rated sides."""

import pytest

from engine.combo import ComboRules
from engine.deal import DealRules
from engine.match import Match
from engine.variants import (
    VARIANT_NAMES,
    combo_rules,
    deal_rules,
    rated_sides,
    red_two_sides,
    variant_facts,
)
from engine.variants.bao2 import Bao2Rules
from engine.variants.guandan import GuandanRules


def test_the_table_names_every_game_once():
    assert VARIANT_NAMES == ("bao2", "guandan", "honger", "shuangkou2")
    for name in VARIANT_NAMES:
        rules = deal_rules(name)
        assert isinstance(rules, DealRules) and rules.variant == name
        assert isinstance(combo_rules(name), ComboRules)
    for bad in ("", "chess", "BAO2"):
        with pytest.raises(ValueError):
            deal_rules(bad)
        with pytest.raises(ValueError):
            combo_rules(bad)


def test_combo_rules_are_memoised_per_level_and_bao2_is_its_own_class():
    assert combo_rules("bao2", "7") is combo_rules("bao2", "7")
    assert combo_rules("bao2", "7") is not combo_rules("bao2", "8")
    assert type(combo_rules("bao2", "7")) is Bao2Rules
    assert type(combo_rules("guandan", "7")) is GuandanRules
    assert combo_rules("bao2").level == "3" and combo_rules("guandan").level == "2"
    with pytest.raises(ValueError):
        combo_rules("bao2", "2")


def test_facts_are_plain_data_matching_the_match_engine():
    facts = {name: variant_facts(name) for name in VARIANT_NAMES}
    assert {n: f.seats for n, f in facts.items()} == {
        "bao2": 4,
        "guandan": 4,
        "honger": 4,
        "shuangkou2": 2,
    }
    assert [n for n, f in facts.items() if f.levels] == ["bao2", "guandan"]
    assert {f.scoring for n, f in facts.items() if not f.levels} == {"points"}
    assert facts["bao2"].side_sizes == {(2, 2)}
    assert facts["honger"].side_sizes == {(2, 2), (1, 3), (3, 1)}
    assert facts["shuangkou2"].side_sizes == {(1, 1)}
    assert facts["bao2"].table_options == {"colour_twos", "time_limit_minutes"}
    assert facts["honger"].table_options == {"time_limit_minutes", "deals"}
    assert (facts["bao2"].max_level, facts["guandan"].max_level) == (23, 12)
    for name, f in facts.items():
        assert f.table_options <= set(f.options)
        m = Match.new(name, 3)
        assert m.options == dict(f.options)
        assert len(m.deal.hands) == f.seats
        with pytest.raises(TypeError):
            f.options["deals"] = 1  # read-only


def test_rated_sides_of_each_game():
    assert rated_sides("bao2", [5, 3], []) == ([[0, 2], [1, 3]], [5, 3])
    assert rated_sides("shuangkou2", [7, -7], []) == ([[0], [1]], [7, -7])
    totals = [30, -10, 5, -25]
    assert rated_sides("honger", totals, []) is None
    assert rated_sides("honger", totals, [{"sides": None}]) is None
    deals = [{"sides": [[1], [0, 2, 3]]}, {"sides": [[0, 2], [1, 3]]}]
    assert rated_sides("honger", totals, deals) == ([[0, 2], [1, 3]], [35, -35])
    assert red_two_sides(totals, [3]) == ([[3], [0, 1, 2]], [-25, 25])
    for bad in ([0, 0], [], [0, 1, 2, 3], [4], ["0"]):
        with pytest.raises(ValueError):
            red_two_sides(totals, bad)
    with pytest.raises(ValueError):
        red_two_sides(totals[:3], [0])
