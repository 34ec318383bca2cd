"""A websocket handshake that the database or Redis cannot serve now (down, or saturated: no
connection free in the pool) is accepted and closed with 1013, "try again later", instead of
failing with an error the client cannot tell from a refusal: the page and the load client
come back after a growing delay (docs/protocol.md, "Connecting"). The table consumer closes
its connections the same way when its own reads fail (:mod:`matches.consumers`)."""

from __future__ import annotations

import logging
from typing import Any

from channels.auth import AuthMiddleware
from channels.sessions import CookieMiddleware, InstanceSessionWrapper, SessionMiddleware

from matches.consumers import TRY_AGAIN, UNAVAILABLE

log = logging.getLogger(__name__)


class TryAgainLaterAuthMiddleware(AuthMiddleware):
    """Channels' ``AuthMiddleware`` (the session's user in ``scope["user"]``), closing the
    connection with :data:`~matches.consumers.TRY_AGAIN` when that lookup fails for want of
    the database. Nothing else is wrapped: the frames of an open connection pass untouched."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        """Resolve the user, then run the application; 1013 if the user could not be read."""
        scope = dict(scope)
        self.populate_scope(scope)
        try:
            await self.resolve_scope(scope)
        except UNAVAILABLE:
            log.warning("websocket handshake of %s: retry later", scope.get("path"), exc_info=True)
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.close", "code": TRY_AGAIN})
            return None
        return await self.inner(scope, receive, send)


class WebsocketSessionMiddleware(SessionMiddleware):
    """Channels' ``SessionMiddleware`` (the session in ``scope["session"]``) for websockets,
    whose frames go out through the server's own ``send``: Channels' wrapper of ``send``
    saves a session only on an HTTP response, yet looks at the session on every frame, four
    per action."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        """Put the session in the scope, then run the application with ``send`` unwrapped
        (another protocol than websockets: as Channels does)."""
        if scope["type"] != "websocket":
            return await super().__call__(scope, receive, send)
        wrapper = InstanceSessionWrapper(scope, send)
        await wrapper.resolve_session()
        return await self.inner(wrapper.scope, receive, send)


def auth_stack(inner: Any) -> Any:
    """Channels' ``AuthMiddlewareStack`` with :class:`WebsocketSessionMiddleware` and
    :class:`TryAgainLaterAuthMiddleware`."""
    return CookieMiddleware(WebsocketSessionMiddleware(TryAgainLaterAuthMiddleware(inner)))
