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

from engine.actions import Action, Refusal, decode_stream, encode_stream, parse_action
from engine.cards import CARD_STRS
from engine.combo import Combo
from engine.deal import Deal, DealRules
from engine.observation import copy_previous, deal_observation, play_view
from engine.outcome import OutcomeRefusal, whole
from engine.variants import deal_rules
from engine.variants._points_deal import end_points_match

IMPLICIT_SEAT = ("play", "pass", "immune")
_STR = CARD_STRS
#: Action streams longer than this are stored compressed (``actions_z``).
COMPRESS_OVER = 8000


class OptionError(ValueError):
    """A match option the variant refuses: ``option`` names it; ``kind`` is ``"unknown"`` (no
    such option), ``"bool"`` (not true or false) or ``"range"`` (not a whole number from
    ``low`` to ``high``). The English text is for logs; callers translate from the fields."""

    def __init__(self, option: str, kind: str, low: int = 0, high: int = 0) -> None:
        """Keep the fields beside an English sentence."""
        if kind == "unknown":
            text = f"unknown option: {option!r}"
        elif kind == "bool":
            text = f"option {option} must be true or false"
        else:
            text = f"option {option} must be a whole number from {low} to {high}"
        super().__init__(text)
        self.option, self.kind, self.low, self.high = option, kind, low, high


def _check_options(rules: DealRules, options: dict[str, Any] | None) -> dict[str, Any]:
    """The variant's defaults with ``options`` over them (optional options only when given);
    :class:`OptionError` for an unknown option or a value of the wrong kind or out of its
    bounds (:attr:`~engine.deal.DealRules.option_bounds`)."""
    merged = dict(rules.defaults)
    for key, value in (options or {}).items():
        if key in merged:
            default = merged[key]
        elif key in rules.optional_options:
            default = rules.optional_options[key]
        else:
            raise OptionError(str(key), "unknown")
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise OptionError(key, "bool")
        else:
            low, high = rules.option_bounds[key]
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                raise OptionError(key, "range", low, high)
        merged[key] = value
    return merged


class _Progression:
    """What :class:`Match` and :class:`TableMatch` share: referee cards, lowering a level and
    ending the match (the rules deal, close deals and end matches through their hooks:
    DealRules.new_deal, close_deal, end_on_time, …, which call these)."""

    rules: DealRules
    levels: list[int]
    yellows: list[int]
    reds: list[int]
    over: bool
    winner: int | None
    reason: str | None
    score: list[int] | None

    def _end(self, winner: int | None, reason: str) -> None:
        self.over = True
        self.winner = winner
        self.reason = reason
        self.score = list(self.levels)

    def _end_on_time(self) -> None:
        assert isinstance(self, Match | TableMatch)
        self.rules.end_on_time(self)

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


