"""Django's Redis cache, failing open: while Redis does not answer, the site keeps working.

The cache only ever holds what can be recomputed (leaderboard counts, throttle and rate counters),
so a Redis outage must not turn pages and API calls into 500s, nor interrupt a write that clears a
cached value. Reads miss, writes do nothing, and a warning is logged (at most once a minute per
process, so an outage does not flood the log). ``incr`` still raises, as for a missing key.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)
WARN_EVERY_SECONDS = 60.0


class FailOpenRedisCache(RedisCache):
    """``RedisCache`` whose operations answer "nothing cached" when Redis fails."""

    _last_warning = 0.0

    def _failed(self, operation: str, error: Exception) -> None:
        now = time.monotonic()
        if now - FailOpenRedisCache._last_warning >= WARN_EVERY_SECONDS:
            FailOpenRedisCache._last_warning = now
            logger.warning("cache unavailable (%s failed, failing open): %r", operation, error)

    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        """The cached value, or ``default`` when absent or when Redis fails."""
        try:
            return super().get(key, default, version)
        except RedisError as error:
            self._failed("get", error)
            return default

    def get_many(self, keys: Any, version: int | None = None) -> dict:
        """The cached values found ({} when Redis fails)."""
        try:
            return super().get_many(keys, version)
        except RedisError as error:
            self._failed("get_many", error)
            return {}

    def has_key(self, key: Any, version: int | None = None) -> bool:
        """Whether the key is cached (False when Redis fails)."""
        try:
            return super().has_key(key, version)
        except RedisError as error:
            self._failed("has_key", error)
            return False

    def add(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None
    ) -> bool:
        """Store if absent; False (nothing stored) when Redis fails."""
        try:
            return super().add(key, value, timeout, version)
        except RedisError as error:
            self._failed("add", error)
            return False

    def set(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None
    ) -> None:
        """Store the value; nothing happens when Redis fails."""
        try:
            super().set(key, value, timeout, version)
        except RedisError as error:
            self._failed("set", error)

    def set_many(
        self, data: dict, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None
    ) -> list:
        """Store the values; when Redis fails, every key is reported as not stored."""
        try:
            return super().set_many(data, timeout, version)
        except RedisError as error:
            self._failed("set_many", error)
            return list(data)

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        """Renew the key's timeout; False when Redis fails."""
        try:
            return super().touch(key, timeout, version)
        except RedisError as error:
            self._failed("touch", error)
            return False

    def delete(self, key: Any, version: int | None = None) -> bool:
        """Remove the key; False when Redis fails (the value expires with its timeout)."""
        try:
            return super().delete(key, version)
        except RedisError as error:
            self._failed("delete", error)
            return False

    def delete_many(self, keys: Any, version: int | None = None) -> None:
        """Remove the keys; nothing happens when Redis fails."""
        try:
            super().delete_many(keys, version)
        except RedisError as error:
            self._failed("delete_many", error)
