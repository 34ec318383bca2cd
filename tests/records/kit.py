"""Matches made with the engine for the statistics' tests: bots choose every action from
their own observation; a level match is cut short by the clock (``time_up``) after a few
deals, so each fixture is small enough to count by hand."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone

from engine.actions import Action
from engine.bots import make_bot
from engine.match import Match as EngineMatch


def engine_match(
    variant: str,
    seed: int,
    deals: int,
    options: dict[str, Any] | None = None,
    extra: dict[int, dict[str, Any]] | None = None,
    choices: list[str] | None = None,
) -> EngineMatch:
    """Play ``variant`` from ``seed`` with heuristic bots (Bao 2: the former line); the clock runs out during deal
    ``deals`` (so the match ends with it). ``extra``: actions (JSON) to apply before the
    ``k``-th bot action (a referee's sanction). ``choices``: Red Two's choices (solo,
    surrender, compare) in order, made instead of the bot's."""
    choices = list(choices or [])
    match = EngineMatch.new(variant, seed, options)
    # the Bao 2 fixtures were counted by hand from the play of the heuristic's former line,
    # which the arenas keep as ``heuristic-v1`` (the heuristic now plays a line of its own)
    kind = "heuristic-v1" if variant == "bao2" else "heuristic"
    bots = [make_bot(kind) for _ in range(match.rules.seats)]
    k = 0
    while not match.over:
        if extra and k in extra:
            match.apply(extra[k])
        if match.rules.scoring == "levels" and match.deal_no == deals - 1 and not match.time_up:
            if match.deal.log:
                match.apply({"time_up": True})
        seat = match.to_move()
        assert seat is not None
        act: Action = bots[seat].choose(
            match.observation(seat), lambda s=seat: match.legal_actions(s)
        )
        if act.kind == "choose" and choices:
            act = Action("choose", seat, choice=choices.pop(0))
        match.apply(act)
        k += 1
    return match


def store_match(
    engine: EngineMatch,
    club: Any,
    users: list[Any],
    rated: bool = True,
    kind: str = "club",
    bot: str = "",
    ended_at: Any = None,
) -> Any:
    """A finished live match in the database from ``engine``'s log, as live play leaves one:
    its table, seats, match row and event log (each action 2 s after the one before)."""
    from matches.models import Actor, Match, MatchEvent, Seat, Table

    ended_at = ended_at or timezone.now()
    started = ended_at - timedelta(seconds=2 * len(engine.log) + 1)
    table = Table.objects.create(
        club=club,
        kind=kind,
        created_by=users[0],
        variant=engine.variant,
        rated=rated,
        status="finished",
        options=engine.options,
    )
    seats = []
    for i, user in enumerate(users):
        Seat.objects.create(
            table=table, index=i, user=None if bot and i else user, bot=bot if i else ""
        )
        seats.append({"user": None if bot and i else user.pk, "bot": bot if i else "", "name": ""})
    match = Match.objects.create(
        table=table,
        variant=engine.variant,
        seed=str(engine.seed),
        options=engine.options,
        seats=seats,
        version=len(engine.log),
        status="finished",
        result=engine.result(),
        started_at=started,
        finished_at=ended_at,
    )
    MatchEvent.objects.bulk_create(
        MatchEvent(
            match=match,
            seq=k + 1,
            action=act.to_json(),
            seat=act.seat,
            actor=Actor.PLAYER if act.seat is not None and act.kind != "sanction" else Actor.SYSTEM,
            created_at=started + timedelta(seconds=2 * (k + 1)),
        )
        for k, act in enumerate(engine.log)
    )
    return match
