"""The client's address: ``REMOTE_ADDR``, or the proxy chain's entry when proxies are configured.

``X-Forwarded-For`` is written by whoever sends the request, so it is only believed when the
operator says how many reverse proxies stand in front of the site (``TRUSTED_PROXIES``, a count;
see settings). Each trusted proxy appends the address it received the request from, so with N
proxies the client is the N-th entry from the right; anything further left came from the client
and is ignored. Without the setting the header is ignored entirely. The login lock-out
(django-axes, ``AXES_CLIENT_IP_CALLABLE``) and the API throttles use this one function.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from ipware import get_client_ip

_HEADER_ORDER = ("HTTP_X_FORWARDED_FOR", "REMOTE_ADDR")


def client_ip(request: HttpRequest) -> str | None:
    """Return the client's address as the configured proxy chain reports it.

    With ``TRUSTED_PROXY_COUNT`` 0 (the default) this is ``REMOTE_ADDR``; with N > 0 it is the
    N-th ``X-Forwarded-For`` entry from the right, or ``REMOTE_ADDR`` when the header has fewer
    entries than that (a request that did not come through the whole chain).
    """
    remote = request.META.get("REMOTE_ADDR") or None
    count = settings.TRUSTED_PROXY_COUNT
    if count <= 0:
        return remote
    # django-ipware counts the proxies *between* the client's entry and the last entry, and its
    # non-strict "left-most" order skips extra (client-written) entries on the left.
    address, _routable = get_client_ip(
        request,
        proxy_order="left-most",
        proxy_count=count - 1,
        request_header_order=_HEADER_ORDER,
        strict=False,
    )
    return address or remote


def scope_client_ip(scope: dict[str, Any]) -> str | None:
    """Return the client's address of an ASGI ``scope`` (a websocket) by the same rule as
    :func:`client_ip`: the connection's peer address, or the proxy chain's entry when
    ``TRUSTED_PROXY_COUNT`` is set. Repeated ``X-Forwarded-For`` headers are joined in order,
    as Django joins them for HTTP requests."""
    request = HttpRequest()
    client = scope.get("client") or ("", 0)
    request.META["REMOTE_ADDR"] = str(client[0] or "")
    forwarded = [
        value.decode("latin-1")
        for name, value in scope.get("headers") or ()
        if name.lower() == b"x-forwarded-for"
    ]
    if forwarded:
        request.META["HTTP_X_FORWARDED_FOR"] = ",".join(forwarded)
    return client_ip(request)
