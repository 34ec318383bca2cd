"""While you were away: what auto-play (托管) did for a seat (issue 43, point 4).

Back from a drop-out (or a run of timeouts), a player is told, once, what was done in their
name since their own last action: the cards played, the passes, a tribute given or a card
returned. Only that seat's own actions are read from the event log and only for that seat's
player: another seat's cards or returned card never enter it, so it reveals nothing the
player's own observation did not already hold.
"""

from __future__ import annotations

from typing import Any

from clubs.models import User
from matches.messages import MatchError
from matches.models import Actor, Match, MatchEvent
from matches.services.again import seat_of

#: The most events looked back at (a long absence is summed up from its latest actions).
LOOK_BACK = 400


def away_summary(match: Match, seat: int) -> dict[str, Any] | None:
    """What auto-play did for ``seat`` since its player last acted themselves (None: nothing).

    ``{"since": first seq, "upto": last seq, "plays": [{"cards", "type"}], "passes": n,
    "tributes": [card], "returns": [card], "deals": [deal numbers touched]}``, oldest first.
    """
    mine = (
        MatchEvent.objects.filter(match=match, seat=seat)
        .exclude(actor=Actor.REFEREE)
        .order_by("-seq")
        .values("seq", "actor", "action")[:LOOK_BACK]
    )
    done: list[dict[str, Any]] = []
    for event in mine:
        if event["actor"] == Actor.PLAYER:
            break
        # (the clock's own actions are not told: a player whose clock ran out was there)
        if event["actor"] == Actor.AUTOPLAY:
            done.append(event)
    if not done:
        return None
    done.reverse()
    out: dict[str, Any] = {
        "since": done[0]["seq"],
        "upto": done[-1]["seq"],
        "plays": [],
        "passes": 0,
        "tributes": [],
        "returns": [],
    }
    for event in done:
        action = event["action"] or {}
        if action.get("play") or action.get("immune"):
            cards = list(action.get("play") or action.get("immune") or [])
            out["plays"].append({"cards": cards, "type": action.get("type") or "immune"})
        elif action.get("pass"):
            out["passes"] += 1
        elif action.get("tribute"):
            out["tributes"].append(action["tribute"])
        elif action.get("return"):
            out["returns"].append(action["return"])
    if not (out["plays"] or out["passes"] or out["tributes"] or out["returns"]):
        return None
    return out


def away_summary_for(user: User | None, match: Match | None) -> dict[str, Any] | None:
    """:func:`away_summary` of ``user``'s own seat in ``match``; :class:`MatchError`
    ``not_seated`` for anyone who does not play in it (spectators, referees included)."""
    seat = seat_of(user, match)
    if seat is None or match is None:
        raise MatchError("not_seated")
    return away_summary(match, seat)
