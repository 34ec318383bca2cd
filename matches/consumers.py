"""The websocket of a table: ``/ws/tables/<id>/`` (protocol in README, "Websocket protocol").

Thin: it authenticates the connection (session, via Channels' auth middleware), asks
:mod:`matches.services.access` whether it may watch (a player, a referee, a spectator), works
out the seat, forwards actions to :mod:`matches.services.play` and frames from the seat's
group to the socket. Bad input gets an ``error`` or ``refused`` message; the connection and
the match go on.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import os
import random
import re
import time
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db import DatabaseError, close_old_connections, connection
from django.utils import translation
from redis.exceptions import RedisError

from clubs.models import User
from matches import broadcast, limits, rechecks, selectors, store
from matches.messages import MatchError, refusal_message
from matches.models import MatchStatus
from matches.services import access, phrases, play, presence
from matches.wire import json_dumps

log = logging.getLogger(__name__)

#: Largest text frame accepted, in bytes of UTF-8; larger ones are refused (``too_large``)
#: unparsed. Daphne itself reads frames up to ``config.serve.WEBSOCKET_MAX_MESSAGE`` (far
#: more), so they reach this answer instead of a closed connection.
MAX_FRAME = 8192
#: Messages per second a connection may send (a burst of twice that is tolerated); the limits
#: per user and per address across connections and processes are in :mod:`matches.limits`.
RATE = 50.0
#: Frames of one connection waiting to be handled; more are refused ``rate_limited`` at once.
BACKLOG = 16
#: A connection that went on sending this many frames past its per-connection limit is
#: closed (code 4429): refusing each one still costs the server its reading and answering.
FLOOD = 2 * RATE
#: The frame types that only read (no write thread, a lower limit per user).
READS = frozenset({"hint", "check", "hello"})


#: The threads that run the tables' database and engine work (``MATCHES_THREADS``, default 1).
#: Few on purpose: the work holds the GIL, and every busy thread takes it from the event loop
#: that reads and writes the sockets. One is fastest on SQLite (one writer, no network) and,
#: since a batch costs two round trips there, on PostgreSQL too: the actions that queue while
#: it waits go into the next batch (200 tables: 565-661 actions/s with one thread, 468-540
#: with two, 528-533 with four, p99 260-481 against 435-641 ms, in alternating runs).
THREADS = int(os.environ.get("MATCHES_THREADS", "1"))
_executor = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="matches")
#: The thread of what only reads (``hello``, ``check``, ``hint``): a flood of hints waits
#: here, not in front of the actions of every table of the process.
_reader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="matches-read")
#: The thread of the connections' own bookkeeping on PostgreSQL (who may connect, presence,
#: auto-play and the summary's dismissal): a burst of connections after a restart queues here,
#: not in front of the session lookups of new handshakes on Django's one thread
#: (``database_sync_to_async``, which served all of it before and let 200 of 400 handshakes
#: time out in the server), nor of the actions. On SQLite, which writes one transaction at a time
#: (and whose in-memory test database refuses a read while another connection writes), it
#: stays on Django's thread.
_connections = (
    None
    if connection.vendor == "sqlite"
    else ThreadPoolExecutor(max_workers=1, thread_name_prefix="matches-connections")
)
#: The close code of a connection the server cannot serve now because its database or Redis
#: failed or is saturated (RFC 6455's registry: 1013, "Try Again Later"); the client comes
#: back after a growing delay (docs/protocol.md, "Connecting").
TRY_AGAIN = 1013
#: The close code of a connection over its user's cap of open sockets
#: (``MATCHES_SOCKETS_PER_USER``, across every server process: :mod:`matches.limits`).
TOO_MANY_SOCKETS = 4409
#: The close code of a connection that no longer passes the access rule: its user was removed
#: from the club, lost a role, or their account was deactivated (:mod:`matches.rechecks`).
ACCESS_WITHDRAWN = 4410
#: What a saturated or failing database or Redis raises (psycopg's pool waiting in vain is a
#: database error too).
UNAVAILABLE = (DatabaseError, RedisError, OSError)
#: Seconds an update that arrived before the one it follows is held, waiting for the missing
#: one, before the connection is brought up to date from the database (``events``).
GAP_WAIT = 0.3


async def _in_thread(func: Any, *args: Any, executor: ThreadPoolExecutor = _executor) -> Any:
    """``func(*args)`` on the tables' own thread(s) (see ``_executor``; ``_reader`` for reads),
    not on the loop and not on Channels' one shared thread; stale database connections are
    closed before and after, as ``database_sync_to_async`` does. A plain ``run_in_executor``:
    asgiref's machinery (context copies, thread-sensitivity bookkeeping) cost more than the
    hop itself, on every action."""
    return await asyncio.get_running_loop().run_in_executor(executor, _db_work, func, args)


async def _bookkeeping(func: Any, *args: Any) -> Any:
    """``func(*args)`` on the connections' thread (see ``_connections``)."""
    if _connections is None:
        return await database_sync_to_async(func)(*args)
    return await _in_thread(func, *args, executor=_connections)


