"""How often one person and one client address may look up a 6-digit code.

A code is six digits, so a million of them: with a few hundred rooms open at once, each
guess has well under one chance in a thousand. Counting every look-up — per signed-in user
and per client address (:func:`clubs.client_ip.client_ip`, which believes
``X-Forwarded-For`` only through the configured trusted proxies) — keeps a guesser to a few
dozen guesses per window: ``FRIENDS_CODE_LOOKUPS_PER_USER`` (default 10) and
``FRIENDS_CODE_LOOKUPS_PER_ADDRESS`` (default 30) per ``FRIENDS_CODE_WINDOW_SECONDS``
(default 600). The counters live in the cache; when it does not answer, look-ups are refused
(guessing must stay expensive, and live play needs the same Redis anyway).
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.cache import cache

log = logging.getLogger(__name__)


def _setting(name: str, default: int) -> int:
    return int(getattr(settings, name, default))


def allow_code_lookup(user_id: int, address: str | None) -> bool:
    """Count one code look-up of ``user_id`` from ``address``; False once either is over its
    limit in the current window (or when the cache fails)."""
    window = _setting("FRIENDS_CODE_WINDOW_SECONDS", 600)
    keys = [
        (f"friends:code:user:{user_id}", _setting("FRIENDS_CODE_LOOKUPS_PER_USER", 10)),
        (f"friends:code:addr:{address or '-'}", _setting("FRIENDS_CODE_LOOKUPS_PER_ADDRESS", 30)),
    ]
    allowed = True
    try:
        for key, limit in keys:
            cache.add(key, 0, timeout=window)
            if cache.incr(key) > limit:
                allowed = False
    except Exception as error:  # the cache (Redis) is down: refuse rather than allow guessing
        log.warning("friends' code look-up refused, the cache failed: %r", error)
        return False
    return allowed
