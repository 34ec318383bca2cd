"""Limits on what one client sends over the table websockets, shared by every connection and
every server process (Redis counters): so many frames a second per signed-in user, fewer of
the frames that only read (``hello``, ``check``, ``hint``: they cost the server more than they
cost the sender), and per client address (anonymous spectators, many accounts behind one
address). Counted when a frame arrives, before it is queued. Fixed one-second windows: one
Redis round trip per frame (a pipeline of INCR + EXPIRE per counter).

Redis away: the limits fail open (a warning is logged) and the per-connection limit of the
consumer still holds.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aredis
from django.conf import settings

from clubs.client_ip import scope_client_ip

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Identity:
    """Whom a connection's frames count against: its user (None: anonymous) and address."""

    user_id: int | None
    address: str


def identity(scope: dict[str, Any]) -> Identity:
    """The :class:`Identity` of a websocket connection's ``scope``: its address as the HTTP
    side sees it (:func:`clubs.client_ip.scope_client_ip`: ``X-Forwarded-For`` only from
    the configured proxies)."""
    user = scope.get("user")
    user_id = user.pk if user is not None and user.is_authenticated else None
    return Identity(user_id, scope_client_ip(scope) or "")


def _limits(who: Identity, read: bool) -> list[tuple[str, int]]:
    """The counters a frame of ``who`` counts against, with their limits per second."""
    out = [(f"ip:{who.address}", settings.MATCHES_WS_IP_RATE)]
    if who.user_id is None:
        out.append((f"anon:{who.address}", settings.MATCHES_WS_ANONYMOUS_RATE))
    else:
        out.append((f"user:{who.user_id}", settings.MATCHES_WS_USER_RATE))
        if read:
            out.append((f"read:{who.user_id}", settings.MATCHES_WS_READ_RATE))
    return out


_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, aredis.Redis] = (
    weakref.WeakKeyDictionary()
)


def _client() -> aredis.Redis:
    """One asyncio Redis client per event loop (a client's connections belong to its loop)."""
    loop = asyncio.get_running_loop()
    client = _clients.get(loop)
    if client is None:
        client = _clients[loop] = aredis.Redis.from_url(
            settings.REDIS_URL, socket_timeout=1.0, socket_connect_timeout=1.0
        )
    return client


async def allowed(who: Identity, read: bool = False) -> bool:
    """Count one frame of ``who`` (``read``: a frame that only reads); False if that puts
    any of its counters over its limit for this second."""
    return await _count(_limits(who, read), 1)


async def connect_allowed(who: Identity) -> bool:
    """Count one new connection of ``who`` (its user, else its address); False if that is
    more than ``MATCHES_WS_CONNECTS_PER_MINUTE`` this minute (a client closed for flooding
    does not come straight back)."""
    name = f"connect:{who.user_id}" if who.user_id is not None else f"connect:{who.address}"
    return await _count([(name, settings.MATCHES_WS_CONNECTS_PER_MINUTE)], 60)


async def _count(counters: list[tuple[str, int]], window: int) -> bool:
    """Add one to each counter of the current ``window`` (seconds); False if any is over."""
    slot = int(time.time() // window)
    prefix = settings.CACHES["default"].get("KEY_PREFIX", "")
    try:
        pipe = _client().pipeline(transaction=False)
        for name, _limit in counters:
            key = f"{prefix}:ws:{name}:{window}:{slot}"
            pipe.incr(key)
            pipe.expire(key, 2 * window)
        counts = (await pipe.execute())[::2]
    except (aredis.RedisError, OSError):
        log.warning("websocket limits unavailable (Redis): not counted")
        return True
    return all(count <= limit for count, (_name, limit) in zip(counts, counters, strict=True))
