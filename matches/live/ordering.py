"""A connection's frames of a match, forwarded in the order of the match's versions.

Broadcasts come from several processes (the worker's bots, auto-play and clock, each ASGI
server's players) and are not ordered with each other, so the version is the sequence.

Contract (:class:`VersionOrder`, no I/O: it says which texts to send now, in order):

- an ``update`` to version v + 1 goes after the one to v; a ``table`` frame of version v after
  the update to v; a ``snapshot`` of a newer version at once; a frame with no version (a quick
  phrase) at once;
- anything older than what was sent is dropped, and so is an update sent already;
- a frame that comes before the one it follows is held (:attr:`VersionOrder.held`) until it is
  due. :class:`Forwarder` (a connection's sending side) fills a gap that lasts
  :data:`GAP_WAIT` seconds from the database (an ``events`` frame), again while one lasts;
  the held frames it covered are dropped.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from matches.wire import json_dumps

log = logging.getLogger(__name__)

#: Seconds a frame that arrived before the one it follows is held, waiting for the missing one,
#: before the connection is brought up to date from the database.
GAP_WAIT = 0.3


class VersionOrder:
    """The version ordering of one connection (see the module)."""

    def __init__(self) -> None:
        #: The newest version sent to this connection.
        self.sent_version = -1
        #: Frames of versions after the next one expected: version -> [(kind, text)].
        self.held: dict[int, list[tuple[str, str]]] = {}

    def incoming(self, kind: str, version: int | None, text: str) -> list[str]:
        """A broadcast frame of ``kind`` (``update``, ``table``, ``snapshot``) arrived: the
        texts to send now, in order (none if it is held or dropped)."""
        if version is None or kind == "snapshot" and version > self.sent_version:
            if version is not None:
                self.sent_version = version
            return [text, *self._release()]
        due = self.sent_version + (1 if kind == "update" else 0)
        if version < due:
            return []  # older than what was sent, or sent already
        if version == due and self.sent_version >= 0:
            self.sent_version = version
            return [text, *self._release()]
        self.held.setdefault(version, []).append((kind, text))
        return []

    def state_sent(self, version: int) -> list[str]:
        """A state frame of ``version`` (``snapshot`` or ``events``, read from the database)
        was sent: the held texts due now."""
        self.sent_version = max(self.sent_version, version)
        return self._release()

    @property
    def waiting(self) -> bool:
        """True while a frame is held for one still missing (and a state was sent)."""
        return bool(self.held) and self.sent_version >= 0

    def _release(self) -> list[str]:
        """The held frames that are due now, in order; those older are dropped."""
        out: list[str] = []
        for version in sorted(self.held):
            if version > self.sent_version + 1:
                break
            frames = self.held.pop(version)
            if version <= self.sent_version:  # a table frame of the version sent last
                if version == self.sent_version:
                    out += [text for kind, text in frames if kind != "update"]
                continue
            if not any(kind == "update" for kind, _ in frames):
                self.held[version] = frames  # its update has still to come
                break
            self.sent_version = version
            frames.sort(key=lambda frame: frame[0] != "update")
            out += [text for _kind, text in frames]
        return out


class Forwarder:
    """A connection's frames sent through ``send`` in version order; a gap filled with the
    state frame ``state_after(version)`` returns (None: the match is gone)."""

    def __init__(
        self,
        send: Callable[..., Awaitable[None]],
        state_after: Callable[[int], Awaitable[dict[str, Any] | None]],
    ) -> None:
        self.order = VersionOrder()
        self.send = send
        self.state_after = state_after
        self.gap: asyncio.Task | None = None

    async def incoming(self, kind: str, version: int | None, text: str) -> None:
        """Forward a broadcast frame (:meth:`VersionOrder.incoming`)."""
        await self._send(self.order.incoming(kind, version, text))

    async def state(self, text: str, version: int) -> None:
        """Send a state frame of ``version`` read from the database, then what is due after it."""
        await self._send([text, *self.order.state_sent(version)])

    def stop(self) -> None:
        """Stop filling gaps (the connection closed)."""
        if self.gap is not None:
            self.gap.cancel()

    async def _send(self, texts: list[str]) -> None:
        for text in texts:
            await self.send(text_data=text)
        if self.order.waiting and self.gap is None:
            self.gap = asyncio.create_task(self._fill_gap())
        elif not self.order.held and self.gap not in (None, asyncio.current_task()):
            self.gap.cancel()
            self.gap = None

    async def _fill_gap(self) -> None:
        """After :data:`GAP_WAIT`, bring the connection up to date from the database while a
        frame it was sent is still missing."""
        while True:
            await asyncio.sleep(GAP_WAIT)
            try:
                if self.order.held:
                    data = await self.state_after(self.order.sent_version)
                    if data is not None and data["version"] > self.order.sent_version:
                        await self.state(json_dumps(data), data["version"])
            except Exception:  # the database away: try again (the client's hello catches up)
                log.warning("a missing update was not filled", exc_info=True)
            if not self.order.held:
                self.gap = None
                return
