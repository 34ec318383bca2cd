"""Match progression (局): a sequence of deals, levels, the level team, attempts, the result.

:class:`Match` is the only engine object the platform uses::

    m = Match.new("bao2", seed=42, options={"colour_twos": True})
    m.to_move(); m.legal_actions(); m.check(action); m.apply(action)
    m.observation(seat); m.observation(None)     # JSON-ready, the only thing sent to clients
    m.timeout_action(seat); m.is_first_action(seat)
    m.to_json(); Match.from_json(data); Match.replay(variant, seed, options, actions)
    m.over; m.result()

Deals are dealt from the seed (deal k uses ``engine.cards.deal(f"{seed}/{k}")``), so a stored
match is its seed, options and actions (one string, :func:`engine.actions.encode_stream`):
the initial hands are never stored, and replaying the actions rebuilds the state exactly.

System and referee actions (:mod:`engine.actions`): ``{"time_up": true}`` (the engine never
reads a clock; the match ends at the end of the deal in progress, or at once if no one has
acted in the current deal yet), ``{"sanction": ..., "target": seat}``.
"""

from __future__ import annotations

import base64
import zlib
from dataclasses import replace
from typing import Any

from engine import cards as cards_mod
from engine.actions import Action, Refusal, decode_stream, encode_stream, parse_action
from engine.deal import Deal, deal_rules
from engine.observation import match_observation

IMPLICIT_SEAT = ("play", "pass", "immune")
#: Action streams longer than this are stored compressed (``actions_z``).
COMPRESS_OVER = 8000


def _check_options(rules: Any, options: dict[str, Any] | None) -> dict[str, Any]:
    merged = dict(rules.defaults)
    for key, value in (options or {}).items():
        if key not in merged:
            raise ValueError(f"unknown option for {rules.variant}: {key!r}")
        default = merged[key]
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise ValueError(f"option {key} must be true or false")
        elif not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"option {key} must be a whole number ≥ 0")
        merged[key] = value
    return merged


