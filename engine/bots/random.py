"""The random bot (入门, easy): a uniformly random legal move, seeded."""

from __future__ import annotations

import random
from typing import Any

from engine.actions import Action
from engine.bots._moves import (
    _PASS,
    LegalActions,
    Moves,
    _hand_view,
    _play,
    _remember_own_play,
    _standing_of,
    resolve,
)
from engine.variants import combo_rules, deal_rules


class RandomBot:
    """Plays a uniformly random legal move (abstract: one per type and key), seeded."""

    def __init__(self, seed: int | str | None = None) -> None:
        """A bot whose choices derive from ``seed``."""
        self.rng = random.Random(seed)
        self._memo: list[Any] = []
        #: (variant, level, its combo rules, whether they read hands into moves, whether
        #: natural 2s need initiative)
        self._rules: tuple[Any, ...] = (None, None, None, False, False)

    def choose(self, observation: dict[str, Any], legal_actions: LegalActions) -> Action:
        """A random legal action for the observing seat."""
        obs = observation
        if obs.get("phase") == "play" and obs.get("turn") == obs.get("seat"):
            variant = obs["variant"]
            level = obs["level"]
            known = self._rules
            if known[0] != variant or known[1] != level:
                rules = combo_rules(variant, level)
                known = self._rules = (
                    variant,
                    level,
                    rules,
                    hasattr(rules, "hand_moves"),  # the lean path of Moves
                    deal_rules(variant).twos_need_initiative,
                )
            if known[3]:
                seat: int = obs["seat"]
                lead = obs["lead"]
                allow_two = not known[4] or bool(obs["initiative"][seat])
                memo = self._memo
                strs = obs["hand"]
                if not (memo and memo[0] is known[2] and memo[1] is allow_two and memo[2] == strs):
                    _hand_view(strs, known[2], allow_two, memo)
                view = memo[4]
                st = None if lead else obs.get("standing")
                plays = view.moves(None if st is None else _standing_of(st))
                n = len(plays)
                total = n if lead else n + 1  # a follower may pass
                if total:
                    # self.rng.randrange(total), written out: the same draw (tested)
                    getrandbits = self.rng.getrandbits
                    k = total.bit_length()
                    i = getrandbits(k)
                    while i >= total:
                        i = getrandbits(k)
                    if i == n:
                        return _PASS[seat]
                    combo = view.materialize(plays[i])
                    cards = combo.cards
                    _remember_own_play(memo, cards)
                    return _play(seat, cards, combo.type)
                return self.rng.choice(resolve(legal_actions))
            moves = Moves(obs, legal_actions, self._memo)
            n = len(moves.moves) + (0 if obs["lead"] else 1)
            if n:
                i = self.rng.randrange(n)
                if i == len(moves.moves):
                    return Action("pass", obs["seat"])
                return moves.action(moves.moves[i])
        return self.rng.choice(resolve(legal_actions))
