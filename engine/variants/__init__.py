"""The variant table: every game the engine plays, its combo rules and its deal rules.

One module pair per game: combos in ``engine/variants/<game>.py`` (:class:`~engine.combo.
ComboRules`), deal and match rules in ``engine/variants/_<game>_deal.py`` (:class:`~engine.
deal.DealRules`; the point-scored games share :mod:`engine.variants._points_deal`). The table
below is the only place that names them: nothing registers itself on import.

Public API:

* :data:`VARIANT_NAMES`: the variant names, in table order;
* :func:`deal_rules`: the deal rules of a variant (what :class:`~engine.deal.Deal` and
  :class:`~engine.match.Match` run on);
* :func:`combo_rules`: the combo rules of a variant at a level rank (memoised);
* :func:`clear_combo_rules_cache`: forget every memoised combo rules object (benchmarks);
* :func:`variant_facts`: a variant's facts as plain data (:class:`VariantFacts`) for the
  platform: seats, level or points scoring, rated side sizes, options and their defaults;
* :func:`rated_sides`: the sides (seats) and side scores by which a finished match is rated;
* :func:`red_two_sides`: Red Two's rule for those sides, given the side its last deal revealed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from engine.combo import ComboRules
from engine.deal import DealRules
from engine.variants._bao2_deal import Bao2DealRules
from engine.variants._guandan_deal import GuandanDealRules
from engine.variants._honger_deal import HongerDealRules, red_two_sides
from engine.variants._shuangkou2_deal import Shuangkou2DealRules
from engine.variants.bao2 import Bao2Rules
from engine.variants.guandan import _BOMB_TABLES, GuandanRules
from engine.variants.honger import HongerRules
from engine.variants.shuangkou2 import Shuangkou2Rules

__all__ = [
    "VARIANT_NAMES",
    "VariantFacts",
    "clear_combo_rules_cache",
    "combo_rules",
    "deal_rules",
    "rated_sides",
    "red_two_sides",
    "variant_facts",
]


def _honger_combos(level: str | None) -> ComboRules:
    return HongerRules()


def _shuangkou2_combos(level: str | None) -> ComboRules:
    return Shuangkou2Rules()


#: Variant name -> its deal rules, built with the factory of its combo rules at a level rank.
_TABLE: dict[str, DealRules] = {
    "bao2": Bao2DealRules(Bao2Rules),
    "guandan": GuandanDealRules(GuandanRules),
    "honger": HongerDealRules(_honger_combos),
    "shuangkou2": Shuangkou2DealRules(_shuangkou2_combos),
}

#: Every variant the engine plays.
VARIANT_NAMES: tuple[str, ...] = tuple(_TABLE)


def deal_rules(variant: str) -> DealRules:
    """The deal (and match) rules of ``variant``; ``ValueError`` for an unknown name."""
    rules = _TABLE.get(variant)
    if rules is None:
        raise ValueError(f"unknown variant: {variant!r}")
    return rules


def combo_rules(variant: str, level: str | None = None) -> ComboRules:
    """The (memoised, immutable) combo rules of ``variant`` at a level rank (``None``: the
    variant's lowest level, or no levels); ``ValueError`` for an unknown variant or level."""
    return deal_rules(variant).combo_rules(level)


def clear_combo_rules_cache() -> None:
    """Forget every memoised :class:`~engine.combo.ComboRules` (and the readings they
    memoised), so that a benchmark run starts as cold as a fresh process."""
    for rules in _TABLE.values():
        rules.clear_combo_rules_cache()
    _BOMB_TABLES.clear()  # the bomb moves every level of a rules class shares


@dataclass(frozen=True)
class VariantFacts:
    """What the platform needs to know about a variant, as plain data.

    ``seats``: players at the table; ``scoring``: ``"levels"`` (per team: bao2, guandan) or
    ``"points"`` (per seat: honger, shuangkou2); ``side_sizes``: the ``(size, size)`` pairs a
    rated result's two sides may have; ``options``: every match option and its default
    (read-only); ``table_options``: the options that matter for a match played with real cards
    (a score sheet); ``max_level``: the highest level index (0 without levels);
    ``option_bounds``: the (lowest, highest) value of each whole-number option.
    """

    name: str
    seats: int
    scoring: str
    side_sizes: frozenset[tuple[int, int]]
    options: Mapping[str, Any]
    table_options: frozenset[str]
    max_level: int
    option_bounds: Mapping[str, tuple[int, int]]

    @property
    def levels(self) -> bool:
        """Whether the variant is scored in levels per team (else in points per seat)."""
        return self.scoring == "levels"


def variant_facts(variant: str) -> VariantFacts:
    """The facts of ``variant`` (:class:`VariantFacts`); ``ValueError`` for an unknown name."""
    rules = deal_rules(variant)
    return VariantFacts(
        name=rules.variant,
        seats=rules.seats,
        scoring=rules.scoring,
        side_sizes=rules.side_sizes,
        options=MappingProxyType(dict(rules.defaults)),
        table_options=rules.table_options,
        max_level=rules.max_level,
        option_bounds=MappingProxyType(dict(rules.option_bounds)),
    )


def rated_sides(
    variant: str, score: Sequence[int], deals: Sequence[dict[str, Any]]
) -> tuple[list[list[int]], list[int]] | None:
    """The two sides (seat lists) and their scores by which a finished match of ``variant`` is
    rated, from ``Match.result()["score"]`` and ``Match.deals``: the fixed teams with their
    levels (bao2, guandan), each player with their total (shuangkou2), the sides revealed by
    the last deal played to its end with the sums of their totals (honger; ``None`` when no
    deal finished). Raises ``ValueError`` for an unknown variant or a score that does not fit.
    """
    return deal_rules(variant).rated_sides(score, deals)
