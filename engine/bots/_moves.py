"""What the bots share: reading the seat's own hand into moves, and building actions fast.

:class:`Moves` gives the abstract (or card-level) plays of the seat to act, computed from its
observation only; the helpers build :class:`~engine.actions.Action` values without the frozen
dataclass's overhead. ``legal_actions`` may be a list of actions or a zero-argument callable
returning it (lazy: in the play phase the bots work on abstract moves from their own hand,
with ``ComboRules.hand_moves`` / ``abstract_moves`` / ``materialize`` when the variant's
combo rules provide them, which is much faster than listing every card-level play).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import fields
from functools import lru_cache
from typing import Any, Protocol, cast

from engine.actions import Action
from engine.cards import CARD_STRS, parse_cards
from engine.combo import Combo
from engine.variants import combo_rules, deal_rules

LegalActions = Sequence[Action] | Callable[[], Sequence[Action]]


class HandMoveRules(Protocol):
    """Combo rules that read a hand into abstract moves and back into cards (the level games'
    and Red Two's, when :func:`~engine.variants.combo_rules` gives them): what the bots' fast
    path calls, found with ``hasattr`` on the rules object."""

    #: each rank's card-order value at the deal's level (the level card high)
    value: list[int]

    def abstract_moves(self, hand: Sequence[int], standing: Any, allow_two: bool = True) -> Any:
        """The abstract plays of ``hand`` over ``standing``."""

    def materialize(self, hand: Sequence[int], move: Any) -> Combo:
        """The cards of ``hand`` that play ``move``."""

    def hand_moves(self, hand: Sequence[int], allow_two: bool = True) -> Any:
        """The hand's moves, bound to it (``moves(standing)``, ``materialize(move)``)."""


class CountRules(Protocol):
    """Combo rules of the point games that work on rank counts (Red Two, Shuangkou)."""

    def hand_counts(self, cards: Sequence[int]) -> list[int]:
        """How many cards of each rank ``cards`` holds."""

    def move_of(self, combo: Combo) -> Any:
        """The move a played ``combo`` is."""

    def moves(self, counts: Sequence[int], standing: Any = None) -> list[Any]:
        """The moves of a hand of ``counts`` over ``standing``."""


BOMB_TYPES = frozenset(
    ("bomb", "straight_flush", "joker_bomb", "dragon", "supreme", "two_bomb", "immune")
)
SEQUENCES = frozenset(("straight", "straight_flush", "pair_chain", "triple_chain", "dragon"))


@lru_cache(maxsize=4096)
def _standing(cards: tuple[str, ...], type: str, key: str | None, size: int | None) -> Combo:
    return Combo.from_json({"cards": list(cards), "type": type, "key": key, "size": size})


class _Standing:
    """The reading of the play standing, from an observation's ``standing`` entry (what
    ``hand_moves(...).moves`` needs to compare: type, key, size)."""

    __slots__ = ("type", "key", "size", "length", "lines")

    def __init__(self, entry: dict[str, Any]) -> None:
        self.type: str = entry["type"]
        self.key: str | None = entry.get("key")
        self.size: int | None = entry.get("size")
        self.length: int | None = entry.get("length")  # chains (Red Two, Shuangkou)
        self.lines: int | None = entry.get("lines")  # Shuangkou bombs


#: The last standing entry read and its reading: the observations of a trick share the entry
#: of the play standing (engine.observation), so the seats that answer it in turn read it once.
_LAST_STANDING: tuple[Any, Any] = (None, None)


def _standing_of(entry: dict[str, Any]) -> _Standing:
    """``_Standing(entry)`` (the same object again for the same entry: read it only)."""
    global _LAST_STANDING
    last = _LAST_STANDING
    if last[0] is entry:
        st: _Standing = last[1]
        return st
    st = _new(_Standing)
    st.type = entry["type"]
    st.key = entry.get("key")
    st.size = entry.get("size")
    st.length = entry.get("length")
    st.lines = entry.get("lines")
    _LAST_STANDING = (entry, st)
    return st


def resolve(legal: LegalActions | None) -> list[Action]:
    if legal is None:
        return []
    if callable(legal):
        return list(legal())
    return list(legal)


_new = object.__new__
_ACTION_SLOTS = tuple(f.name for f in fields(Action))
if _ACTION_SLOTS == ("kind", "seat", "cards", "type", "target", "choice", "sanction"):
    _set_kind, _set_seat, _set_cards, _set_type, _set_target, _set_choice, _set_sanction = (
        getattr(Action, name).__set__ for name in _ACTION_SLOTS
    )

    def _play(seat: int, cards: tuple[int, ...], type: str) -> Action:
        """``Action("play", seat, cards, type)``, without the frozen dataclass's overhead."""
        act = _new(Action)
        _set_kind(act, "play")
        _set_seat(act, seat)
        _set_cards(act, cards)
        _set_type(act, type)
        _set_target(act, None)
        _set_choice(act, None)
        _set_sanction(act, None)
        return act

else:  # pragma: no cover - Action changed its fields: the plain constructor

    def _play(seat: int, cards: tuple[int, ...], type: str) -> Action:
        """``Action("play", seat, cards, type)``."""
        return Action("play", seat, cards, type)


#: ``Action("pass", seat)`` per seat (actions are immutable values).
_PASS: tuple[Action, ...] = tuple(Action("pass", s) for s in range(8))

_CARD_STR = CARD_STRS
_CARD_ID = {t: c for c, t in enumerate(_CARD_STR)}


def _parse_hand(strs: list[str]) -> list[int]:
    """Card ids of an observed hand (``parse_cards``, with a fast path for valid cards)."""
    try:
        return [_CARD_ID[t] for t in strs]
    except (KeyError, TypeError):
        return parse_cards(strs)


def _hand_view(strs: list[str], rules: Any, allow_two: bool, memo: list[Any] | None) -> list[Any]:
    """``[rules, allow_two, hand strings, hand ids, rules.hand_moves(...)]`` for an observed
    hand, from ``memo`` (a bot's memory of its last hand, updated) when it is the same."""
    if memo and memo[0] is rules and memo[1] is allow_two and memo[2] == strs:
        return memo
    hand = _parse_hand(strs)
    entry = [rules, allow_two, list(strs), hand, rules.hand_moves(hand, allow_two)]
    if memo is None:
        return entry
    memo[:] = entry
    return memo


def _remember_play(memo: list[Any], cards: Sequence[int]) -> None:
    """Update a bot's memory of its hand (see :func:`_hand_view`) for the cards it plays: the
    next observation will show that hand if the play is applied (checked there)."""
    without = getattr(memo[4], "without", None)
    if without is None:  # the variant cannot update its moves: recount the next hand
        memo.clear()
        return
    strs, hand = memo[2], memo[3]
    for c in cards:
        strs.remove(_CARD_STR[c])
        hand.remove(c)
    memo[4] = without(cards)


def _remember_own_play(memo: list[Any], cards: Sequence[int]) -> None:
    """:func:`_remember_play` for a memory whose moves no one else holds (a bot's own): the
    moves are updated in place when the variant can (``remove``), not copied."""
    remove = getattr(memo[4], "remove", None)
    if remove is None:
        _remember_play(memo, cards)
        return
    strs, hand = memo[2], memo[3]
    for c in cards:
        strs.remove(_CARD_STR[c])
        hand.remove(c)
    remove(cards)


class Moves:
    """Abstract (or card-level) plays of the seat to act, computed from its observation.

    ``memo`` (optional) is a bot's own memory of its hand: when the variant's combo rules
    offer ``hand_moves`` (Guandan, Bao 2), the hand's analysis is kept there and reused while
    the observed hand (and the little-2 restriction) stays the same, as a player who passes
    still knows their hand. It holds nothing but what the bot's observations showed it."""

    def __init__(
        self, obs: dict[str, Any], legal: LegalActions | None, memo: list[Any] | None = None
    ) -> None:
        self.obs = obs
        self.seat: int = obs["seat"]
        self.rules = rules = combo_rules(obs["variant"], obs["level"])
        st = obs.get("standing")
        if obs["lead"]:
            st = None
        self.allow_two = allow_two = not deal_rules(obs["variant"]).twos_need_initiative or bool(
            obs["initiative"][self.seat]
        )
        self.moves: list[Any]
        self.view: Any = None
        self.standing: _Standing | Combo | None
        if hasattr(rules, "hand_moves"):
            self.fast = True
            entry = _hand_view(obs["hand"], rules, allow_two, memo)
            self.hand, self.view = entry[3], entry[4]
            self.standing = None if st is None else _Standing(st)
            self.moves = self.view.moves(self.standing)
            return
        self.hand = parse_cards(obs["hand"])
        self.standing = None
        if st is not None:
            self.standing = _standing(tuple(st["cards"]), st["type"], st.get("key"), st.get("size"))
        self.fast = hasattr(rules, "abstract_moves") and hasattr(rules, "materialize")
        if self.fast:
            self.moves = cast(HandMoveRules, rules).abstract_moves(
                self.hand, self.standing, allow_two
            )
        else:
            self.moves = [a for a in resolve(legal) if a.kind == "play"]

    def action(self, move: Any) -> Action:
        """The concrete action of one move."""
        if not self.fast:
            played: Action = move  # the card-level path's moves are actions already
            return played
        combo: Combo
        if self.view is not None:
            combo = self.view.materialize(move)
        else:
            combo = cast(HandMoveRules, self.rules).materialize(self.hand, move)
        return Action("play", self.seat, combo.cards, combo.type)

    def size(self, move: Any) -> int:
        """Number of cards of a move."""
        if not self.fast:
            return len(move.cards)
        n: int = move.wilds
        for _, k in move.naturals:  # a loop: faster than sum() on these short tuples
            n += k
        return n

    def ranks(self, move: Any) -> list[int]:
        """Natural rank indexes a move uses (0..14)."""
        if not self.fast:
            return [c % 13 if c < 52 else (13 if c == 52 else 14) for c in move.cards]
        return [r for r, _ in move.naturals]
