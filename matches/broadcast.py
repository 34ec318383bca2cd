"""Sending committed changes to the connected clients through the Channels layer.

Every connection to a match joins its group (``match.<id>``). An update is one group message
(one Redis PUBLISH) carrying one frame per recipient, each built from that seat's (or the
spectator) observation only; each connection forwards the frame of its own seat and no other.
Frames are built after the commit (``transaction.on_commit``). Those of the actions a server
applies for its sockets are returned by :func:`matches.services.play.submit_actions` and
published from the server's loop (:func:`publish_now`, by :mod:`matches.live.batching`);
everything else publishes at once from its thread (:func:`publish`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import threading
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from engine.match import Match as EngineMatch
from matches import selectors
from matches.models import Match, MatchEvent
from matches.wire import json_dumps

log = logging.getLogger(__name__)


def match_group(match_id: int) -> str:
    """The group of every connection to a match: players (all tabs) and spectators."""
    return f"match.{match_id}"


def table_group(table_id: int) -> str:
    """The group of everyone looking at a table (seat changes before the match starts)."""
    return f"table.{table_id}"


#: A message for a group: ``(group name, Channels message)``.
Frame = tuple[str, dict[str, Any]]

_server_loop: asyncio.AbstractEventLoop | None = None
_chains: dict[object, concurrent.futures.Future] = {}
_chains_lock = threading.Lock()


def use_server_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Send from now on through the ASGI server's event loop without waiting (called by the
    consumer): a worker thread of the server hands its broadcast over and goes on."""
    global _server_loop
    _server_loop = loop


#: Seconds one group send may take before it is given up (logged; clients resync with hello).
SEND_TIMEOUT = 10.0


async def _send_all(messages: list[Frame]) -> None:
    layer = get_channel_layer()
    for group, message in messages:  # one per update now: no task per send
        try:
            async with asyncio.timeout(SEND_TIMEOUT):
                await layer.group_send(group, message)
        except TimeoutError:
            log.error("group_send to %s timed out", group)


async def _after(previous: concurrent.futures.Future | None, messages: list) -> None:
    if previous is not None and not previous.done():
        try:
            await asyncio.wrap_future(previous)
        except Exception:  # the previous broadcast failed; this one still goes out
            pass
    await _send_all(messages)


async def publish_now(frames: list[Frame]) -> None:
    """Publish ``frames`` from the server's event loop, in their order (what
    :func:`matches.services.play.submit_actions` returned to the batching on that loop). A
    failure is logged, not raised: the actions are committed, and clients catch up with
    ``hello``."""
    try:
        await _send_all(frames)
    except Exception:
        log.exception("broadcast failed")


def publish(frames: list[Frame], key: object = None) -> None:
    """Publish ``frames`` from any thread without waiting for them to go out (through the
    server's loop when there is one); frames published with the same ``key`` (a match) go out
    in order."""
    _send(frames, key)


_own_loop: asyncio.AbstractEventLoop | None = None
_own_loop_pid = 0
_own_loop_lock = threading.Lock()


def _publishing_loop() -> asyncio.AbstractEventLoop:
    """This process's own event loop for publishing where there is no server loop (a Celery
    worker, a command, a test), running on a daemon thread started at the first publish (and
    again in a forked child). Reused, it keeps the channel layer's Redis connections open:
    ``async_to_sync`` made a new loop, a thread and a Redis connection per publish."""
    global _own_loop, _own_loop_pid
    with _own_loop_lock:
        loop = _own_loop
        if loop is None or _own_loop_pid != os.getpid() or loop.is_closed():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="broadcast", daemon=True)
            thread.start()
            _own_loop, _own_loop_pid = loop, os.getpid()
        return loop


def _in_event_loop() -> bool:
    """Whether this thread runs an event loop (it must not block on another one)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _send(frames: list[Frame], key: object = None) -> None:
    loop = _server_loop
    if loop is None or not loop.is_running() or loop.is_closed():
        if _in_event_loop():  # async_to_sync refuses this, as it always did
            async_to_sync(_send_all)(frames)
            return
        # sent before this returns, as async_to_sync did, in the order of the calls
        asyncio.run_coroutine_threadsafe(_send_all(frames), _publishing_loop()).result()
        return
    with _chains_lock:
        previous = _chains.get(key) if key is not None else None
        future = asyncio.run_coroutine_threadsafe(_after(previous, frames), loop)
        if key is not None:
            _chains[key] = future

    def forget(done: concurrent.futures.Future) -> None:
        with _chains_lock:
            if _chains.get(key) is done:
                del _chains[key]

    if key is not None:
        future.add_done_callback(forget)


def recipient_key(seat: int | None) -> str:
    """The key of a recipient's frame in a ``match.frame`` message (None: the spectators)."""
    return "s" if seat is None else str(seat)


def match_frames(
    match: Match, engine: EngineMatch, event: MatchEvent | None, new_level: bool = True
) -> list[Frame]:
    """The group message that tells every seat and the spectators the new state (and the
    event that led to it), carrying each recipient's frame, each built from that recipient's
    observation only; a connection forwards its own (:mod:`matches.live.ordering`).
    ``new_level``: the event changed the deal's level, so an update carries its ``cards``.
    Nothing is sent: the caller publishes it (:func:`publish`, :func:`publish_now`)."""
    # The spectators' frame goes out also where spectators are not allowed: a referee
    # (matches.services.access) watches every table with it.
    recipients: list[int | None] = [*range(len(match.seats)), None]
    kind = "update" if event is not None else "snapshot"
    texts = {}
    shared = None  # the parts every recipient gets alike, built once
    for r in recipients:
        data = selectors.frame(
            match, engine, r, kind=kind, event=event, shared=shared, cards=new_level or not event
        )
        shared = shared or {k: data[k] for k in ("table", "cards") if k in data}
        texts[recipient_key(r)] = json_dumps(data)
    # ``version`` and ``kind`` let each connection forward the frames in the order of the
    # versions (broadcasts of the worker and of the servers are not ordered with each other)
    message = {"type": "match.frame", "texts": texts, "version": match.version, "kind": kind}
    return [(match_group(match.pk), message)]


def table_changed(table_id: int) -> None:
    """Tell everyone looking at a table that its seats or status changed."""
    _send([(table_group(table_id), {"type": "table.changed", "table": table_id})])


def seats_changed(match_id: int) -> None:
    """Tell everyone at a match that auto-play or the clock changed (public state only)."""
    match = Match.objects.select_related("table").filter(pk=match_id).first()
    if match is None:
        return
    text = json_dumps(
        {"type": "table", "version": match.version, "table": selectors.public_state(match)}
    )
    message = {"type": "match.frame", "text": text, "version": match.version, "kind": "table"}
    _send([(match_group(match_id), message)], key=("match", match_id))


def to_everyone(match_id: int, data: dict[str, Any]) -> None:
    """Send every connection to a match (players, spectators, referees) the frame ``data``,
    the same for all and outside the match's versions, so each forwards it at once (e.g. a
    quick phrase, :mod:`matches.services.phrases`)."""
    message = {"type": "match.frame", "text": json_dumps(data)}
    _send([(match_group(match_id), message)], key=("match", match_id))
