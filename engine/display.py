"""The order in which a played combo's cards are shown (issue 43, point 4).

A combo's ``cards`` are sorted by card id, which reads badly: a full house comes out as
``6♠ 7♠ 6♥ 6♣ 7♦`` and a straight with a wild card has the wild card at one end. A player reads
a combo the way it is laid on a real table: the triple then the pair, a straight from its low
end to its key, each wild card standing where it fills the gap, a bomb's natural cards then its
wild cards. This module only orders the cards; it never changes which cards were played.
Pure Python, no Django.
"""

from __future__ import annotations

from functools import lru_cache

from engine.cards import rank_index, rank_of, suit_of
from engine.combo import Combo, ComboRules

#: Sequence types and how many cards of each rank they hold (chains of variable length say so
#: through ``Combo.length``).
_PER_RANK = {"straight": 1, "straight_flush": 1, "dragon": 1, "pair_chain": 2, "triple_chain": 3}


def _suit_key(card: int) -> int:
    suit = suit_of(card)
    return 4 if suit is None else suit


def _window(key: str, ranks: int) -> list[int] | None:
    """The natural rank indexes of a sequence of ``ranks`` ranks ending at ``key``, low to high
    (an ace below the 2 where the sequence starts there: ``A 2 3 4 5``); ``None`` if it does
    not exist among the natural ranks."""
    top = rank_index(key)
    if top > 12 or ranks < 1:
        return None
    low = top - ranks + 1
    if low < -1:
        return None
    return [12 if r == -1 else r for r in range(low, top + 1)]


# (cached: the observation orders each play of the trick, and of every past trick under
# show_history, for every recipient; a combo and its deal's rules never change)
@lru_cache(maxsize=8192)
def display_order(combo: Combo, rules: ComboRules) -> tuple[int, ...]:
    """The combo's cards in reading order; always a permutation of ``combo.cards``.

    * full house: the three cards of the key's rank (wild cards completing them) then the pair;
    * a straight, straight flush, dragon, pair or triple chain: low rank to high, each wild card
      at the rank it stands for, where the key names the top rank (a chain with an ace at its
      low end starts with it);
    * anything else (singles, pairs, bombs, the joker bomb): natural cards by strength then
      suit, the wild cards last.

    Cards that fit none of these places (a reading the window does not explain) keep the
    strength order, so the function never fails on a legal combo.
    """
    cards = list(combo.cards)
    if len(cards) < 2:
        return tuple(cards)
    wilds = [c for c in cards if rules.is_wild(c)]
    naturals = sorted(
        (c for c in cards if not rules.is_wild(c)),
        key=lambda c: (rules.card_strength(c), _suit_key(c)),
    )
    if combo.type == "full_house" and combo.key is not None:
        key = rank_index(combo.key)
        triple = [c for c in naturals if rank_of(c) == key][:3]
        # a card id may appear twice (two decks): the rest is a multiset difference
        rest = list(naturals)
        for c in triple:
            rest.remove(c)
        while len(triple) < 3 and wilds:
            triple.append(wilds.pop())
        return tuple(triple + rest + wilds)
    per_rank = _PER_RANK.get(combo.type)
    if combo.length and combo.type not in ("bomb",) and len(cards) % combo.length == 0:
        per_rank = per_rank or len(cards) // combo.length
    if per_rank and combo.key is not None and len(cards) % per_rank == 0:
        window = _window(combo.key, len(cards) // per_rank)
        if window is not None:
            left = list(naturals)
            spare = list(wilds)
            out: list[int] = []
            for rank in window:
                here = [c for c in left if rank_of(c) == rank][:per_rank]
                for c in here:
                    left.remove(c)
                while len(here) < per_rank and spare:
                    here.append(spare.pop())
                out.extend(here)
            if not left and not spare:
                return tuple(out)
    return tuple(naturals + wilds)
