"""While you were away: what auto-play (托管) did for a seat (issue 43, point 4).

Back from a drop-out (or a run of timeouts), a player is told, once, what was done in their
name since their own last action: the cards played, the passes, a tribute given or a card
returned. Only that seat's own actions are read from the event log and only for that seat's
player: another seat's cards or returned card never enter it, so it reveals nothing the
player's own observation did not already hold. A play's cards are in reading order
(:mod:`engine.display`, as the table shows a trick: a full house as its triple then its pair,
a straight low to high with the wild card where it stands), read with the rules of the deal it
was made in (the level decides the wild card).
"""

from __future__ import annotations

from typing import Any

from clubs.models import User
from engine.actions import Refusal
from engine.cards import InvalidCard, cards_str, parse_cards
from engine.display import display_order
from engine.match import Match as EngineMatch
from engine.variants import combo_rules, variant_facts
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
    plays = [
        e["seq"]
        for e in done
        if (e["action"] or {}).get("play") or (e["action"] or {}).get("immune")
    ]
    levels = _levels_at(match, plays)
    for event in done:
        action = event["action"] or {}
        if action.get("play") or action.get("immune"):
            cards = list(action.get("play") or action.get("immune") or [])
            kind = "immune" if action.get("immune") else action.get("type") or ""
            shown = _reading_order(match.variant, levels.get(event["seq"]), cards, kind)
            out["plays"].append({"cards": shown, "type": kind or "immune"})
        elif action.get("pass"):
            out["passes"] += 1
        elif action.get("tribute"):
            out["tributes"].append(action["tribute"])
        elif action.get("return"):
            out["returns"].append(action["return"])
    if not (out["plays"] or out["passes"] or out["tributes"] or out["returns"]):
        return None
    return out


def _levels_at(match: Match, seqs: list[int]) -> dict[int, str | None]:
    """The level rank of the deal each event of ``seqs`` was made in (``None`` in a points
    game, or where the event log cannot be replayed). A level game replays its event log up to
    the last of them: the deals' levels are in no event (asked once per connection, and only
    when auto-play played)."""
    if not seqs or not variant_facts(match.variant).levels:
        return {}
    wanted = set(seqs)
    out: dict[int, str | None] = {}
    try:
        engine = EngineMatch.new(match.variant, match.seed, match.options)
        events = match.events.filter(seq__lte=max(seqs)).order_by("seq")
        for seq, action in events.values_list("seq", "action"):
            if seq in wanted:
                out[seq] = engine.deal.level  # (the deal the action is made in)
            engine.apply(action)
    except (Refusal, ValueError, TypeError, KeyError):
        pass  # (a log that does not replay: the cards keep the order they were played in)
    return out


def _reading_order(variant: str, level: str | None, cards: list[str], kind: str) -> list[str]:
    """``cards`` of a play of type ``kind`` in reading order (:func:`engine.display.display_order`
    with the deal's rules); as given when they do not read as that type."""
    try:
        rules = combo_rules(variant, level)
        combo = rules.read_as(parse_cards(cards), kind)
    except (InvalidCard, ValueError, TypeError):
        return cards
    if combo is None:
        return cards
    return cards_str(display_order(combo, rules))


def away_summary_for(user: User | None, match: Match | None) -> dict[str, Any] | None:
    """:func:`away_summary` of ``user``'s own seat in ``match``; :class:`MatchError`
    ``not_seated`` for anyone who does not play in it (spectators, referees included)."""
    seat = seat_of(user, match)
    if seat is None or match is None:
        raise MatchError("not_seated")
    return away_summary(match, seat)
