"""Combo rules of Bao 2 (保2): Guandan's combo rules with Bao 2's types and bomb order.

:class:`Bao2Rules` is :class:`~engine.variants.guandan.GuandanRules` for ``bao2`` (``docs/rules/
bao2.md`` §1–§4): no level 2, bombs of at most 8 cards, ``supreme``, ``immune``, ``dragon`` and
``two_bomb``, the closed-loop bomb order. The deal rules are :mod:`engine.variants._bao2_deal`.
"""

from __future__ import annotations

from engine.variants.guandan import GuandanRules, has_natural_two

__all__ = ["Bao2Rules", "has_natural_two"]


class Bao2Rules(GuandanRules):
    """Bao 2 combo rules at one level rank (``3`` .. ``A``; the match starts at ``3``)."""

    def __init__(self, level: str | None = None) -> None:
        """Rules at ``level`` (default ``3``); ``ValueError`` for a rank that is no level."""
        super().__init__("bao2", level or "3")
