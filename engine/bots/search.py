"""The search bot (高手, strong): determinized Monte Carlo search from the seat's observation.

At each play decision with a real choice, the bot

1. samples *worlds*: the other seats' hands, dealt from the cards it has not seen (the decks
   minus its own hand and the cards it saw played this deal; in Shuangkou the undealt half
   too), of the sizes it knows (counts shown, or a full hand minus what it saw each seat
   play), keeping what the observations told it: the tribute and return cards it saw change
   hands are held by their receivers until played, a seat marked stuck in Bao 2 holds only
   natural 2s, and Red Two's unseen ♥2 go where the sides allow (the solo player holds both,
   otherwise no seat does); in Guandan the worlds are weighted by what the seat read of the
   others (:class:`Reading`: a seat that passed on an opponent's single, pair or triple
   probably holds no loose one above it; a tribute was the giver's highest card);
2. in each world, plays each candidate (the heuristic's choice, every move when there are few,
   else the cheapest plays, the cheapest of each type and the smallest bombs; a pass) and then
   the rest of the deal with a fast playout policy (the heuristic, or the point games'
   heuristic, every seat reading the sampled world's hands through the variant's move
   generator, without building observations; in Guandan every seat also plays with the
   heuristic's card memory, reading the cards it has not seen and the others' passes);
3. scores each finished playout: in the level games by what the deal does to the match, the
   level change of its team against the other's (the variant's own ``settle_levels``, 保2
   bonuses and 关2 included) plus a large term when the deal wins or loses the match; in the
   point games by the seat's points of the deal (the variant's own settlement);
4. races the candidates: every few worlds, one clearly worse than the heuristic's choice or
   than the leader (:attr:`SearchBot.drop` standard errors of the paired differences) gets no
   more playouts; and picks one that beat the heuristic's choice by
   :attr:`SearchBot.confidence` standard errors in at least :attr:`SearchBot.min_pick` worlds
   (per game: :data:`PICK`), else the heuristic's choice. When the first world shows that
   no candidate can reach that many worlds in the budget, it stops and plays the heuristic's
   choice.

Every candidate is played out in the same worlds (common random numbers). The search stops
after ``budget_ms`` of process time, or, when ``playouts`` is given, after that many playouts
(deterministic for a seed), or when one candidate is left. The bot reads nothing but its
observations: it keeps its own memory of the deal (what it saw played, its hand when play
began), as a player at the table does.

Other phases (tribute, return, the immune window, Red Two's choice) use the heuristic (see
docs/bots.md for why and what is left to do).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any, cast

from engine.actions import Action
from engine.bots._moves import (
    _CARD_ID,
    _CARD_STR,
    BOMB_TYPES,
    HandMoveRules,
    LegalActions,
    Moves,
    _parse_hand,
)
from engine.bots.heuristic import HeuristicBot
from engine.bots.memory import DealMemory, Unseen
from engine.bots.points import BOMBS as POINT_BOMBS
from engine.bots.points import PointsHeuristicBot, known_partners
from engine.cards import HR, RANK_NAMES
from engine.combo import Combo
from engine.deal import Deal
from engine.variants import combo_rules, deal_rules

#: Cards of the two-deck games with jokers (Guandan, Bao 2, Shuangkou): every card id twice.
DECK2 = tuple(c for c in range(54) for _ in range(2))
#: Red Two's cards: two decks without jokers.
DECK2_NO_JOKERS = tuple(c for c in range(52) for _ in range(2))
#: Per searched game: the cards its hands are dealt from and the size of a hand when dealt.
#: (Shuangkou deals four hands of 27 from 108 cards and plays two: the 54 others are unseen
#: too, so the opponent's hand is any 27 of the 81 cards a player does not hold.)
GAMES: dict[str, tuple[tuple[int, ...], int]] = {
    "bao2": (DECK2, 27),
    "guandan": (DECK2, 27),
    "honger": (DECK2_NO_JOKERS, 26),
    "shuangkou2": (DECK2, 27),
}
#: The red two (♥2) that makes Red Two's sides.
H2 = 13
#: Score of a playout that wins (or loses) the match, against level changes of a few steps.
MATCH_WEIGHT = 100
#: Longest playout (actions) before it is scored as a draw: a guard, never reached in play.
MAX_STEPS = 600
#: Worlds sampled at most per world kept, when the reading weighs them (the least
#: contradicting one is kept if none is accepted).
INFER_TRIES = 8
#: Rank name (``2``..``A``, ``SB``, ``HR``) -> rank index; cards of a plain type's groups.
_RANK_OF = {name: i for i, name in enumerate(RANK_NAMES)}
_GROUP_OF = {"single": 1, "pair": 2, "triple": 3}
_CARD_ID_OF = _CARD_ID
#: Per game, what a candidate needs to replace the heuristic's choice: (standard errors of the
#: paired difference it must be above, worlds it must have been played in).
PICK: dict[str, tuple[float, int]] = {
    "guandan": (2.0, 8),
    "bao2": (1.5, 2),
    "honger": (1.5, 2),
    "shuangkou2": (1.5, 2),
}

_new = object.__new__


def _sig(entry: dict[str, Any]) -> tuple[int, tuple[str, ...] | None]:
    """A trick entry as (seat, cards or ``None`` for a pass)."""
    cards = entry.get("cards")
    return entry["seat"], None if cards is None else tuple(cards)


class _Memory:
    """What the bot remembers of one deal, from its own observations only."""

    def __init__(self, key: Any, seats: int) -> None:
        self.key = key
        self.before_play = False  # saw the deal before its play phase (tribute, return)
        self.start: list[int] | None = None  # own hand at the first play decision
        self.complete = False  # whether every play of the deal was seen
        self.played: list[list[int]] = [[] for _ in range(seats)]  # others' plays seen
        self.trick: list[tuple[int, tuple[str, ...] | None]] = []  # last trick seen
        self.held: list[list[int]] = [[] for _ in range(seats)]  # cards seen change hands


class Reading:
    """What a Guandan seat read of the others this deal, from its own observations (the
    heuristic's card memory, :class:`~engine.bots.memory.DealMemory`): per seat, the plays of
    its opponents it passed on, ``(type, key)``, and the tribute it paid, ``(paid, returned)``
    card strings or ``None``. The worlds are weighted by it (:meth:`SearchBot._sample`) and the
    playouts start from it (:func:`playout_score`: every seat reads the others as the
    heuristic does)."""

    __slots__ = ("passed", "tribute")

    def __init__(
        self,
        passed: Sequence[Sequence[tuple[str, str | None]]],
        tribute: Sequence[tuple[str, str | None] | None],
    ) -> None:
        """A reading of ``passed`` and ``tribute`` (copied)."""
        self.passed = [list(p) for p in passed]
        self.tribute = list(tribute)

    def violations(self, hands: Sequence[Sequence[int]], seat: int, rules: Any) -> int:
        """How far a world's ``hands`` contradict the reading, as a count: for every other
        seat, each plain type (single, pair, triple) of which it passed on an opponent's play
        while the world gives it a loose group of that type above the lowest such play (a
        rank of exactly 1, 2 or 3 cards: one that costs its hand plan nothing), and three for
        each card above its tribute (the tribute is the highest card, wild cards excepted, so
        only the card it got back may be higher)."""
        value = rules.value
        wild = rules.wild
        bad = 0
        for s, hand in enumerate(hands):
            if s == seat:
                continue
            passed = self.passed[s] if s < len(self.passed) else ()
            trib = self.tribute[s] if s < len(self.tribute) else None
            if not passed and trib is None:
                continue
            cnt = [0] * 15
            for c in hand:
                cnt[c % 13 if c < 52 else c - 39] += 1
            if passed:
                low = [999, 999, 999, 999]
                for type_, key in passed:
                    k = _GROUP_OF.get(type_)
                    if k and key is not None:
                        v = value[_RANK_OF[key]]
                        if v < low[k]:
                            low[k] = v
                for k in (1, 2, 3):
                    top = low[k]
                    if top == 999:
                        continue
                    for r in range(15 if k < 3 else 13):
                        if cnt[r] == k and value[r] > top:
                            bad += 1
                            break
            if trib is not None:
                paid, back = trib
                top = value[_RANK_OF[_card_rank(paid)]]
                spare = _CARD_ID_OF.get(back) if back else None
                for c in hand:
                    if c == wild:
                        continue
                    if value[c % 13 if c < 52 else c - 39] > top:
                        if c == spare:
                            spare = None
                            continue
                        bad += 3
        return bad


class _PlayoutMoves(Moves):
    """:class:`Moves` of a seat in a sampled world (no observation): keeps the last combo
    materialized, so the playout applies it without reading it again."""

    combo: Combo | None = None

    def action(self, move: Any) -> Action:
        """The concrete action of one move (its combo kept in :attr:`combo`)."""
        combo = self.combo = self.view.materialize(move)
        return Action("play", self.seat, combo.cards, combo.type)


class SearchBot:
    """Determinized Monte Carlo search over sampled hidden hands (see the module docstring).

    ``budget_ms``: process time per decision; ``playouts``: a fixed number of playouts per
    decision instead (deterministic for a seed); ``candidates``: up to this many moves, every
    move is tried; ``confidence``: how many standard errors a candidate must beat the
    heuristic's choice by, in at least ``min_pick`` worlds (``None``: the game's :data:`PICK`);
    ``drop``: how many standard errors below the heuristic's choice (or the leader) take a
    candidate out of the race, from ``min_worlds`` worlds on; ``read_playouts``: Guandan
    playouts with the heuristic's card memory in every seat; ``infer``: how much each
    contradiction of the reading weighs a world down (1.0: worlds not weighted)."""

    def __init__(
        self,
        seed: int | str | None = None,
        budget_ms: float = 500.0,
        playouts: int | None = None,
        candidates: int = 12,
        confidence: float | None = None,
        drop: float = 2.5,
        min_worlds: int = 6,
        options: dict[str, Any] | None = None,
        read_playouts: bool = True,
        infer: float = 0.3,
        min_pick: int | None = None,
    ) -> None:
        """A bot whose samples derive from ``seed``; ``options``: the match options, when known
        (the defaults otherwise: an observation does not carry them)."""
        self.rng = random.Random(seed)
        self.budget_ms = budget_ms
        self.playouts = playouts
        self.candidates = candidates
        self.confidence = confidence
        self.drop = drop
        self.min_worlds = min_worlds
        self.options = options
        self.read_playouts = read_playouts
        self.infer = infer
        self.min_pick = min_pick
        self.heuristic = HeuristicBot()
        self.heuristic_points = PointsHeuristicBot()
        self.memory: _Memory | None = None
        #: Figures of the last decision: ``worlds``, ``playouts``, ``candidates``, ``raced`` (how
        #: many the race dropped), ``picked`` (the candidate played: 0 the heuristic's), ``ms``.
        self.last: dict[str, Any] = {}

    # ---------------------------------------------------------------- the bot interface
    def choose(self, observation: dict[str, Any], legal_actions: LegalActions) -> Action:
        """The action with the best mean playout score for the observing seat."""
        obs = observation
        self.last = {
            "worlds": 0,
            "playouts": 0,
            "candidates": 1,
            "raced": 0,
            "picked": 0,
            "ms": 0.0,
        }
        if obs["variant"] not in GAMES:
            return self.heuristic.choose(obs, legal_actions)
        mem = self._remember(obs)
        if obs.get("phase") != "play" or obs.get("turn") != obs["seat"]:
            return self.heuristic.choose(obs, legal_actions)
        start = time.process_time()
        cands = self._candidates(obs, legal_actions)
        if len(cands) > 1:
            action = self._search(obs, mem, cands, start)
        else:
            action = cands[0][0]
        self.last["ms"] = (time.process_time() - start) * 1000
        self.last["candidates"] = len(cands)
        mem.trick.append((obs["seat"], None if action.kind == "pass" else _card_strs(action)))
        return action

    # ---------------------------------------------------------------- memory
    def _remember(self, obs: dict[str, Any]) -> _Memory:
        """Update the memory of the deal with one observation (a new deal: a fresh memory)."""
        n = len(obs["counts"])
        key = (obs["variant"], obs.get("deal_no"), tuple(obs.get("levels") or ()))
        mem = self.memory
        if mem is None or mem.key != key:
            mem = self.memory = _Memory(key, n)
        seat = obs["seat"]
        if obs.get("phase") in ("tribute", "return"):
            mem.before_play = True
        trib = obs.get("tribute")
        if trib:  # tribute cards are shown; a return card to its giver and receiver
            held: list[list[int]] = [[] for _ in range(n)]
            for g, r, paid, back in zip(
                trib["givers"], trib["receivers"], trib["paid"], trib["returned"], strict=True
            ):
                if isinstance(paid, str) and r is not None and r != seat:
                    held[r].append(_parse_hand([paid])[0])
                if isinstance(back, str) and g != seat:
                    held[g].append(_parse_hand([back])[0])
            mem.held = held
        phase = obs.get("phase")
        if phase not in ("play", "immune") or (phase == "immune" and mem.start is None):
            return mem
        if mem.start is None:
            mem.start = _parse_hand(obs["hand"])
            mem.complete = mem.before_play or bool(obs.get("first_action"))
        trick = [_sig(e) for e in obs["trick"]]
        seen = mem.trick
        if trick[: len(seen)] == seen:
            new = trick[len(seen) :]
        elif seen and seen[-1][0] == seat and trick[: len(seen) - 1] == seen[:-1]:
            new = trick[len(seen) :]  # this seat acted otherwise than it chose (a timeout)
        else:  # a new trick
            new = trick
        for s, cards in new:
            if cards is not None and s != seat:
                mem.played[s].extend(_parse_hand(list(cards)))
        mem.trick = trick
        if mem.complete and obs["variant"] == "bao2":
            self._unseen_bao2(obs, mem)
        return mem

    @staticmethod
    def _unseen_bao2(obs: dict[str, Any], mem: _Memory) -> None:
        """A seat that went out with cards this bot did not see played made a 保2 while the
        bot was not asked (the immune window asks only the opponents, and the partner leads
        at once): those cards were natural 2s. Their suits were not shown, so the bot counts
        natural 2s it has not seen elsewhere (they matter only under ``colour_twos``)."""
        per_seat = GAMES["bao2"][1]
        for s in obs["finished"]:
            missing = per_seat - len(mem.played[s])
            if s == obs["seat"] or missing <= 0:
                continue
            left = {c: 2 for c in (0, 13, 26, 39)}
            for c in mem.start or []:
                if c in left:
                    left[c] -= 1
            for p in mem.played:
                for c in p:
                    if c in left:
                        left[c] -= 1
            for c in (0, 13, 26, 39):
                while missing and left[c] > 0:
                    mem.played[s].append(c)
                    left[c] -= 1
                    missing -= 1

    # ---------------------------------------------------------------- candidates
    def _candidates(
        self, obs: dict[str, Any], legal: LegalActions
    ) -> list[tuple[Action, Combo | None]]:
        """The actions worth searching, the heuristic's first: every distinct abstract move
        when there are at most :attr:`candidates` of them, else a play that goes out, the
        cheapest plain plays (by the heuristic's cost), the cheapest play of each type and the
        two smallest bombs; a pass when following."""
        seat = obs["seat"]
        first = self.heuristic.choose(obs, legal)
        moves = Moves(obs, legal)
        if not moves.fast or moves.view is None:
            return [(first, None)]
        all_moves = list(moves.moves)
        if len(all_moves) <= self.candidates:
            picked = all_moves
        else:
            plain_cost, bomb_order, bomb_types, size_of = self._orders(obs, moves)
            plain = sorted((m for m in all_moves if m.type not in bomb_types), key=plain_cost)
            bombs = sorted((m for m in all_moves if m.type in bomb_types), key=bomb_order)
            per_type: dict[str, Any] = {}
            for m in plain:
                per_type.setdefault(m.type, m)
            size = len(moves.hand)
            out_now = [m for m in all_moves if size_of(m) == size]
            picked = out_now[:1] + plain[:5] + list(per_type.values()) + bombs[:2]
        out: list[tuple[Action, Combo | None]] = [(first, None)]
        seen = {_action_key(first)}
        for m in picked:
            combo = moves.view.materialize(m)
            if combo is None:
                continue
            act = Action("play", seat, combo.cards, combo.type)
            k = _action_key(act)
            if k not in seen:
                seen.add(k)
                out.append((act, combo))
        if not obs["lead"] and ("pass", ()) not in seen:
            out.append((Action("pass", seat), None))
        return out

    def _orders(self, obs: dict[str, Any], moves: Moves) -> tuple[Any, Any, frozenset[str], Any]:
        """How the game's heuristic ranks moves: the cost of a plain play, the order of bombs,
        the bomb types, and the number of cards of a move."""
        if deal_rules(obs["variant"]).scoring == "points":
            points = self.heuristic_points
            counts = moves.view.counts

            def point_cost(m: Any) -> Any:
                return points._cost(m, counts)

            return point_cost, points._bomb_order, POINT_BOMBS, _size_attr

        heur = self.heuristic
        cnt = heur._counts(moves)
        bao2 = obs["variant"] == "bao2"

        if (
            heur.plan and not bao2
        ):  # the hand plan's order (what a play costs the plays still needed)
            plan_cnt = heur._plan_counts(moves, bao2)

            def cost(m: Any) -> Any:
                return heur._plan_key(moves, m, plan_cnt, bao2)

        else:

            def cost(m: Any) -> Any:
                return heur._cost(moves, m, cnt, bao2)

        def bomb_order(m: Any) -> Any:
            return (moves.size(m), heur._value(moves, m))

        return cost, bomb_order, BOMB_TYPES, moves.size

    # ---------------------------------------------------------------- search
    def _search(
        self,
        obs: dict[str, Any],
        mem: _Memory,
        cands: list[tuple[Action, Combo | None]],
        start: float,
    ) -> Action:
        """Play every candidate still in the race out in the same sampled worlds; drop those
        clearly worse than the heuristic's choice or than the leader; stop at the budget or
        when one is left; then :meth:`_pick`."""
        variant = obs["variant"]
        rules = deal_rules(variant)
        options = dict(rules.defaults)
        options.update(self.options or {})
        score_of = playout_points if rules.scoring == "points" else playout_score
        k = len(cands)
        n = [0] * k  # worlds each candidate was played in
        diff = [0.0] * k  # sums of (score of candidate i - score of the heuristic's choice)
        diff2 = [0.0] * k  # and of their squares
        active = list(range(k))
        worlds = playouts = 0
        budget = self.playouts
        deadline = start + self.budget_ms / 1000
        scores = [0.0] * k
        timed = budget is None
        confidence, min_pick = PICK.get(variant, PICK["bao2"])
        if self.confidence is not None:
            confidence = self.confidence
        if self.min_pick is not None:
            min_pick = self.min_pick
        min_pick = max(2, min_pick)
        reading = self._reading(obs)
        reads = reading if self.read_playouts else None
        while True:
            hands = self._sample(obs, mem, reading)
            late = False
            for i in active:
                if timed and time.process_time() >= deadline:
                    # out of time within a world: drop it unfinished (with none finished, the
                    # heuristic's choice is played), so a decision costs its budget and a playout
                    late = True
                    break
                act, combo = cands[i]
                deal = world_deal(obs, hands, options)
                if act.kind == "play":
                    if combo is None:
                        combo = deal.combos.read_as(act.cards, act.type or "")
                    deal.apply_unchecked(act, combo)
                else:
                    deal.apply_unchecked(act, None)
                scores[i] = score_of(deal, obs, options, self.heuristic, reads)
                playouts += 1
            if late:
                break
            for i in active[1:]:
                d = scores[i] - scores[0]
                n[i] += 1
                diff[i] += d
                diff2[i] += d * d
            worlds += 1
            if worlds == 1 and timed:
                # no candidate could gather the worlds a departure needs in the time left:
                # play the heuristic's choice now rather than spend the budget for nothing
                if (time.process_time() - start) * min_pick > self.budget_ms / 1000:
                    break
            if worlds >= self.min_worlds and worlds % 2 == 0:
                active = self._race(active, n, diff, diff2)
            if len(active) == 1:
                break
            if budget is not None:
                if playouts >= budget:
                    break
            elif time.process_time() >= deadline:
                break
        picked = self._pick(active, n, diff, diff2, confidence, min_pick)
        self.last.update(worlds=worlds, playouts=playouts, raced=k - len(active), picked=picked)
        return cands[picked][0]

    def _reading(self, obs: dict[str, Any]) -> Reading | None:
        """What the seat read of the others this deal (Guandan, when its heuristic keeps card
        memory and the reading is used at all), from the heuristic's memory of it."""
        heur = self.heuristic
        if obs["variant"] != "guandan" or not (heur.plan and heur.use_memory):
            return None
        if not self.read_playouts and self.infer >= 1.0:
            return None
        memory = heur.memory
        if memory.key is None or len(memory.passed) != len(obs["counts"]):
            return None
        return Reading(memory.passed, memory.tribute)

    def _sample(self, obs: dict[str, Any], mem: _Memory, reading: Reading | None) -> Any:
        """One world (:func:`sample_hands`); with a reading, worlds are weighted by it: one
        that contradicts it ``k`` times (:meth:`Reading.violations`) is kept with probability
        :attr:`infer` to the ``k``, else another is drawn, at most :data:`INFER_TRIES` (then
        the least contradicting one drawn). Passing is always allowed, so a pass only makes a
        hand less likely, never impossible."""
        if reading is None or self.infer >= 1.0:
            return sample_hands(obs, mem, self.rng)
        rules = combo_rules(obs["variant"], obs["level"])
        seat = obs["seat"]
        best: Any = None
        best_bad = 0
        for _ in range(INFER_TRIES):
            hands = sample_hands(obs, mem, self.rng)
            bad = reading.violations(hands, seat, rules)
            if bad == 0 or self.rng.random() < self.infer**bad:
                return hands
            if best is None or bad < best_bad:
                best, best_bad = hands, bad
        return best

    @staticmethod
    def _stats(i: int, n: list[int], diff: list[float], diff2: list[float]) -> tuple[float, float]:
        """Mean paired difference of candidate ``i`` with the heuristic's choice, and its
        standard error."""
        w = n[i]
        if w == 0:
            return 0.0, 0.0
        mean = diff[i] / w
        var = max(0.0, diff2[i] / w - mean * mean)
        return mean, (var / max(1, w - 1)) ** 0.5

    def _race(
        self, active: list[int], n: list[int], diff: list[float], diff2: list[float]
    ) -> list[int]:
        """The candidates still worth playouts: the heuristic's choice, and every other one
        not clearly (:attr:`drop` standard errors) worse than it or than the leader."""
        z = self.drop
        stats = {i: self._stats(i, n, diff, diff2) for i in active[1:]}
        floor = max([0.0] + [m - z * se for m, se in stats.values()])
        keep = [active[0]]
        for i in active[1:]:
            mean, se = stats[i]
            if mean + z * se > floor or (mean + z * se == floor and floor > 0):
                keep.append(i)
        if len(keep) == 2:  # one challenger left: stop once it is clearly better
            mean, se = stats[keep[1]]
            if mean > z * se and mean > 0:
                return [keep[1]]
        return keep

    def _pick(
        self,
        active: list[int],
        n: list[int],
        diff: list[float],
        diff2: list[float],
        confidence: float,
        min_pick: int,
    ) -> int:
        """The candidate to play: the heuristic's choice (0) unless another one scored better
        in the same worlds by at least :attr:`confidence` standard errors of the paired
        difference (the playouts are noisy: a lucky few worlds must not move the bot)."""
        best, best_mean = 0, 0.0
        for i in active:
            if i == 0 or n[i] < min_pick:
                continue
            mean, se = self._stats(i, n, diff, diff2)
            if mean > best_mean and (mean > confidence * se or se == 0):
                best, best_mean = i, mean
        return best


def _card_rank(card: str) -> str:
    """The rank name of a card string (``SB`` / ``HR`` for the jokers)."""
    return card if card in ("SB", "HR") else card[1]


def _size_attr(move: Any) -> int:
    size: int = move.size
    return size


def _card_strs(action: Action) -> tuple[str, ...]:
    return tuple(_CARD_STR[c] for c in action.cards)


def _action_key(action: Action) -> tuple[str, tuple[int, ...]]:
    return action.kind, tuple(sorted(action.cards or ()))


def _natural_two(c: int) -> bool:
    return c < 52 and c % 13 == 0


def sample_hands(obs: dict[str, Any], mem: Any, rng: random.Random) -> list[list[int]]:
    """One world: a hand per seat consistent with what the seat knows. Its own hand is its
    observed hand; the others are dealt from the unseen cards at the known (or estimated)
    sizes, the cards seen change hands going to their holders, a stuck seat getting only
    natural 2s, and in Red Two the unseen ♥2 going where the sides allow (see
    :func:`_place_red_twos`). Reads ``obs`` and the bot's memory ``mem`` only. Before play
    (tribute, return, Red Two's choice: decisions the review plays out) every size is known
    (:func:`_sample_before_play`)."""
    if obs.get("phase") in BEFORE_PLAY:
        return _sample_before_play(obs, rng)
    seat = obs["seat"]
    n = len(obs["counts"])
    deck, per_seat = GAMES.get(obs["variant"], (DECK2, len(DECK2) // n))
    hand = _parse_hand(obs["hand"])
    left = [0] * 54
    for c in deck:
        left[c] += 1
    for c in mem.start if mem.start is not None else hand:
        left[c] -= 1
    for s in range(n):
        for c in mem.played[s]:
            left[c] -= 1
    if min(left) < 0:  # the memory does not fit (a play missed): trust the hand only
        left = [0] * 54
        for c in deck:
            left[c] += 1
        for c in hand:
            left[c] -= 1
        for e in obs["trick"]:
            if e["seat"] != seat and "cards" in e:
                for c in _parse_hand(e["cards"]):
                    left[c] = max(0, left[c] - 1)
    sizes: list[int | None] = []
    for s in range(n):
        k = obs["counts"][s]
        if s == seat:
            sizes.append(0)
        elif k is not None:
            sizes.append(k)
        elif mem.complete:
            sizes.append(max(0, per_seat - len(mem.played[s])))
        else:
            sizes.append(None)
    pool_n = sum(left)
    unknown = [s for s in range(n) if sizes[s] is None]
    if unknown:  # counts above 6 not shown and plays missed: share out what is left
        rest = pool_n - sum(k for k in sizes if k is not None)
        share = max(7, rest // len(unknown))
        for s in unknown:
            sizes[s] = min(per_seat, share)
    hands: list[list[int]] = [[] for _ in range(n)]
    hands[seat] = hand
    for s in range(n):  # cards seen change hands, while their holder has not played them
        if s == seat:
            continue
        spent = list(mem.played[s])
        for c in mem.held[s] if mem.held else ():
            if c in spent:
                spent.remove(c)
            elif left[c] > 0 and len(hands[s]) < (sizes[s] or 0):
                left[c] -= 1
                hands[s].append(c)
    if obs["variant"] == "honger":
        _place_red_twos(obs, sizes, left, hands, rng)
    stuck = obs.get("stuck") or [False] * n
    twos = [c for c in range(54) if _natural_two(c) for _ in range(left[c])]
    rng.shuffle(twos)
    for s in range(n):
        if s != seat and stuck[s]:
            while twos and len(hands[s]) < (sizes[s] or 0):
                c = twos.pop()
                left[c] -= 1
                hands[s].append(c)
    pool = [c for c in range(54) for _ in range(left[c])]
    rng.shuffle(pool)
    i = 0
    for s in range(n):
        if s == seat:
            continue
        need = (sizes[s] or 0) - len(hands[s])
        if need > 0:
            hands[s].extend(pool[i : i + need])
            i += need
    return hands


#: The phases before play whose decisions the review plays out (the search bot itself takes
#: them by its heuristic).
BEFORE_PLAY = frozenset(("tribute", "return", "choose"))


def _sample_before_play(obs: dict[str, Any], rng: random.Random) -> list[list[int]]:
    """One world before play, from the seat's observation only: every hand was dealt whole
    (27, Red Two 26), changed since only by the tribute cards paid and returned. A tribute
    card paid is shown: it is in its receiver's hand once every tribute is in (the return
    phase), on the table before; a return card shown to this seat goes to its giver, one
    hidden moves a card between hands whose sizes the seat still knows. Since no
    anti-tribute (抗贡) was declared, the givers did not hold both big jokers between them
    (:func:`_no_anti_tribute`). In Red Two's choice the seat holds both ♥2, so no other
    hand has one."""
    seat = obs["seat"]
    n = len(obs["counts"])
    deck, per_seat = GAMES[obs["variant"]]
    hand = _parse_hand(obs["hand"])
    left = [0] * 54
    for c in deck:
        left[c] += 1
    for c in hand:
        left[c] -= 1
    sizes = [per_seat] * n
    hands: list[list[int]] = [[] for _ in range(n)]
    hands[seat] = hand
    trib = obs.get("tribute")
    givers: list[int] = []
    if trib and not trib.get("anti"):
        givers = list(trib["givers"])
        paid_in = obs.get("phase") == "return"  # every tribute handed over
        for g, r, paid, back in zip(
            trib["givers"], trib["receivers"], trib["paid"], trib["returned"], strict=True
        ):
            if isinstance(paid, str):
                c = _parse_hand([paid])[0]
                sizes[g] -= 1
                if paid_in and r is not None:
                    sizes[r] += 1
                    if r != seat and left[c] > 0:
                        left[c] -= 1
                        hands[r].append(c)
                elif g != seat and left[c] > 0:  # on the table, in no hand yet
                    left[c] -= 1
            if back not in (None, False) and r is not None:
                sizes[r] -= 1
                sizes[g] += 1
                if isinstance(back, str) and g != seat:
                    c = _parse_hand([back])[0]
                    if c in hands[r]:
                        hands[r].remove(c)
                    elif left[c] > 0:
                        left[c] -= 1
                    else:
                        continue
                    hands[g].append(c)
    pool = [c for c in range(54) for _ in range(left[c])]
    rng.shuffle(pool)
    i = 0
    for s in range(n):
        if s == seat:
            continue
        need = max(0, sizes[s] - len(hands[s]))
        hands[s].extend(pool[i : i + need])
        i += need
    if obs.get("phase") == "tribute" and givers:
        _no_anti_tribute(obs, seat, givers, hands, rng)
    return hands


def _no_anti_tribute(
    obs: dict[str, Any], seat: int, givers: list[int], hands: list[list[int]], rng: random.Random
) -> None:
    """No anti-tribute was declared: move big jokers out of the givers' hands (not the
    seat's own), each swapped with a card of a seat that gives nothing, until the givers held
    at most one between them when the tribute began (the cards already paid counted)."""
    paid = [c for c in obs["tribute"].get("paid") or [] if isinstance(c, str)]
    held = sum(hands[g].count(HR) for g in givers) + _parse_hand(paid).count(HR)
    others = [s for s in range(len(hands)) if s not in givers and s != seat]
    for g in givers:
        while held >= 2 and g != seat and HR in hands[g] and others:
            s = rng.choice(others)
            plain = [j for j, c in enumerate(hands[s]) if c != HR]
            if not plain:
                break
            j = rng.choice(plain)
            hands[g][hands[g].index(HR)] = hands[s][j]
            hands[s][j] = HR
            held -= 1


def _place_red_twos(
    obs: dict[str, Any],
    sizes: Sequence[int | None],
    left: list[int],
    hands: list[list[int]],
    rng: random.Random,
) -> None:
    """Red Two: deal the ♥2 the seat has not seen as the public facts allow (and take them out
    of ``left``). A solo player holds both ♥2; otherwise no seat holds both (it would have
    chosen), so an unseen ♥2 goes to a seat that has not played one, at most one each,
    chosen in proportion to the cards it holds."""
    seat = obs["seat"]
    k = left[H2]
    if not k:
        return
    solo = obs.get("solo")
    if solo is not None and solo != seat:
        hands[solo].extend([H2] * k)
        left[H2] = 0
        return
    played = obs.get("h2_played") or [0] * len(sizes)
    eligible = [s for s in range(len(sizes)) if s != seat and not played[s] and (sizes[s] or 0) > 0]
    for _ in range(k):
        weights = [(sizes[s] or 0) - len(hands[s]) for s in eligible]
        if not eligible or sum(weights) <= 0:
            break
        s = rng.choices(eligible, weights)[0]
        hands[s].append(H2)
        left[H2] -= 1
        eligible.remove(s)


def _world_tribute(
    obs: dict[str, Any], hands: Sequence[Sequence[int]], options: dict[str, Any]
) -> Deal:
    """The deal in its tribute or return phase as the observation shows it (who gives to
    whom, the cards paid and returned so far), with these hands (:func:`_sample_before_play`).
    A return hidden from the seat is recorded as some card of its giver's world hand (only
    whether it was made matters from here on)."""
    rules = deal_rules(obs["variant"])
    deal = Deal(rules, hands, obs["level"], options)
    view = obs["tribute"]
    previous = obs.get("previous") or {}
    finish = list(previous.get("finish") or [])
    double = bool(view["double"])
    paid = [_parse_hand([c])[0] if isinstance(c, str) else -1 for c in view["paid"]]
    returned: list[int] = []
    for g, back in zip(view["givers"], view["returned"], strict=True):
        if isinstance(back, str):
            returned.append(_parse_hand([back])[0])
        elif back:
            returned.append(min(deal.hand(g) or [0]))
        else:
            returned.append(-1)
    trib: dict[str, Any] = {
        "first": finish[0] if finish else view["receivers"][0],
        "second": finish[1] if double and len(finish) > 1 else None,
        "double": double,
        "givers": list(view["givers"]),
        "receivers": [-1 if r is None else r for r in view["receivers"]],
        "paid": paid,
        "returned": returned,
        "leader": -1,
        "anti": False,
    }
    deal.tribute = trib
    deal.phase = obs["phase"]
    deal.turn = None
    deal.leading = False
    if deal.phase == "return":
        rules.set_return_leader(deal)  # type: ignore[attr-defined]
    return deal


def _world_choice(
    obs: dict[str, Any], hands: Sequence[Sequence[int]], options: dict[str, Any]
) -> Deal:
    """Red Two's deal at the choice of the seat dealt both ♥2, with these hands: the sides and
    big-bomb rewards from them (they differ between the choices: a surrender or a compare pays
    none). The leader after a solo choice: the previous deal's 1st player; in the match's
    first deal a seat drawn from the seed the seat never saw, so one drawn from the world."""
    rules = deal_rules(obs["variant"])
    deal = Deal(rules, hands, None, options)
    rules.setup_sides(deal, [list(h) for h in hands], None)  # type: ignore[attr-defined]
    previous = obs.get("previous")
    if previous and previous.get("leader_next") is not None:
        leader = int(previous["leader_next"])
    else:
        leader = sum(hands[(obs["seat"] + 1) % deal.n]) % deal.n
    rules.start(deal, leader)  # type: ignore[attr-defined]
    return deal


def world_deal(
    obs: dict[str, Any], hands: Sequence[Sequence[int]], options: dict[str, Any]
) -> Deal:
    """The deal in play phase as the observation shows it, with these hands (a sampled world):
    the seat to act, the lead, the standing play, who still has to answer it, initiative,
    finishing order, stuck and suspended seats, the 保2 levels earned; Red Two's sides (from
    the world's ♥2), mode, fans and ♥2 shown; Shuangkou's bombs played. Bao 2's immune window
    (the 保2 player, the opponents still to decide from this seat on), and, for the review,
    the tribute and return phases (:func:`_world_tribute`) and Red Two's choice
    (:func:`_world_choice`)."""
    phase = obs.get("phase")
    if phase in ("tribute", "return"):
        return _world_tribute(obs, hands, options)
    if phase == "choose":
        return _world_choice(obs, hands, options)
    variant = obs["variant"]
    rules = deal_rules(variant)
    deal = Deal(rules, hands, obs["level"], options)
    n = deal.n
    seat = obs["seat"]
    deal.turn = seat
    deal.leading = bool(obs["lead"])
    deal.lead_kind = obs["lead_kind"] or "trick"
    deal.initiative = list(obs["initiative"])
    deal.finished = list(obs["finished"])
    deal.stuck = list(obs["stuck"])
    deal.suspended = list(obs["suspended"])
    deal.acted = [True] * n
    deal.bao2 = list(obs.get("bao2") or [0, 0])
    if variant == "honger":
        played = list(obs.get("h2_played") or [0] * n)
        holders = sorted({s for s in range(n) if played[s] or H2 in hands[s]})
        solo = obs.get("solo")
        mode = obs.get("mode") or "partnership"
        if solo is not None or len(holders) != 2:
            solo = holders[0] if solo is None and holders else solo
            sides = [[solo], [s for s in range(n) if s != solo]]
            mode = "solo"
        else:
            sides = [holders, [s for s in range(n) if s not in holders]]
        deal.extra.update(
            sides=sides,
            mode=mode,
            solo=solo,
            fans=list(obs.get("fans") or [0] * n),
            h2_played=played,
            rewards=[0] * n,  # held at the deal: the same in every playout, so left out
            leader=seat,
        )
    elif variant == "shuangkou2":
        deal.extra["bombs"] = [list(b) for b in obs.get("bombs") or [[] for _ in range(n)]]
    st = obs.get("standing")
    if st is not None and not deal.leading:
        deal.standing = Combo.from_json(st)
        deal.standing_seat = st["seat"]
        order = deal.responders_after(st["seat"])
        deal.to_respond = order[order.index(seat) :] if seat in order else [seat]
    window = obs.get("immune_window")
    if phase == "immune" and window is not None:
        bao2_seat = window["bao2_seat"]
        team = bao2_seat % 2
        queue = [
            s
            for s in ((bao2_seat + i) % n for i in range(1, n))
            if s % 2 != team and deal.sizes[s] and not deal.stuck[s]
        ]
        deal.phase = "immune"
        deal.window = {
            "seat": bao2_seat,
            "queue": queue[queue.index(seat) :] if seat in queue else [seat],
            "over": rules.is_over(deal),
        }
        deal.leading = False
        deal.to_respond = []
    return deal


def playout_score(
    deal: Deal,
    obs: dict[str, Any],
    options: dict[str, Any],
    heur: Any,
    reading: Reading | None = None,
) -> float:
    """Play the deal to its end with the heuristic for every seat; the observing team's level
    change minus the other's, ± :data:`MATCH_WEIGHT` when the deal ends the match.

    With a ``reading`` (Guandan), every seat plays as the heuristic does with its card memory:
    it knows the cards it has not seen (in the world, the other hands together), and what each
    opponent showed it cannot beat, from the reading's passes and tributes and the passes of
    the playout itself (:class:`~engine.bots.memory.Unseen`)."""
    views: list[Any] = [None] * deal.n
    variant = deal.variant
    little_two = deal.rules.twos_need_initiative
    n = deal.n
    sizes = deal.sizes
    tot: list[int] | None = None
    if reading is not None and variant == "guandan" and n == 4:
        tot = [0] * 54
        for s in range(n):
            for c in deal.hand(s):
                tot[c] += 1
        shell = _new(DealMemory)
        shell.passed = [list(p) for p in reading.passed]
        shell.tribute = list(reading.tribute)
        caps: dict[tuple[int, bool], Any] = {}  # per seat (and whether a wild is unseen)
        crules = deal.combos
    for _ in range(MAX_STEPS):
        phase = deal.phase
        if phase == "over":
            break
        seat = deal.turn
        assert seat is not None
        if phase != "play":  # the immune window: play the immune bomb when holding one
            acts = deal.legal_actions(seat)
            act = next((a for a in acts if a.kind == "immune"), Action("pass", seat))
            deal.apply(act)
            continue
        allow = not little_two or deal.initiative[seat]
        v = views[seat]
        if v is None or v[0] is not allow:
            hand_rules = cast(HandMoveRules, deal.combos)
            v = views[seat] = [allow, hand_rules.hand_moves(deal.hand(seat), allow)]
        mv = _new(_PlayoutMoves)
        mv.seat = seat
        mv.rules = deal.combos
        mv.allow_two = allow
        mv.fast = True
        mv.hand = deal.hand(seat)
        mv.view = v[1]
        mv.combo = None
        lead = deal.leading
        mv.standing = None if lead else deal.standing
        mv.moves = v[1].moves(mv.standing)
        if lead and not mv.moves:
            act = deal.legal_actions(seat)[0]
            if tot is not None and act.kind == "play":
                for c in act.cards:
                    tot[c] -= 1
            deal.apply(act)
            views[seat] = None
            continue
        mini = {
            "variant": variant,
            "seat": seat,
            "counts": deal.sizes,
            "lead": lead,
            "standing": None if lead else {"seat": deal.standing_seat},
        }
        seen = None
        if tot is not None:
            left = tot[:]
            for c in mv.hand:
                left[c] -= 1
            most = 0
            for s in range(seat % 2 ^ 1, n, 2):
                if sizes[s] > most:
                    most = sizes[s]
            seen = Unseen(left, crules, most)
            for s in range(seat % 2 ^ 1, n, 2):
                if sizes[s]:
                    seen.opponents.append((s, sizes[s]))
                    key = (s, seen.wilds > 0)
                    cap = caps.get(key)
                    if cap is None:
                        cap = caps[key] = shell._caps(s, crules, seen.wilds)
                    seen.caps[s] = cap
        act = heur._lead(mini, mv, seen) if lead else heur._follow(mini, mv, seen)
        if act.kind == "play":
            if tot is not None:
                for c in act.cards:
                    tot[c] -= 1
            deal.apply_unchecked(act, mv.combo)
            without = getattr(v[1], "without", None)
            if without is None:
                views[seat] = None
            else:
                v[1] = without(act.cards)
        else:
            if tot is not None:
                st, by = deal.standing, deal.standing_seat
                if st is not None and by is not None and (by - seat) % 2:
                    shell.passed[seat].append((st.type, st.key))
                    caps.pop((seat, False), None)
                    caps.pop((seat, True), None)
            deal.apply_unchecked(act, None)
    result = deal.result
    if result is None:
        return 0.0
    rules = deal.rules
    levels = list(obs.get("levels") or [0, 0])
    out = rules.settle_levels(
        levels,
        obs.get("level_team"),
        list(obs.get("attempts") or [0, 0]),
        result["finish"],
        result["bao2"],
        result["closed"],
        options,
    )
    team = obs["seat"] % 2
    new = out["levels"]
    score = (new[team] - levels[team]) - (new[1 - team] - levels[1 - team])
    if out["winner"] is not None:
        score += MATCH_WEIGHT if out["winner"] == team else -MATCH_WEIGHT
    return float(score)


_POINTS = PointsHeuristicBot()


def playout_points(
    deal: Deal,
    obs: dict[str, Any],
    options: dict[str, Any],
    heur: Any,
    reading: Reading | None = None,
) -> float:
    """Play a point game's deal to its end with the point heuristic for every seat (each
    reading its own hand in the world, the counts it would be shown and, in Red Two, the
    partners it would know); the observing seat's points of the deal."""
    rules = deal.combos
    extra = deal.extra
    red_two = deal.variant == "honger"
    sizes = deal.sizes
    known: dict[tuple[int, ...], set[int]] = {}
    for _ in range(MAX_STEPS):
        if deal.phase != "play":
            break
        seat = deal.turn
        assert seat is not None
        hand = deal.hand(seat)
        counts = rules.hand_counts(hand)  # type: ignore[attr-defined]
        lead = deal.leading
        partner_standing = False
        left = None
        if lead:
            moves = rules.moves(counts)  # type: ignore[attr-defined]
        else:
            moves = rules.moves(counts, rules.move_of(deal.standing))  # type: ignore[attr-defined]
            st_seat = deal.standing_seat
            k = sizes[st_seat]  # type: ignore[index]
            left = k if k <= 6 else None
            if red_two:  # what the seat knows changes only when a ♥2 is played
                played = extra["h2_played"]
                key = (seat, played[0], played[1], played[2], played[3], hand.count(H2))
                partners = known.get(key)
                if partners is None:
                    mini = {
                        "variant": "honger",
                        "seat": seat,
                        "counts": sizes,
                        "solo": extra["solo"],
                        "mode": extra["mode"] if extra["mode"] != "partnership" else None,
                        "h2_played": played,
                    }
                    partners = known[key] = known_partners(mini, hand)[0]
                partner_standing = st_seat in partners
        if lead and not moves:
            deal.apply(deal.legal_actions(seat)[0])
            continue
        move = _POINTS.pick(moves, counts, len(hand), lead, partner_standing, left)
        if move is None:
            deal.apply_unchecked(_PASS_ACTIONS[seat], None)
        else:
            combo = rules.combo_of(move, hand)  # type: ignore[attr-defined]
            deal.apply_unchecked(Action("play", seat, combo.cards, combo.type), combo)
    result = deal.result
    if result is None:
        return 0.0
    return float(result["points"][obs["seat"]])


_PASS_ACTIONS = tuple(Action("pass", s) for s in range(8))
