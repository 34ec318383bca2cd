"""API throttles keyed by :func:`clubs.client_ip.client_ip`.

DRF's own ``get_ident`` believes ``X-Forwarded-For`` (the whole header, when ``NUM_PROXIES`` is
unset), so rotating that header gave a fresh allowance per request. The counters live in the
cache, which fails open (``config.cache``): during a Redis outage requests are allowed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rest_framework import throttling

from clubs.client_ip import client_ip

if TYPE_CHECKING:  # rest_framework.views imports this module through the throttle setting
    from rest_framework.request import Request


class _ByClientIp:
    """Mixin: identify anonymous callers by the trusted client address."""

    def get_ident(self, request: Request) -> str:
        """The client's address as the configured proxy chain reports it (never the raw XFF)."""
        return client_ip(request) or ""


class AnonRateThrottle(_ByClientIp, throttling.AnonRateThrottle):
    """DRF's anonymous throttle (rate ``anon``), keyed by the trusted client address."""


class UserRateThrottle(_ByClientIp, throttling.UserRateThrottle):
    """DRF's per-user throttle (rate ``user``); anonymous callers by the trusted client address."""
