"""The heuristic's Bao 2 (保2) line: a hand plan in which the natural 2s are shed, not hoarded.

In Bao 2 a natural 2 is the lowest card (``2 < 3``) and may be played only by a player who has
won a trick in the deal (initiative, ``docs/rules/bao2.md`` §5). Going out on a lead of pure 2s
earns a level per 2 (保2, §6.2), but every 2 still in the last player's hand — or in both losers'
hands after a double win — is closed and earns the **opponents** a level (关2, §7.3). In play
between our heuristics, closed 2s moved more levels than base and 保2 together, and nearly all
of them were held by a player who had initiative and was keeping them for a 保2 that never came.
So this line, once the seat holds initiative, treats its natural 2s as its lowest cards: they
are planned and led like any others (the 保2 still happens when the 2s are all that is left).

The rest is the hand plan of :mod:`engine.bots.policy` (the fewest plays, 手数):

- **Lead**: out in one play if possible (a 保2 when the hand is pure natural 2s); else the
  plain play that breaks no bomb, costs the plan least (a play of the plan first), spends no
  wild card, lowest first, most cards first; no plain play: the smallest bomb.
- **Follow**: out in one play if possible; the partner's play stands; else the plain play by
  the same order if it breaks no bomb (or the hand holds :data:`BREAK_HAND` cards or fewer);
  else the smallest bomb when the standing opponent shows :data:`BOMB_LEFT` cards or fewer or
  the hand holds :data:`BOMB_HAND` or fewer; else pass.
- **Return** (还贡): the card, of those the rules allow, whose loss costs the plan least,
  lowest first.

Everything is read from the seat's own observation and hand (``moves``); the search bot's
playouts call :func:`lead` and :func:`follow` with a reduced observation (``seat``, ``counts``,
``lead``, ``standing`` seat), which is all they read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.actions import Action
from engine.bots._moves import BOMB_TYPES, SEQUENCES, Moves
from engine.bots.policy import forced_follow, move_cost
from engine.cards import RANK_NAMES, parse_cards

__all__ = ["follow", "lead", "plan_counts", "plan_key", "return_card"]

_RANK_INDEX = {name: i for i, name in enumerate(RANK_NAMES)}
#: A follow may break a bomb once the hand holds this many cards or fewer (the former line's).
BREAK_HAND = 8
#: A follow bombs an opponent's play once the hand holds this many cards or fewer ...
BOMB_HAND = 10
#: ... or once the standing opponent shows this many cards or fewer (the former line's).
BOMB_LEFT = 6


def _rank(card: int) -> int:
    """Rank index 0..14 of a card id (13 / 14 the small and big jokers)."""
    return card % 13 if card < 52 else (13 if card == 52 else 14)


def plan_counts(hand: Sequence[int], wild: int, initiative: bool) -> list[int]:
    """Natural counts per rank (15) of ``hand`` that the plan is made of: the wild cards left
    out (they complete whatever the moves make of them), and the natural 2s left out unless
    the seat holds initiative (without it they cannot be played: §5)."""
    cnt = [0] * 15
    for c in hand:
        if c != wild:
            cnt[_rank(c)] += 1
    if not initiative:
        cnt[0] = 0
    return cnt


def _value(moves: Moves, move: Any) -> int:
    """Card-order value of a play's key (a sequence by its highest rank index); 99 without
    a key (the joker bomb, the two bomb)."""
    key = move.key
    if key is None:
        return 99
    r = _RANK_INDEX[key]
    if move.type in SEQUENCES:
        return r
    value: list[int] = moves.rules.value  # type: ignore[attr-defined]
    return value[r]


def plan_key(moves: Moves, move: Any, cnt: list[int]) -> tuple[int, int, int, int]:
    """How a plain play ranks, lower better: bombs it breaks, the change in plays the rest of
    the hand needs (plus the wild cards it spends), its card order (a sequence by its lowest
    rank, so that the low cards go first), and the more cards the better."""
    broken, delta = move_cost(cnt, move.naturals)
    if move.type in SEQUENCES:
        low = 2 * min(r for r, _ in move.naturals) if move.naturals else 0
    else:
        low = _value(moves, move)
    size = move.wilds
    for _, k in move.naturals:
        size += k
    return (broken, delta + move.wilds, low, -size)


def _smallest_bomb(moves: Moves, bombs: list[Any]) -> Any:
    return min(bombs, key=lambda m: (moves.size(m), _value(moves, m)))


def lead(obs: dict[str, Any], moves: Moves) -> Action:
    """The Bao 2 line's lead for the seat to lead (``moves``: its plays; see the module
    docstring): out in one play if it can, else the plan's cheapest plain play, else the
    smallest bomb."""
    size = len(moves.hand)
    for m in moves.moves:
        if moves.size(m) == size:  # out in one play: a 保2 when it is all natural 2s
            return moves.action(m)
    plain = [m for m in moves.moves if m.type not in BOMB_TYPES]
    if not plain:
        return moves.action(_smallest_bomb(moves, moves.moves))
    # with initiative the natural 2s are planned like the lowest cards: each one kept to the
    # end is a level for the opponents more often than a 保2 level for us
    cnt = plan_counts(moves.hand, getattr(moves.rules, "wild", -1), moves.allow_two)
    return moves.action(min(plain, key=lambda m: plan_key(moves, m, cnt)))


def follow(obs: dict[str, Any], moves: Moves) -> Action:
    """The Bao 2 line's answer to the play standing (see the module docstring): out if it can,
    let the partner's play stand, the plan's cheapest plain play that breaks no bomb, a bomb
    against an opponent near out or from a short hand, else pass."""
    seat = obs["seat"]
    size = len(moves.hand)
    forced = forced_follow(obs, moves)
    if forced is not None:
        return forced
    counts = obs["counts"]
    standing_seat = obs["standing"]["seat"]
    plain = [m for m in moves.moves if m.type not in BOMB_TYPES]
    if plain:
        cnt = plan_counts(moves.hand, getattr(moves.rules, "wild", -1), moves.allow_two)
        keys = {id(m): plan_key(moves, m, cnt) for m in plain}
        best = min(plain, key=lambda m: keys[id(m)])
        if keys[id(best)][0] == 0 or size <= BREAK_HAND:
            return moves.action(best)
    bombs = [m for m in moves.moves if m.type in BOMB_TYPES]
    if bombs:
        left = counts[standing_seat]
        if (left is not None and left <= BOMB_LEFT) or size <= BOMB_HAND:
            return moves.action(_smallest_bomb(moves, bombs))
    return Action("pass", seat)


def return_card(obs: dict[str, Any], legal: Sequence[Action], rules: Any) -> Action:
    """The return (还贡) among the ``legal`` return actions (the rules allow a card of 3–10,
    no level card): the one whose loss costs the plan of the seat's hand least (no initiative
    before play: the natural 2s are out of the plan), then the lowest card."""
    value: list[int] = rules.value
    wild = getattr(rules, "wild", -1)
    cnt = plan_counts(parse_cards(obs["hand"]), wild, False)

    def key(a: Action) -> tuple[int, ...]:
        c = a.card
        if c == wild:
            return (9, 0, 0, c)
        r = _rank(c)
        return (*move_cost(cnt, ((r, 1),)), value[r], c)

    return min(legal, key=key)
