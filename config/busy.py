"""A websocket handshake that the database or Redis cannot serve now (down, or saturated: no
connection free in the pool) is accepted and closed with 1013, "try again later", instead of
failing with an error the client cannot tell from a refusal: the page and the load client
come back after a growing delay (docs/protocol.md, "Connecting")."""

from __future__ import annotations

import logging
from typing import Any

from matches.consumers import TRY_AGAIN, UNAVAILABLE

log = logging.getLogger(__name__)


class TryAgainLater:
    """ASGI middleware: a websocket connection whose application failed for want of the
    database or Redis before it accepted (the session lookup of the handshake) is closed with
    :data:`~matches.consumers.TRY_AGAIN`; what fails after the accept is the consumer's."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        """Run the application; answer a handshake it could not serve with 1013."""
        if scope["type"] != "websocket":
            return await self.application(scope, receive, send)
        accepted = False

        async def sending(message: dict[str, Any]) -> None:
            nonlocal accepted
            accepted = accepted or message["type"] in ("websocket.accept", "websocket.close")
            await send(message)

        try:
            return await self.application(scope, receive, sending)
        except UNAVAILABLE:
            if accepted:
                raise
            log.warning("websocket handshake of %s: retry later", scope.get("path"), exc_info=True)
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.close", "code": TRY_AGAIN})
