"""Hand planning for the climbing games' bots: how many plays a hand still needs (手数).

A player of Guandan (and Bao 2) thinks of a hand as the few plays it will go out in: every
play that leaves the rest needing one play fewer is "free", one that breaks a pair, a triple,
a sequence or a bomb costs tempo. :func:`plays_needed` counts the fewest plain plays that
empty a hand's natural cards (bombs apart: a rank of 4 or more cards is kept as a bomb, which
takes the lead back rather than costing a play), trying the sequences (straights of 5, three
consecutive pairs, two consecutive triples, the ace low or high) and pairing triples with pairs
(full houses). :func:`move_cost` says what a play costs the rest of the hand: bombs broken,
change in plays needed. The heuristic bot (:mod:`engine.bots.heuristic`) leads and follows by
these costs; the search bot plays its playouts with that heuristic.

Counts are per rank index 0..12 (2..A, :data:`engine.cards.RANKS` order) and 13 / 14 for the
small and big jokers; wild cards are left out (they complete whatever the move generator makes
of them; a play that spends one pays for it in the bot's cost).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from engine.actions import Action

__all__ = ["bombs_in", "forced_follow", "move_cost", "plays_needed"]

#: Sequence positions 0..13 (0 the low ace, 1..12 the ranks 2..K, 13 the high ace) -> rank index.
_POS_RANK = (12,) + tuple(range(12)) + (12,)
#: (length, cards per rank) of the sequences a hand can be planned into.
_SEQUENCES = ((5, 1), (3, 2), (2, 3))
_WINDOWS = tuple(
    (per, tuple(tuple(_POS_RANK[p] for p in range(s, s + length)) for s in range(14 - length + 1)))
    for length, per in _SEQUENCES
)


def bombs_in(cnt: tuple[int, ...]) -> int:
    """Bombs a hand's natural counts hold: ranks of 4 or more cards, and the four jokers."""
    n = 0
    for r in range(13):
        if cnt[r] >= 4:
            n += 1
    if cnt[13] == 2 and cnt[14] == 2:
        n += 1
    return n


@lru_cache(maxsize=1 << 17)
def plays_needed(cnt: tuple[int, ...]) -> int:
    """The fewest plain plays that empty the natural cards ``cnt`` (15 counts), bombs apart.

    Exact over the partitions into sequences (using only ranks that are not bombs), full
    houses, triples, pairs and singles; memoised on the counts (hands repeat in playouts)."""
    triples = pairs = singles = 0
    for r in range(13):
        k = cnt[r]
        if k == 3:
            triples += 1
        elif k == 2:
            pairs += 1
        elif k == 1:
            singles += 1
    for r in (13, 14):
        k = cnt[r]
        if k == 2 and not (cnt[13] == 2 and cnt[14] == 2):
            pairs += 1
        elif k == 1:
            singles += 1
    best = triples + max(0, pairs - triples) + singles
    if best <= 1:
        return best
    for per, windows in _WINDOWS:
        for window in windows:
            ok = True
            for r in window:
                k = cnt[r]
                if k < per or k >= 4:
                    ok = False
                    break
            if not ok:
                continue
            rest = list(cnt)
            for r in window:
                rest[r] -= per
            n = 1 + plays_needed(tuple(rest))
            if n < best:
                best = n
    return best


def move_cost(cnt: list[int], naturals: Any) -> tuple[int, int]:
    """What playing the natural cards ``naturals`` (``((rank, count), ...)``) costs a hand of
    counts ``cnt``: (bombs broken, change in the plays the rest needs). A play that is one of
    the hand's planned plays costs ``(0, -1)``; one that breaks the plan costs 0 or more."""
    before = tuple(cnt)
    after = list(cnt)
    for r, k in naturals:
        after[r] -= k
    after_t = tuple(after)
    return (
        bombs_in(before) - bombs_in(after_t),
        plays_needed(after_t) - plays_needed(before),
    )


def forced_follow(obs: dict[str, Any], moves: Any) -> Action | None:
    """What every planned line does first when following: go out in one play if a move
    empties the hand, else pass on the partner's standing play (four seats); None when
    neither applies and the line must choose."""
    seat = obs["seat"]
    size = len(moves.hand)
    for m in moves.moves:
        if moves.size(m) == size:
            return moves.action(m)  # type: ignore[no-any-return]
    if len(obs["counts"]) == 4 and obs["standing"]["seat"] == (seat + 2) % 4:
        return Action("pass", seat)  # the partner's play stands
    return None
