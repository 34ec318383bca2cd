"""Combo rules of Bao 2 (保2): Guandan's combo rules with Bao 2's types and bomb order.

:class:`Bao2Rules` is :class:`~engine.variants.guandan.GuandanRules` with the hooks that differ
(``docs/rules/bao2.md`` §1–§4): no level 2, bombs of at most 7 cards, then ``supreme`` (8 of a
rank) and ``immune`` (8 naturals and both wild cards), ``dragon`` and ``two_bomb``, the
closed-loop bomb order (the joker bomb below the dragon). The deal rules are
:mod:`engine.variants._bao2_deal`.
"""

from __future__ import annotations

from engine.variants.guandan import BAO2_TYPES, NAMES, GuandanRules, has_natural_two

__all__ = ["Bao2Rules", "has_natural_two"]


class Bao2Rules(GuandanRules):
    """Bao 2 combo rules at one level rank (``3`` .. ``A``; the match starts at ``3``)."""

    variant = "bao2"
    #: No 2 is ever a level rank (bao2.md §1): levels 3 .. A.
    level_names = tuple(NAMES[1:13])
    types = BAO2_TYPES
    #: Plain bombs stop at 7 cards; 8 cards of a rank are a ``supreme`` (see :meth:`bomb_reading`).
    max_bomb = 7
    #: The joker bomb ranks above the 7-card bomb and below the dragon (bao2.md §4).
    joker_bomb_tier = 5

    def bomb_reading(
        self, rank: int, naturals: int, wilds: int
    ) -> tuple[str, str | None, int | None] | None:
        """Bao 2's readings of one rank's cards (bao2.md §3): four natural 2s are a
        ``two_bomb`` (never a bomb), 8 cards a ``supreme``, 8 naturals with both wild cards an
        ``immune`` bomb; 9 cards, or 10 without both wild cards, are no combo; otherwise a bomb
        of 4..7 cards."""
        n = naturals + wilds
        if n == 4 and rank == 0 and wilds == 0:
            return ("two_bomb", None, None)
        if n == 8:
            return ("supreme", NAMES[rank], None)
        if n == 10 and wilds == 2:
            return ("immune", NAMES[rank], None)
        return super().bomb_reading(rank, naturals, wilds)
