"""Bots that act only on their own observation (and the legal actions the platform offers).

Both bots implement ``choose(observation, legal_actions) -> Action``. ``legal_actions`` may be
a list of :class:`~engine.actions.Action` or a zero-argument callable returning it (lazy: in
the play phase the bots work on abstract moves computed from their own hand in the
observation, with ``ComboRules.abstract_moves`` / ``materialize`` when the variant's combo
rules provide them, which is much faster than listing every card-level play). They never see
another hand: a bot's input is exactly what :meth:`engine.match.Match.observation` gives
that seat.

- :class:`RandomBot` (seeded): a uniformly random abstract play (or pass).
- :class:`HeuristicBot`: keeps bombs, leads low and long, lets its partner's plays stand,
  saves its natural 2s to go out on them (保2) and plays the immune bomb against an opponent's
  保2.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import fields
from functools import lru_cache
from typing import Any

from engine.actions import Action
from engine.cards import RANK_NAMES, card_str, parse_cards
from engine.combo import Combo
from engine.match import Match
from engine.variants import combo_rules, deal_rules
from engine.variants._honger_bots import PointsHeuristicBot

LegalActions = Sequence[Action] | Callable[[], Sequence[Action]]

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


def _standing_of(entry: dict[str, Any]) -> _Standing:
    """``_Standing(entry)``, built without a constructor call."""
    st = _new(_Standing)
    st.type = entry["type"]
    st.key = entry.get("key")
    st.size = entry.get("size")
    st.length = entry.get("length")
    st.lines = entry.get("lines")
    return st


def _resolve(legal: LegalActions | None) -> list[Action]:
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
_PASS = tuple(Action("pass", s) for s in range(8))

_CARD_STR = [card_str(c) for c in range(54)]
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


class _Moves:
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
        self.allow_two = allow_two = obs["variant"] != "bao2" or bool(obs["initiative"][self.seat])
        self._legal = legal
        self.moves: list[Any]
        self.view: Any = None
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
            self.moves = rules.abstract_moves(self.hand, self.standing, allow_two)
        else:
            self.moves = [a for a in _resolve(legal) if a.kind == "play"]

    def action(self, move: Any) -> Action:
        """The concrete action of one move."""
        if not self.fast:
            return move
        if self.view is not None:
            combo = self.view.materialize(move)
        else:
            combo = self.rules.materialize(self.hand, move)
        return Action("play", self.seat, combo.cards, combo.type)

    @staticmethod
    def mtype(move: Any) -> str:
        return move.type

    def size(self, move: Any) -> int:
        """Number of cards of a move."""
        if not self.fast:
            return len(move.cards)
        return sum(k for _, k in move.naturals) + move.wilds

    def ranks(self, move: Any) -> list[int]:
        """Natural rank indexes a move uses (0..14)."""
        if not self.fast:
            return [c % 13 if c < 52 else (13 if c == 52 else 14) for c in move.cards]
        return [r for r, _ in move.naturals]


class RandomBot:
    """Plays a uniformly random legal move (abstract: one per type and key), seeded."""

    def __init__(self, seed: int | str | None = None) -> None:
        """A bot whose choices derive from ``seed``."""
        self.rng = random.Random(seed)
        self._memo: list[Any] = []
        self._rules: tuple[Any, Any, Any] = (None, None, None)  # (variant, level, rules)

    def choose(self, observation: dict[str, Any], legal_actions: LegalActions) -> Action:
        """A random legal action for the observing seat."""
        obs = observation
        if obs.get("phase") == "play" and obs.get("turn") == obs.get("seat"):
            variant = obs["variant"]
            level = obs["level"]
            known = self._rules
            if known[0] == variant and known[1] == level:
                rules = known[2]
            else:
                rules = combo_rules(variant, level)
                self._rules = (variant, level, rules)
            if hasattr(rules, "hand_moves"):  # lean path of _Moves
                seat = obs["seat"]
                lead = obs["lead"]
                allow_two = variant != "bao2" or bool(obs["initiative"][seat])
                memo = self._memo
                strs = obs["hand"]
                if not (memo and memo[0] is rules and memo[1] is allow_two and memo[2] == strs):
                    _hand_view(strs, rules, allow_two, memo)
                view = memo[4]
                st = None if lead else obs.get("standing")
                plays = view.moves(None if st is None else _standing_of(st))
                n = len(plays)
                total = n if lead else n + 1  # a follower may pass
                if total:
                    i = self.rng.randrange(total)
                    if i == n:
                        return _PASS[seat]
                    combo = view.materialize(plays[i])
                    _remember_play(memo, combo.cards)
                    return _play(seat, combo.cards, combo.type)
                return self.rng.choice(_resolve(legal_actions))
            moves = _Moves(obs, legal_actions, self._memo)
            n = len(moves.moves) + (0 if obs["lead"] else 1)
            if n:
                i = self.rng.randrange(n)
                if i == len(moves.moves):
                    return Action("pass", obs["seat"])
                return moves.action(moves.moves[i])
        return self.rng.choice(_resolve(legal_actions))


class HeuristicBot:
    """A sensible player (see the module docstring). Deterministic for an observation."""

    def choose(self, observation: dict[str, Any], legal_actions: LegalActions) -> Action:
        """The heuristic's action for the observing seat."""
        obs = observation
        if deal_rules(obs["variant"]).scoring == "points":  # point games: their own heuristic
            return PointsHeuristicBot().choose(obs, legal_actions)
        seat = obs["seat"]
        phase = obs.get("phase")
        if phase == "immune":
            legal = _resolve(legal_actions)
            for a in legal:
                if a.kind == "immune":
                    return a
            return Action("pass", seat)
        if phase != "play":
            legal = _resolve(legal_actions)
            if phase == "return":
                rules = combo_rules(obs["variant"], obs["level"])
                value = getattr(rules, "value", None)

                def low(a: Action) -> tuple[int, int]:
                    c = a.card
                    r = c % 13 if c < 52 else (13 if c == 52 else 14)
                    return (value[r] if value else r, c)

                return min(legal, key=low)
            return legal[0]
        moves = _Moves(obs, legal_actions)
        if not moves.moves and obs["lead"]:  # nothing abstract to lead: take a listed action
            return _resolve(legal_actions)[0]
        if obs["lead"]:
            return self._lead(obs, moves)
        return self._follow(obs, moves)

    # -- helpers ----------------------------------------------------------------------------
    @staticmethod
    def _counts(moves: _Moves) -> list[int]:
        cnt = [0] * 15
        wild = getattr(moves.rules, "wild", -1)
        for c in moves.hand:
            if c == wild:
                continue
            cnt[c % 13 if c < 52 else (13 if c == 52 else 14)] += 1
        return cnt

    def _value(self, moves: _Moves, move: Any) -> int:
        key = move.key if moves.fast else None
        if not moves.fast:
            key = moves.rules.read_as(move.cards, move.type).key  # type: ignore[union-attr]
        if key is None:
            return 99
        r = RANK_NAMES.index(key)
        if move.type in SEQUENCES:
            return r
        value = getattr(moves.rules, "value", None)
        return value[r] if value else r

    def _cost(self, moves: _Moves, move: Any, cnt: list[int], save_twos: bool) -> tuple:
        """Lower is better: don't break bombs, don't spend wilds or 2s, play low, shed many."""
        breaks = sum(1 for r in moves.ranks(move) if cnt[r] >= 4 and move.type not in BOMB_TYPES)
        twos = sum(1 for r in moves.ranks(move) if r == 0) if save_twos else 0
        wilds = move.wilds if moves.fast else 0
        return (breaks + twos, wilds, self._value(moves, move), -moves.size(move))

    def _lead(self, obs: dict[str, Any], moves: _Moves) -> Action:
        hand = moves.hand
        size = len(hand)
        # go out in one play when possible (this is a 保2 when the hand is pure natural 2s)
        for m in moves.moves:
            if moves.size(m) == size:
                return moves.action(m)
        cnt = self._counts(moves)
        bao2 = obs["variant"] == "bao2"
        plain = [m for m in moves.moves if m.type not in BOMB_TYPES]
        if plain:
            best = min(plain, key=lambda m: self._cost(moves, m, cnt, bao2))
            return moves.action(best)
        best = min(moves.moves, key=lambda m: (moves.size(m), self._value(moves, m)))
        return moves.action(best)

    def _follow(self, obs: dict[str, Any], moves: _Moves) -> Action:
        seat = obs["seat"]
        standing_seat = obs["standing"]["seat"]
        size = len(moves.hand)
        for m in moves.moves:
            if moves.size(m) == size:
                return moves.action(m)
        partner = (seat + 2) % 4 if len(obs["counts"]) == 4 else None
        if standing_seat == partner:
            return Action("pass", seat)
        cnt = self._counts(moves)
        bao2 = obs["variant"] == "bao2"
        plain = [m for m in moves.moves if m.type not in BOMB_TYPES]
        if plain:
            best = min(plain, key=lambda m: self._cost(moves, m, cnt, bao2))
            if self._cost(moves, best, cnt, bao2)[0] == 0 or size <= 8:
                return moves.action(best)
        bombs = [m for m in moves.moves if m.type in BOMB_TYPES]
        if bombs:
            left = obs["counts"][standing_seat]
            if (left is not None and left <= 6) or size <= 10:
                best = min(bombs, key=lambda m: (moves.size(m), self._value(moves, m)))
                return moves.action(best)
        return Action("pass", seat)


