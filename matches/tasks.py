"""Celery tasks of live play: deadlines (clocks, bots, auto-play), the match time limit and
the sweeper. Thin and idempotent: each calls :mod:`matches.services`, which acts only if the
match is still at the version the task was scheduled for, so a duplicate, late or redelivered
task does nothing.

Deadline tasks are coalesced per match: a countdown task is published only when no task of
that match is already queued to run at or before the new deadline (its ETA is kept in
Redis under :func:`pending_key`). A queued task that finds its match moved on
queues the task for the match's current version and deadline, so at most one deadline task
per match is in flight while people play faster than their clocks, instead of one per action.
The beat sweeper still applies any deadline a lost task missed.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import redis
from celery import shared_task
from django.conf import settings
from django.db import OperationalError
from django.utils import timezone

from matches import services
from matches.models import Match, MatchStatus

log = logging.getLogger(__name__)

#: A queued task this many seconds overdue is presumed lost (a new one is published).
LOST_AFTER = 2.0


def pending_key(match_id: int) -> str:
    """The Redis key holding the ETA (epoch seconds) of the match's queued deadline task."""
    prefix = settings.CACHES["default"].get("KEY_PREFIX", "")
    return f"{prefix}:matches:deadline:{match_id}"


_redis: redis.Redis | None = None
#: ETAs of the deadline tasks this process published, by match: a hint that saves the Redis
#: round trip while that task is still in the future (Redis stays the shared truth).
_published: dict[int, float] = {}
_redis_lock = threading.Lock()


def _client() -> redis.Redis:
    """One Redis client (and connection pool) per process: Django's cache object is per
    context, so it would open a connection for every action."""
    global _redis
    if _redis is None:
        with _redis_lock:
            if _redis is None:
                _redis = redis.Redis.from_url(settings.REDIS_URL)
    return _redis


def _deadline_of(match_id: int) -> tuple[int, int | None, Any] | None:
    """``(version, deadline_version, deadline)`` of a match still playing (None: over)."""
    return (
        Match.objects.filter(pk=match_id, status=MatchStatus.PLAYING)
        .values_list("version", "deadline_version", "deadline")
        .first()
    )


@shared_task(acks_late=True, autoretry_for=(OperationalError,), max_retries=5, retry_backoff=True)
def deadline_task(match_id: int, version: int, eta: float | None = None) -> str:
    """Act for the seat to move of match ``match_id`` if it is still at ``version``; if the
    match moved on (or the deadline is not yet due), queue the task for its current deadline.
    Returns what :func:`matches.services.act_on_deadline` did."""
    if eta is not None:
        _published.pop(match_id, None)
        _client().delete(pending_key(match_id))  # this task is no longer pending
    current = _deadline_of(match_id)
    if current is None:
        return "over"
    outcome = "stale"  # moved on (most tasks of a busy table): the match is not read whole
    if current[0] == version == current[1] and current[2] is not None:
        outcome = services.act_on_deadline(match_id, version)
        if outcome in ("stale", "early"):
            current = _deadline_of(match_id)  # as it is now
    if eta is not None and outcome in ("stale", "early"):  # a queued task (not eager, not a call)
        if current is not None and current[2] is not None and current[0] == current[1]:
            delay = max(0.0, (current[2] - timezone.now()).total_seconds())
            if outcome == "early" or current[0] != version:
                schedule_deadline(match_id, current[0], delay)
    return outcome


@shared_task(acks_late=True, autoretry_for=(OperationalError,), max_retries=5, retry_backoff=True)
def time_limit_task(match_id: int) -> bool:
    """Apply the match time limit once it has passed (does nothing before, or twice)."""
    return services.apply_time_limit(match_id)


@shared_task(acks_late=True, ignore_result=True)
def sweep_task() -> dict[str, int]:
    """Beat, every few seconds: apply every overdue deadline and time limit."""
    return services.sweep()


def schedule_deadline(match_id: int, version: int, delay: float) -> None:
    """Make sure a :func:`deadline_task` of match ``match_id`` runs ``delay`` seconds from now
    (or earlier: an earlier queued task moves on to this deadline itself). In an ASGI server
    (:func:`schedule_in_background`) the Redis round trips are left to a background thread, so
    the thread that applied the action goes on at once."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        deadline_task.delay(match_id, version)
        return
    now = time.time()
    eta = now + max(0.0, delay)
    known = _published.get(match_id)
    if known is not None and now < known <= eta + 0.01:
        return  # the task this process queued is still to come and will move on itself
    if _background is None:
        _publish(match_id, version, eta)
        return
    with _background:
        queued = _queued.get(match_id)
        if queued is None or queued[0] < version:
            _queued[match_id] = (version, eta)  # a newer deadline supersedes a queued one
        _background.notify()


def _publish(match_id: int, version: int, eta: float) -> None:
    now = time.time()
    key = pending_key(match_id)
    client = _client()
    pending = client.get(key)
    if pending is not None and now - LOST_AFTER <= float(pending) <= eta + 0.01:
        _published[match_id] = float(pending)  # another process queued it: remember it here
        return
    delay = max(0.0, eta - now)
    client.set(key, repr(eta), ex=int(delay) + 60)
    if len(_published) > 100_000:
        _published.clear()
    _published[match_id] = eta
    if delay <= 0.001:
        deadline_task.delay(match_id, version, eta)
    else:
        deadline_task.apply_async((match_id, version, eta), countdown=delay)


_background: threading.Condition | None = None
#: Deadlines waiting for the background thread: match id -> (version, ETA).
_queued: dict[int, tuple[int, float]] = {}


def schedule_in_background() -> None:
    """From now on, publish deadline tasks from a background thread of this process (called
    by the ASGI application). A deadline lost with the process is applied by the sweeper."""
    global _background
    if _background is not None:
        return
    _background = threading.Condition()
    threading.Thread(target=_publish_queued, name="deadlines", daemon=True).start()


def _publish_queued() -> None:
    assert _background is not None
    while True:
        with _background:
            while not _queued:
                _background.wait()
            batch = list(_queued.items())
            _queued.clear()
        for match_id, (version, eta) in batch:
            try:
                _publish(match_id, version, eta)
            except Exception:  # Redis or the broker away: the sweeper applies the deadline
                log.exception("could not queue the deadline of match %s v%s", match_id, version)


def schedule_time_limit(match_id: int, delay: float) -> None:
    """Queue :func:`time_limit_task` for when the time limit runs out (plus a little)."""
    time_limit_task.apply_async((match_id,), countdown=delay + 0.2)