class Match:
    """The state of a match. Build with :meth:`new`, :meth:`replay` or :meth:`from_json`."""

    def __init__(self, variant: str, seed: int | str, options: dict[str, Any] | None = None):
        """An unstarted match; use :meth:`new`."""
        self.variant = variant
        self.rules: Any = deal_rules(variant)
        self.seed = seed
        self.options = _check_options(self.rules, options)
        self.levels = [0, 0]
        self.attempts = [0, 0]
        self.level_team: int | None = self.rules.first_level_team()
        self.deal_no = 0
        self.deals: list[dict[str, Any]] = []
        self.over = False
        self.winner: int | None = None
        self.score: list[int] | None = None
        self.reason: str | None = None
        self.time_up = False
        self.yellows = [0, 0]
        self.reds = [0, 0]
        self.log: list[Action] = []
        self.marked_card: int | None = None
        self.deal: Deal = self._start_deal()

    @classmethod
    def new(cls, variant: str, seed: int | str, options: dict[str, Any] | None = None) -> Match:
        """A new match; the first deal is dealt and the marked card's receiver leads (明牌)."""
        return cls(variant, seed, options)

    @classmethod
    def replay(
        cls,
        variant: str,
        seed: int | str,
        options: dict[str, Any] | None,
        actions: list[Any] | str,
    ) -> Match:
        """Rebuild a match from its actions: a list of Actions, JSON dicts or compact strings, or
        one string in the stored stream form (:func:`engine.actions.encode_stream`). Raises
        :class:`Refusal` if an action is not legal."""
        match = cls(variant, seed, options)
        if isinstance(actions, str):
            for act in decode_stream(actions):
                if act.seat is None and act.kind in IMPLICIT_SEAT:
                    act = replace(act, seat=match.to_move())
                match.apply(act)
            return match
        for action in actions:
            match.apply(action)
        return match

    # ---------------------------------------------------------------- deals
    def _start_deal(self) -> Deal:
        rules = self.rules
        if hasattr(rules, "new_deal"):  # point-scored variants deal and lead their own way
            return rules.new_deal(self)
        dealt = cards_mod.deal(f"{self.seed}/{self.deal_no}", players=rules.seats)
        team = self.level_team
        level = rules.level_rank(self.levels[team] if team is not None else 0)
        if not self.deals:
            self.marked_card = dealt.marked_card
            return Deal.new(
                self.variant, dealt.hands, level, dealt.marked_seat, "first", self.options
            )
        prev = self.deals[-1]
        left = dict(enumerate(prev["cards_left"]))
        return Deal.with_tribute(
            self.variant, dealt.hands, level, prev["finish"], left, self.options
        )

    def _close_deal(self) -> None:
        result = self.deal.result
        assert result is not None
        if hasattr(self.rules, "close_deal"):  # point-scored variants: totals per seat
            self.rules.close_deal(self)
            return
        out = self.rules.settle_levels(
            self.levels,
            self.level_team,
            self.attempts,
            result["finish"],
            result["bao2"],
            result["closed"],
            self.options,
        )
        summary = dict(result)
        summary["level"] = self.deal.level
        summary["level_team"] = self.level_team
        summary["levels"] = out["levels"]
        self.deals.append(summary)
        self.levels = out["levels"]
        self.attempts = out["attempts"]
        self.level_team = out["next_level_team"]
        if out["winner"] is not None:
            self._end(out["winner"], "last_level")
        elif self.time_up:
            self._end_on_time()
        else:
            self.deal_no += 1
            self.deal = self._start_deal()

    def _end(self, winner: int | None, reason: str) -> None:
        self.over = True
        self.winner = winner
        self.reason = reason
        self.score = list(self.levels)

    def _end_on_time(self) -> None:
        if hasattr(self.rules, "end_on_time"):
            self.rules.end_on_time(self)
            return
        a, b = self.levels
        self._end(None if a == b else (0 if a > b else 1), "time")

    # ---------------------------------------------------------------- the platform API
    def to_move(self) -> int | None:
        """The seat to act, or ``None`` when the match is over."""
        return None if self.over else self.deal.to_move()

    def actors(self) -> list[int]:
        """Seats that may act now (both tribute givers may pay in either order; else the seat
        to act). Clocks run for :meth:`to_move`."""
        return [] if self.over else self.deal.actors()

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """Every legal action of ``seat`` (default: the seat to act), card level."""
        return [] if self.over else self.deal.legal_actions(seat)

    def timeout_action(self, seat: int) -> Action | None:
        """The action the rules take when ``seat``'s clock runs out (bao2.md §9)."""
        return None if self.over else self.deal.timeout_action(seat)

    def is_first_action(self, seat: int) -> bool:
        """Whether it is the seat's first action of the deal (the 30 s clock, else 20 s)."""
        return self.deal.is_first_action(seat)

    def action_seconds(self, seat: int) -> int:
        """Seconds on the clock for the seat's next action (options ``first_action_seconds``,
        ``action_seconds``)."""
        key = "first_action_seconds" if self.is_first_action(seat) else "action_seconds"
        return int(self.options.get(key, 20))

    def check(self, action: Action | dict[str, Any] | str) -> Action:
        """Validate without changing anything; returns the parsed :class:`Action` or raises
        :class:`Refusal`."""
        act = parse_action(action)
        self._validate(act)
        return act

    def _validate(self, act: Action) -> Any:
        if self.over:
            raise Refusal("match_over", "the match is over")
        if act.kind == "time_up":
            return None
        if act.kind == "sanction" and act.sanction in ("yellow", "red", "forfeit"):
            if act.target is None or act.target >= self.rules.seats:
                raise Refusal("invalid_action", "no such seat")
            return None
        return self.deal.check(act)

    def apply(self, action: Action | dict[str, Any] | str) -> Action:
        """Apply an action (atomic: a :class:`Refusal` leaves the match unchanged). Returns the
        parsed :class:`Action`, the form to store in the log."""
        act = parse_action(action)
        plan = self._validate(act)
        if act.kind == "time_up":
            self.time_up = True
            self.log.append(act)
            if not self.deal.log:
                self._end_on_time()
            return act
        if act.kind == "sanction" and act.sanction in ("yellow", "red", "forfeit"):
            self.log.append(act)
            if hasattr(self.rules, "match_sanction"):
                self.rules.match_sanction(self, act.target, act.sanction)
                return act
            self._card(act.target % 2, act.sanction)  # type: ignore[operator, arg-type]
            return act
        self.deal._execute(act, plan)
        self.log.append(act)
        if self.deal.over:
            self._close_deal()
        return act

    def _card(self, team: int, sanction: str) -> None:
        """Referee cards (bao2.md §9, 十七): yellow −1; a team's second yellow −2 more and counts
        as a red; red −3; a team's second red sends it to level 0; any card after two reds, or
        ``forfeit``, loses the match 23:0 (the other team scores the top level, this one 0)."""
        if sanction == "forfeit" or self.reds[team] >= 2:
            self.levels[team] = 0
            self.levels[1 - team] = self.rules.max_level
            self._end(1 - team, "forfeit")
            return
        red = sanction == "red"
        if sanction == "yellow":
            self.yellows[team] += 1
            if self.yellows[team] % 2:
                self._lower(team, 1)
            else:
                self._lower(team, 2)
                red = True
        else:
            self._lower(team, 3)
        if red:
            self.reds[team] += 1
            if self.reds[team] >= 2:
                self.levels[team] = 0

    def _lower(self, team: int, by: int) -> None:
        self.levels[team] = max(0, self.levels[team] - by)

    def observation(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` (``None``: a spectator) may know, JSON-ready (:mod:`engine.observation`)."""
        return match_observation(self, seat)

    def result(self) -> dict[str, Any]:
        """``{"over", "winner" (team or None: draw/not over), "score" [team 0, team 1],
        "reason" ("last_level" = passed 2A / A, "time", "forfeit"), "deals"}``."""
        return {
            "over": self.over,
            "winner": self.winner,
            "score": None if self.score is None else list(self.score),
            "reason": self.reason,
            "deals": len(self.deals),
        }

    # ---------------------------------------------------------------- serialisation
    def to_json(self) -> dict[str, Any]:
        """Seed, options and the actions as one compact string (hands derive from the seed),
        plus a summary. A stream longer than :data:`COMPRESS_OVER` characters is stored
        zlib-compressed and base64-encoded under ``actions_z`` instead of ``actions``.
        :meth:`from_json` replays it."""
        stream = encode_stream(self.log)
        out: dict[str, Any] = {"variant": self.variant, "seed": self.seed, "options": self.options}
        if len(stream) > COMPRESS_OVER:
            out["actions_z"] = base64.b64encode(zlib.compress(stream.encode(), 9)).decode()
        else:
            out["actions"] = stream
        out["levels"] = list(self.levels)
        out["over"] = self.over
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Match:
        """Inverse of :meth:`to_json` (replays the actions). Raises :class:`Refusal`
        (``invalid_action``) if the stored actions are corrupt or not legal."""
        if "actions_z" in data:
            try:
                stream = zlib.decompress(base64.b64decode(data["actions_z"])).decode()
            except (ValueError, zlib.error):
                raise Refusal("invalid_action", "corrupt compressed action stream") from None
        else:
            stream = data["actions"]
        return cls.replay(data["variant"], data["seed"], data["options"], stream)

    def state_json(self) -> dict[str, Any]:
        """The full state (current deal included, hands and all) for comparisons and debugging;
        never send it to a client."""
        return {
            "match": self.to_json(),
            "attempts": list(self.attempts),
            "level_team": self.level_team,
            "deal_no": self.deal_no,
            "deals": self.deals,
            "result": self.result(),
            "time_up": self.time_up,
            "yellows": list(self.yellows),
            "reds": list(self.reds),
            "deal": self.deal.to_json(),
        }

    def copy(self) -> Match:
        """An independent copy (by replay)."""
        return Match.from_json(self.to_json())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Match) and self.state_json() == other.state_json()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<Match {self.variant} seed={self.seed!r} deal={self.deal_no} levels={self.levels}>"
