"""The websocket origin check: a browser's socket is accepted from this site's own origin only.

Channels' ``AllowedHostsOriginValidator`` compares the Origin's host name with ``ALLOWED_HOSTS``
and ignores its port, so a page served by another program on the same host (another port) could
open sockets with the visitor's cookies. Here the Origin's ``host[:port]`` must equal the
request's ``Host`` header (as Django's CSRF check compares them), or the Origin must be listed in
``CSRF_TRUSTED_ORIGINS``; the host itself must be allowed.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return value.decode("latin1")
    return None


def origin_allowed(scope: dict[str, Any]) -> bool:
    """Whether the websocket handshake in ``scope`` comes from this site's own origin.

    A handshake without Origin (not from a browser page) or with a malformed one is refused. The
    test communicators send no Host header; then the Origin's host must be allowed and its port
    the default one.
    """
    origin = _header(scope, b"origin")
    if not origin:
        return False
    if origin in settings.CSRF_TRUSTED_ORIGINS:
        return True
    try:
        parts = urlsplit(origin)
        origin_port = parts.port
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return False
    host = _header(scope, b"host")
    if host is None:
        domain, port = parts.hostname, origin_port
        return port is None and validate_host(domain, settings.ALLOWED_HOSTS)
    domain, _port = split_domain_port(host.lower())
    return parts.netloc.lower() == host.lower() and validate_host(domain, settings.ALLOWED_HOSTS)


class SameOriginValidator:
    """ASGI middleware: deny websocket handshakes for which :func:`origin_allowed` is False."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        """Pass an allowed handshake on; close any other before it reaches a consumer."""
        if origin_allowed(scope):
            return await self.application(scope, receive, send)
        return await WebsocketDenier()(scope, receive, send)