def _db_work(func: Any, args: tuple[Any, ...]) -> Any:
    close_old_connections()
    try:
        return func(*args)
    finally:
        close_old_connections()


#: Most actions applied in one batch (one write transaction).
MAX_BATCH = 64


class _ActionQueue:
    """The actions sent to this process's tables, applied in batches on the tables' threads.

    While the threads are busy, the actions that arrive wait here; the next free thread takes
    all of them (up to :data:`MAX_BATCH`) and :func:`play.submit_actions` writes them in
    one transaction: one write lock and one commit for the batch instead of one per action,
    which is what limited a busy server on SQLite (the processes queued for the write lock).
    One queue per event loop; used only from its loop.
    """

    def __init__(self) -> None:
        self.waiting: list[tuple[TableConsumer, dict[str, Any], asyncio.Future]] = []
        self.running = 0

    async def submit(self, consumer: TableConsumer, data: dict[str, Any]) -> dict[str, Any]:
        """The answer to action message ``data`` of ``consumer``: ``ack`` or ``refused``."""
        future = asyncio.get_running_loop().create_future()
        self.waiting.append((consumer, data, future))
        self._start()
        return await future

    def _start(self) -> None:
        while self.waiting and self.running < THREADS:
            batch, self.waiting = self.waiting[:MAX_BATCH], self.waiting[MAX_BATCH:]
            self.running += 1
            asyncio.ensure_future(self._run(batch))

    async def _run(self, batch: list[tuple[TableConsumer, dict[str, Any], asyncio.Future]]) -> None:
        try:
            answers, frames = await _in_thread(_submit_batch, [(c, d) for c, d, _ in batch])
            if frames:
                await broadcast.publish_now(frames)
        except Exception as error:
            answers = [error] * len(batch)
        finally:
            self.running -= 1
            self._start()
        for (_, _, future), answer in zip(batch, answers, strict=True):
            if future.done():  # its connection closed meanwhile
                continue
            if isinstance(answer, Exception):
                future.set_exception(answer)
            else:
                future.set_result(answer)


_queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _ActionQueue] = (
    weakref.WeakKeyDictionary()
)


def _action_queue() -> _ActionQueue:
    loop = asyncio.get_running_loop()
    queue = _queues.get(loop)
    if queue is None:
        queue = _queues[loop] = _ActionQueue()
    return queue


#: Answers of ``hint`` / ``check`` by (match, version, seat, type, cards): see ``_check``.
_reads: dict[tuple, tuple[int | None, Any]] = {}


def _submit_batch(items: list[tuple[TableConsumer, dict[str, Any]]]) -> tuple[list[Any], list]:
    """Apply the actions of ``items`` (on a tables' thread): each one's answer in its
    connection's language, or the exception that stopped it."""
    answers: list[Any] = []
    requests: list[play.ActionRequest] = []
    for consumer, data in items:
        checked = consumer._request(data)
        answers.append(checked if isinstance(checked, dict) else None)
        if not isinstance(checked, dict):
            requests.append(checked)
    submitted = play.submit_actions(requests)
    outcomes = iter(submitted.outcomes)
    for k, (consumer, data) in enumerate(items):
        if answers[k] is not None:
            continue
        outcome = next(outcomes)
        if isinstance(outcome, play.Accepted):
            answers[k] = {"type": "ack", "id": data.get("id"), "version": outcome.version}
        elif isinstance(outcome, MatchError):
            with translation.override(consumer.language):
                answers[k] = {"type": "refused", "id": data.get("id"), **outcome.to_json()}
        else:
            answers[k] = outcome
    return answers, submitted.frames


