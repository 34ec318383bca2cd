"""The deal state machine: one deal (副) from the deal of the cards to its settlement.

One generic trick loop (leads, follows, passes, trick wins, going out, 接风) drives every
variant; what differs is asked of a :class:`DealRules` object (``engine.variants._guandan_deal``,
``engine.variants._bao2_deal``, …): seats and partnerships, who may play what (Bao 2's little-2
restriction), stuck players, who receives 接风, extra phases (tribute, Bao 2's immune window,
Red Two's choice), when the deal ends and how it is settled.

Phases: ``tribute`` → ``return`` → ``play`` (→ ``immune``, Bao 2) → ``over``; a variant may
add its own (``choose``). Like ``chess.Board``, a :class:`Deal` is one mutable state with
:meth:`Deal.legal_actions`, :meth:`Deal.check` and :meth:`Deal.apply`; :meth:`Deal.apply` is
atomic: every check is done before anything changes, and a refused action raises
:class:`~engine.actions.Refusal` leaving the deal untouched.

Hands are 54-slot count arrays (card id -> copies held); the readable API converts.

Decisions taken here where the rules files are silent:

- a player holding only natural 2s without initiative is asked to follow (and can only pass)
  until they must lead; then they are stuck and skipped for the rest of the deal (vector
  ``b-d-stuck-partner-skipped``);
- when the lead passes on from a stuck player it keeps its kind, except that a lead won by a
  trick becomes a ``jiefeng`` lead for the next player (it gives no initiative and no 保2);
- a referee's ``suspend_follow`` lasts until the trick in progress (or the next one, if issued
  between tricks) is won; a suspended player is still asked in the immune window;
- an immune bomb played after the 保2 play ended the deal voids the bonus; the finishing order
  is not changed by it: the immune bomber who goes out so takes no finishing place (bao2.md
  §6.4, vector ``b-dh-immune-after-deal-ended-no-place``);
- a paid tribute leaves the giver's hand at once and is held aside until every tribute is in
  (bao2.md §8, vector ``b-t-double-tribute-held-aside``);
- Red Two: a position whose ``sides`` has a side of one seat is a solo deal of that seat, scored
  as one (vectors ``h-d-one-seat-side-is-solo-win``, ``h-d-one-seat-side-is-solo-last``); a
  position in which one seat holds both ♥2 and whose ``lead_kind`` is not ``first`` is past the
  choice, and that seat plays solo (honger.md §2, vector ``h-d-both-h2-mid-deal-is-solo``);
- tribute cards are shown to everyone; a return card is shown to its giver and receiver, and to
  everyone once every return is in (bao2-standard-rules 十一.3);
- card counts (6 or fewer shown, 7–10 on request) follow bao2.md §9 in Guandan too.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from engine import cards as cards_mod
from engine.actions import Action, Refusal, parse_action
from engine.cards import CARD_STRS, cards_str, parse_cards, rank_index
from engine.combo import Combo, ComboRules
from engine.outcome import OutcomeRefusal

if TYPE_CHECKING:  # engine.match imports this module
    from engine.match import Match, TableMatch

_STR = CARD_STRS
#: The cache's key of each seat's hand strings (no tuple built per play).
_STR_KEY = [("str", s) for s in range(8)]
#: ``_AFTER[n][seat]``: the other seats of an ``n``-seat table in turn order after ``seat``.
_AFTER = [[tuple((seat + i) % n for i in range(1, n)) for seat in range(n)] for n in range(9)]


class DealRules:
    """What a variant says about the course of a deal and of a match. Subclasses override the
    hooks (as ``chess.Board`` subclasses do for chess variants).

    The defaults describe a plain four-player partnership game scored in levels (partners
    opposite, 接风 to the partner, the deal ends when one team is out or three players are out;
    the match deals from the seed, the marked card's receiver leads the first deal, later
    deals start with tribute). A rules object holds no game state: everything lives in the
    :class:`Deal` (or the match) it is given; it only memoises its :class:`ComboRules` per
    level rank. The variant table (:mod:`engine.variants`) builds one per variant, with the
    factory of the variant's combo rules.
    """

    variant = ""
    seats = 4
    #: Whether the deal has the ``immune`` play type handled by a window (Bao 2).
    has_immune_window = False
    #: Whether natural 2s need initiative (the little-2 restriction, bao2.md §5): the rules
    #: apply it in :meth:`may_play`, :meth:`playable_hand` and :meth:`is_stuck`; bots read it
    #: to list only the moves a seat may make.
    twos_need_initiative = False
    #: Default values of the variant's options (``docs/rules/<game>.md``).
    defaults: dict[str, Any] = {}
    #: The options that matter for a match played with real cards (a score sheet).
    table_options: frozenset[str] = frozenset()
    #: Options that are off unless a match sets them (absent from :attr:`defaults`, so a
    #: match that never sets them keeps its stored form), each with the value meaning off.
    optional_options: Mapping[str, Any] = MappingProxyType({})
    #: The (lowest, highest) value of each whole-number option (every number is bounded).
    option_bounds: Mapping[str, tuple[int, int]] = MappingProxyType(
        {
            "first_action_seconds": (1, 600),
            "action_seconds": (1, 600),
            "time_limit_minutes": (0, 600),
        }
    )
    #: How a match is scored: ``"levels"`` per team or ``"points"`` per seat.
    scoring = "levels"
    #: The side sizes a rated result may have, e.g. ``(2, 2)``.
    side_sizes: frozenset[tuple[int, int]] = frozenset({(2, 2)})
    #: The highest level index (0: no levels).
    max_level = 0
    #: Rank names of the level indexes, one round (empty: no levels).
    level_ranks: Sequence[str] = ()

    def __init__(self, combos: Callable[[str | None], ComboRules]) -> None:
        """Rules whose combos at a level rank are ``combos(level)``."""
        self._combo_factory = combos
        self._combos: dict[str | None, ComboRules] = {}

    def combo_rules(self, level: str | None) -> ComboRules:
        """The (memoised, immutable) combo rules at a level rank (``None``: no levels)."""
        rules = self._combos.get(level)
        if rules is None:
            rules = self._combos[level] = self._combo_factory(level)
        return rules

    def clear_combo_rules_cache(self) -> None:
        """Forget the memoised combo rules (and the readings they memoised)."""
        self._combos.clear()

    # -- partnerships ---------------------------------------------------------------------
    def team_of(self, deal: Deal, seat: int) -> int:
        """Team of a seat: seats 0, 2 are team 0 and seats 1, 3 team 1."""
        return seat % 2

    def partner(self, deal: Deal, seat: int) -> int | None:
        """The partner (对家) of a seat, opposite at the table."""
        return (seat + 2) % 4

    # -- play ---------------------------------------------------------------------------
    def may_play(self, deal: Deal, seat: int, combo: Combo) -> str | None:
        """Refusal code if the seat may not play this (valid) combo now, else ``None``."""
        return None

    def playable_hand(self, deal: Deal, seat: int) -> list[int]:
        """The cards of the seat's hand that may take part in a play now (all of them by
        default; Bao 2 without initiative: no natural 2s)."""
        return deal.hand(seat)

    def is_stuck(self, deal: Deal, seat: int) -> bool:
        """Whether a seat that must lead cannot play anything (Bao 2: only natural 2s
        without initiative)."""
        return False

    def jiefeng_seat(self, deal: Deal, seat: int) -> int:
        """Who leads after ``seat`` went out and everyone still holding cards passed (接风):
        the partner if holding cards, else the next player holding cards."""
        partner = self.partner(deal, seat)
        if partner is not None and deal.sizes[partner]:
            return partner
        return deal.next_holding(seat)

    def after_play(self, deal: Deal, seat: int, combo: Combo, was_lead: bool) -> bool:
        """Hook after a play's cards left the hand (and the player was recorded as finished
        if it was their last). Return ``True`` when the variant took over the flow (e.g. Bao 2's
        保2 play); ``False`` to continue the ordinary trick loop."""
        return False

    def is_over(self, deal: Deal) -> bool:
        """Whether the deal has ended: both players of a team out, or three players out."""
        done = deal.finished
        if len(done) >= 3:
            return True
        return len(done) == 2 and self.team_of(deal, done[0]) == self.team_of(deal, done[1])

    # -- phases before play ---------------------------------------------------------------
    def validate_extra(self, deal: Deal, action: Action) -> Any:
        """Check an action of a variant-specific kind (``tribute``, ``return``, ``choose``,
        ``immune``); raise :class:`Refusal` or return data for :meth:`execute_extra`."""
        raise Refusal("wrong_phase", f"no {action.kind} in this phase")

    def execute_extra(self, deal: Deal, action: Action, plan: Any) -> None:
        """Carry out an action accepted by :meth:`validate_extra`."""
        raise NotImplementedError

    def extra_legal_actions(self, deal: Deal, seat: int) -> list[Action]:
        """Legal actions of a seat in a variant-specific phase."""
        return []

    def extra_to_move(self, deal: Deal) -> int | None:
        """Seat to act in a variant-specific phase (tribute: the first seat that owes)."""
        return deal.turn

    def extra_timeout(self, deal: Deal, seat: int) -> Action | None:
        """The action taken for a seat whose clock ran out in a variant-specific phase."""
        return None

    def owing(self, deal: Deal) -> list[int]:
        """Seats that still owe a tribute or a return (they may act in any order)."""
        seat = deal.to_move()
        return [] if seat is None else [seat]

    def setup_tribute(self, deal: Deal, prev: list[int], cards_left: dict[int, int]) -> None:
        """Open the tribute phase after a deal that finished in order ``prev``."""
        raise ValueError(f"{self.variant} has no tribute")

    def setup_position(self, deal: Deal, case: dict[str, Any]) -> None:
        """Set up a conformance position's variant records (nothing by default)."""

    def window_pass(self, deal: Deal, seat: int) -> None:
        """A pass in the immune window (Bao 2)."""
        raise Refusal("wrong_phase", "no immune window in this game")

    # -- end ------------------------------------------------------------------------------
    def settle(self, deal: Deal, order: list[int], stuck_end: bool) -> dict[str, Any]:
        """Settlement of a finished deal; ``order`` is the full finishing order."""
        return {"finish": order}

    def public_info(self, deal: Deal, seat: int | None) -> dict[str, Any]:
        """Variant-specific observation fields that ``seat`` (``None``: spectator) may know."""
        return {}

    def conformance_case(self, case: dict[str, Any]) -> Any:
        """The value to compare with the ``expect`` of a conformance case of a kind only this
        variant has (``score``, ``fan``); ``ValueError`` for a kind it does not have."""
        raise ValueError(f"{self.variant} has no conformance kind {case['kind']!r}")

    def table_deal(self, outcome: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
        """Read one finished deal entered at a real table (:class:`engine.match.TableMatch`,
        which documents each variant's fields) under the match ``options``: for a level variant
        ``finish`` (all seats), ``bao2`` and ``closed`` (levels per team) for
        :meth:`settle_levels`; for a point variant the deal's ``points`` per seat and what the
        sheet shows of it. Raises :class:`~engine.outcome.OutcomeRefusal` naming the wrong
        field; reads only, changes nothing."""
        raise OutcomeRefusal("bad_entry", "deal", f"{self.variant} has no score sheet")

    # -- match hooks (called by engine.match.Match; ``match`` is that Match) -----------------
    def first_level_team(self) -> int | None:
        """Level team of a match's first deal (``None``: none)."""
        return None

    def level_rank(self, index: int) -> str | None:
        """Rank name of a level index (``None``: no levels)."""
        return None

    def settle_levels(
        self,
        levels: list[int],
        level_team: int | None,
        attempts: list[int],
        finish: list[int],
        bao2: list[int],
        closed: list[int],
        options: dict[str, Any],
    ) -> dict[str, Any]:
        """The level progression of a finished deal: ``levels``, ``attempts``, ``winner``,
        ``next_level_team`` and ``breakdown`` (per team, ``{"reason", "levels"}`` items that sum
        to its level change) (level-scored variants)."""
        raise NotImplementedError

    def new_deal(self, match: Match) -> Deal:
        """The match's next deal: dealt from the seed; the first is led by the marked card's
        receiver (明牌), later ones start with tribute after the previous deal."""
        dealt = cards_mod.deal(f"{match.seed}/{match.deal_no}", players=self.seats)
        team = match.level_team
        level = self.level_rank(match.levels[team] if team is not None else 0)
        if not match.deals:
            match.marked_card = dealt.marked_card
            return Deal.new(self, dealt.hands, level, dealt.marked_seat, "first", match.options)
        prev = match.deals[-1]
        left = dict(enumerate(prev["cards_left"]))
        return Deal.with_tribute(self, dealt.hands, level, prev["finish"], left, match.options)

    def close_deal(self, match: Match) -> None:
        """Record the finished deal, move the levels (:meth:`settle_levels`), end the match or
        deal the next deal. The summary's ``breakdown`` says why each team's level moved since
        the deal began (the referee cards of the deal as ``sanction``, then the settlement's
        items); each team's items sum to its level change."""
        result = match.deal.result
        assert result is not None  # a deal is closed once it is over
        out = self.settle_levels(
            match.levels,
            match.level_team,
            match.attempts,
            result["finish"],
            result["bao2"],
            result["closed"],
            match.options,
        )
        breakdown = out["breakdown"]
        for t in (0, 1):
            # referee cards shown in this deal came before its settlement
            if match.sanctioned[t]:
                breakdown[t].insert(0, {"reason": "sanction", "levels": match.sanctioned[t]})
        match.sanctioned = [0, 0]
        summary = dict(result)
        summary["level"] = match.deal.level
        summary["level_team"] = match.level_team
        summary["levels"] = out["levels"]
        summary["breakdown"] = breakdown
        match.deals.append(summary)
        match.levels = out["levels"]
        match.attempts = out["attempts"]
        match.level_team = out["next_level_team"]
        if out["winner"] is not None:
            match._end(out["winner"], "last_level")
        elif match.time_up:
            self.end_on_time(match)
        elif self.deal_limit_reached(match, len(match.deals)):
            self.end_at_limit(match, "deals")
        if not match.over:
            match.deal_no += 1
            match.deal = self.new_deal(match)

    def end_on_time(self, match: Match | TableMatch) -> None:
        """The match time ran out (计时制): as :meth:`end_at_limit`."""
        self.end_at_limit(match, "time")

    @staticmethod
    def deal_limit_reached(match: Match | TableMatch, played: int) -> bool:
        """Whether ``played`` deals reach the match's deal limit (option ``deals`` of a level
        game, 计副制; 0 or absent: none)."""
        limit = match.options.get("deals") or 0
        return bool(limit) and played >= limit

    def end_at_limit(self, match: Match | TableMatch, reason: str) -> None:
        """The match reached its time or deal limit (``reason`` ``"time"`` or ``"deals"``,
        第十四条): the higher level wins, equal levels draw — unless the match must have a
        winner (option ``play_on_tie``, knockout games, 第十四条三): equal levels then play
        on, one more deal at a time, until the levels differ (the caller checks again after
        each deal). The one place both limits end a level game."""
        a, b = match.levels
        if a == b and match.options.get("play_on_tie"):
            return
        match._end(None if a == b else (0 if a > b else 1), reason)

    def match_sanction(self, match: Match, target: int, sanction: str) -> None:
        """A referee card (``yellow``, ``red``, ``forfeit``) against ``target``'s team."""
        match._card(target % 2, sanction)

    def rated_sides(
        self, score: Sequence[int], deals: Sequence[dict[str, Any]]
    ) -> tuple[list[list[int]], list[int]] | None:
        """The two sides (seat lists) and their scores by which a finished match is rated,
        from its ``score`` (``Match.result()["score"]``) and deal summaries (``Match.deals``);
        ``None`` when the match is not rated. Default: the two fixed teams (seats 0, 2 and 1,
        3) with their levels."""
        return [[0, 2], [1, 3]], list(score)


def _counts(cards: Iterable[int]) -> list[int]:
    out = [0] * 54
    for c in cards:
        out[c] += 1
    return out


def _cards(counts: Sequence[int]) -> list[int]:
    out: list[int] = []
    for c, k in enumerate(counts):
        if k:
            out.extend([c] * k)
    return out


class Deal:
    """The state of one deal. Build one with :meth:`new`, :meth:`with_tribute`,
    :meth:`from_position` (conformance positions) or :meth:`from_json`."""

    def __init__(
        self,
        rules: DealRules,
        hands: Sequence[Iterable[int]],
        level: str | None,
        options: dict[str, Any] | None = None,
    ) -> None:
        """A deal under ``rules`` (:func:`engine.variants.deal_rules`) with these hands (card
        ids) at ``level`` (rank name), before any phase is set up. Prefer the class-method
        constructors."""
        self.variant = rules.variant
        self.rules = rules
        self.level = level
        self.combos: ComboRules = rules.combo_rules(level)
        self.options: dict[str, Any] = dict(options or {})
        self.n = len(hands)
        self.hands: list[list[int]] = [_counts(h) for h in hands]
        self.sizes: list[int] = [sum(h) for h in self.hands]
        self.phase = "play"
        self.turn: int | None = None
        self.leading = True
        self.lead_kind = "first"
        self.standing: Combo | None = None
        self.standing_seat: int | None = None
        self.to_respond: list[int] = []
        self.trick: list[tuple[int, Combo | None]] = []
        self.history: list[list[tuple[int, Combo | None]]] = []
        self.initiative = [False] * self.n
        self.finished: list[int] = []
        self.stuck = [False] * self.n
        self.suspended = [False] * self.n
        self.revealed = [False] * self.n
        self.acted = [False] * self.n
        self.bao2 = [0, 0]
        self.window: dict[str, Any] | None = None
        self.tribute: dict[str, Any] | None = None
        self.extra: dict[str, Any] = {}
        self.result: dict[str, Any] | None = None
        self.log: list[Action] = []
        #: Derived data memoised for speed (never serialised; safe to drop at any time; hands
        #: change only through :meth:`remove_cards`, which updates the memoised hands, and
        #: :meth:`add_cards`, which drops them).
        #: Keys: a seat (its sorted card ids), ("str", seat) (their strings), or a name.
        self.cache: dict[int | str | tuple[str, int], Any] = {}

    # ---------------------------------------------------------------- constructors
    @classmethod
    def new(
        cls,
        rules: DealRules,
        hands: Sequence[Iterable[int]],
        level: str | None,
        leader: int,
        lead_kind: str = "first",
        options: dict[str, Any] | None = None,
    ) -> Deal:
        """A deal in the play phase: ``leader`` leads (``lead_kind`` says how they came to)."""
        deal = cls(rules, hands, level, options)
        deal.give_lead(leader, lead_kind)
        return deal

    @classmethod
    def with_tribute(
        cls,
        rules: DealRules,
        hands: Sequence[Iterable[int]],
        level: str | None,
        previous_finish: Sequence[int],
        previous_cards_left: dict[int, int] | None = None,
        options: dict[str, Any] | None = None,
    ) -> Deal:
        """A deal that starts with tribute (进贡) after a deal that finished in that order."""
        deal = cls(rules, hands, level, options)
        rules.setup_tribute(deal, list(previous_finish), dict(previous_cards_left or {}))
        return deal

    @classmethod
    def from_position(cls, rules: DealRules, case: dict[str, Any]) -> Deal:
        """A deal under ``rules`` from a conformance ``deal`` case position (see the vectors'
        README)."""
        hands = [parse_cards(h) for h in case["hands"]]
        level = case.get("level")
        if case.get("phase") == "tribute":
            left = {int(k): v for k, v in (case.get("previous_cards_left") or {}).items()}
            return cls.with_tribute(
                rules, hands, level, case["previous_finish"], left, case.get("options")
            )
        deal = cls(rules, hands, level, case.get("options"))
        if "initiative" in case:
            deal.initiative = list(case["initiative"])
        deal.finished = list(case.get("finished", []))
        rules.setup_position(deal, case)
        if deal.phase == "play":
            deal.give_lead(case["leader"], case.get("lead_kind", "first"))
        return deal

    # ---------------------------------------------------------------- queries
    @property
    def over(self) -> bool:
        """Whether the deal has ended (``result`` holds its settlement)."""
        return self.phase == "over"

    def hand(self, seat: int) -> list[int]:
        """The cards a seat holds (ids, sorted; a fresh list)."""
        cached: list[int] | None = self.cache.get(seat)
        if cached is None:
            cached = self.cache[seat] = _cards(self.hands[seat])
        return list(cached)

    def to_move(self) -> int | None:
        """The seat to act, ``None`` when the deal is over."""
        if self.phase in ("play", "immune", "over"):
            return self.turn
        return self.rules.extra_to_move(self)

    def actors(self) -> list[int]:
        """Every seat that may act now: during tribute / return each seat that still owes
        (they may act in any order), otherwise the seat to act (none when over)."""
        if self.phase in ("tribute", "return"):
            return self.rules.owing(self)
        seat = self.to_move()
        return [] if seat is None else [seat]

    def next_holding(self, seat: int, skip_stuck: bool = False) -> int:
        """The first seat after ``seat`` in turn order that holds cards (and, with
        ``skip_stuck``, is not stuck); ``-1`` if none."""
        n = self.n
        for i in range(1, n + 1):
            s = (seat + i) % n
            if self.sizes[s] and not (skip_stuck and self.stuck[s]):
                return s
        return -1

    def team_of(self, seat: int) -> int:
        """Team of a seat under the variant's partnerships."""
        return self.rules.team_of(self, seat)

    def is_first_action(self, seat: int) -> bool:
        """Whether the seat has not acted yet in this deal (its clock is the longer one)."""
        return not self.acted[seat]

    # ---------------------------------------------------------------- flow helpers
    def give_lead(self, seat: int, kind: str) -> None:
        """Give the lead of a new trick to ``seat``. A stuck player (see
        :meth:`DealRules.is_stuck`) is marked and skipped: the lead passes to the first player
        after them who holds cards and is not stuck; if none is left the deal ends."""
        if self.trick:
            self.history.append(self.trick)
            self.trick = []
        self.standing = None
        self.standing_seat = None
        self.to_respond = []
        self.suspended = [False] * self.n
        start = seat
        rules = self.rules
        for _ in range(self.n + 1):
            if self.sizes[seat] and not self.stuck[seat]:
                if not rules.is_stuck(self, seat):
                    break
                self.stuck[seat] = True
            nxt = self.next_holding(seat, skip_stuck=True)
            if nxt < 0:
                self.finish(stuck_from=start)
                return
            seat = nxt
            if kind == "trick":
                kind = "jiefeng"
        self.phase = "play"
        self.turn = seat
        self.leading = True
        self.lead_kind = kind

    def responders_after(self, seat: int) -> list[int]:
        """Seats that must answer a play by ``seat``, in turn order: holding cards, not stuck,
        not suspended by the referee."""
        out = []
        sizes, stuck, susp = self.sizes, self.stuck, self.suspended
        for s in _AFTER[self.n][seat]:
            if sizes[s] and not stuck[s] and not susp[s]:
                out.append(s)
        return out

    def continue_trick(self, seat: int) -> None:
        """After a play by ``seat``: the next responder acts, or the trick is won at once
        when nobody can answer (bao2.md §6.4)."""
        self.to_respond = self.responders_after(seat)
        if self.to_respond:
            self.turn = self.to_respond[0]
            self.leading = False
        else:
            self.end_trick()

    def end_trick(self) -> None:
        """Everyone still holding cards passed: the standing play wins the trick. Its player
        gains initiative (主动出牌权) and leads, or, if they are out, the lead goes by 接风."""
        winner = self.standing_seat
        assert winner is not None
        if self.sizes[winner]:
            self.initiative[winner] = True
            self.give_lead(winner, "trick")
        else:
            self.give_lead(self.rules.jiefeng_seat(self, winner), "jiefeng")

    def finish(self, stuck_from: int | None = None) -> None:
        """End the deal and settle it. Seats still holding cards take the remaining places in
        turn order (from ``stuck_from`` when every remaining player is stuck)."""
        n = self.n
        if stuck_from is not None:
            start = (stuck_from - 1) % n
        else:
            start = self.finished[-1] if self.finished else 0
        order = list(self.finished)
        for i in range(1, n + 1):
            s = (start + i) % n
            if s not in order:
                order.append(s)
        self.phase = "over"
        self.turn = None
        self.leading = False
        self.to_respond = []
        self.result = self.rules.settle(self, order, stuck_from is not None)

    # ---------------------------------------------------------------- actions
    def check(self, action: Action | dict[str, Any] | str) -> Any:
        """Validate an action without changing anything; raise :class:`Refusal` if the rules
        refuse it (codes in :mod:`engine.actions`). Returns the action's plan for
        :meth:`apply_unchecked`: the :class:`Combo` read from a play's cards, ``None`` for a pass,
        an ask or a sanction, the rules' own data for a variant's action (tribute, return…)."""
        return self._validate(parse_action(action))

    def apply(self, action: Action | dict[str, Any] | str) -> None:
        """Apply an action after checking it fully (atomic: a refused action changes nothing)."""
        act = parse_action(action)
        plan = self._validate(act)
        self.apply_unchecked(act, plan)

    def _validate(self, act: Action) -> Any:
        kind = act.kind
        seat = act.seat
        if seat is None or seat >= self.n:
            if kind == "sanction" and act.target is not None and act.target < self.n:
                if act.sanction not in ("revoke_initiative", "suspend_follow"):
                    raise Refusal("invalid_action", f"{act.sanction} is a match-level sanction")
                if self.phase == "over":
                    raise Refusal("wrong_phase", "the deal is over")
                return None
            raise Refusal("invalid_action", f"no seat {seat!r} at this table")
        phase = self.phase
        if phase == "over":
            raise Refusal("wrong_phase", "the deal is over")
        if kind == "play":
            if phase != "play":
                raise Refusal("wrong_phase", f"no play in the {phase} phase")
            if act.type == "immune" and self.rules.has_immune_window:
                raise Refusal("wrong_phase", "the immune bomb is played only in the immune window")
            if seat != self.turn:
                raise Refusal("not_your_turn", f"seat {self.turn} is to act")
            hand = self.hands[seat]
            cards = act.cards
            if len(cards) == 1:
                if hand[cards[0]] < 1:
                    raise Refusal("not_in_hand", "those cards are not all in the hand")
            else:
                for c in cards:
                    if hand[c] < cards.count(c):
                        raise Refusal("not_in_hand", "those cards are not all in the hand")
            combo = self.combos.read_as(act.cards, act.type or "")
            if combo is None or combo.type == "immune":
                raise Refusal("invalid_combo", f"the cards do not form a {act.type}")
            code = self.rules.may_play(self, seat, combo)
            if code is not None:
                raise Refusal(code, "a natural 2 needs initiative (主动出牌权)")
            if not self.leading:
                assert self.standing is not None
                if not self.combos.beats(combo, self.standing):
                    raise Refusal("does_not_beat", "the play does not beat the play standing")
            return combo
        if kind == "pass":
            if phase == "immune":
                if seat != self.turn:
                    raise Refusal("not_your_turn", f"seat {self.turn} is to act")
                return None
            if phase != "play":
                raise Refusal("wrong_phase", f"no pass in the {phase} phase")
            if seat != self.turn:
                raise Refusal("not_your_turn", f"seat {self.turn} is to act")
            if self.leading:
                raise Refusal("must_lead", "a leader may not pass")
            return None
        if kind == "ask":
            target = act.target
            if target is None or target >= self.n or target == seat:
                raise Refusal("invalid_ask", "ask about another seat")
            if phase not in ("play", "immune"):
                raise Refusal("wrong_phase", "card counts are asked during play")
            if not 7 <= self.sizes[target] <= 10:
                # the same code and words as every other refused ask: nothing about the count
                raise Refusal("invalid_ask", "that card count cannot be asked now")
            return None
        if kind in ("time_up", "sanction"):
            raise Refusal("invalid_action", f"{kind} is a match-level action")
        return self.rules.validate_extra(self, act)

    def apply_unchecked(self, act: Action, plan: Any) -> None:
        """Carry out an action known to be legal, without checking it: the fast path for the
        match (which has just called :meth:`check`) and for simulations (bots' playouts, whose
        actions come from :meth:`legal_actions` or the combo rules' moves).

        ``plan`` is what :meth:`check` returns for the action: for a play, the :class:`Combo`
        its cards form (``combos.read_as(act.cards, act.type)``); ``None`` for a pass. An
        action that :meth:`check` would refuse, or a plan that does not match it, leaves the
        deal in a state the rules cannot reach; nothing here notices.
        """
        kind = act.kind
        seat = act.seat
        if kind == "play":
            self._play(seat, plan)  # type: ignore[arg-type]
        elif kind == "pass":
            self._pass(seat)  # type: ignore[arg-type]
        elif kind == "sanction":
            self._sanction(act)
        elif kind == "ask":
            self.revealed[act.target] = True  # type: ignore[index]
        else:
            self.rules.execute_extra(self, act, plan)
        if seat is not None and kind != "ask":
            self.acted[seat] = True
        self.log.append(act)

    def remove_cards(self, seat: int, cards: Iterable[int]) -> None:
        """Take cards out of a seat's hand (already checked to be there). The memoised sorted
        hand (and its card strings) lose the same cards, and stay sorted."""
        hand = self.hands[seat]
        cache = self.cache
        ids: list[int] | None = cache.get(seat)
        strs: list[str] | None = cache.get(_STR_KEY[seat])
        k = 0
        for c in cards:
            hand[c] -= 1
            k += 1
            if ids is not None:
                ids.remove(c)
            if strs is not None:
                strs.remove(_STR[c])
        self.sizes[seat] -= k

    def add_cards(self, seat: int, cards: Iterable[int]) -> None:
        """Put cards into a seat's hand."""
        hand = self.hands[seat]
        k = 0
        for c in cards:
            hand[c] += 1
            k += 1
        self.sizes[seat] += k
        self.cache.pop(seat, None)
        self.cache.pop(("str", seat), None)

    def _play(self, seat: int, combo: Combo) -> None:
        self.remove_cards(seat, combo.cards)
        was_lead = self.leading
        self.trick.append((seat, combo))
        self.standing = combo
        self.standing_seat = seat
        self.leading = False
        if not self.sizes[seat]:
            self.finished.append(seat)
        if self.rules.after_play(self, seat, combo, was_lead):
            return
        if self.rules.is_over(self):
            self.finish()
            return
        self.continue_trick(seat)

    def _pass(self, seat: int) -> None:
        if self.phase == "immune":
            self.rules.window_pass(self, seat)
            return
        self.trick.append((seat, None))
        self.to_respond.pop(0)
        if self.to_respond:
            self.turn = self.to_respond[0]
        else:
            self.end_trick()

    def _sanction(self, act: Action) -> None:
        target = act.target
        assert target is not None
        if act.sanction == "revoke_initiative":
            self.initiative[target] = False
            return
        # suspend_follow: the seat may not follow until the trick in progress ends.
        self.suspended[target] = True
        if self.phase == "play" and not self.leading and target in self.to_respond:
            was_turn = self.turn == target
            self.to_respond.remove(target)
            if not self.to_respond:
                self.end_trick()
            elif was_turn:
                self.turn = self.to_respond[0]

    # ---------------------------------------------------------------- legal actions
    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """Every legal action of ``seat`` (default: the seat to act), at card level: each
        distinct multiset of cards from the hand with each reading the rules allow now
        (``ComboRules.legal_combos`` filtered by initiative), plus a pass when following.
        Asking a card count is not listed (see :mod:`engine.actions`)."""
        if seat is None:
            seat = self.to_move()
        if seat is None or self.phase == "over":
            return []
        if self.phase == "play":
            if seat != self.turn:
                return []
            combos = self.combos.legal_combos(
                self.rules.playable_hand(self, seat), None if self.leading else self.standing
            )
            rules = self.rules
            out = []
            for combo in combos:
                if combo.type == "immune" or rules.may_play(self, seat, combo) is not None:
                    continue
                out.append(Action("play", seat, combo.cards, combo.type))
            if not self.leading:
                out.append(Action("pass", seat))
            return out
        return self.rules.extra_legal_actions(self, seat)

    def timeout_action(self, seat: int) -> Action | None:
        """What the rules do for ``seat`` when its clock runs out (bao2.md §9): a follower
        passes; a leader plays its lowest legal single; in the immune window, pass; tribute and
        return: the forced or lowest card. ``None`` if the seat is not to act."""
        if self.phase == "over":
            return None
        if self.phase in ("play", "immune"):
            if seat != self.turn:
                return None
            if self.phase == "immune" or not self.leading:
                return Action("pass", seat)
            best: Combo | None = None
            best_value = None
            value = getattr(self.combos, "value", None)
            for c in sorted(set(self.hand(seat))):
                combo = self.combos.read_as((c,), "single")
                if combo is None or self.rules.may_play(self, seat, combo) is not None:
                    continue
                v = _single_value(combo, value)
                if best_value is None or v < best_value:
                    best, best_value = combo, v
            if best is None:  # no single allowed: fall back on any legal play
                legal = self.legal_actions(seat)
                return legal[0] if legal else None
            return Action("play", seat, best.cards, "single")
        return self.rules.extra_timeout(self, seat)

    # ---------------------------------------------------------------- serialisation
    def to_json(self) -> dict[str, Any]:
        """The full state as JSON-ready data (hands included: never send it to a client;
        use :mod:`engine.observation`). :meth:`from_json` restores it exactly."""
        return {
            "variant": self.variant,
            "level": self.level,
            "options": self.options,
            "hands": [cards_str(self.hand(s)) for s in range(self.n)],
            "phase": self.phase,
            "turn": self.turn,
            "leading": self.leading,
            "lead_kind": self.lead_kind,
            "standing": None if self.standing is None else self.standing.to_json(),
            "standing_seat": self.standing_seat,
            "to_respond": list(self.to_respond),
            "trick": [_entry_json(e) for e in self.trick],
            "history": [[_entry_json(e) for e in t] for t in self.history],
            "initiative": list(self.initiative),
            "finished": list(self.finished),
            "stuck": list(self.stuck),
            "suspended": list(self.suspended),
            "revealed": list(self.revealed),
            "acted": list(self.acted),
            "bao2": list(self.bao2),
            "window": copy.deepcopy(self.window),
            "tribute": copy.deepcopy(self.tribute),
            "extra": copy.deepcopy(self.extra),
            "result": copy.deepcopy(self.result),
            "log": [a.to_compact() for a in self.log],
        }

    @classmethod
    def from_json(cls, rules: DealRules, data: dict[str, Any]) -> Deal:
        """Inverse of :meth:`to_json`, under the variant's ``rules``."""
        if data["variant"] != rules.variant:
            raise ValueError(f"a {data['variant']} deal under {rules.variant} rules")
        deal = cls(rules, [parse_cards(h) for h in data["hands"]], data["level"])
        deal.options = dict(data["options"])
        deal.phase = data["phase"]
        deal.turn = data["turn"]
        deal.leading = data["leading"]
        deal.lead_kind = data["lead_kind"]
        deal.standing = None if data["standing"] is None else Combo.from_json(data["standing"])
        deal.standing_seat = data["standing_seat"]
        deal.to_respond = list(data["to_respond"])
        deal.trick = [_entry_from(e) for e in data["trick"]]
        deal.history = [[_entry_from(e) for e in t] for t in data["history"]]
        deal.initiative = list(data["initiative"])
        deal.finished = list(data["finished"])
        deal.stuck = list(data["stuck"])
        deal.suspended = list(data["suspended"])
        deal.revealed = list(data["revealed"])
        deal.acted = list(data["acted"])
        deal.bao2 = list(data["bao2"])
        deal.window = copy.deepcopy(data["window"])
        deal.tribute = copy.deepcopy(data["tribute"])
        deal.extra = copy.deepcopy(data["extra"])
        deal.result = copy.deepcopy(data["result"])
        deal.log = [Action.from_compact(t) for t in data["log"]]
        return deal

    def copy(self) -> Deal:
        """An independent copy."""
        return Deal.from_json(self.rules, self.to_json())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Deal) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<Deal {self.variant} level={self.level} phase={self.phase} turn={self.turn}>"


def _single_value(combo: Combo, value: Sequence[int] | None) -> int:
    r = rank_index(combo.key or "2")
    return value[r] if value is not None else r


def _entry_json(entry: tuple[int, Combo | None]) -> dict[str, Any]:
    seat, combo = entry
    if combo is None:
        return {"seat": seat, "pass": True}
    out = combo.to_json()
    out["seat"] = seat
    return out


def _entry_from(data: dict[str, Any]) -> tuple[int, Combo | None]:
    if data.get("pass"):
        return (data["seat"], None)
    return (data["seat"], Combo.from_json(data))
