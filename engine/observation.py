"""Observations: what one seat (or a spectator) may know, as JSON-ready dicts.

An observation is the ONLY thing the platform sends to a client. It holds the seat's own hand,
the plays of the current trick (past tricks only under ``show_history``: cards stack face down,
bao2.md 八.7), each other player's card count only when the rules show it (6 or fewer always;
7 to 10 once someone asked in this deal; never above 10), the finishing order, levels, whose
turn it is and whether they lead, initiative flags, and the tribute / immune-window facts the
seat may know. A spectator (``seat=None``) gets the same without any hand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.cards import cards_str

if TYPE_CHECKING:
    from engine.deal import Deal
    from engine.match import Match


def visible_count(deal: Deal, seat: int | None, other: int) -> int | None:
    """The card count of ``other`` as ``seat`` sees it (bao2.md §9): own count always; others
    at 6 or fewer, or 7–10 after it was asked in this deal; else ``None``."""
    n = deal.sizes[other]
    if other == seat or n <= 6 or (deal.revealed[other] and n <= 10):
        return n
    return None


def _entry(seat: int, combo: Any) -> dict[str, Any]:
    if combo is None:
        return {"seat": seat, "pass": True}
    out = combo.to_json()
    out["seat"] = seat
    return out


def deal_observation(deal: Deal, seat: int | None) -> dict[str, Any]:
    """The observation of one deal for ``seat`` (``None``: spectator)."""
    turn = deal.to_move()
    obs: dict[str, Any] = {
        "variant": deal.variant,
        "seat": seat,
        "phase": deal.phase,
        "level": deal.level,
        "turn": turn,
        "lead": bool(deal.phase == "play" and deal.leading and turn is not None),
        "lead_kind": deal.lead_kind if deal.phase == "play" else None,
        "counts": [visible_count(deal, seat, s) for s in range(deal.n)],
        "finished": list(deal.finished),
        "initiative": list(deal.initiative),
        "stuck": list(deal.stuck),
        "suspended": list(deal.suspended),
        "trick": [_entry(s, c) for s, c in deal.trick],
        "standing": None if deal.standing is None else _entry(deal.standing_seat, deal.standing),  # type: ignore[arg-type]
        "first_action": None if seat is None else not deal.acted[seat],
    }
    if seat is not None:
        obs["hand"] = cards_str(deal.hand(seat))
    if deal.options.get("show_history"):
        obs["history"] = [[_entry(s, c) for s, c in t] for t in deal.history]
    obs.update(deal.rules.public_info(deal, seat))
    if deal.result is not None:
        obs["result"] = {k: v for k, v in deal.result.items()}
    return obs


def match_observation(match: Match, seat: int | None) -> dict[str, Any]:
    """The observation of a match for ``seat``: the current deal's observation plus the match
    state (levels, level team, attempts, the previous deal's settlement, the result)."""
    obs = deal_observation(match.deal, seat)
    obs["deal_no"] = match.deal_no
    obs["levels"] = list(match.levels)
    obs["level_team"] = match.level_team
    obs["attempts"] = list(match.attempts)
    obs["previous"] = match.deals[-1] if match.deals else None
    obs["cards"] = {"yellow": list(match.yellows), "red": list(match.reds)}
    obs["match"] = match.result()
    if match.over:
        obs["turn"] = None
        obs["lead"] = False
    return obs