class Consumer(AsyncWebsocketConsumer):
    """Channels' websocket consumer with a leaner loop around the handlers.

    Channels waits for the socket and the channel layer with a new task and an
    ``asyncio.wait`` for every message, and closes stale database connections on a thread
    before every handler (a hop there and back). Here one task per source receives and
    hands each message to :meth:`dispatch`, one handler at a time as in Channels (a lock),
    and the database work closes its own connections (:func:`_in_thread`,
    ``database_sync_to_async``): this loop runs for every frame in and every update out.
    """

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Serve one connection: its frames and its channel's messages, until it closes."""
        self.scope = scope
        self.channel_layer = get_channel_layer(self.channel_layer_alias)
        self.channel_name = await self.channel_layer.new_channel()
        self.channel_receive = functools.partial(self.channel_layer.receive, self.channel_name)
        self.base_send = send
        one_at_a_time = asyncio.Lock()
        pumps = [
            asyncio.ensure_future(self._pump(source, one_at_a_time))
            for source in (receive, self.channel_receive)
        ]
        try:
            done, _ = await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
            for pump in done:
                pump.result()  # StopConsumer (the socket closed), or what a handler raised
        except StopConsumer:
            pass
        finally:
            for pump in pumps:
                pump.cancel()
            await asyncio.gather(*pumps, return_exceptions=True)

    async def _pump(self, source: Any, one_at_a_time: asyncio.Lock) -> None:
        while True:
            message = await source()
            async with one_at_a_time:
                await self.dispatch(message)

    #: True once the server closed the socket: nothing is sent after that.
    closing = False

    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None:
        """Send a frame, unless the socket is closing: what was queued or broadcast before the
        close is dropped (a send after ``websocket.close`` is an error in the server)."""
        if not self.closing:
            await super().send(text_data, bytes_data, close)

    async def close(self, code: int | bool | None = None, reason: str | None = None) -> None:
        """Close the socket from the server's end (once; later calls do nothing)."""
        if not self.closing:
            self.closing = True
            await super().close(code, reason)

    async def dispatch(self, message: dict[str, Any]) -> None:
        """The message's handler, without Channels' closing of stale database connections
        first (see the class)."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)


class TableConsumer(Consumer):
    """One websocket connection to a table: a player's seat, or a spectator."""

    async def connect(self) -> None:
        """Accept (the handshake needs no query but the session's), then work out the seat,
        join the groups and send the state; refuse spectators where not allowed. A database
        or Redis that fails meanwhile closes the connection with :data:`TRY_AGAIN`."""
        broadcast.use_server_loop(asyncio.get_running_loop())
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.user = self.scope.get("user")
        self.language = self._language()
        self.match_id: int | None = None
        self.seat: int | None = None
        self.groups_joined: list[str] = []
        self.allowance = RATE * 2
        self.last_check = time.monotonic()
        #: The newest version sent to this connection: an older frame is not forwarded.
        self.sent_version = -1
        #: Frames of versions after the next one expected, by version (see match_frame).
        self.held: dict[int, list[tuple[str, str]]] = {}
        self.gap: asyncio.Task | None = None
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.attaching = asyncio.Lock()
        self.limits = limits.identity(self.scope)
        self.slot = False
        if not await limits.connect_allowed(self.limits):
            await self.close()  # before accepting: the handshake is refused (403)
            return
        self.slot = await limits.take_socket_slot(self.limits, self.channel_name)
        if not self.slot:  # accepted, to give the reason: a refused handshake carries none
            await self.accept()
            await self.close(code=TOO_MANY_SOCKETS, reason="too_many_sockets")
            return
        self.slot_keeper = asyncio.create_task(self._keep_slot())
        self.server = asyncio.create_task(self._serve())
        await self.accept()
        try:
            # joined before the match is read: a match starting meanwhile is not missed
            await self._join(broadcast.table_group(self.table_id))
            if self.limits.user_id is not None:  # told when their access may have changed
                await self._join(rechecks.user_group(self.limits.user_id))
            await self._attach()
        except UNAVAILABLE:
            log.warning("table %s: connection closed, retry later", self.table_id, exc_info=True)
            await self.close(code=TRY_AGAIN)

    # ------------------------------------------------------------------ sync helpers (DB)
    def _language(self) -> str:
        """The connection's language: its user's (loaded with the session), else the language
        cookie's, else the site's."""
        user = self.user
        if user is not None and user.is_authenticated and getattr(user, "language", ""):
            return user.language
        cookies = self.scope.get("cookies") or {}
        code = cookies.get(settings.LANGUAGE_COOKIE_NAME, "")
        codes = {c for c, _ in settings.LANGUAGES}
        return code if code in codes else settings.LANGUAGE_CODE

    def _open(self, channel_name: str) -> tuple[str | None, int | None, int | None]:
        """``(refusal, match id, seat)`` of this connection: the reason code to refuse it
        (None: it may stay: a player, a referee or a spectator, as
        :func:`matches.services.access.watch` decides), and once its table's match exists,
        the match and the user's seat (None: a spectator), the connection recorded as
        present."""
        try:
            _, match = access.watch(self.user, self.table_id)
        except MatchError as error:
            return error.code, None, None
        if match is None:
            return None, None, None
        seat = selectors.seat_of(match, self.user)
        if match.status == MatchStatus.PLAYING:
            presence.connected(match.pk, seat, channel_name, autoplay=match.autoplay)
        return None, match.pk, seat

    def _recheck(self) -> str | None:
        """The reason code to close this connection now (None: it may stay), asking
        :func:`matches.services.access.watch` again with its user as stored now (a deactivated
        or deleted account is an anonymous visitor)."""
        user = self.user
        if user is not None and user.is_authenticated:
            fresh = User.objects.filter(pk=user.pk, is_active=True).first()
            self.user = fresh if fresh is not None else AnonymousUser()
        try:
            access.watch(self.user, self.table_id)
        except MatchError as error:
            return error.code
        return None

    def _sync_frame(self, version: Any) -> dict[str, Any] | None:
        """The answer to ``hello``: the missing events and the current state, or a snapshot."""
        match = store.read(self.match_id)
        if match is None:
            return None
        engine = store.engine_of(match)
        try:
            if (
                isinstance(version, int)
                and not isinstance(version, bool)
                and 0 <= version <= match.version
                and match.version - version <= selectors.MAX_MISSING_EVENTS
            ):
                events = selectors.events_after(match, version)
                return selectors.frame(match, engine, self.seat, kind="events", events=events)
            return selectors.frame(match, engine, self.seat, kind="snapshot")
        finally:
            store.keep_engine(match.pk, match.version, engine)

    def _request(self, data: dict[str, Any]) -> play.ActionRequest | dict[str, Any]:
        """The action request of message ``data``, or the refusal to answer at once."""
        action = data.get("action")
        seq = data.get("seq")
        if seq is not None and (not isinstance(seq, int) or isinstance(seq, bool)):
            return self._refusal("bad_message", data)
        if self.match_id is None:
            return self._refusal("not_started", data)
        if self.seat is None:
            return self._refusal("spectator", data)
        if not isinstance(action, dict):
            return self._refusal("invalid_action", data)
        return play.ActionRequest(
            self.match_id, action, self.seat, user=self.user, expected_version=seq
        )

    def _check(self, data: dict[str, Any]) -> dict[str, Any]:
        """The answer to ``check`` / ``hint``. Their plays depend only on the match version,
        the seat and the cards asked about, so they are computed once per version and kept
        (:data:`_reads`): a member asking again and again, from one socket or thirty, costs one
        small query each, not the legal plays of a full hand."""
        with translation.override(self.language):
            if self.match_id is None or self.seat is None:
                return _refused(data, "spectator" if self.match_id else "not_started")
            version = store.version_of(self.match_id)
            kind, cards = data["type"], data.get("cards")
            if kind == "hint" and data.get("arrange") is True:
                kind = "arrange"  # 理牌: the groups of this seat's own hand (protocol)
            asked = tuple(cards) if isinstance(cards, list) and len(cards) <= 60 else None
            if asked is not None and not all(isinstance(c, str) for c in asked):
                asked = None
            key = (self.match_id, version, self.seat, kind, asked)
            outcome = _reads.get(key)
            if outcome is None or kind == "check" and asked is None:
                outcome = self._read_plays(kind, cards)
                if outcome[0] is not None:
                    if len(_reads) >= 10_000:
                        _reads.clear()
                    _reads[(*key[:1], outcome[0], *key[2:])] = outcome  # its own version
            version, plays = outcome
            if isinstance(plays, MatchError):
                return {"type": "refused", "id": data.get("id"), **plays.to_json()}
            if kind == "arrange":
                return {"type": "arranged", "id": data.get("id"), "version": version, **plays}
            answer = "hints" if kind == "hint" else "checked"
            return {"type": answer, "id": data.get("id"), "version": version, "plays": plays}

    def _read_plays(self, kind: str, cards: Any) -> tuple[int | None, Any]:
        """``(version, plays)`` of a ``hint`` or ``check`` from the match's engine (plays: the
        :class:`MatchError` refusing a selection)."""
        match = store.read(self.match_id)
        if match is None:
            return None, MatchError("not_started")
        engine = store.engine_of(match)
        try:
            if kind == "hint":
                return match.version, selectors.hints(engine, self.seat)
            if kind == "arrange":
                return match.version, selectors.arrangement(engine, self.seat)
            return match.version, selectors.check_selection(engine, self.seat, cards)
        except MatchError as error:
            return match.version, error
        finally:
            store.keep_engine(match.pk, match.version, engine)

    def _autoplay(self, data: dict[str, Any]) -> dict[str, Any]:
        with translation.override(self.language):
            if self.match_id is None or self.seat is None:
                return _refused(data, "spectator" if self.match_id else "not_started")
            presence.set_autoplay(self.match_id, self.seat, "timeout" if data.get("on") else "")
            return {"type": "ack", "id": data.get("id")}

    def _dismiss(self, data: dict[str, Any]) -> dict[str, Any]:
        with translation.override(self.language):
            if self.match_id is None or self.seat is None:
                return _refused(data, "spectator" if self.match_id else "not_started")
            try:
                play.dismiss_summary(self.match_id, self.seat, data.get("deal"))
            except MatchError as error:
                return {"type": "refused", "id": data.get("id"), **error.to_json()}
            return {"type": "ack", "id": data.get("id")}

    def _refusal(self, code: str, data: Any = None) -> dict[str, Any]:
        with translation.override(self.language):
            return _refused(data if isinstance(data, dict) else {}, code)

    # ------------------------------------------------------------------ async side
    async def _join(self, group: str) -> None:
        if group not in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
            self.groups_joined.append(group)

    async def _attach(self) -> None:
        """Work out whether the connection may stay and its seat; once the match exists,
        join the seat's (or the spectators') group and send a snapshot (once: a ``hello``
        and a ``table_changed`` may ask at the same time)."""
        async with self.attaching:
            if self.match_id is not None:
                return
            refusal, match_id, seat = await _bookkeeping(self._open, self.channel_name)
            if refusal is not None:
                await self._error(refusal)
                await self.close(code=4403)
                return
            if match_id is None:
                await self.send(text_data=json.dumps({"type": "waiting", "table": self.table_id}))
                return
            self.match_id, self.seat = match_id, seat
            self.heartbeat = asyncio.create_task(self._heartbeat())
            await self._join(broadcast.match_group(match_id))
            await self._send_state(await _in_thread(self._sync_frame, None, executor=_reader))

    async def _heartbeat(self) -> None:
        """Confirm this connection's presence now and then (a crashed server's rows expire)."""
        while True:
            await asyncio.sleep(presence.PRESENCE_HEARTBEAT * random.uniform(0.8, 1.0))
            try:
                await _bookkeeping(presence.heartbeat, self.channel_name)
            except Exception:  # a busy database: the next beat tries again
                log.warning("presence heartbeat of %s failed", self.channel_name)

    async def _keep_slot(self) -> None:
        """Renew this connection's slot among its user's open sockets while it lives (a
        crashed process's slots lapse: :data:`matches.limits.SLOT_TTL`)."""
        while True:
            await asyncio.sleep(limits.SLOT_RENEW * random.uniform(0.8, 1.0))
            await limits.renew_socket_slot(self.limits, self.channel_name)

    async def close(self, code: int | bool | None = None, reason: str | None = None) -> None:
        """Close the socket; the frames still queued are not handled (see :meth:`Consumer.send`)."""
        await super().close(code, reason)
        server = getattr(self, "server", None)
        if server is not None:
            server.cancel()  # (when this is the server's task: at its next wait)

    async def disconnect(self, code: int) -> None:
        """Leave the groups and free the socket's slot; a player with no connection left goes
        on auto-play."""
        names = ("heartbeat", "server", "gap", "slot_keeper")
        for task in (getattr(self, name, None) for name in names):
            if task is not None:
                task.cancel()
        if getattr(self, "slot", False):
            self.slot = False
            await limits.free_socket_slot(self.limits, self.channel_name)
        try:
            for group in self.groups_joined:
                await self.channel_layer.group_discard(group, self.channel_name)
            if self.match_id is not None:
                await _bookkeeping(presence.disconnected, self.channel_name)
        except UNAVAILABLE:  # the presence row expires (PRESENCE_TTL), the group's membership too
            log.warning("table %s: the end of a connection was not recorded", self.table_id)

    async def websocket_receive(self, message: dict[str, Any]) -> None:
        """A frame arrived: refused at once if it is too large, malformed or over a limit
        (counted here, on arrival, not when its turn comes), else queued for :meth:`_serve`.
        Every refusal carries the frame's ``id`` when it can be read. Nothing is read once the
        socket is closing."""
        if self.closing:
            return
        text = message.get("text")
        if text is None:
            await self._send_json(self._refusal("bad_message"))
            return
        if not self._allowed():  # this connection alone is over its limit: nothing is parsed
            await self._send_json(self._refusal("rate_limited", {"id": _frame_id(text)}))
            if self.allowance <= -FLOOD:
                await self.close(code=4429)
            return
        if _utf8_size(text) > MAX_FRAME:
            await self._send_json(self._refusal("too_large", {"id": _frame_id(text)}))
            return
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):  # RecursionError: nesting too deep to decode
            await self._send_json(self._refusal("bad_json", {"id": _frame_id(text)}))
            return
        if (
            not isinstance(data, dict)
            or not isinstance(data.get("type"), str)
            or not self._clean(data)
        ):
            await self._send_json(self._refusal("bad_message"))
            return
        if self.inbox.qsize() >= BACKLOG or not await limits.allowed(
            self.limits, data["type"] in READS
        ):
            await self._send_json(self._refusal("rate_limited", data))
            return
        self.inbox.put_nowait(data)

    async def _serve(self) -> None:
        """Handle the queued frames of this connection one after another (their answers in
        order); a failure is logged and the next frame is handled."""
        while True:
            data = await self.inbox.get()
            try:
                await self.receive_message(data)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("table %s: a %s message failed", self.table_id, data.get("type"))
                await self._send_json(self._refusal("bad_message", data))

    async def receive_message(self, data: dict[str, Any]) -> None:
        """Handle one decoded, checked client message (see the protocol)."""
        kind = data["type"]
        if kind == "autoplay" and not isinstance(data.get("on"), bool):
            await self._send_json(self._refusal("bad_message", data))
            return
        if kind == "ping":
            await self._send_json({"type": "pong", "id": data.get("id")})
        elif kind == "hello":
            if self.match_id is None:
                await self._attach()
                return
            answer = await _in_thread(self._sync_frame, data.get("version"), executor=_reader)
            await self._send_state(answer)
        elif kind == "action":
            await self._send_json(await _action_queue().submit(self, data))
        elif kind in ("check", "hint"):
            await self._send_json(await _in_thread(self._check, data, executor=_reader))
        elif kind == "autoplay":
            await self._send_json(await _bookkeeping(self._autoplay, data))
        elif kind == "dismiss_summary":
            await self._send_json(await _bookkeeping(self._dismiss, data))
        elif kind == "phrase":  # a quick phrase: matches.services.phrases decides and sends
            args = (self.match_id, self.seat, data, self.language)
            await self._send_json(await _in_thread(phrases.answer, *args, executor=_reader))
        else:
            await self._send_json(self._refusal("unknown_type", data))

    @staticmethod
    def _clean(data: Any) -> bool:
        """True if decoded frame ``data`` holds only what a message may: no NUL character or
        lone surrogate in any string or key (PostgreSQL cannot store them; UTF-8 cannot
        encode a lone surrogate), no integer outside 64 bits, no NaN or infinity, and
        nesting at most 16 deep."""
        stack = [(data, 0)]
        while stack:
            value, depth = stack.pop()
            if isinstance(value, str):
                if "\x00" in value:
                    return False
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError:  # a lone surrogate ("\ud800")
                    return False
            elif isinstance(value, bool) or value is None:
                continue
            elif isinstance(value, int):
                if not -(2**63) <= value < 2**63:
                    return False
            elif isinstance(value, float):
                if value != value or value in (float("inf"), float("-inf")):
                    return False
            elif depth >= 16:
                return False
            elif isinstance(value, dict):
                stack.extend((item, depth + 1) for pair in value.items() for item in pair)
            else:
                stack.extend((item, depth + 1) for item in value)
        return True

    def _allowed(self) -> bool:
        """Take one frame from this connection's allowance (refilled at :data:`RATE` a second,
        at most twice that); False when there was none. A refused frame still counts, down to
        ``-FLOOD`` (then the connection is closed)."""
        now = time.monotonic()
        self.allowance = min(RATE * 2, self.allowance + (now - self.last_check) * RATE)
        self.last_check = now
        self.allowance = max(-FLOOD, self.allowance - 1)
        return self.allowance >= 0

    async def _error(self, code: str) -> None:
        await self._send_json(self._refusal(code))

    async def _send_json(self, data: dict[str, Any] | None) -> None:
        if data is not None:
            await self.send(text_data=json_dumps(data))

    async def _send_state(self, data: dict[str, Any] | None) -> None:
        """Send a state frame (``snapshot``/``events``, read from the database), remember its
        version and forward what was held for the versions after it."""
        if data is not None:
            self.sent_version = max(self.sent_version, data.get("version", -1))
            await self.send(text_data=json_dumps(data))
            await self._release()

    # ------------------------------------------------------------------ group messages
    async def match_frame(self, message: dict[str, Any]) -> None:
        """A match's frames: forward the one built for this connection's seat (``texts``, by
        seat number or ``"s"`` for the spectators), or the one ``text`` for everyone, **in
        the order of the match's versions**.

        Broadcasts come from several processes (the worker's bots, auto-play and clock, each
        ASGI server's players) and are not ordered with each other, so the version is the
        sequence: an ``update`` to version v + 1 is forwarded after the one to v, a ``table``
        frame of version v after the update to v, a ``snapshot`` at once; anything older than
        what was sent is dropped, so is an update sent already. A frame that comes before the
        one it follows is held; if that one has not come after :data:`GAP_WAIT` seconds, the
        connection gets the missing events and the state from the database (an ``events``
        frame), and what was held and is older is dropped."""
        text = message.get("text")
        if text is None:
            text = message["texts"].get(broadcast.recipient_key(self.seat))
        version = message.get("version")
        # (a server of the release before sends "event" instead of "kind")
        kind = message.get("kind") or ("update" if message.get("event") else "table")
        if text is None:
            return
        if version is None or kind == "snapshot" and version > self.sent_version:
            if version is not None:
                self.sent_version = version
            await self.send(text_data=text)
            await self._release()
            return
        due = self.sent_version + (1 if kind == "update" else 0)
        if version < due:
            return  # older than what was sent, or sent already
        if version == due and self.sent_version >= 0:
            self.sent_version = version
            await self.send(text_data=text)
            await self._release()
            return
        self.held.setdefault(version, []).append((kind, text))
        if self.gap is None and self.sent_version >= 0:
            self.gap = asyncio.create_task(self._fill_gap())

    async def _release(self) -> None:
        """Forward the held frames that are due now, in order; drop those older."""
        for version in sorted(self.held):
            if version > self.sent_version + 1:
                break
            frames = self.held.pop(version)
            if version <= self.sent_version:  # a table frame of the version sent last
                for kind, text in frames:
                    if kind != "update" and version == self.sent_version:
                        await self.send(text_data=text)
                continue
            if not any(kind == "update" for kind, _ in frames):
                self.held[version] = frames  # its update has still to come
                break
            self.sent_version = version
            frames.sort(key=lambda frame: frame[0] != "update")
            for _kind, text in frames:
                await self.send(text_data=text)
        if not self.held and self.gap is not None and self.gap is not asyncio.current_task():
            self.gap.cancel()
            self.gap = None

    async def _fill_gap(self) -> None:
        """After :data:`GAP_WAIT`, bring the connection up to date from the database if a
        frame it was sent is still missing (an ``events`` frame, as a ``hello`` gets); again
        while one is."""
        await asyncio.sleep(GAP_WAIT)
        try:
            if self.held:
                answer = await _in_thread(self._sync_frame, self.sent_version, executor=_reader)
                if answer is not None and answer["version"] > self.sent_version:
                    await self._send_state(answer)
        except Exception:  # the database away: try again (the client's hello also catches up)
            log.warning("table %s: a missing update was not filled", self.table_id)
        self.gap = None
        if self.held:
            self.gap = asyncio.create_task(self._fill_gap())

    async def access_recheck(self, message: dict[str, Any]) -> None:
        """The user's access may have changed (:mod:`matches.rechecks`): ask again; if the
        connection no longer passes, send the reason (a ``refused`` frame) and close it with
        :data:`ACCESS_WITHDRAWN`. Nothing is sent after that (:meth:`Consumer.send`)."""
        if self.closing:
            return
        try:
            refusal = await _bookkeeping(self._recheck)
        except UNAVAILABLE:  # the next recheck, or a new connection, decides
            log.warning("table %s: access not checked again", self.table_id)
            return
        if refusal is not None:
            await self._error(refusal)
            await self.close(code=ACCESS_WITHDRAWN)

    async def table_changed(self, message: dict[str, Any]) -> None:
        """Seats changed or the match started: tell the client; attach to a new match."""
        await self.send(text_data=json.dumps({"type": "table_changed", "table": self.table_id}))
        await self._attach()


