"""A finished match read into facts: what each seat did, in the game's own terms.

The one place that reads a match for statistics (issue 46). :func:`match_facts` replays a
live match's actions through :class:`engine.match.Match` and counts, per seat, what the
engine itself decided while it played them — finishing places, levels or points, 保2 made or
voided, 关2, 双上, immune bombs, attempts at the last level, tributes and anti-tributes, Red
Two's solo, surrender and compare, Shuangkou's bombs — so that the statistics never
re-implement a rule. :func:`sheet_facts` reads a score sheet's entries (a match played with
real cards, :class:`engine.match.TableMatch`), which know less: places, levels or points, and
for Bao 2 the 保2 and 关2 of each team.

Every counter is a whole number, summed over matches by the platform; a counter a seat never
reached is left out (read it as 0). :data:`COMMON_FACTS` are every game's, :func:`fact_names`
gives a game's own on top of them, in the order they are shown.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.match import Match, TableMatch
from engine.variants import deal_rules
from engine.variants._bao2_deal import closed_twos, two_value

#: Counters every game has: matches played, won, drawn, lost; deals played and won (the
#: seat's side had the 1st place or, in a point game, the seat scored); levels gained and lost
#: by the seat's team (level games) or points (point games, may be negative); finishing places
#: (``place_1`` = 上游 … ``place_4`` = 末游); decisions made and the thinking time of the timed
#: ones in milliseconds.
COMMON_FACTS: tuple[str, ...] = (
    "matches",
    "won",
    "drawn",
    "lost",
    "deals",
    "deals_won",
    "levels_up",
    "levels_down",
    "points",
    "place_1",
    "place_2",
    "place_3",
    "place_4",
    "decisions",
    "timed_decisions",
    "think_ms",
)

_GAME_FACTS: dict[str, tuple[str, ...]] = {
    "bao2": (
        "bao2_made",
        "bao2_failed",
        "guan2_done",
        "guan2_suffered",
        "double_up",
        "immune_bombs",
        "top_attempts",
        "top_successes",
        "tributes_given",
        "tributes_received",
        "anti_tributes",
        "sanctions",
    ),
    "guandan": (
        "double_up",
        "tributes_given",
        "tributes_received",
        "anti_tributes",
        "top_attempts",
        "top_successes",
        "sanctions",
    ),
    "honger": (
        "solo_taken",
        "solo_won",
        "surrender_taken",
        "surrender_won",
        "compare_taken",
        "compare_won",
    ),
    "shuangkou2": ("bombs", "bomb_lines"),
}

#: Action kinds a player decides (a referee's sanction or the clock's time-up are not theirs).
DECISION_KINDS = frozenset(("play", "pass", "immune", "tribute", "return", "choose"))


def fact_names(variant: str) -> tuple[str, ...]:
    """The counters of ``variant``: :data:`COMMON_FACTS`, then the game's own (``ValueError``
    for an unknown game)."""
    deal_rules(variant)  # refuses an unknown name
    return COMMON_FACTS + _GAME_FACTS[variant]


def game_fact_names(variant: str) -> tuple[str, ...]:
    """Only the game's own counters of ``variant`` (``ValueError`` for an unknown game)."""
    deal_rules(variant)
    return _GAME_FACTS[variant]


@dataclass
class SeatFacts:
    """One seat's facts in one match: ``counters`` (name → whole number), its ``outcome``
    (``won``, ``drawn`` or ``lost``), its fixed ``partner`` seat (``None`` in a game without
    fixed partners) and its ``opponents`` (the seats it played against)."""

    seat: int
    outcome: str
    partner: int | None
    opponents: list[int]
    counters: dict[str, int] = field(default_factory=dict)


@dataclass
class MatchFacts:
    """A match read into facts: the game, whether it is over, its deals, and per seat
    :class:`SeatFacts` (index = seat)."""

    variant: str
    over: bool
    deals: int
    seats: list[SeatFacts]