class Match(_Progression):
    """The state of a match. Build with :meth:`new`, :meth:`replay` or :meth:`from_json`."""

    def __init__(self, variant: str, seed: int | str, options: dict[str, Any] | None = None):
        """An unstarted match; use :meth:`new`."""
        self.variant = variant
        self.rules: DealRules = deal_rules(variant)
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
        #: Level changes per team from referee cards since the current deal began (they are
        #: the ``sanction`` items of its summary's ``breakdown``).
        self.sanctioned = [0, 0]
        #: The match's items of an observation (:meth:`_observed`), shared by the observations
        #: until the match state changes: ``(deal, items, items when the deal shows its own
        #: marked card, the levels list they were read from)``.
        self._tail: tuple[Any, Any, Any, Any] | None = None
        self.deal: Deal = self.rules.new_deal(self)

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

    # ---------------------------------------------------------------- the platform API
    def to_move(self) -> int | None:
        """The seat to act, or ``None`` when the match is over."""
        return None if self.over else self.deal.to_move()

    def actors(self) -> list[int]:
        """Seats that may act now (both tribute givers may pay in either order; else the seat
        to act). Clocks run for :meth:`to_move`."""
        return [] if self.over else self.deal.actors()

    def _seat_ok(self, seat: Any) -> bool:
        if type(seat) is not int and (not isinstance(seat, int) or isinstance(seat, bool)):
            return False
        return 0 <= seat < self.deal.n

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """Every legal action of ``seat`` (default: the seat to act), card level; ``[]`` for a
        seat that cannot act or is not at the table."""
        if self.over or (seat is not None and not self._seat_ok(seat)):
            return []
        return self.deal.legal_actions(seat)

    def hint_order(self, actions: list[Action]) -> list[Action]:
        """``actions`` (legal actions of this deal) weakest first, by the deal's own order
        (:meth:`engine.combo.ComboRules.hint_key`): non-bombs by their strongest card, level
        and wild cards after A, bombs last; tributes and returns by their card; other kinds
        after them. Plays that differ only in suits are given once (the first). Only legal
        actions come in, so the little-2 restriction holds."""
        combos = self.deal.combos

        def key(act: Action) -> tuple[int, ...]:
            if act.kind == "play" or act.kind == "immune":
                combo = Combo(act.type or act.kind, None, act.cards)
                if combos.is_bomb(combo):
                    combo = combos.read_as(act.cards, combo.type) or combo
                return (0, *combos.hint_key(combo))
            if act.kind in ("tribute", "return"):
                return (0, 0, combos.card_strength(act.cards[0]))
            return (1,)

        out = []
        seen = set()
        for act in sorted(actions, key=key):
            # the same play from other suits is no new hint (a straight flush is its own type)
            same = (
                act.kind,
                act.type,
                tuple(sorted((combos.card_strength(c), combos.is_wild(c)) for c in act.cards)),
            )
            if same not in seen:
                seen.add(same)
                out.append(act)
        return out

    def timeout_action(self, seat: int) -> Action | None:
        """The action the rules take when ``seat``'s clock runs out (bao2.md §9); ``None`` if
        the seat is not to act."""
        if self.over or not self._seat_ok(seat):
            return None
        return self.deal.timeout_action(seat)

    def is_first_action(self, seat: int) -> bool:
        """Whether it is the seat's first action of the deal (the 30 s clock, else 20 s)."""
        return self._seat_ok(seat) and self.deal.is_first_action(seat)

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
        return self.deal._validate(act)  # Deal.check without parsing the action again

    def apply(self, action: Action | dict[str, Any] | str) -> Action:
        """Apply an action (atomic: a :class:`Refusal` leaves the match unchanged). Returns the
        parsed :class:`Action`, the form to store in the log."""
        act = action if type(action) is Action else parse_action(action)
        kind = act.kind
        deal = self.deal
        if kind != "time_up" and kind != "sanction":
            # a deal's action: _validate written out
            if self.over:
                raise Refusal("match_over", "the match is over")
            plan = deal._validate(act)
        else:
            plan = self._validate(act)
            if kind == "time_up":
                self.time_up = True
                self.log.append(act)
                if not deal.log:
                    self._tail = None
                    self._end_on_time()
                return act
            if act.sanction in ("yellow", "red", "forfeit"):
                self.log.append(act)
                # the levels and cards change (and the last summary's levels may be this
                # match's own list, which the card changes)
                self._tail = None
                before = self.levels[:]
                assert act.target is not None  # Action.from_json refuses one without it
                self.rules.match_sanction(self, act.target, act.sanction)
                for t in (0, 1):
                    self.sanctioned[t] += self.levels[t] - before[t]
                return act
        deal.apply_unchecked(act, plan)
        self.log.append(act)
        if deal.phase == "over":
            self._tail = None
            self.rules.close_deal(self)
        return act

    def observation(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` (``None``: a spectator) may know, JSON-ready (:mod:`engine.observation`).
        Raises ``ValueError`` for a seat that is not at the table."""
        if seat is not None and not (type(seat) is int and 0 <= seat < self.deal.n):
            if not self._seat_ok(seat):
                raise ValueError(f"no seat {seat!r} at this table")
        deal = self.deal
        obs = deal_observation(deal, seat)
        tail = self._tail
        if tail is None or tail[0] is not deal or tail[3] is not self.levels:
            tail = self._tail = (deal, *self._observed(), self.levels)
        # the match's items; a variant's deal may show its own marked card (Shuangkou)
        obs.update(tail[2] if "marked_card" in obs else tail[1])
        if self.over:
            obs["turn"] = None
            obs["actors"] = []
            obs["lead"] = False
        return obs

    def _observed(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The items :meth:`observation` adds to the deal's, in their order, and the same
        without ``marked_card`` (for a deal that shows its own): built once per state of the
        match (:meth:`apply` drops them when a deal closes, a referee card is shown or the
        time runs out: nothing else changes them) and shared by the observations, which are
        read-only."""
        deals = self.deals
        score = self.score
        out: dict[str, Any] = {
            "deal_no": self.deal_no,
            "levels": self.levels[:],
            "level_team": self.level_team,
            "attempts": self.attempts[:],
            # a copy of the recorded summary (a referee card may change its levels later)
            "previous": copy_previous(deals[-1]) if deals else None,
            "cards": {"yellow": self.yellows[:], "red": self.reds[:]},
        }
        options = self.options
        if "a_attempts" in options:
            out["a_attempts"] = options["a_attempts"]
        if "base" in options:
            out["base"] = options["base"]
        if options.get("deals"):
            # the deal limit (a point game's match length; a level game's 计副制): "deal 5/8"
            out["deals_limit"] = options["deals"]
        own = out.copy()
        # the 明牌 that gave the first deal's lead; later deals begin with tribute
        card = self.marked_card
        out["marked_card"] = _STR[card] if card is not None and self.deal_no == 0 else None
        # self.result(), written out
        own["match"] = out["match"] = {
            "over": self.over,
            "winner": self.winner,
            "score": None if score is None else list(score),
            "reason": self.reason,
            "deals": len(deals),
        }
        return out, own

    def play_view(self, seat: int) -> dict[str, Any]:
        """The bots' light observation of ``seat`` (:func:`engine.observation.play_view`): the
        items of :meth:`observation` a play decision reads, equal to them, nothing more."""
        if not self._seat_ok(seat):
            raise ValueError(f"no seat {seat!r} at this table")
        view = play_view(self.deal, seat)
        if self.over:
            view["turn"] = None
            view["lead"] = False
        return view

    def result(self) -> dict[str, Any]:
        """``{"over", "winner" (team or None: draw/not over), "score" [team 0, team 1],
        "reason" ("last_level" = passed 2A / A, "time", "deals" = the deal limit, "forfeit"),
        "deals"}``."""
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


# ---------------------------------------------------------------- matches at a real table
class TableMatch(_Progression):
    """Match progression for a match played with real cards at a real table (the score sheet,
    保2记分器). The engine never sees the cards: each entry is what the scorer saw.

    Entries (JSON dicts), applied in order with :meth:`apply` (atomic: a :class:`Refusal`
    changes nothing):

    * ``{"deal": outcome}``, a finished deal. Level variants (``bao2``, ``guandan``):
      ``finish`` (seats in finishing order; the last seat(s) may be left out: with 1st and 2nd
      on one team two seats suffice, otherwise three), and for Bao 2 ``bao2`` (per team: the
      2s of its 保2 play(s), ``{"twos": n, "red": r}``, r of them ♥2/♦2), ``immune`` (the
      opponents' immune bomb voided that 保2), ``twos_left`` (per seat, the natural 2s left in
      hand, same form) and ``stuck_end`` (the deal ended with every remaining player stuck).
      Each variant reads its own fields (:meth:`~engine.deal.DealRules.table_deal`; Bao 2's
      2s in ``Bao2DealRules.table_bonuses``); levels go by the variant's ``settle_levels``.
      ``honger``: ``mode`` (``partnership`` with ``h2`` the two seats holding ♥2, ``solo``
      with ``solo``, ``surrender`` / ``compare`` with ``solo`` and ``receiver`` and for a
      compare ``fans``; a compare the solo player won has no ``receiver``), ``finish``,
      ``fans`` (per seat, fans of the bombs played) and ``dealt_fans`` (per seat, fan of the
      biggest bomb dealt, for big-bomb rewards). ``shuangkou2``: ``winner``, ``cards_left``
      (the loser's cards left) and ``bombs`` (per seat, line counts of the bombs played).
    * ``{"card": "yellow" | "red" | "forfeit", "team": t}`` (level variants) or
      ``{"card": "forfeit", "seat": s}`` (point variants): a referee card, as
      :meth:`Match.apply` applies a sanction.
    * ``{"time_up": true}``: the match time ran out (entered after the deal in progress):
      the match ends now, the higher level (or total) wins (a level game that must have a
      winner, ``play_on_tie``, with equal levels plays on until a deal makes them differ).

    :meth:`apply` returns a record of what the entry changed (``before`` / ``after`` states
    and the deal's 保2 and 关2 levels per team, or its points per seat).
    """

    def __init__(self, variant: str, options: dict[str, Any] | None = None) -> None:
        """A match at its start (raises ``ValueError`` for an unknown variant or option)."""
        self.variant = variant
        self.rules: DealRules = deal_rules(variant)
        self.options = _check_options(self.rules, options)
        self.points = self.rules.scoring == "points"
        self.seats = self.rules.seats
        self.levels = [0, 0]
        self.attempts = [0, 0]
        self.level_team: int | None = self.rules.first_level_team()
        self.yellows = [0, 0]
        self.reds = [0, 0]
        self.deals = 0
        self.over = False
        self.winner: int | None = None
        self.score: list[int] | None = [0] * self.seats if self.points else None
        self.reason: str | None = None
        #: The match time ran out while the levels were equal in a match that must have a
        #: winner (``play_on_tie``): each later deal may end it.
        self.time_up = False

    @classmethod
    def replay(
        cls, variant: str, options: dict[str, Any] | None, entries: list[dict[str, Any]]
    ) -> TableMatch:
        """The match after ``entries`` (raises :class:`Refusal` if one is not acceptable)."""
        match = cls(variant, options)
        for entry in entries:
            match.apply(entry)
        return match

    def state(self) -> dict[str, Any]:
        """JSON-ready state: levels, attempts, the level team and the next deal's level rank
        (level variants) or totals per seat (point variants), cards, deals, result."""
        out: dict[str, Any] = {"deals": self.deals, "over": self.over}
        if self.points:
            out["totals"] = list(self.score or [])
        else:
            team = self.level_team
            out.update(
                levels=list(self.levels),
                attempts=list(self.attempts),
                level_team=team,
                level_rank=self.rules.level_rank(self.levels[team] if team is not None else 0),
                ranks=[self.rules.level_rank(v) for v in self.levels],
                yellows=list(self.yellows),
                reds=list(self.reds),
            )
        out["result"] = {
            "winner": self.winner,
            "score": None if self.score is None or not self.over else list(self.score),
            "reason": self.reason,
        }
        return out

    def apply(self, entry: dict[str, Any]) -> dict[str, Any]:
        """Apply one entry (see the class docstring); returns the record of what it changed.
        Raises :class:`Refusal` (:class:`OutcomeRefusal` naming the field for a bad outcome)
        and then changes nothing."""
        if self.over:
            raise Refusal("match_over", "the match is over")
        kinds = {"deal", "card", "time_up"} & set(entry) if isinstance(entry, dict) else ()
        if len(kinds) != 1 or set(entry) - {"deal", "card", "time_up", "team", "seat"}:
            raise OutcomeRefusal("bad_entry", "entry", "an entry is one of deal, card, time_up")
        work = TableMatch(self.variant, self.options)
        work.__dict__.update(
            {k: list(v) if isinstance(v, list) else v for k, v in self.__dict__.items()}
        )
        before = work.state()
        record: dict[str, Any] = {}
        if "deal" in entry:
            record = work._deal(entry["deal"])
        elif "card" in entry:
            record = work._referee(entry)
        elif entry.get("time_up") is True:
            work.time_up = True
            work._end_on_time()
        else:
            raise OutcomeRefusal("bad_entry", "entry", "an entry is one of deal, card, time_up")
        self.__dict__.update(work.__dict__)
        record.update(before=before, after=self.state())
        return record

    # -------------------------------------------------------------- entries
    def _referee(self, entry: dict[str, Any]) -> dict[str, Any]:
        card = entry["card"]
        if card not in ("yellow", "red", "forfeit") or (self.points and card != "forfeit"):
            raise OutcomeRefusal("bad_card", "card", "unknown referee card for this game")
        if self.points:
            seat = whole(entry.get("seat"), "seat", 0, self.seats - 1)
            end_points_match(self, "forfeit", loser=seat)
            return {"card": card, "seat": seat}
        team = whole(entry.get("team"), "team", 0, 1)
        self._card(team, card)
        return {"card": card, "team": team}

    def _deal(self, outcome: Any) -> dict[str, Any]:
        # the variant reads its own fields (DealRules.table_deal); the match only keeps score
        if not isinstance(outcome, dict):
            raise OutcomeRefusal("bad_entry", "deal", "a deal outcome is an object")
        record = self.rules.table_deal(outcome, self.options)
        if self.points:
            return self._points_deal(record)
        return self._level_deal(record)

    def _level_deal(self, read: dict[str, Any]) -> dict[str, Any]:
        out = self.rules.settle_levels(
            self.levels,
            self.level_team,
            self.attempts,
            read["finish"],
            read["bao2"],
            read["closed"],
            self.options,
        )
        record = {
            "finish": read["finish"],
            "level_team": self.level_team,
            "level_rank": self.rules.level_rank(
                self.levels[self.level_team] if self.level_team is not None else 0
            ),
            "bao2": read["bao2"],
            "closed": read["closed"],
        }
        self.levels = out["levels"]
        self.attempts = out["attempts"]
        self.level_team = out["next_level_team"]
        self.deals += 1
        if out["winner"] is not None:
            self._end(out["winner"], "last_level")
        elif self.time_up:
            self.rules.end_on_time(self)
        elif self.rules.deal_limit_reached(self, self.deals):
            self.rules.end_at_limit(self, "deals")
        return record

    def _points_deal(self, record: dict[str, Any]) -> dict[str, Any]:
        self.deals += 1
        self.score = [t + p for t, p in zip(self.score or [], record["points"], strict=True)]
        if self.deals >= self.options["deals"]:
            end_points_match(self, "deals")
        return record
