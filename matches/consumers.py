"""The websocket of a table: ``/ws/tables/<id>/`` (the protocol: docs/protocol.md).

An adapter between a socket and live play (:mod:`matches.live`): it authenticates the
connection (the session, via Channels' auth middleware), caps it (:mod:`matches.limits`),
asks :mod:`matches.live.answers` whether it may watch and what it sees, hands actions to
:mod:`matches.live.batching` and forwards its group's frames in version order
(:mod:`matches.live.ordering`). Bad input gets an ``error`` or ``refused`` frame; the
connection and the match go on.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from typing import Any

from django.db import DatabaseError
from redis.exceptions import RedisError

from matches import broadcast, limits, rechecks
from matches.live import answers, batching, intake, threads
from matches.live.loop import Consumer
from matches.live.ordering import Forwarder
from matches.services import phrases, presence
from matches.wire import json_dumps

log = logging.getLogger(__name__)

#: The close code of a connection the server cannot serve now because its database or Redis
#: failed or is saturated (RFC 6455's "Try Again Later"); the client comes back after a
#: growing delay (docs/protocol.md, "Connecting").
TRY_AGAIN = 1013
#: The close code of a connection over its user's cap of open sockets (:mod:`matches.limits`).
TOO_MANY_SOCKETS = 4409
#: The close code of a connection that no longer passes the access rule (:mod:`matches.rechecks`).
ACCESS_WITHDRAWN = 4410
#: What a saturated or failing database or Redis raises (psycopg's pool waiting in vain too).
UNAVAILABLE = (DatabaseError, RedisError, OSError)


class TableConsumer(Consumer):
    """One websocket connection to a table: a player's seat, or a spectator."""

    async def connect(self) -> None:
        """Accept (the handshake needs no query but the session's), then work out the seat,
        join the groups and send the state. A database or Redis that fails meanwhile closes
        the connection with :data:`TRY_AGAIN`; one over its user's cap, :data:`TOO_MANY_SOCKETS`."""
        broadcast.use_server_loop(asyncio.get_running_loop())
        self.viewer = answers.Viewer(
            int(self.scope["url_route"]["kwargs"]["table_id"]),
            self.scope.get("user"),
            answers.language_of(self.scope),
        )
        self.groups_joined: list[str] = []
        self.allowance = intake.Allowance()
        self.forward = Forwarder(self.send, self._state_after)
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
        self.slot_keeper = asyncio.create_task(self._every(limits.SLOT_RENEW, self._renew))
        self.server = asyncio.create_task(self._serve())
        await self.accept()
        try:
            # joined before the match is read: a match starting meanwhile is not missed
            await self._join(broadcast.table_group(self.viewer.table_id))
            if self.limits.user_id is not None:  # told when their access may have changed
                await self._join(rechecks.user_group(self.limits.user_id))
            await self._attach()
        except UNAVAILABLE:
            log.warning("table %s: connection closed, retry later", self.viewer.table_id)
            await self.close(code=TRY_AGAIN)

    async def _join(self, group: str) -> None:
        if group not in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
            self.groups_joined.append(group)

    async def _attach(self) -> None:
        """Once the match exists, join its group and send a snapshot (once: a ``hello`` and
        a ``table_changed`` may ask at the same time); refuse who may not watch (4403)."""
        async with self.attaching:
            if self.viewer.match_id is not None:
                return
            refusal, match_id, seat = await threads.run(
                threads.BOOKKEEPING, answers.open_viewer, self.viewer, self.channel_name
            )
            if refusal is not None:
                await self._send_json(self._refused({}, refusal))
                await self.close(code=4403)
                return
            if match_id is None:
                await self._send_json({"type": "waiting", "table": self.viewer.table_id})
                return
            self.viewer.match_id, self.viewer.seat = match_id, seat
            self.heartbeat = asyncio.create_task(
                self._every(presence.PRESENCE_HEARTBEAT, self._beat)
            )
            await self._join(broadcast.match_group(match_id))
            await self._send_state(await self._state_after(None))

    async def _every(self, seconds: float, work: Any) -> None:
        while True:
            await asyncio.sleep(seconds * random.uniform(0.8, 1.0))
            await work()

    async def _beat(self) -> None:
        """Confirm the connection's presence (a crashed server's rows expire)."""
        try:
            await threads.run(threads.BOOKKEEPING, presence.heartbeat, self.channel_name)
        except Exception:  # a busy database: the next beat tries again
            log.warning("presence heartbeat of %s failed", self.channel_name)

    async def _renew(self) -> None:
        """Renew the slot among the user's sockets (a crashed process's slots lapse)."""
        await limits.renew_socket_slot(self.limits, self.channel_name)

    async def close(self, code: int | bool | None = None, reason: str | None = None) -> None:
        """Close the socket; the frames still queued are not handled (nor anything sent)."""
        await super().close(code, reason)
        server = getattr(self, "server", None)
        if server is not None:
            server.cancel()  # (when this is the server's task: at its next wait)

    async def disconnect(self, code: int) -> None:
        """Leave the groups and free the socket's slot; a player with no connection left goes
        on auto-play."""
        for name in ("heartbeat", "server", "slot_keeper"):
            task = getattr(self, name, None)
            if task is not None:
                task.cancel()
        if getattr(self, "forward", None) is not None:
            self.forward.stop()
        if getattr(self, "slot", False):
            self.slot = False
            await limits.free_socket_slot(self.limits, self.channel_name)
        try:
            for group in getattr(self, "groups_joined", ()):
                await self.channel_layer.group_discard(group, self.channel_name)
            if getattr(self, "viewer", None) is not None and self.viewer.match_id is not None:
                await threads.run(threads.BOOKKEEPING, presence.disconnected, self.channel_name)
        except UNAVAILABLE:  # the presence row expires (PRESENCE_TTL), the group's membership too
            log.warning("table %s: the end of a connection was not recorded", self.viewer.table_id)

    async def websocket_receive(self, message: dict[str, Any]) -> None:
        """A frame arrived: refused at once if it is over a limit (counted on arrival, not when
        its turn comes), too large or malformed, else queued for :meth:`_serve`. Every refusal
        carries the frame's ``id`` when it can be read. Nothing is read once closing."""
        if self.closing:
            return
        text = message.get("text")
        if text is None:
            await self._send_json(self._refused({}, "bad_message"))
            return
        if not self.allowance.take():  # this connection alone is over its limit: not parsed
            await self._send_json(self._refused({"id": intake.frame_id(text)}, "rate_limited"))
            if self.allowance.flooding:
                await self.close(code=4429)
            return
        data = intake.read(text)
        if isinstance(data, str):
            frame_id = intake.frame_id(text) if data != "bad_message" else None
            await self._send_json(self._refused({"id": frame_id}, data))
            return
        if self.inbox.qsize() >= intake.BACKLOG or not await limits.allowed(
            self.limits, data["type"] in intake.READS
        ):
            await self._send_json(self._refused(data, "rate_limited"))
            return
        self.inbox.put_nowait(data)

    async def _serve(self) -> None:
        """Handle the queued frames one after another (their answers in order); a failure is
        logged and the next frame is handled."""
        while True:
            data = await self.inbox.get()
            try:
                await self._send_json(await self._answer(data))
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("table %s: a %s message failed", self.viewer.table_id, data["type"])
                await self._send_json(self._refused(data, "bad_message"))

    async def _answer(self, data: dict[str, Any]) -> dict[str, Any] | None:
        """The answer to one decoded, checked client message (docs/protocol.md)."""
        kind, viewer = data["type"], self.viewer
        if kind == "action":
            request = answers.action_request(viewer, data)
            if isinstance(request, str):
                return self._refused(data, request)
            return await batching.submit(request, data.get("id"), viewer.language)
        if kind == "ping":
            return {"type": "pong", "id": data.get("id")}
        if kind == "hello":
            if viewer.match_id is None:
                await self._attach()
                return None
            await self._send_state(await self._state_after(data.get("version")))
            return None
        if kind in ("check", "hint"):
            return await threads.run(threads.READS, answers.check, viewer, data)
        if kind == "autoplay":
            if not isinstance(data.get("on"), bool):
                return self._refused(data, "bad_message")
            return await threads.run(threads.BOOKKEEPING, answers.autoplay, viewer, data)
        if kind == "dismiss_summary":
            return await threads.run(threads.BOOKKEEPING, answers.dismiss, viewer, data)
        if kind == "phrase":  # a quick phrase: matches.services.phrases decides and sends
            args = (viewer.match_id, viewer.seat, data, viewer.language)
            return await threads.run(threads.READS, phrases.answer, *args)
        return self._refused(data, "unknown_type")

    def _refused(self, data: dict[str, Any], code: str) -> dict[str, Any]:
        return answers.refused(data, code, self.viewer.language)

    async def _send_json(self, data: dict[str, Any] | None) -> None:
        if data is not None:
            await self.send(text_data=json_dumps(data))

    async def _send_state(self, data: dict[str, Any] | None) -> None:
        """Send a state frame (``snapshot``/``events``) and what was held for after it."""
        if data is not None:
            await self.forward.state(json_dumps(data), data.get("version", -1))

    async def _state_after(self, version: Any) -> dict[str, Any] | None:
        """The connection's state frame after ``version`` (:func:`answers.state`)."""
        return await threads.run(threads.READS, answers.state, self.viewer, version)

    async def match_frame(self, message: dict[str, Any]) -> None:
        """A match's frames: forward the one built for this connection's seat (``texts``, by
        seat number or ``"s"``), or the one ``text`` for everyone, in version order."""
        text = message.get("text")
        if text is None:
            text = message["texts"].get(broadcast.recipient_key(self.viewer.seat))
        if text is not None:  # (a server of the release before sends "event", not "kind")
            kind = message.get("kind") or ("update" if message.get("event") else "table")
            await self.forward.incoming(kind, message.get("version"), text)

    async def access_recheck(self, message: dict[str, Any]) -> None:
        """The user's access may have changed (:mod:`matches.rechecks`): ask again; if the
        connection no longer passes, send the reason (a ``refused`` frame) and close it with
        :data:`ACCESS_WITHDRAWN`. Nothing is sent after that."""
        if self.closing:
            return
        try:
            refusal = await threads.run(threads.BOOKKEEPING, answers.recheck, self.viewer)
        except UNAVAILABLE:  # the next recheck, or a new connection, decides
            log.warning("table %s: access not checked again", self.viewer.table_id)
            return
        if refusal is not None:
            await self._send_json(self._refused({}, refusal))
            await self.close(code=ACCESS_WITHDRAWN)

    async def table_changed(self, message: dict[str, Any]) -> None:
        """Seats changed or the match started: tell the client; attach to a new match."""
        await self.send(
            text_data=json.dumps({"type": "table_changed", "table": self.viewer.table_id})
        )
        await self._attach()
