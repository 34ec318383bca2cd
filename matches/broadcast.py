"""Sending committed changes to the connected clients through the Channels layer.

Each seat has its own group (``match.<id>.seat.<k>``; every tab of that player joins it) and the
spectators share ``match.<id>.spectators``: what a group receives is built from that seat's (or
the spectator) observation only. Called after the commit (``transaction.on_commit``).
"""

from __future__ import annotations

import asyncio

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from engine.match import Match as EngineMatch
from matches import selectors
from matches.models import Match, MatchEvent


def seat_group(match_id: int, seat: int | None) -> str:
    """The group of one seat's connections (None: the spectators)."""
    if seat is None:
        return f"match.{match_id}.spectators"
    return f"match.{match_id}.seat.{seat}"


def table_group(table_id: int) -> str:
    """The group of everyone looking at a table (seat changes before the match starts)."""
    return f"table.{table_id}"


async def _send_all(messages: list[tuple[str, dict]]) -> None:
    layer = get_channel_layer()
    await asyncio.gather(*(layer.group_send(group, message) for group, message in messages))


def _send(messages: list[tuple[str, dict]]) -> None:
    async_to_sync(_send_all)(messages)


def match_updated(match: Match, engine: EngineMatch, event: MatchEvent | None) -> None:
    """Send every seat and the spectators the new state (and the event that led to it)."""
    from matches.services import json_dumps

    recipients: list[int | None] = list(range(len(match.seats)))
    if match.table.spectators_allowed:
        recipients.append(None)
    kind = "update" if event is not None else "snapshot"
    messages = []
    for recipient in recipients:
        text = json_dumps(selectors.frame(match, engine, recipient, kind=kind, event=event))
        messages.append(
            (
                seat_group(match.pk, recipient),
                {"type": "match.frame", "text": text, "version": match.version},
            )
        )
    _send(messages)


def table_changed(table_id: int) -> None:
    """Tell everyone looking at a table that its seats or status changed."""
    _send([(table_group(table_id), {"type": "table.changed", "table": table_id})])


def seats_changed(match_id: int) -> None:
    """Tell everyone at a match that auto-play or the clock changed (public state only)."""
    from matches.services import json_dumps

    match = Match.objects.select_related("table").filter(pk=match_id).first()
    if match is None:
        return
    text = json_dumps(
        {"type": "table", "version": match.version, "table": selectors.public_state(match)}
    )
    recipients: list[int | None] = list(range(len(match.seats)))
    if match.table.spectators_allowed:
        recipients.append(None)
    _send(
        [
            (seat_group(match_id, r), {"type": "match.frame", "text": text, "version": -1})
            for r in recipients
        ]
    )