def _outcomes(match: Match | TableMatch, seats: int) -> list[str]:
    """Each seat's outcome: level games by the winning team (none: a draw); point games by the
    seat's total (the only highest wins, a shared highest draws)."""
    if match.rules.scoring == "levels":
        if match.winner is None:
            return ["drawn"] * seats
        return ["won" if s % 2 == match.winner else "lost" for s in range(seats)]
    totals = list(match.score or [0] * seats)
    top = max(totals)
    best = [s for s in range(seats) if totals[s] == top]
    if len(best) == 1:
        return ["won" if s == best[0] else "lost" for s in range(seats)]
    return ["drawn" if s in best else "lost" for s in range(seats)]


def _places(count: Counter[str], seat: int, finish: Sequence[int], seats: int) -> None:
    """The seat's place in ``finish`` (a short order names the first places; in a two-seat
    game the one left is 2nd)."""
    if seat in finish:
        count[f"place_{list(finish).index(seat) + 1}"] += 1
    elif len(finish) == seats - 1:
        count[f"place_{seats}"] += 1


class _Reader:
    """Counts one live match's facts while replaying it."""

    def __init__(self, variant: str, seed: int | str, options: dict[str, Any] | None) -> None:
        self.match = Match.new(variant, seed, options)
        self.seats = self.match.rules.seats
        self.count: list[Counter[str]] = [Counter() for _ in range(self.seats)]
        self.levels_before = list(self.match.levels)
        self.attempt_team: int | None = None
        self.bao2_plays: list[int] = []
        #: whether the game has 保2 and 关2 (its deals keep ``bao2`` bonuses and ``closed`` 2s)
        self.has_bao2 = "bao2_made" in _GAME_FACTS[variant]
        self.start_deal()

    def start_deal(self) -> None:
        """A new deal is dealt: the level team's attempt at the last level, an anti-tribute."""
        match = self.match
        self.levels_before = list(match.levels)
        self.bao2_plays = []
        team = match.level_team
        top = match.rules.max_level
        self.attempt_team = None
        if team is not None and top and match.levels[team] == top:
            self.attempt_team = team
            for s in range(self.seats):
                if s % 2 == team:
                    self.count[s]["top_attempts"] += 1
        tribute = match.deal.tribute
        if tribute is not None and tribute.get("anti"):
            for s in tribute["givers"]:
                self.count[s]["anti_tributes"] += 1

    def apply(self, action: Any, think_ms: int | None) -> None:
        """Apply one action, counting what it was and what it caused."""
        match = self.match
        deal = match.deal
        done_before = len(match.deals)
        act = match.check(action)
        seat = act.seat
        bao2_try = False
        bonus_before = [0, 0]
        if self.has_bao2 and act.kind == "play" and seat is not None:
            # 保2 (bao2.md §6.2): a lead won by a trick of the whole hand, only natural 2s
            bao2_try = (
                deal.leading
                and deal.lead_kind == "trick"
                and len(act.cards) == deal.sizes[seat]
                and all(c < 52 and c % 13 == 0 for c in act.cards)
            )
            bonus_before = list(deal.bao2)
        receiver = None
        if act.kind == "tribute" and deal.tribute is not None and seat in deal.tribute["givers"]:
            receiver = deal.tribute["receivers"][deal.tribute["givers"].index(seat)]
        match.apply(act)
        if seat is not None and act.kind in DECISION_KINDS:
            self.count[seat]["decisions"] += 1
            if think_ms is not None:
                self.count[seat]["timed_decisions"] += 1
                self.count[seat]["think_ms"] += max(0, int(think_ms))
        if act.kind == "immune" and seat is not None:
            self.count[seat]["immune_bombs"] += 1
        if act.kind == "sanction" and act.target is not None:
            if act.sanction in ("yellow", "red", "forfeit"):
                self.count[act.target]["sanctions"] += 1
        if act.kind == "tribute" and seat is not None:
            self.count[seat]["tributes_given"] += 1
            if receiver is not None and receiver >= 0:
                self.count[receiver]["tributes_received"] += 1
        if bao2_try and seat is not None:
            team = seat % 2
            if deal.bao2[team] > bonus_before[team]:
                self.bao2_plays.append(seat)
            else:
                self.count[seat]["bao2_failed"] += 1
        if len(match.deals) > done_before:
            self.close_deal(deal, match.deals[-1])
            if not match.over:
                self.start_deal()

    def close_deal(self, deal: Any, summary: dict[str, Any]) -> None:
        """Count a finished deal from its summary (and the finished deal's own state)."""
        match = self.match
        n = self.seats
        finish = summary.get("finish") or []
        for s in range(n):
            c = self.count[s]
            c["deals"] += 1
            _places(c, s, finish, n)
        if match.rules.scoring == "levels":
            self._close_level_deal(deal, summary, finish)
        else:
            self._close_points_deal(deal, summary)

    def _close_level_deal(self, deal: Any, summary: dict[str, Any], finish: list[int]) -> None:
        n = self.seats
        after = summary["levels"]
        for s in range(n):
            t = s % 2
            change = after[t] - self.levels_before[t]
            c = self.count[s]
            if change > 0:
                c["levels_up"] += change
            elif change < 0:
                c["levels_down"] -= change
            if finish and finish[0] % 2 == t:
                c["deals_won"] += 1
            if len(finish) > 1 and finish[0] % 2 == t and finish[1] % 2 == t:
                c["double_up"] += 1
        bonus = summary.get("bao2") or [0, 0]
        for seat in self.bao2_plays:
            # a 保2 the opponents' immune bomb voided earned nothing
            key = "bao2_made" if bonus[seat % 2] > 0 else "bao2_failed"
            self.count[seat][key] += 1
        closed = summary.get("closed")
        if closed is not None and self.has_bao2:
            for s in range(n):
                if closed[s % 2] > 0:
                    self.count[s]["guan2_done"] += 1
            for s in self._closed_seats(deal, finish, closed):
                self.count[s]["guan2_suffered"] += 1
        team = self.attempt_team
        if team is not None and self.match.over and self.match.reason == "last_level":
            if self.match.winner == team:
                for s in range(n):
                    if s % 2 == team:
                        self.count[s]["top_successes"] += 1

    def _closed_seats(self, deal: Any, finish: list[int], closed: list[int]) -> list[int]:
        """The seats whose natural 2s were closed (关2) in the finished ``deal``, by the rule
        itself (:func:`~engine.variants._bao2_deal.closed_twos`) applied to each hand alone."""
        colour = bool(deal.options.get("colour_twos", False))
        twos = [
            sum(deal.hands[s][c] * two_value(c, colour) for c in range(0, 52, 13))
            if deal.sizes[s]
            else 0
            for s in range(self.seats)
        ]
        stuck_end = closed_twos(finish, twos, False) != list(closed)
        out = []
        for s in range(self.seats):
            alone = [twos[k] if k == s else 0 for k in range(self.seats)]
            if twos[s] and any(closed_twos(finish, alone, stuck_end)):
                out.append(s)
        return out

    def _close_points_deal(self, deal: Any, summary: dict[str, Any]) -> None:
        points = summary.get("points") or [0] * self.seats
        for s in range(self.seats):
            c = self.count[s]
            c["points"] += int(points[s])
            if points[s] > 0:
                c["deals_won"] += 1
        mode = summary.get("mode")
        solo = deal.extra.get("solo") if mode in ("solo", "surrender", "compare") else None
        if solo is not None:
            self.count[solo][f"{mode}_taken"] += 1
            if points[solo] > 0:
                self.count[solo][f"{mode}_won"] += 1
        bombs = summary.get("bombs")
        if isinstance(bombs, list):
            for s, lines in enumerate(bombs):
                self.count[s]["bombs"] += len(lines)
                self.count[s]["bomb_lines"] += sum(lines)

    def facts(self) -> MatchFacts:
        """The facts counted so far (the match's outcome only once it is over)."""
        match = self.match
        n = self.seats
        outcomes = _outcomes(match, n) if match.over else ["drawn"] * n
        seats = []
        for s in range(n):
            c = self.count[s]
            if match.over:
                c["matches"] += 1
                c[outcomes[s]] += 1
            partner = match.rules.partner(match.deal, s)
            opponents = [o for o in range(n) if o != s and o != partner]
            counters = {k: int(v) for k, v in c.items() if v}
            seats.append(SeatFacts(s, outcomes[s], partner, opponents, counters))
        return MatchFacts(match.variant, match.over, len(match.deals), seats)


