"""The heuristic bot (普通, normal): a sensible player that plays one fixed line.

It keeps bombs, leads low and long, lets its partner's plays stand, saves its natural 2s to go
out on them (保2) and plays the immune bomb against an opponent's 保2; the point-scored games
have their own heuristic (:mod:`engine.bots.points`). Deterministic for an observation.
"""

from __future__ import annotations

from typing import Any

from engine.actions import Action
from engine.bots._moves import (
    BOMB_TYPES,
    SEQUENCES,
    LegalActions,
    Moves,
    _remember_play,
    resolve,
)
from engine.bots.points import PointsHeuristicBot
from engine.cards import RANK_NAMES
from engine.variants import combo_rules, deal_rules

#: Rank name -> rank index (``RANK_NAMES.index``, without the scan).
_RANK_INDEX = {name: i for i, name in enumerate(RANK_NAMES)}


class HeuristicBot:
    """A sensible player (see the module docstring). Deterministic for an observation.

    It remembers the analysis of its last hand (:class:`~engine.bots._moves.Moves`' memo): a
    seat's hand changes only by its own plays, which it records, so one bot kept per seat
    does not analyse the same hand again on every turn."""

    def __init__(self) -> None:
        """A bot with no memory yet."""
        self._memo: list[Any] = []

    def choose(self, observation: dict[str, Any], legal_actions: LegalActions) -> Action:
        """The heuristic's action for the observing seat."""
        obs = observation
        if deal_rules(obs["variant"]).scoring == "points":  # point games: their own heuristic
            return PointsHeuristicBot().choose(obs, legal_actions)
        seat = obs["seat"]
        phase = obs.get("phase")
        if phase == "immune":
            legal = resolve(legal_actions)
            for a in legal:
                if a.kind == "immune":
                    return a
            return Action("pass", seat)
        if phase != "play":
            legal = resolve(legal_actions)
            if phase == "return":
                rules = combo_rules(obs["variant"], obs["level"])
                value = getattr(rules, "value", None)

                def low(a: Action) -> tuple[int, int]:
                    c = a.card
                    r = c % 13 if c < 52 else (13 if c == 52 else 14)
                    return (value[r] if value else r, c)

                return min(legal, key=low)
            return legal[0]
        moves = Moves(obs, legal_actions, self._memo)
        if not moves.moves and obs["lead"]:  # nothing abstract to lead: take a listed action
            return resolve(legal_actions)[0]
        action = self._lead(obs, moves) if obs["lead"] else self._follow(obs, moves)
        if action.kind == "play" and moves.view is not None and self._memo:
            _remember_play(self._memo, action.cards)
        return action

    # -- helpers ----------------------------------------------------------------------------
    @staticmethod
    def _counts(moves: Moves) -> list[int]:
        cnt = [0] * 15
        wild = getattr(moves.rules, "wild", -1)
        for c in moves.hand:
            if c == wild:
                continue
            cnt[c % 13 if c < 52 else (13 if c == 52 else 14)] += 1
        return cnt

    def _value(self, moves: Moves, move: Any) -> int:
        key = move.key if moves.fast else None
        if not moves.fast:
            key = moves.rules.read_as(move.cards, move.type).key  # type: ignore[union-attr]
        if key is None:
            return 99
        r = _RANK_INDEX[key]
        if move.type in SEQUENCES:
            return r
        value = getattr(moves.rules, "value", None)
        return value[r] if value else r

    def _cost(self, moves: Moves, move: Any, cnt: list[int], save_twos: bool) -> tuple:
        """Lower is better: don't break bombs, don't spend wilds or 2s, play low, shed many."""
        if not moves.fast:
            ranks = moves.ranks(move)
            breaks = 0 if move.type in BOMB_TYPES else sum(1 for r in ranks if cnt[r] >= 4)
            twos = ranks.count(0) if save_twos else 0
            return (breaks + twos, 0, self._value(moves, move), -moves.size(move))
        # one pass over the move's ranks: the playouts of the search bot call this most
        bomb = move.type in BOMB_TYPES
        bad = 0
        size = move.wilds
        for r, k in move.naturals:
            size += k
            bad += (not bomb and cnt[r] >= 4) + (save_twos and r == 0)
        return (bad, move.wilds, self._value(moves, move), -size)

    def _lead(self, obs: dict[str, Any], moves: Moves) -> Action:
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

    def _follow(self, obs: dict[str, Any], moves: Moves) -> Action:
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
