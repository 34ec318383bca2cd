"""Reads of tables and matches shared by views, the API and the consumer; and the frames sent
to clients, each built from one recipient's observation only (never from the full state)."""

from __future__ import annotations

import logging
import time
from functools import lru_cache
from typing import Any

from django.core.cache import cache
from django.db.models import Count, Q, QuerySet
from django.utils.html import json_script

from clubs.models import Club, User
from engine.actions import Action, Refusal
from engine.arrange import arrange
from engine.cards import InvalidCard, card_str, parse_card
from engine.match import Match as EngineMatch
from engine.variants import combo_rules, deal_rules
from matches import refusals
from matches.messages import MatchError
from matches.models import Match, MatchEvent, Table, TableStatus

log = logging.getLogger(__name__)

#: A reconnecting client missing at most this many events gets them; otherwise a snapshot.
MAX_MISSING_EVENTS = 200


def lobby_tables(club: Club) -> QuerySet[Table]:
    """The club's tables that are open or playing, with ``free_seats`` annotated."""
    return (
        Table.objects.filter(club=club, status__in=[TableStatus.OPEN, TableStatus.PLAYING])
        .annotate(free_seats=Count("seats", filter=Q(seats__user=None, seats__bot="")))
        .prefetch_related("seats__user")
        .select_related("match")
        .order_by("status", "-created_at")
    )


def finished_tables(club: Club, limit: int = 20) -> QuerySet[Table]:
    """The club's most recently finished tables (for their replays)."""
    return (
        Table.objects.filter(club=club, status=TableStatus.FINISHED)
        .select_related("match")
        .order_by("-match__finished_at")[:limit]
    )


def match_of_table(table: Table) -> Match | None:
    """The table's match, if it has started."""
    return Match.objects.filter(table=table).first()


@lru_cache(maxsize=256)
def _card_order(variant: str, level: str | None) -> tuple[tuple[int, ...], str | None]:
    rules = combo_rules(variant, level)
    value = getattr(rules, "value", None)
    wild = getattr(rules, "wild", None)
    wild_str = card_str(wild) if isinstance(wild, int) and 0 <= wild < 54 else None
    return tuple(value) if value is not None else tuple(range(15)), wild_str


