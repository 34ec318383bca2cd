"""The load test's baseline (``python -m bench.loadtest``): a bare Channels group broadcast at
``/ws/bench/<group>/``, routed only by a server started with
``ASGI_EXTRA_ROUTES=bench.broadcast_ws`` (``config.asgi.extra_websocket_urlpatterns``; no
production module imports ``bench``).

Channels' own consumer, as any Channels application has it (its loop, and its closing of stale
database connections before every message, which the tables' loop :mod:`matches.live.loop`
leaves out: docs/benchmarks.md compares both). Every text frame received is sent to the whole
group, with no database, engine or authentication.
"""

from __future__ import annotations

from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer
from django.urls import path

from matches.live.intake import MAX_FRAME, utf8_size


class BroadcastBenchConsumer(AsyncWebsocketConsumer):
    """One socket of a bench group (see the module)."""

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
        if text_data is not None and utf8_size(text_data) <= MAX_FRAME:
            await self.channel_layer.group_send(
                self.group, {"type": "bench.frame", "text": text_data}
            )

    async def bench_frame(self, message: dict[str, Any]) -> None:
        """Forward a broadcast frame."""
        await self.send(text_data=message["text"])


#: The route ``config.asgi`` adds when ``ASGI_EXTRA_ROUTES`` names this module.
websocket_urlpatterns = [path("ws/bench/<slug:group>/", BroadcastBenchConsumer.as_asgi())]
