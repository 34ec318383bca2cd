"""The heuristic bot (普通, normal): a sensible player that plays one fixed line.

It keeps bombs, leads low and long, lets its partner's plays stand and plays the immune bomb
against an opponent's 保2; Bao 2's play and return are its own line (:mod:`engine.bots.bao2`:
the natural 2s shed once the seat holds initiative, the hand plan); the point-scored games
have their own heuristic (:mod:`engine.bots.points`). In Guandan it remembers what it saw
played in the deal and what each opponent showed it cannot beat (:mod:`engine.bots.memory`):
it leads a hand that runs out with its unbeatable plays first and takes a trick with a play no
opponent can beat; it beats an opponent close to out as high as it can, and bombs with the
bomb that leaves its hand in the fewest plays. Deterministic for the observations it was given.
"""

from __future__ import annotations

from typing import Any, cast

from engine.actions import Action
from engine.bots._moves import (
    _CARD_STR,
    BOMB_TYPES,
    SEQUENCES,
    HandMoveRules,
    LegalActions,
    Moves,
    _remember_play,
    resolve,
)
from engine.bots.bao2 import follow as bao2_follow
from engine.bots.bao2 import lead as bao2_lead
from engine.bots.bao2 import return_card as bao2_return_card
from engine.bots.memory import DealMemory, Unseen
from engine.bots.points import PointsHeuristicBot
from engine.bots.policy import bombs_in, forced_follow, move_cost, plays_needed
from engine.cards import RANK_NAMES
from engine.variants import combo_rules, deal_rules

#: Rank name -> rank index (``RANK_NAMES.index``, without the scan).
_RANK_INDEX = {name: i for i, name in enumerate(RANK_NAMES)}
#: How much a follow may cost the hand plan (plays needed after it, minus one): -1 only a play
#: of the plan; 0 one that keeps the count. Bao 2 follows more readily (initiative frees the 2s).
FOLLOW_TOLERANCE = -1
BAO2_FOLLOW_TOLERANCE = 99
#: A follow bombs any opponent's play once the hand holds this many cards or fewer.
BOMB_HAND = 10
#: ... or once the standing opponent shows this many cards or fewer.
BOMB_LEFT = 6
#: ... or once the hand would need this many plain plays or fewer after the bomb.
BOMB_AFTER = 2
#: ... or once the plain plays left after the bomb are at most the bombs left plus this: each
#: bomb takes the lead back for one more play, so the hand goes out in a row of leads.
BOMB_CHAIN = 1
#: The partner and the other opponent passed on the standing play (ours is the last chance
#: to take the trick): the follow tolerance is raised by this much.
LAST_TOLERANCE = 1
#: An opponent showing this many cards or fewer is close to going out: follow and bomb readily.
URGENT_LEFT = 4
_GROUP = ("", "single", "pair", "triple")
#: An opponent showing this many cards or fewer, as many as a single or pair needs, is blocked:
#: its single or pair (or its partner's) is beaten with our highest of the type, not the lowest.
BLOCK_LEFT = 2
#: A follow that no opponent can beat without a bomb (card memory, what each opponent showed
#: it cannot beat) takes the lead: it is played if it costs the plan at most this much.
WIN_TOLERANCE = 0


