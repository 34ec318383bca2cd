"""The message loop of a live-play websocket: Channels' consumer with a leaner loop.

Contract (:class:`Consumer`): the socket's frames and the channel layer's messages reach the
handlers **one at a time**, each in the order it arrived from its source, as in Channels; a
closed socket ends the consumer and its channel's receive; what a handler raises ends the
connection with it; once the server closed the socket (:meth:`Consumer.close`), **nothing is
sent** on it. Unlike Channels' own loop, a handler's stale database connections are not
closed before it on a thread: the work that uses the database does that itself
(:mod:`matches.live.threads`). Channels waits for both sources with a new task and an
``asyncio.wait`` per message; here one task per source receives (docs/benchmarks.md measures
both).
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer


class Consumer(AsyncWebsocketConsumer):
    """A websocket consumer with the loop of the module."""

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
        """The message's handler (no closing of stale database connections first)."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)