def match_facts(
    variant: str,
    seed: int | str,
    options: dict[str, Any] | None,
    actions: Sequence[Any],
    think_ms: Sequence[int | None] | None = None,
) -> MatchFacts:
    """Replay a live match (its ``actions`` as :meth:`Match.replay` takes them, one by one)
    and read it into :class:`MatchFacts`. ``think_ms`` (same length as ``actions``, or None):
    how long each action's seat thought, ``None`` for an action not timed (a bot's, the
    clock's); it feeds ``think_ms`` and ``timed_decisions``. Raises
    :class:`~engine.actions.Refusal` if an action is not legal, as a replay does."""
    reader = _Reader(variant, seed, options)
    for k, action in enumerate(actions):
        reader.apply(action, None if think_ms is None else think_ms[k])
    return reader.facts()


def sheet_facts(
    variant: str, options: dict[str, Any] | None, entries: Sequence[dict[str, Any]]
) -> MatchFacts:
    """Read a score sheet's entries (:class:`TableMatch`) into :class:`MatchFacts`: matches,
    outcome, deals, places and levels or points; for a level game 双上 and the team's 关2
    done; for Bao 2 the 保2 levels per team (counted for the team's 1st player as made). A
    sheet knows no decisions. Raises :class:`~engine.actions.Refusal` for a bad entry."""
    match = TableMatch(variant, options)
    n = match.seats
    count: list[Counter[str]] = [Counter() for _ in range(n)]
    has_bao2 = "bao2_made" in _GAME_FACTS[variant]
    for entry in entries:
        before = list(match.levels)
        record = match.apply(entry)
        if "deal" not in entry:
            if "card" in entry and "team" in record:
                for s in range(n):
                    if s % 2 == record["team"]:
                        count[s]["sanctions"] += 1
            continue
        finish = record.get("finish") or []
        for s in range(n):
            c = count[s]
            c["deals"] += 1
            _places(c, s, finish, n)
        if match.points:
            points = record.get("points") or [0] * n
            for s in range(n):
                count[s]["points"] += int(points[s])
                if points[s] > 0:
                    count[s]["deals_won"] += 1
            continue
        for s in range(n):
            t = s % 2
            c = count[s]
            change = match.levels[t] - before[t]
            if change > 0:
                c["levels_up"] += change
            elif change < 0:
                c["levels_down"] -= change
            if finish and finish[0] % 2 == t:
                c["deals_won"] += 1
                if len(finish) > 1 and finish[1] % 2 == t:
                    c["double_up"] += 1
            if has_bao2 and record["closed"][t] > 0:
                c["guan2_done"] += 1
        if has_bao2 and finish and record["bao2"][finish[0] % 2] > 0:
            count[finish[0]]["bao2_made"] += 1
    outcomes = _outcomes(match, n) if match.over else ["drawn"] * n
    seats = []
    rules = match.rules
    for s in range(n):
        c = count[s]
        if match.over:
            c["matches"] += 1
            c[outcomes[s]] += 1
        partner = (s + 2) % n if rules.scoring == "levels" and n == 4 else None
        opponents = [o for o in range(n) if o != s and o != partner]
        seats.append(
            SeatFacts(s, outcomes[s], partner, opponents, {k: v for k, v in c.items() if v})
        )
    return MatchFacts(variant, match.over, match.deals, seats)