def _utf8_size(text: str) -> int:
    """The size of ``text`` in bytes of UTF-8 (a lone surrogate counted as three), without
    encoding what is surely too large or plain ASCII."""
    if len(text) > MAX_FRAME or text.isascii():
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


#: The ``id`` of a frame that is not decoded (too large or malformed): a number or a short
#: string after ``"id":`` near its start.
_ID = re.compile(r'"id"\s*:\s*(-?\d{1,18}(?![\d.eE])|"[^"\\]{0,64}")')


def _frame_id(text: str) -> Any:
    """The ``id`` of an undecoded frame, when it can be read from its first 4 KiB and may be
    echoed (no NUL or lone surrogate: see :meth:`TableConsumer._clean`), else None. Never
    raises: it is read for the refusals of frames that are malformed to begin with."""
    found = _ID.search(text, 0, 4096)
    if found is None:
        return None
    try:
        value = json.loads(found.group(1))
    except ValueError:  # a raw control character (a NUL) in the string: not JSON
        return None
    return value if TableConsumer._clean(value) else None


def _refused(data: dict[str, Any], code: str) -> dict[str, Any]:
    return {"type": "refused", "id": data.get("id"), "code": code, "message": refusal_message(code)}


class BroadcastBenchConsumer(AsyncWebsocketConsumer):
    """The load test's baseline: a bare Channels group broadcast (``/ws/bench/<group>/``),
    Channels' own consumer as any Channels application has it (its loop and its closing of
    stale database connections before every message, which the tables' :class:`Consumer`
    leaves out: docs/benchmarks.md compares both).

    Every text frame received is sent to the whole group, with no database, engine or
    authentication. Routed only when ``MATCHES_BENCH_WEBSOCKET`` is on (default: DEBUG).
    """

    async def connect(self) -> None:
        """Join the group named in the URL."""
        self.group = f"bench.{self.scope['url_route']['kwargs']['group']}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        """Leave the group."""
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Broadcast the frame (at most MAX_FRAME bytes) to the group."""
        if text_data is not None and _utf8_size(text_data) <= MAX_FRAME:
            await self.channel_layer.group_send(
                self.group, {"type": "bench.frame", "text": text_data}
            )

    async def bench_frame(self, message: dict[str, Any]) -> None:
        """Forward a broadcast frame."""
        await self.send(text_data=message["text"])
