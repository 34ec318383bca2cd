"""Limits on what one client sends over the table websockets, shared by every connection and
every server process (Redis counters): so many frames a second per signed-in user, fewer of
the frames that only read (``hello``, ``check``, ``hint``: they cost the server more than they
cost the sender), and per client address (anonymous spectators, many accounts behind one
address). Counted when a frame arrives, before it is queued. Fixed one-second windows.

Each server process counts locally and adds its counts to Redis at most every ``FLUSH``
seconds (one script call doing INCRBY + EXPIREAT for all counters), reading back the totals of
all processes, instead of a Redis round trip for every frame (docs/benchmarks.md).
So a process decides on its own counts at once and on the other processes' counts as they
stood at its last flush: across processes a limit can be exceeded by what the others received
in the last ``FLUSH`` seconds, never within one.

Redis away: the limits fail open across processes (a warning is logged); each process's own
counts and the per-connection limit of the consumer still hold.

Open sockets are capped per signed-in user (``MATCHES_SOCKETS_PER_USER``) across processes too:
each user has a sorted set in Redis of their open connections, scored by when each one's slot
lapses (:data:`SLOT_TTL` seconds on); a connection takes a slot when it opens
(:func:`take_socket_slot`), renews it while it lives (:func:`renew_socket_slot`, every
:data:`SLOT_RENEW` seconds) and frees it when it closes. A process that crashes cannot free its
slots: they lapse on their own, so they are lost for at most :data:`SLOT_TTL` seconds.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aredis
from django.conf import settings

from clubs.client_ip import scope_client_ip

log = logging.getLogger(__name__)

#: Seconds between a process's additions of its counts to Redis.
FLUSH = 0.05

#: A flush, run in Redis: add each count (``ARGV[2i-1]``) to its counter (``KEYS[i]``), which
#: expires at ``ARGV[2i]``, and return the totals. One command instead of a pipeline of two
#: per counter, each packed and parsed on its own by the client. (All keys are on the one
#: Redis of the limits: not for Redis Cluster.)
_FLUSH_SCRIPT = """
local totals = {}
for i, key in ipairs(KEYS) do
  totals[i] = redis.call('INCRBY', key, ARGV[2 * i - 1])
  redis.call('EXPIREAT', key, ARGV[2 * i])
end
return totals
"""


#: Seconds a socket's slot lasts unless renewed (a crashed process's slots free themselves).
SLOT_TTL = 60
#: Seconds between the renewals of a live socket's slot (jittered by the caller).
SLOT_RENEW = 20

#: Take a slot: forget the lapsed ones of ``KEYS[1]`` (``ARGV[1]``: now), then add connection
#: ``ARGV[3]`` lapsing at ``ARGV[2]`` if it holds one already or fewer than ``ARGV[4]`` are
#: held; 1 if it did. The set itself lives ``ARGV[5]`` ms after its last change.
_TAKE_SCRIPT = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[3])
    or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[4]) then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return 1
end
return 0
"""
#: Renew connection ``ARGV[2]``'s slot in ``KEYS[1]`` to lapse at ``ARGV[1]`` (taken again if it
#: was lost, e.g. by a Redis restart: the connection is open, so it counts).
_RENEW_SCRIPT = """
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
"""


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


@dataclass
class _Counter:
    """One counter of one window: the total in Redis at the last flush (all processes) and
    this process's counts since, until ``ends`` (seconds since the epoch)."""

    ends: float
    known: int = 0
    pending: int = 0


@dataclass
class _Counters:
    """The counters of one event loop, with the flush script on its Redis client (a client's
    connections belong to its loop)."""

    script: Any  # :data:`_FLUSH_SCRIPT`, registered with the loop's client
    take: Any  # :data:`_TAKE_SCRIPT`
    renew: Any  # :data:`_RENEW_SCRIPT`
    client: Any  # the loop's Redis client
    counters: dict[str, _Counter] = field(default_factory=dict)
    flushed: float = float("-inf")  # time.monotonic() of the last flush
    flushing: bool = False

    async def flush(self, now: float) -> None:
        """Add the pending counts to Redis and read back the totals; forget the windows
        ended by ``now`` (seconds since the epoch)."""
        self.flushing, self.flushed = True, time.monotonic()
        for key in [key for key, counter in self.counters.items() if counter.ends <= now]:
            del self.counters[key]
        batch = [(key, c, c.pending) for key, c in self.counters.items() if c.pending]
        for _key, counter, count in batch:
            counter.known += count
            counter.pending -= count
        if not batch:
            self.flushing = False
            return
        args: list[int] = []
        for _key, counter, count in batch:
            args += [count, int(counter.ends) + 1]
        try:
            totals = await self.script(keys=[key for key, _, _ in batch], args=args)
        except (aredis.RedisError, OSError):
            log.warning("websocket limits unavailable (Redis): counted in this process only")
            return
        finally:
            self.flushing = False
        for (_key, counter, _count), total in zip(batch, totals, strict=True):
            counter.known = max(counter.known, total)


_loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Counters] = (
    weakref.WeakKeyDictionary()
)


def _state() -> _Counters:
    """The :class:`_Counters` of the running event loop."""
    loop = asyncio.get_running_loop()
    state = _loops.get(loop)
    if state is None:
        client = aredis.Redis.from_url(
            settings.REDIS_URL, socket_timeout=1.0, socket_connect_timeout=1.0
        )
        state = _loops[loop] = _Counters(
            client.register_script(_FLUSH_SCRIPT),
            client.register_script(_TAKE_SCRIPT),
            client.register_script(_RENEW_SCRIPT),
            client,
        )
    return state


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
    """Add one to each counter of the current ``window`` (seconds); False if any is over,
    counting what this process has seen and what Redis held at its last flush (made first
    when one is due)."""
    state = _state()
    now = time.time()
    slot = int(now // window)
    prefix = settings.CACHES["default"].get("KEY_PREFIX", "")
    mine = []
    for name, limit in counters:
        key = f"{prefix}:ws:{name}:{window}:{slot}"
        counter = state.counters.get(key)
        if counter is None:
            counter = state.counters[key] = _Counter(ends=(slot + 1) * window)
        counter.pending += 1
        mine.append((counter, limit))
    if not state.flushing and time.monotonic() - state.flushed >= FLUSH:
        await state.flush(now)
    return all(counter.known + counter.pending <= limit for counter, limit in mine)


def _sockets_key(user_id: int) -> str:
    prefix = settings.CACHES["default"].get("KEY_PREFIX", "")
    return f"{prefix}:ws:sockets:{user_id}"


async def take_socket_slot(who: Identity, connection: str) -> bool:
    """Count ``connection`` (a unique id: its channel name) among the open sockets of ``who``'s
    user, in every process; False, and nothing counted, if they hold
    ``MATCHES_SOCKETS_PER_USER`` already. Anonymous connections are not counted here (many
    visitors may share an address; the limits per address hold them). Redis away: True (fails
    open, as the frame limits do; a warning is logged)."""
    if who.user_id is None:
        return True
    now = time.time()
    try:
        taken = await _state().take(
            keys=[_sockets_key(who.user_id)],
            args=[
                now,
                now + SLOT_TTL,
                connection,
                settings.MATCHES_SOCKETS_PER_USER,
                SLOT_TTL * 1000,
            ],
        )
    except (aredis.RedisError, OSError):
        log.warning("websocket slots unavailable (Redis): a socket not counted")
        return True
    return bool(taken)


async def renew_socket_slot(who: Identity, connection: str) -> None:
    """Keep ``connection``'s slot for :data:`SLOT_TTL` more seconds (taken again if Redis lost
    it). Redis away: nothing (a warning is logged; the next renewal tries again)."""
    if who.user_id is None:
        return
    try:
        await _state().renew(
            keys=[_sockets_key(who.user_id)],
            args=[time.time() + SLOT_TTL, connection, SLOT_TTL * 1000],
        )
    except (aredis.RedisError, OSError):
        log.warning("websocket slot of %s not renewed (Redis)", connection)


async def free_socket_slot(who: Identity, connection: str) -> None:
    """Free ``connection``'s slot (its socket closed). Redis away: it lapses by itself."""
    if who.user_id is None:
        return
    try:
        await _state().client.zrem(_sockets_key(who.user_id), connection)
    except (aredis.RedisError, OSError):
        log.warning("websocket slot of %s not freed (Redis): it lapses", connection)
