"""The websocket limits (matches.limits) against the run's real Redis: exact within one server
process, shared between processes through Redis at each process's flush, and still holding
within a process when Redis is away. Each event loop stands for one server process (the
counters belong to a loop)."""

import asyncio
import logging
import time

import pytest

from matches import limits

pytestmark = pytest.mark.integration

RATE = 5


@pytest.fixture
def rate(settings):
    """A per-user rate of ``RATE`` frames a second, and a start early in a fresh second (the
    windows are fixed seconds: a test must not straddle two)."""
    settings.MATCHES_WS_USER_RATE = RATE
    settings.MATCHES_WS_READ_RATE = RATE
    time.sleep(1 - time.time() % 1)
    return RATE


def frames(who, n, pause=0.0):
    """Whether each of ``n`` frames of ``who`` is allowed, sent from a new event loop (a server
    process of its own), ``pause`` seconds apart."""

    async def send():
        out = []
        for _ in range(n):
            out.append(await limits.allowed(who))
            await asyncio.sleep(pause)
        return out

    return asyncio.run(send())


def test_within_one_process_the_limit_is_exact(rate):
    who = limits.Identity(user_id=9001, address="192.0.2.1")
    assert frames(who, rate + 3) == [True] * rate + [False] * 3
    # another user, same address: a count of its own (the address's limit is far higher)
    assert frames(limits.Identity(9002, "192.0.2.1"), 1) == [True]


def test_processes_share_their_counts_through_redis(rate):
    who = limits.Identity(user_id=9003, address="192.0.2.2")
    # the first process sends three frames, the last after a flush was due: all reach Redis
    assert frames(who, 3, pause=limits.FLUSH) == [True] * 3
    # the second process reads the first's counts at its first frame: two more are allowed
    assert frames(who, 4) == [True, True, False, False]


def test_with_redis_away_each_process_still_counts_its_own(rate, settings, caplog):
    settings.REDIS_URL = "redis://127.0.0.1:9/0"  # the discard port: nothing listens
    who = limits.Identity(user_id=9004, address="192.0.2.3")
    with caplog.at_level(logging.WARNING, logger="matches.limits"):
        assert frames(who, rate + 2, pause=limits.FLUSH / 2) == [True] * rate + [False] * 2
    assert any("counted in this process only" in r.getMessage() for r in caplog.records)


def test_a_flushed_counter_expires_after_its_window(rate, settings):
    """A flush leaves each counter in Redis with its total and an expiry just after its
    one-second window, so that Redis keeps no counter longer than its window needs."""
    import redis

    who = limits.Identity(user_id=9005, address="192.0.2.4")
    window = int(time.time())
    assert frames(who, 3, pause=limits.FLUSH) == [True] * 3
    prefix = settings.CACHES["default"].get("KEY_PREFIX", "")
    client = redis.Redis.from_url(settings.REDIS_URL)
    key = f"{prefix}:ws:user:9005:1:{window}"
    assert int(client.get(key)) == 3
    left = client.pttl(key) / 1000  # the expiry is at window + 2 (whole seconds)
    assert window + 2 - time.time() - 0.05 <= left <= window + 2 - time.time() + 0.05
