"""API throttles keyed by :func:`clubs.client_ip.client_ip` that fail open when the cache is down.

DRF's own ``get_ident`` believes ``X-Forwarded-For`` (the whole header, when ``NUM_PROXIES`` is
unset), so rotating that header gave a fresh allowance per request. The throttles keep their
counters in the cache (Redis): when it does not answer, the request is allowed and a warning
logged, since refusing every API call during a Redis outage is worse than not counting them.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from rest_framework import throttling

from clubs.client_ip import client_ip

if TYPE_CHECKING:  # rest_framework.views imports this module through the throttle setting
    from rest_framework.request import Request
    from rest_framework.views import APIView

logger = logging.getLogger(__name__)


class _ClientIpFailOpen:
    """Mixin: identify anonymous callers by the trusted client address; allow on cache errors."""

    def get_ident(self, request: Request) -> str:
        """The client's address as the configured proxy chain reports it (never the raw XFF)."""
        return client_ip(request) or ""

    def allow_request(self, request: Request, view: APIView) -> bool:
        """DRF's decision, or True (with a warning logged) when the cache cannot be reached."""
        try:
            return super().allow_request(request, view)
        except Exception as error:  # redis errors, connection refused, timeouts
            logger.warning("API throttle not applied, the cache failed: %r", error)
            return True


class AnonRateThrottle(_ClientIpFailOpen, throttling.AnonRateThrottle):
    """DRF's anonymous throttle (rate ``anon``), keyed by the trusted client address."""


class UserRateThrottle(_ClientIpFailOpen, throttling.UserRateThrottle):
    """DRF's per-user throttle (rate ``user``); anonymous callers by the trusted client address."""
