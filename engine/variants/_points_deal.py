"""What the point-scored variants (Red Two, two-player Shuangkou) share in their deal rules.

:class:`PointsDealRules` holds their options, their match hooks (per-seat totals, a match of
``deals`` deals, the most points wins) and their common answers to the trick loop (no fixed
partner); :func:`close_points_deal` and :func:`end_points_match` are also used by
:class:`engine.match.TableMatch` for matches played with real cards.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from engine.deal import Deal, DealRules

if TYPE_CHECKING:  # engine.match imports this module
    from engine.match import Match, TableMatch


class PointsDealRules(DealRules):
    """A match of ``deals`` deals scored in points per seat; no levels, no fixed partner."""

    defaults: dict[str, Any] = {
        "deals": 8,
        "base": 1,
        "time_limit_minutes": 0,
        "first_action_seconds": 30,
        "action_seconds": 20,
        "show_history": False,
    }
    table_options = frozenset({"time_limit_minutes", "deals"})
    option_bounds = MappingProxyType(
        {**DealRules.option_bounds, "deals": (1, 50), "base": (1, 100)}
    )
    scoring = "points"

    def partner(self, deal: Deal, seat: int) -> int | None:
        """No partner at a fixed place (接风 never goes to one)."""
        return None

    def close_deal(self, match: Match) -> None:
        """Add the finished deal's points to the totals; end the match after ``deals`` deals,
        on abandonment, or (match time out) at the end of this deal; else deal the next one."""
        close_points_deal(match, self)

    def match_sanction(self, match: Match, target: int, sanction: str) -> None:
        """Referee cards do not change points; ``forfeit`` ends the match at once, lost by
        ``target`` (the deal in progress is not scored)."""
        if sanction == "forfeit":
            end_points_match(match, "forfeit", loser=target)

    def end_on_time(self, match: Match | TableMatch) -> None:
        """The match time ran out before anyone acted in the deal: the totals stand."""
        end_points_match(match, "time")


def close_points_deal(match: Match, rules: DealRules) -> None:
    """Record the finished deal, add its points to the per-seat totals (``match.score``), end
    the match or deal the next deal."""
    result = match.deal.result
    assert result is not None  # a deal is closed once it is over
    summary = dict(result)
    summary["deal_no"] = match.deal_no
    match.deals.append(summary)
    totals = list(match.score or [0] * rules.seats)
    match.score = [t + p for t, p in zip(totals, result["points"], strict=True)]
    abandoned = result.get("abandoned")
    if abandoned is not None:
        end_points_match(match, "abandoned", loser=abandoned)
    elif len(match.deals) >= match.options["deals"]:
        end_points_match(match, "deals")
    elif match.time_up:
        end_points_match(match, "time")
    else:
        match.deal_no += 1
        match.deal = rules.new_deal(match)


def end_points_match(match: Match | TableMatch, reason: str, loser: int | None = None) -> None:
    """End a point-scored match: the winner is the seat with the most points (``None`` on a
    tie); with ``loser`` (forfeit, abandonment) the best of the other seats."""
    seats = match.rules.seats
    totals = list(match.score or [0] * seats)
    match.score = totals
    candidates = [s for s in range(seats) if s != loser]
    top = max(totals[s] for s in candidates)
    best = [s for s in candidates if totals[s] == top]
    match.over = True
    match.reason = reason
    match.winner = best[0] if len(best) == 1 else None
