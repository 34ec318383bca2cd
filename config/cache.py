"""Django's Redis cache, failing open: while Redis does not answer, the site keeps working.

The cache only ever holds what can be recomputed (leaderboard counts, throttle and rate counters),
so a Redis outage must not turn pages and API calls into 500s, nor interrupt a write that clears a
cached value. Reads miss, writes do nothing, and a warning is logged (at most once a minute per
process, so an outage does not flood the log). ``incr`` still raises, as for a missing key.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)
WARN_EVERY_SECONDS = 60.0


def _failing_open(name: str, fallback: Callable[..., Any]) -> Callable[..., Any]:
    """``RedisCache.<name>``, answering ``fallback(*args)`` (and warning) when Redis fails."""
    parent = getattr(RedisCache, name)

    def method(self: FailOpenRedisCache, *args: Any, **kwargs: Any) -> Any:
        try:
            return parent(self, *args, **kwargs)
        except RedisError as error:
            self.warn(name, error)
            return fallback(*args, **kwargs)

    method.__name__ = name
    method.__doc__ = f"``RedisCache.{name}``; when Redis fails, what an empty cache answers."
    return method


class FailOpenRedisCache(RedisCache):
    """``RedisCache`` whose operations answer "nothing cached" when Redis fails."""

    _last_warning = 0.0

    def warn(self, operation: str, error: Exception) -> None:
        """Log that the cache failed (once a minute per process at most)."""
        now = time.monotonic()
        if now - FailOpenRedisCache._last_warning >= WARN_EVERY_SECONDS:
            FailOpenRedisCache._last_warning = now
            logger.warning("cache unavailable (%s failed, failing open): %r", operation, error)

    get = _failing_open("get", lambda key, default=None, version=None: default)
    get_many = _failing_open("get_many", lambda *args, **kwargs: {})
    has_key = _failing_open("has_key", lambda *args, **kwargs: False)
    add = _failing_open("add", lambda *args, **kwargs: False)
    set = _failing_open("set", lambda *args, **kwargs: None)
    set_many = _failing_open("set_many", lambda data, *args, **kwargs: list(data))
    touch = _failing_open("touch", lambda *args, **kwargs: False)
    delete = _failing_open("delete", lambda *args, **kwargs: False)
    delete_many = _failing_open("delete_many", lambda *args, **kwargs: None)
