"""The variant table (engine.variants): names, rules, facts and rated sides."""

import ast
from pathlib import Path

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


# The rules modules: variant differences live in hooks of the rules classes, never in a test of
# which variant is playing. The variant table (engine/variants/__init__.py) is the one place
# that names them.
RULES_MODULES = [
    path
    for path in sorted((Path(__file__).resolve().parents[2] / "engine").rglob("*.py"))
    if "bots" not in path.parts
    and path.name not in ("__init__.py", "bench.py", "arena.py", "conformance.py")
]


def _names_a_variant(node: ast.AST) -> bool:
    """A comparison against a variant name."""
    if not isinstance(node, ast.Compare):
        return False
    for side in [node.left, *node.comparators]:
        elts = side.elts if isinstance(side, ast.Tuple | ast.List | ast.Set) else [side]
        if any(isinstance(e, ast.Constant) and e.value in VARIANT_NAMES for e in elts):
            return True
    return False


def _bao2_flag(node: ast.AST, in_rules: bool) -> bool:
    """A read of the old ``bao2`` flag: ``rules.bao2`` anywhere, ``self.bao2`` in a rules class
    (a deal's ``bao2`` is its record of 保2 levels, not a flag)."""
    if not (isinstance(node, ast.Attribute) and node.attr == "bao2"):
        return False
    inner = node.value
    if isinstance(inner, ast.Attribute) and inner.attr == "rules":
        return True
    return in_rules and isinstance(inner, ast.Name) and inner.id == "self"


def _variant_questions(source: str) -> list[int]:
    tree = ast.parse(source)
    in_rules = {
        id(n)
        for cls in ast.walk(tree)
        if isinstance(cls, ast.ClassDef) and cls.name.endswith("Rules")
        for n in ast.walk(cls)
    }
    return sorted(
        n.lineno for n in ast.walk(tree) if _names_a_variant(n) or _bao2_flag(n, id(n) in in_rules)
    )


def test_rules_modules_never_ask_which_variant_is_playing():
    assert len(RULES_MODULES) >= 10
    found = {
        f"{path.parent.name}/{path.name}:{line}"
        for path in RULES_MODULES
        for line in _variant_questions(path.read_text())
    }
    assert found == set()


def test_the_variant_question_check_sees_each_form():
    bad = (
        'if self.variant == "bao2": pass\n'
        'if variant in ("guandan", "bao2"): pass\n'
        "class GuandanRules:\n"
        "    max_bomb = 8 if self.bao2 else 10\n"
        "if self.rules.bao2: pass\n"
    )
    assert _variant_questions(bad) == [1, 2, 4, 5]
    # the deal's 保2 record (deal.bao2) and a rules hook are not questions
    fine = "deal.bao2[team] += 1\nn = self.max_bomb\nclass Deal:\n    x = list(self.bao2)\n"
    assert _variant_questions(fine) == []


def test_a_sister_variant_changes_only_its_own_hooks():
    # Bao 2's combo rules differ from Guandan's by class attributes and one hook, nothing else
    own = {k for k in vars(Bao2Rules) if not k.startswith("__")}
    assert own == {"variant", "level_names", "types", "max_bomb", "joker_bomb_tier", "bomb_reading"}
    assert not hasattr(GuandanRules("7"), "bao2")
    guandan, bao2 = combo_rules("guandan", "7"), combo_rules("bao2", "7")
    eight = [0, 13, 26, 39] * 2  # eight natural 2s (S2 H2 C2 D2, twice)
    assert guandan.bomb_reading(0, 8, 0) == ("bomb", "2", 8)
    assert bao2.bomb_reading(0, 8, 0) == ("supreme", "2", None)
    assert [c.type for c in guandan.readings(eight)] == ["bomb"]
    assert [c.type for c in bao2.readings(eight)] == ["supreme"]


def test_only_bao2_says_natural_twos_need_initiative():
    # the bots list a seat's moves by this fact of the deal rules, never by the variant's name
    assert {n for n in VARIANT_NAMES if deal_rules(n).twos_need_initiative} == {"bao2"}