@lru_cache(maxsize=16)
def level_names(variant: str) -> tuple[tuple[str, int], ...]:
    """Each team level index of ``variant`` as ``(rank name, round)``: Bao 2 climbs 3..A
    twice (index 12 is "3" of round 2), Guandan 2..A once; empty for variants without team
    levels. Rank names as on the cards ("10" for T)."""
    rules = deal_rules(variant)
    ranks = getattr(rules, "level_ranks", None)
    if not ranks:
        return ()
    return tuple(
        (str(rules.level_rank(i)).replace("T", "10"), i // len(ranks) + 1)
        for i in range(rules.max_level + 1)
    )


@lru_cache(maxsize=256)
def card_order(variant: str, level: str | None) -> dict[str, Any]:
    """Public facts for sorting and marking a hand: each rank's value (index 0..14 = 2..A,
    small joker, big joker) and the wild card, from the variant and the level only; and the
    names of the team levels (:func:`level_names`). One shared object per variant and level
    (it goes into every frame): read it, do not change it."""
    value, wild = _card_order(variant, level)
    return {"value": list(value), "wild": wild, "levels": [list(n) for n in level_names(variant)]}


def seat_of(match: Match, user: User | None) -> int | None:
    """The seat ``user`` plays at ``match`` (None: not a player of it)."""
    if user is None or not user.is_authenticated:
        return None
    for index, info in enumerate(match.seats):
        if info.get("user") == user.pk:
            return index
    return None


def event_view(event: MatchEvent, recipient: int | None) -> dict[str, Any]:
    """An event as ``recipient`` may see it: a returned card (还贡) only to its giver (the
    receiver sees it in their own observation)."""
    action = dict(event.action)
    if "return" in action and event.seat != recipient:
        action["return"] = None
    return {"seq": event.seq, "seat": event.seat, "actor": event.actor, "action": action}


def public_state(match: Match) -> dict[str, Any]:
    """Facts about the match anyone at the table may know: seats, auto-play, whose clock runs
    and until when, the match time limit, the status, the seats yet to dismiss the last
    deal's summary during the pause between deals."""
    deadline = match.deadline if match.deadline_version == match.version else None
    return {
        "id": match.pk,
        "status": match.status,
        "seats": [
            {"name": s.get("name") or "", "bot": s.get("bot") or "", "autoplay": a or ""}
            for s, a in zip(match.seats, match.autoplay, strict=False)
        ],
        "to_move": match.to_move,
        "deadline": deadline.timestamp() if deadline else None,
        "ends_at": match.ends_at.timestamp() if match.ends_at else None,
        "result": match.result,
        "summary_pending": match.summary_pending(),
        "server_time": time.time(),
    }


def frame(
    match: Match,
    engine: EngineMatch,
    recipient: int | None,
    *,
    kind: str = "update",
    event: MatchEvent | None = None,
    events: list[MatchEvent] | None = None,
    shared: dict[str, Any] | None = None,
    cards: bool = True,
) -> dict[str, Any]:
    """One message to ``recipient`` (a seat, or None: a spectator) at ``match.version``;
    ``shared``: its ``table`` (and ``cards``) if the caller built them for every recipient;
    ``cards``: whether it carries the deal level's :func:`card_order` (an update leaves it
    out unless the level changed: the client keeps the last one)."""
    obs = engine.observation(recipient)
    data: dict[str, Any] = {"type": kind, "version": match.version, "you": recipient, "obs": obs}
    if shared is None:
        shared = {"table": public_state(match)}
        if cards:
            shared["cards"] = card_order(obs["variant"], obs.get("level"))
    data.update(shared)
    if event is not None:
        data["event"] = event_view(event, recipient)
    if events is not None:
        data["events"] = [event_view(e, recipient) for e in events]
    return data


def events_after(match: Match, version: int) -> list[MatchEvent]:
    """The events with ``seq > version``, in order."""
    return list(match.events.filter(seq__gt=version).order_by("seq"))


def replay_frames(match: Match) -> list[dict[str, Any]]:
    """Every step of a finished match with all hands (for the replay page): the action and
    the full state after it (each seat's observation, which includes its hand)."""
    engine = EngineMatch.new(match.variant, match.seed, match.options)
    seats = len(match.seats)
    steps = [{"seq": 0, "action": None, "views": [engine.observation(s) for s in range(seats)]}]
    for event in match.events.order_by("seq"):
        engine.apply(event.action)
        steps.append(
            {
                "seq": event.seq,
                "seat": event.seat,
                "actor": event.actor,
                "action": event.action,
                "views": [engine.observation(s) for s in range(seats)],
            }
        )
    return steps


def replay_scripts(match: Match) -> dict[str, str]:
    """The replay page's data of a finished match, as the ``<script type="application/json">``
    elements ``json_script`` makes: ``steps`` (:func:`replay_frames`) and ``orders``
    (:func:`replay_card_orders`). Built once per match version and kept in the cache (a
    replay of a long match is megabytes); a cache failure only costs the rebuild."""
    key = f"matches:replay:{match.pk}:{match.version}"
    try:
        cached = cache.get(key)
    except Exception:
        log.warning("replay cache unavailable")
        cached = None
    if cached is not None:
        return cached
    steps = replay_frames(match)
    scripts = {
        "steps": str(json_script(steps, "replay-steps")),
        "orders": str(json_script(replay_card_orders(match, steps), "replay-orders")),
    }
    try:
        cache.set(key, scripts, REPLAY_CACHE_SECONDS)
    except Exception:
        log.warning("replay cache unavailable")
    return scripts


#: How long a replay's serialised steps stay cached (seconds).
REPLAY_CACHE_SECONDS = 24 * 3600


def replay_card_orders(match: Match, steps: list[dict[str, Any]]) -> dict[str, Any]:
    """The :func:`card_order` of every deal level met in ``steps`` (:func:`replay_frames`),
    keyed by the level ("" for none), so the replay sorts hands as the table page does."""
    levels = {step["views"][0].get("level") for step in steps if step["views"]}
    return {level or "": card_order(match.variant, level) for level in levels}


# ------------------------------------------------------------------------- helpers for clients
def check_selection(engine: EngineMatch, seat: int, cards: list[str]) -> list[dict[str, Any]]:
    """The legal plays the selected ``cards`` can make for ``seat`` (one per combo type);
    raises :class:`MatchError` explaining why the selection cannot be played."""
    if not isinstance(cards, list) or not cards or len(cards) > 60:
        raise MatchError("no_selection")
    try:
        ids = [parse_card(c) for c in cards]
    except (InvalidCard, TypeError, ValueError):
        raise MatchError("invalid_card") from None
    observation = engine.observation(seat)
    rules = combo_rules(engine.variant, observation.get("level"))
    readings = rules.readings(ids)
    first: MatchError | None = None
    legal: list[dict[str, Any]] = []
    if not readings:
        try:
            engine.check(Action("play", seat, tuple(sorted(ids)), "single"))
        except Refusal as refusal:
            if refusal.code in ("not_your_turn", "wrong_phase", "not_in_hand", "match_over"):
                raise refusals.explain(
                    refusal.code, refusal.message, ids, None, rules, observation
                ) from None
        # which cards do not fit which combination (matches.refusals)
        raise refusals.no_combination(ids, rules, observation.get("standing"))
    for combo in readings:
        action = Action("play", seat, tuple(sorted(ids)), combo.type)
        if combo.type == "immune":  # an immune bomb is its own action (played in its window)
            action = Action("immune", seat, tuple(sorted(ids)), "immune")
        try:
            engine.check(action)
        except Refusal as refusal:
            first = first or refusals.explain(
                refusal.code, refusal.message, ids, combo.type, rules, observation
            )
            continue
        legal.append(action.to_json())
    if not legal:
        assert first is not None
        raise first
    return legal


def arrangement(engine: EngineMatch, seat: int) -> dict[str, Any]:
    """The 理牌 groups of ``seat``'s own hand (:func:`engine.arrange.arrange`): its bombs and
    straight flushes and the rest. Only that seat's cards are read; an empty arrangement
    between deals or when the seat holds no cards."""
    observation = engine.observation(seat)
    hand = observation.get("hand") or []
    if not hand:
        return {"groups": [], "rest": []}
    return arrange(engine.variant, observation.get("level"), [parse_card(c) for c in hand])


def hints(engine: EngineMatch, seat: int, limit: int = 40) -> list[dict[str, Any]]:
    """Up to ``limit`` legal plays of ``seat`` for the hint button, weakest first by the
    deal's own order (:meth:`engine.match.Match.hint_order`)."""
    if engine.to_move() != seat:
        return []
    seen: set[tuple] = set()
    out: list[tuple[int, int, dict[str, Any]]] = []
    for i, action in enumerate(engine.hint_order(engine.legal_actions(seat))):
        if action.kind not in ("play", "immune", "tribute", "return"):
            continue
        key = (action.kind, action.type, action.cards)
        if key in seen:
            continue
        seen.add(key)
        out.append((len(action.cards), i, action.to_json()))
        if len(out) >= limit * 4:
            break
    out.sort(key=lambda t: t[1])
    return [a for _, _, a in out[:limit]]
