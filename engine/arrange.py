"""理牌: a hand grouped into its bombs and straight flushes, the rest left over.

Pure: a function of the variant, the deal's level rank and one seat's own hand. Every group
is a reading of the variant's own :class:`~engine.combo.ComboRules` (``readings`` then
``is_bomb``), so a group is always a legal play; the table's 理牌 button shows it.

How the groups are chosen (few rules, so a player can predict them):

1. a straight flush is taken when it leaves every rank bomb of the hand whole (it may take
   the fifth card of a rank, not the fourth); the strongest first;
2. then every rank's remaining cards, when they read as a bomb (4 or more, or what the
   variant counts as one);
3. then the jokers together, when they read as a bomb (the joker bomb);
4. then straight flushes among what is left;
5. then rank bombs of consecutive ranks are put together where the variant reads them together
   as one bomb stronger than each of them (Shuangkou's chain bomb, 连炸: 4444 5555 6666 is
   one bomb of 7 lines, stronger than three of 4), the strongest such run first; a run that
   would be weaker than one of its bombs (an 8-card bomb is 8 lines, more than 7) is left
   apart.

Wild cards (Guandan's ♥ level card) stay out of the groups: where a wild card goes is the
player's own choice, and it stays in view at the head of the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.cards import JOKERS, cards_str, make_card, rank_of, suit_of
from engine.combo import Combo, ComboRules
from engine.variants import combo_rules

#: Ranks of a straight in rank-index order (``A`` low, then ``2`` .. ``A`` high).
_RUN = (12, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)


def _bomb(rules: ComboRules, cards: Sequence[int]) -> Combo | None:
    """The strongest bomb reading of exactly ``cards``, or ``None``."""
    bombs = [c for c in rules.readings(list(cards)) if rules.is_bomb(c)]
    return max(bombs, key=rules.bomb_strength, default=None)


def _straight_flushes(rules: ComboRules, cards: list[int]) -> list[Combo]:
    """Every five-card straight flush (one card per rank of one suit) ``cards`` hold that the
    variant reads as a bomb, strongest first."""
    held = set(cards)
    found: list[Combo] = []
    for suit in range(4):
        for start in range(len(_RUN) - 4):
            run = [make_card(suit, r) for r in _RUN[start : start + 5]]
            if all(c in held for c in run):
                combo = _bomb(rules, run)
                if combo is not None:
                    found.append(combo)
    return sorted(found, key=rules.bomb_strength, reverse=True)


def _take(left: list[int], cards: Sequence[int]) -> bool:
    """Remove ``cards`` (a multiset) from ``left`` if all are there; whether they were."""
    rest = list(left)
    for card in cards:
        if card not in rest:
            return False
        rest.remove(card)
    left[:] = rest
    return True


def arrange(variant: str, level: str | None, hand: Sequence[int]) -> dict[str, Any]:
    """The hand's 理牌 groups: ``{"groups": [{"type", "cards"}, ...], "rest": [...]}``, cards
    in the suit-first notation; the groups strongest first by the variant's bomb order, each a
    bomb reading of the variant's rules, together with ``rest`` exactly the hand's multiset.
    ``ValueError`` for an unknown variant or level."""
    rules = combo_rules(variant, level)
    wild = [c for c in hand if rules.is_wild(c)]
    left = [c for c in hand if not rules.is_wild(c)]
    by_rank: dict[int, int] = {}
    for card in left:
        by_rank[rank_of(card)] = by_rank.get(rank_of(card), 0) + 1
    bomb_ranks = {
        r for r in by_rank if r < 13 and _bomb(rules, [c for c in left if rank_of(c) == r])
    }
    groups: list[Combo] = []
    # 1. straight flushes that leave every rank bomb whole
    for combo in _straight_flushes(rules, left):
        keeps = all(
            rank_of(c) not in bomb_ranks or sum(rank_of(x) == rank_of(c) for x in left) > 4
            for c in combo.cards
        )
        if keeps and _take(left, combo.cards):
            groups.append(combo)
    # 2. rank bombs, 3. the jokers
    for cards in [[c for c in left if rank_of(c) == r] for r in range(13)] + [
        [c for c in left if c in JOKERS]
    ]:
        bomb = _bomb(rules, cards) if cards else None
        if bomb is not None and _take(left, bomb.cards):
            groups.append(bomb)
    # 4. straight flushes among the rest
    for combo in _straight_flushes(rules, left):
        if _take(left, combo.cards):
            groups.append(combo)
    # 5. consecutive rank bombs as one (chain bombs)
    groups = _chained(rules, groups)
    groups.sort(key=rules.bomb_strength, reverse=True)
    rest = wild + left
    return {
        "groups": [{"type": g.type, "cards": cards_str(_shown(g.cards))} for g in groups],
        "rest": cards_str(rest),
    }


def _chained(rules: ComboRules, groups: list[Combo]) -> list[Combo]:
    """``groups`` with runs of rank bombs of consecutive ranks (by rank index; which runs count,
    e.g. Shuangkou's ``3`` .. ``A``, the variant's readings say) replaced by one bomb where the variant reads a run's cards together as a bomb
    stronger than each bomb of the run; the strongest such run first, then again among what
    is left (only whole rank bombs are joined: the player can still split one by hand)."""
    while True:
        ranked = sorted(
            (g for g in groups if g.type == "bomb" and len({rank_of(c) for c in g.cards}) == 1),
            key=lambda g: rank_of(g.cards[0]),
        )
        best: tuple[Combo, list[Combo]] | None = None
        for a in range(len(ranked)):
            for b in range(a + 1, len(ranked)):
                run = ranked[a : b + 1]
                if rank_of(run[-1].cards[0]) - rank_of(run[0].cards[0]) != b - a:
                    break  # (a gap: no longer consecutive)
                joined = _bomb(rules, [c for g in run for c in g.cards])
                if joined is None:
                    continue
                strength = rules.bomb_strength(joined)
                if all(strength > rules.bomb_strength(g) for g in run) and (
                    best is None or strength > rules.bomb_strength(best[0])
                ):
                    best = (joined, run)
        if best is None:
            return groups
        joined, run = best
        groups = [g for g in groups if all(g is not r for r in run)] + [joined]


def _shown(cards: Sequence[int]) -> list[int]:
    """A group's cards in the order a player reads them: by rank (a straight from its low
    end, ``A`` low when the straight starts there), then by suit."""
    ranks = {rank_of(c) for c in cards}
    low_ace = 12 in ranks and 0 in ranks and 11 not in ranks

    def key(card: int) -> tuple[int, int]:
        r = rank_of(card)
        return (-1 if low_ace and r == 12 else r, suit_of(card) or 0)

    return sorted(cards, key=key)
