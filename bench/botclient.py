"""Websocket bot clients for the end-to-end tests and ``python -m bench.loadtest``.

A :class:`SeatClient` is a program playing one seat over the real table websocket exactly as a
browser does: it reads the frames the server sends to its seat (nothing else), picks an action
with the engine's :class:`~engine.bots.HeuristicBot` from its own observation (asking the
server for ``hint`` legal plays outside the play phase), sends it with the version it saw,
reconnects with ``hello`` and its last version when the connection drops, and records every
frame it received. Needs the ``websockets`` package.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from typing import Any

import orjson
import websockets

from engine.actions import Action
from engine.bots import HeuristicBot

#: Least time between two messages of one client: 40 a second, under the server's limit of 50
#: (``matches.live.intake.RATE``), which a bot at machine speed on a fast table would exceed.
MIN_GAP = 1 / 40
#: The close code of a server that cannot serve the connection now (its database or Redis is
#: saturated): come back later (RFC 6455's registry, 1013 "Try Again Later").
TRY_AGAIN = 1013


def choose(
    bot: HeuristicBot, obs: dict[str, Any], hints: list[dict[str, Any]] | None
) -> dict[str, Any] | None:
    """``bot``'s action (JSON) for the observing seat; None if it needs the legal ``hints``
    first."""
    phase = obs.get("phase")
    seat = obs["seat"]
    if phase == "play":
        try:
            return bot.choose(obs, lambda: []).to_json()
        except Exception:  # variants without abstract moves: choose among the hints
            if hints is None:
                return None
            if hints:
                return hints[0]
            return {"seat": seat, "pass": True}
    if hints is None:
        return None
    legal = [Action.from_json(h) for h in hints]
    if phase == "immune":
        return next(
            (a.to_json() for a in legal if a.kind == "immune"), {"seat": seat, "pass": True}
        )
    if not legal:
        return {"seat": seat, "pass": True}
    return bot.choose(obs, legal).to_json()


class SeatClient:
    """One seat's (or a spectator's) websocket client; see the module docstring.

    ``act``: play when it is this seat's turn (False: never act, the clock and auto-play do).
    ``on_frame(client, frame, received_at)`` is called for every frame; before each action the
    client thinks for ``think`` seconds on average (uniformly 0.5-1.5 times that, as people do;
    a fixed time would keep tables that started together acting in lockstep).
    """

    def __init__(
        self,
        url: str,
        cookie: str,
        origin: str,
        *,
        act: bool = True,
        on_frame: Callable[[SeatClient, dict[str, Any], float], None] | None = None,
        on_send: Callable[[SeatClient, int, float], None] | None = None,
        record: bool = False,
        think: float = 0.0,
    ) -> None:
        """Prepare a client for ``url`` with the session ``cookie``."""
        self.url = url
        self.cookie = cookie
        self.origin = origin
        self.act = act
        self.on_frame = on_frame
        self.on_send = on_send
        self.record = record
        self.think = think
        self.frames: list[dict[str, Any]] = []
        self.version = -1
        self.obs: dict[str, Any] | None = None
        self.you: int | None = None
        self.over = False
        self.acted_at_version = -1
        self.hint_for_version = -1
        self.refusals: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self.connects = 0
        #: catch-ups: ``hello`` sent after the first state frame of a connection (idle, a
        #: refused stale action, a gap) and ``events`` frames the server sent to fill a gap
        self.resyncs = 0
        #: handshakes that failed or connections closed with 1013 "try again later" (then
        #: retried after a growing, jittered delay)
        self.retries = 0
        #: close codes of the connections the server closed, by code
        self.closes: dict[int, int] = {}
        self.idle_resync = 5.0
        self._last_frame = 0.0
        self.ws: Any = None
        self.bot = HeuristicBot()  # one per seat: it remembers its hand's analysis
        self._asked = False
        self._stop = False
        self._ids = 0
        self._last_send = 0.0

    def stop(self) -> None:
        """Ask :meth:`run` to return."""
        self._stop = True

    async def run(self, until_over: bool = True, reconnect: bool = True) -> None:
        """Play until the match is over (or :meth:`stop`), reconnecting after drops: 0.2 s
        after losing a connection that served frames, else (a failed handshake, a close with
        1013 "try again later") after a delay that doubles up to 2 s; every delay jittered,
        so that a server's many clients do not all come back at once."""
        delay = 0.2
        while not self._stop:
            opened = served = False
            try:
                async with websockets.connect(
                    self.url,
                    additional_headers={"Cookie": self.cookie, "Origin": self.origin},
                    open_timeout=10,
                    max_size=2**22,
                    ping_interval=None,
                ) as ws:
                    self.ws = ws
                    opened = True
                    self.connects += 1
                    if self.version >= 0:
                        self.acted_at_version = -1  # an action lost in a crash is sent again
                        await self._send({"type": "hello", "version": self.version})
                    self._last_frame = time.perf_counter()
                    watchdog = asyncio.create_task(self._watch())
                    try:
                        while True:
                            data = await ws.recv(decode=False)  # orjson reads the UTF-8
                            now = self._last_frame = time.perf_counter()
                            served = True
                            await self._handle(orjson.loads(data), now)
                            if self._stop or (until_over and self.over):
                                return
                    finally:
                        watchdog.cancel()
            except (TimeoutError, OSError) as error:
                self.errors.append(repr(error))
            except websockets.ConnectionClosed as error:
                if not isinstance(error, websockets.ConnectionClosedOK):
                    self.errors.append(repr(error))
                code = error.rcvd.code if error.rcvd is not None else 1006
                self.closes[code] = self.closes.get(code, 0) + 1
                if code == TRY_AGAIN:
                    self.retries += 1
            except websockets.InvalidHandshake as error:  # refused (403) or cut during it
                self.errors.append(repr(error))
            finally:
                self.ws = None
            if not opened:
                self.retries += 1
            elif served:
                delay = 0.2  # it was served: come back soon
            if not reconnect:
                return
            await asyncio.sleep(delay * random.uniform(0.5, 1.5))
            delay = min(delay * 2, 2.0)

    async def _watch(self) -> None:
        """Send ``hello`` when nothing arrived for ``idle_resync`` seconds: a lost frame must
        not stall a player. (One sleeping task per connection rather than a timeout around
        every receive, which arms and cancels a timer per frame.)"""
        try:
            while True:
                wait = self._last_frame + self.idle_resync - time.perf_counter()
                if wait > 0:
                    await asyncio.sleep(wait)
                    continue
                self.resyncs += 1
                self._last_frame = time.perf_counter()
                await self._send({"type": "hello", "version": self.version})
        except websockets.ConnectionClosed:
            pass  # the receiving loop sees it too, and reconnects

    async def _send(self, data: dict[str, Any]) -> None:
        if data["type"] == "hello":
            self._asked = True
        # keep under the server's limit of messages per second per connection, as a person does
        wait = self._last_send + MIN_GAP - time.perf_counter()
        if wait > 0:
            await asyncio.sleep(wait)
        self._last_send = time.perf_counter()
        if self.ws is not None:
            await self.ws.send(orjson.dumps(data).decode())

    async def _handle(self, frame: dict[str, Any], now: float) -> None:
        if self.record:
            self.frames.append(frame)
        if self.on_frame is not None:
            self.on_frame(self, frame, now)
        kind = frame.get("type")
        if kind in ("update", "snapshot", "events"):
            version = frame["version"]
            if version < self.version:
                return
            if kind != "update":
                if kind == "events" and not self._asked:
                    self.resyncs += 1  # the server filled a gap on its own
                self._asked = False
            if kind == "update" and 0 <= self.version < version - 1:
                # a gap the server did not fill (protocol: "Versions"): the update carries
                # the whole state, and hello brings the events in between
                self.resyncs += 1
                await self._send({"type": "hello", "version": self.version})
            self.version = version
            self.obs = frame["obs"]
            self.you = frame["you"]
            self.over = bool(frame["obs"].get("match", {}).get("over"))
            await self._maybe_act(None)
        elif kind == "hints":
            if frame.get("version") == self.version:
                await self._maybe_act(frame["plays"])
        elif kind == "refused":
            self.refusals.append(frame)
            if frame.get("code") == "stale":
                self.resyncs += 1
                await self._send({"type": "hello", "version": self.version})
        elif kind == "table_changed":
            await self._send({"type": "hello", "version": self.version})

    async def _maybe_act(self, hints: list[dict[str, Any]] | None) -> None:
        obs = self.obs
        if not self.act or obs is None or self.you is None or self.over:
            return
        if obs.get("turn") != self.you or self.acted_at_version == self.version:
            return
        action = choose(self.bot, obs, hints)
        if action is None:
            if self.hint_for_version != self.version:
                self.hint_for_version = self.version
                self._ids += 1
                await self._send({"type": "hint", "id": self._ids})
            return
        self.acted_at_version = self.version
        self._ids += 1
        if self.think:
            version = self.version
            await asyncio.sleep(self.think * random.uniform(0.5, 1.5))  # a person's thinking
            if self.version != version:
                return
        if self.on_send is not None:
            self.on_send(self, self.version, time.perf_counter())
        await self._send({"type": "action", "id": self._ids, "seq": self.version, "action": action})
