"""Heuristic bots for the point-scored variants (Red Two ``honger``, two-player ``shuangkou2``).

A bot acts only on its own observation (what :meth:`engine.match.Match.observation` gives its
seat) and works on the variant's abstract moves (``ComboRules.moves`` on rank counts), so it
never lists card-level plays. The random bot of :mod:`engine.bots` plays these variants through
``abstract_moves`` / ``materialize``; :class:`PointsHeuristicBot` is the sensible player:

- goes out in one play when it can;
- leads the cheapest non-bomb: it does not break a bomb or spend a joker when it can help it,
  keeps 2s and jokers, and prefers shedding many low cards (chains, triples);
- follows with the lowest play that beats, without breaking bombs; lets a *known* partner's
  play stand (Red Two: a partner is known only once the ♥2 show it, see :func:`known_partners`);
- bombs only when the player standing is an opponent close to going out, or its own hand is
  short; in Shuangkou it also plays a bomb of 6 lines or more (they earn points win or lose);
- Red Two's choice with both ♥2: ``solo`` with a strong hand, ``compare`` with a big bomb,
  else ``surrender``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

from engine.actions import Action
from engine.bots._moves import CountRules
from engine.cards import parse_cards
from engine.combo import Combo
from engine.variants import combo_rules
from engine.variants.honger import ACE, H2, TWO, Move

LegalActions = Sequence[Action] | Callable[[], Sequence[Action]]

BOMBS = frozenset(("bomb", "chain_bomb", "joker3", "joker4"))


def _resolve(legal: LegalActions | None) -> list[Action]:
    if legal is None:
        return []
    return list(legal() if callable(legal) else legal)


def known_partners(obs: dict[str, Any], hand: Sequence[int]) -> tuple[set[int], set[int]]:
    """Red Two: the seats the observing seat *knows* to be its partners and its opponents,
    from its own hand and the public facts only (♥2 played, the solo player)."""
    seat = obs["seat"]
    n = len(obs["counts"])
    others = {s for s in range(n) if s != seat}
    if obs.get("variant") != "honger":
        return set(), others
    solo = obs.get("solo")
    if solo is not None and obs.get("mode") in ("solo", "choosing"):
        if solo == seat:
            return set(), others
        return others - {solo}, {solo}
    played = obs.get("h2_played") or [0] * n
    revealed = {s for s in others if played[s]}
    mine = hand.count(H2) + played[seat]
    if mine:  # on the ♥2 side: the partner is whoever else shows a ♥2
        return revealed, (others - revealed) if revealed else set()
    if len(revealed) == 2:  # both ♥2 shown elsewhere: the last seat is the partner
        return others - revealed, revealed
    return set(), revealed


class PointsHeuristicBot:
    """A sensible player for ``honger`` and ``shuangkou2`` (see the module docstring).
    Deterministic for an observation."""

    def choose(self, observation: dict[str, Any], legal_actions: LegalActions) -> Action:
        """The heuristic's action for the observing seat."""
        obs = observation
        seat = obs["seat"]
        phase = obs.get("phase")
        if phase == "choose" and obs.get("turn") == seat:
            return Action("choose", seat, choice=self._choice(obs))
        if phase != "play" or obs.get("turn") != seat:
            legal = _resolve(legal_actions)
            return legal[0]
        rules = cast(CountRules, combo_rules(obs["variant"]))
        hand = parse_cards(obs["hand"])
        counts = rules.hand_counts(hand)
        lead = bool(obs["lead"])
        standing = None if lead else rules.move_of(Combo.from_json(obs["standing"]))
        moves = rules.moves(counts, standing)
        partner_standing = False
        left = None
        if not lead:
            standing_seat = obs["standing"]["seat"]
            partner_standing = standing_seat in known_partners(obs, hand)[0]
            left = obs["counts"][standing_seat]
        move = self.pick(moves, counts, len(hand), lead, partner_standing, left)
        if move is None:
            return Action("pass", seat)
        return self._act(rules, seat, hand, move)

    def pick(
        self,
        moves: list[Move],
        counts: Sequence[int],
        size: int,
        lead: bool,
        partner_standing: bool = False,
        left: int | None = None,
    ) -> Move | None:
        """The heuristic's move (``None``: pass) among ``moves`` (the hand's moves, those
        beating the standing play when following) of a hand of ``size`` cards with rank
        ``counts``; ``partner_standing``: a known partner's play stands; ``left``: the card
        count shown of the seat whose play stands (``None``: not shown). What
        :meth:`choose` decides, and the search bot's playouts."""
        for m in moves:
            if m.size == size:
                return m
        if lead:
            return self._lead(moves, counts)
        if partner_standing:
            return None
        return self._follow(moves, counts, size, left)

    # -- helpers ----------------------------------------------------------------------------
    @staticmethod
    def _act(rules: Any, seat: int, hand: list[int], move: Move) -> Action:
        combo = rules.combo_of(move, hand)
        return Action("play", seat, combo.cards, combo.type)

    @staticmethod
    def _breaks(move: Move, counts: Sequence[int]) -> int:
        """Bombs a non-bomb move breaks, plus the jokers it spends."""
        if move.type in BOMBS:
            return 0
        broken = sum(1 for g, k in move.parts if counts[g] >= 4 and k < counts[g])
        return broken + move.sb + move.hr

    def _cost(self, move: Move, counts: Sequence[int]) -> tuple[int, int, int]:
        high = 1 if move.key >= ACE and move.type in ("single", "pair", "triple") else 0
        return (self._breaks(move, counts), high, move.key - move.size)

    @staticmethod
    def _bomb_order(move: Move) -> tuple[int, int, int]:
        if move.lines:
            return (move.lines, -move.size if move.key >= 0 else -1000, move.key)
        return (move.size, 0, move.key)

    def _lead(self, moves: list[Move], counts: Sequence[int]) -> Move:
        plain = [m for m in moves if m.type not in BOMBS]
        if plain:
            return min(plain, key=lambda m: self._cost(m, counts))
        return min(moves, key=self._bomb_order)

    def _follow(
        self, moves: list[Move], counts: Sequence[int], size: int, left: int | None
    ) -> Move | None:
        danger = (left is not None and left <= 6) or size <= 8
        plain = [m for m in moves if m.type not in BOMBS]
        cheap = [m for m in plain if self._breaks(m, counts) == 0]
        if cheap:
            best = min(cheap, key=lambda m: (m.key, -m.size))
            if best.key < TWO or danger or size <= 12:
                return best
        if plain and danger:
            return min(plain, key=lambda m: self._cost(m, counts))
        bombs = sorted((m for m in moves if m.type in BOMBS), key=self._bomb_order)
        if bombs:
            big = [m for m in bombs if m.lines >= 6]
            if danger or size <= 12:
                return bombs[0]
            if big:
                return big[0]
        return None

    @staticmethod
    def _choice(obs: dict[str, Any]) -> str:
        """Red Two with both ♥2: solo with many 2s or bombs, compare with a big bomb."""
        rules = cast(CountRules, combo_rules("honger"))
        counts = rules.hand_counts(parse_cards(obs["hand"]))
        bombs = [(counts[g], g) for g in range(13) if counts[g] >= 4]
        strength = counts[TWO] + 2 * len(bombs)
        if strength >= 7:
            return "solo"
        if bombs and max(bombs)[0] >= 6:
            return "compare"
        return "surrender"