class HeuristicBot:
    """A sensible player (see the module docstring). Deterministic for an observation.

    It remembers the analysis of its last hand (:class:`~engine.bots._moves.Moves`' memo): a
    seat's hand changes only by its own plays, which it records, so one bot kept per seat
    does not analyse the same hand again on every turn."""

    def __init__(self, plan: bool = True) -> None:
        """A bot with no memory yet. ``plan=False``: the former line (lowest cheap play, no
        hand plan, natural 2s saved for a 保2 in Bao 2), kept to measure the planned one
        against. ``plan=True`` in Bao 2 plays :mod:`engine.bots.bao2`'s line."""
        self._memo: list[Any] = []
        self.plan = plan
        #: What the seat saw played in the current Guandan deal (card memory).
        self.memory = DealMemory()
        #: Card memory switched on (Guandan's plan only; off: the line before it, to measure).
        self.use_memory = True

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

                if not self.plan:
                    return min(legal, key=low)  # the former line: the lowest card
                if obs["variant"] == "bao2":
                    return bao2_return_card(obs, legal, rules)
                cnt = [0] * 15
                hand = [a.card for a in legal]
                for c in hand:
                    cnt[c % 13 if c < 52 else (13 if c == 52 else 14)] += 1
                wild = getattr(rules, "wild", -1)

                def planned(a: Action) -> tuple[int, ...]:
                    c = a.card
                    if c == wild:
                        return (9, 0, 0, c)
                    r = c % 13 if c < 52 else (13 if c == 52 else 14)
                    return (*move_cost(cnt, ((r, 1),)), low(a)[0], c)

                return min(legal, key=planned)
            return legal[0]
        moves = Moves(obs, legal_actions, self._memo)
        remember = self.plan and self.use_memory and obs["variant"] == "guandan" and "trick" in obs
        seen = None
        if remember:
            self.memory.update(obs)
            if moves.fast:
                seen = self.memory.unseen(obs, moves.rules)
        if not moves.moves and obs["lead"]:  # nothing abstract to lead: take a listed action
            action = resolve(legal_actions)[0]
        elif obs["lead"]:
            action = self._lead(obs, moves, seen)
        else:
            action = self._follow(obs, moves, seen)
        if action.kind == "play" and moves.view is not None and self._memo:
            _remember_play(self._memo, action.cards)
        if remember:
            self.memory.record(
                seat, None if action.kind != "play" else [_CARD_STR[c] for c in action.cards]
            )
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

    def _cost(self, moves: Moves, move: Any, cnt: list[int], save_twos: bool) -> tuple[int, ...]:
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

    def _lead(self, obs: dict[str, Any], moves: Moves, seen: Unseen | None = None) -> Action:
        if self.plan and moves.fast:
            if obs["variant"] == "bao2":
                return bao2_lead(obs, moves)
            return self._plan_lead(obs, moves, seen)
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

    def _follow(self, obs: dict[str, Any], moves: Moves, seen: Unseen | None = None) -> Action:
        if self.plan and moves.fast:
            if obs["variant"] == "bao2":
                return bao2_follow(obs, moves)
            return self._plan_follow(obs, moves, seen)
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

    # -- the planned line (hand plan: engine.bots.policy) --------------------------------------
    @staticmethod
    def _runs_out(seen: Unseen, cnt: list[int]) -> bool:
        """Whether the hand (natural counts) goes out in a row of leads: every plain play it
        needs but one takes or keeps the lead whatever is still unseen. Its bombs do; so does
        each rank's single, pair or triple that no plain play can beat and that is a play of
        the plan (taking it out leaves one play fewer: not the pair of a full house)."""
        rest = list(cnt)
        need = plays_needed(tuple(rest))
        bombs = bombs_in(tuple(rest))
        if need <= bombs + 1:
            return True
        for r in range(14, -1, -1):  # the highest first: the likeliest to be unbeatable
            k = rest[r]
            if not 1 <= k <= 3 or (r >= 13 and (k > 2 or (rest[13] == 2 and rest[14] == 2))):
                continue
            if seen.plain_beats(_GROUP[k], RANK_NAMES[r]):
                continue
            rest[r] = 0
            after = plays_needed(tuple(rest))
            if after == need - 1:
                need = after
                if need <= bombs + 1:
                    return True
            else:
                rest[r] = k
        return False

    def _top_runs(
        self, moves: Moves, plays: list[Any], cnt: list[int], seen: Unseen, keys: dict[int, Any]
    ) -> Any:
        """The lowest play of the plan (no bomb broken, no wild card) that no plain play of
        what is unseen can beat and after which the hand runs out (:meth:`_runs_out`), or
        ``None``."""
        best = None
        for m in plays:
            k = keys[id(m)]
            if k[0] or m.wilds or k[2] > -1:
                continue
            if seen.plain_beats(m.type, m.key):
                continue
            rest = list(cnt)
            for r, n in m.naturals:
                rest[r] -= n
            if not self._runs_out(seen, rest):
                continue
            if best is None or k < keys[id(best)]:
                best = m
        return best

    def _lead_value(self, moves: Moves, move: Any) -> int:
        """Card-order value of a play for leading: a sequence by its lowest rank."""
        value = cast(HandMoveRules, moves.rules).value
        if move.type in SEQUENCES:
            return 2 * min(r for r, _ in move.naturals) if move.naturals else 0
        key = move.key
        return value[_RANK_INDEX[key]] if key is not None else 99

    def _plan_counts(self, moves: Moves, bao2: bool) -> list[int]:
        """Natural counts the plan is made of: in Bao 2 the natural 2s are left out (kept to
        go out on, 保2, and playable only with initiative)."""
        cnt = self._counts(moves)
        if bao2:
            cnt[0] = 0
        return cnt

    def _plan_key(self, moves: Moves, move: Any, cnt: list[int], bao2: bool) -> tuple[int, ...]:
        """Lower is better: bombs kept, the plan kept (plays needed after), wild cards and
        保2's natural 2s spared, low first, many cards first."""
        broken, delta = move_cost(cnt, move.naturals)
        twos = 0
        if bao2:
            for r, k in move.naturals:
                if r == 0:
                    twos += k
        size = move.wilds
        for _, k in move.naturals:
            size += k
        return (broken, twos, delta + move.wilds, self._lead_value(moves, move), -size)

    def _plan_lead(self, obs: dict[str, Any], moves: Moves, seen: Unseen | None = None) -> Action:
        size = len(moves.hand)
        for m in moves.moves:
            if moves.size(m) == size:  # out in one play (a 保2 when it is all natural 2s)
                return moves.action(m)
        bao2 = obs["variant"] == "bao2"
        cnt = self._plan_counts(moves, bao2)
        seat = obs["seat"]
        counts = obs["counts"]
        n = len(counts)
        plain = [m for m in moves.moves if m.type not in BOMB_TYPES]
        if not plain:
            best = min(moves.moves, key=lambda m: (moves.size(m), self._value(moves, m)))
            return moves.action(best)
        keys = {id(m): self._plan_key(moves, m, cnt, bao2) for m in plain}
        if n == 4 and not bao2:  # (in Bao 2 both rules below measured worse: 2-8, 4-6 of 10)
            partner = counts[(seat + 2) % 4]
            opp = [counts[(seat + 1) % 4], counts[(seat + 3) % 4]]
            opp_near = min((c for c in opp if c), default=None)
            # the partner is one card from out and no opponent is: lead our lowest single
            if partner == 1 and (opp_near is None or opp_near > 2):
                singles = [m for m in plain if m.type == "single" and not m.wilds]
                if singles:
                    return moves.action(min(singles, key=lambda m: self._lead_value(moves, m)))
            if partner == 2 and (opp_near is None or opp_near > 2):
                pairs = [m for m in plain if m.type == "pair" and not m.wilds]
                if pairs:
                    return moves.action(min(pairs, key=lambda m: self._lead_value(moves, m)))
            if seen is not None and plays_needed(tuple(cnt)) >= 2:
                # card memory: a play nobody can beat without a bomb, after which the hand
                # goes out in a row of leads (control): play the hand out
                top = self._top_runs(moves, plain, cnt, seen, keys)
                if top is not None:
                    return moves.action(top)
            # an opponent one or two cards from out: no single (or pair) it can follow with
            if opp_near is not None and opp_near <= 2:
                avoid = "single" if opp_near == 1 else "pair"
                # not by breaking a bomb: that leaves a lone card to lose with
                safe = [m for m in plain if m.type != avoid and keys[id(m)][0] == 0]
                if not safe and bombs_in(tuple(cnt)) and plays_needed(tuple(cnt)) <= 1:
                    # the last plain play, then a bomb over whatever beats it, and out
                    return moves.action(min(plain, key=lambda m: keys[id(m)]))
                if safe:
                    return moves.action(min(safe, key=lambda m: keys[id(m)]))
                # only that type: lead the highest, which the opponent is least likely to beat
                return moves.action(max(plain, key=lambda m: self._lead_value(moves, m)))
        return moves.action(min(plain, key=lambda m: keys[id(m)]))

    def _plan_follow(self, obs: dict[str, Any], moves: Moves, seen: Unseen | None = None) -> Action:
        seat = obs["seat"]
        size = len(moves.hand)
        forced = forced_follow(obs, moves)
        if forced is not None:
            return forced
        counts = obs["counts"]
        standing_seat = obs["standing"]["seat"]
        if not moves.moves:
            return Action("pass", seat)
        bao2 = obs["variant"] == "bao2"
        cnt = self._plan_counts(moves, bao2)
        left = counts[standing_seat]
        opp_near = [counts[s] for s in range(len(counts)) if s % 2 != seat % 2 and counts[s]]
        danger = min(opp_near, default=None)
        urgent = danger is not None and danger <= URGENT_LEFT  # an opponent close to going out
        plans = plays_needed(tuple(cnt))
        plain = [m for m in moves.moves if m.type not in BOMB_TYPES]
        if plain and len(counts) == 4:
            # an opponent down to the cards of a single or pair of this type: beat it as high
            # as we can (breaking no bomb), so that its last cards cannot go over ours
            st_type = getattr(moves.standing, "type", None)
            need = 1 if st_type == "single" else (2 if st_type == "pair" else 0)
            if need and any(
                counts[s] is not None and need <= counts[s] <= BLOCK_LEFT
                for s in ((seat + 1) % 4, (seat + 3) % 4)
            ):
                high = [m for m in plain if move_cost(cnt, m.naturals)[0] == 0]
                if high:
                    return moves.action(max(high, key=lambda m: self._lead_value(moves, m)))
        if plain:
            best = min(plain, key=lambda m: self._plan_key(moves, m, cnt, bao2))
            broken, twos, delta, value, _ = self._plan_key(moves, best, cnt, bao2)
            tolerance = 1 if urgent else (0 if plans <= 3 or size <= 10 else FOLLOW_TOLERANCE)
            if len(counts) == 4 and standing_seat == (seat + 1) % 4:
                tolerance += LAST_TOLERANCE  # else the opponent leads next
            if bao2:
                tolerance = BAO2_FOLLOW_TOLERANCE
            if broken == 0 and twos == 0 and delta <= tolerance:
                return moves.action(best)
            if urgent and broken == 0 and delta <= 2:
                return moves.action(best)
            if seen is not None:
                # a play no opponent can beat without a bomb takes the lead, which is worth a
                # play: the cheapest that keeps the plan's count (no bomb broken, no wild card)
                wins = []
                for m in plain:
                    k = self._plan_key(moves, m, cnt, bao2)
                    if k[0] or k[1] or k[2] > WIN_TOLERANCE or m.wilds:
                        continue
                    if seen.opp_beats(m.type, m.key):
                        continue
                    wins.append((k, m))
                if wins:
                    return moves.action(min(wins, key=lambda km: km[0])[1])
        bombs = [m for m in moves.moves if m.type in BOMB_TYPES]
        if bombs:
            # the bomb that leaves the rest of the hand in the fewest plays (a 5-card bomb whole
            # rather than 4 of it and a lone card; no wild card), then the smallest
            def bomb_key(m: Any) -> tuple[int, int, int]:
                left = list(cnt)
                for r, k in m.naturals:
                    left[r] -= k
                return (plays_needed(tuple(left)) + m.wilds, moves.size(m), self._value(moves, m))

            bomb = min(bombs, key=bomb_key)
            rest = list(cnt)
            for r, k in bomb.naturals:
                rest[r] -= k
            after = plays_needed(tuple(rest))
            # the partner still to act on it may take the trick without a bomb
            mate_next = (
                len(counts) == 4 and standing_seat == (seat + 3) % 4 and counts[(seat + 2) % 4] != 0
            )
            if (
                (left is not None and left <= BOMB_LEFT)
                or urgent
                or after <= BOMB_AFTER
                or after <= bombs_in(tuple(rest)) + BOMB_CHAIN
                or (size <= BOMB_HAND and not mate_next)
            ):
                return moves.action(bomb)
        return Action("pass", seat)