def play_match(variant: str, seed: int, bots: Sequence[Any], max_deals: int = 500) -> Match:
    """Play one match with ``bots[seat]`` choosing for each seat from its observation."""
    match = Match.new(variant, seed)
    while not match.over and match.deal_no < max_deals:
        seat = match.to_move()
        action = bots[seat].choose(match.observation(seat), lambda s=seat: match.legal_actions(s))
        match.apply(action)
    return match


def heuristic_vs_random(variant: str = "bao2", matches: int = 200) -> dict[str, Any]:
    """Seeded matches of a :class:`HeuristicBot` team against a :class:`RandomBot` team (the
    heuristic team alternates between team 0 and team 1): wins, losses, draws."""
    wins = losses = other = deals = 0
    for seed in range(matches):
        team = seed % 2
        bots = [HeuristicBot() if s % 2 == team else RandomBot(f"{seed}/{s}") for s in range(4)]
        match = play_match(variant, seed, bots)
        deals += len(match.deals)
        winner = match.winner
        if match.rules.scoring == "points":  # per-seat points: team totals
            totals = [
                sum(match.score[s] for s in range(len(match.score)) if s % 2 == t) for t in (0, 1)
            ]
            winner = None if totals[0] == totals[1] else int(totals[1] > totals[0])
        if winner == team:
            wins += 1
        elif winner == 1 - team:
            losses += 1
        else:
            other += 1
    return {
        "variant": variant,
        "matches": matches,
        "heuristic_wins": wins,
        "random_wins": losses,
        "unfinished_or_drawn": other,
        "win_rate": round(wins / matches, 3),
        "deals": deals,
    }


def main(argv: list[str] | None = None) -> int:
    """``python -m engine.bots [VARIANT] [MATCHES]``: print :func:`heuristic_vs_random`."""
    args = sys.argv[1:] if argv is None else argv
    variant = args[0] if args else "bao2"
    matches = int(args[1]) if len(args) > 1 else 200
    print(json.dumps(heuristic_vs_random(variant, matches)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
