"""Publishing the Celery tasks of live play, by name: the deadline of the seat to move and
the match time limit (the tasks are in :mod:`matches.tasks`, which this module does not
import, so services and tasks both use it without a circle).

Deadline tasks are coalesced per match: a countdown task is published only when no task of
that match is already queued to run at or before the new deadline (its ETA is kept in
Redis under :func:`pending_key`). A queued task that finds its match moved on queues the
task for the match's current version and deadline, so at most one deadline task per match is
in flight while people play faster than their clocks, instead of one per action. The beat
sweeper still applies any deadline a lost task missed.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import redis
from celery import current_app
from django.conf import settings

log = logging.getLogger(__name__)

#: The tasks' names (``matches.tasks``).
DEADLINE_TASK = "matches.tasks.deadline_task"
TIME_LIMIT_TASK = "matches.tasks.time_limit_task"

#: A queued task this many seconds overdue is presumed lost (a new one is published).
LOST_AFTER = 2.0
#: Longest countdown of a published task (seconds): every countdown stays well under the
#: broker's visibility timeout (3600 s), after which Redis would hand an unacknowledged task
#: to a second worker. A task queued for a later deadline runs early and queues the rest.
MAX_COUNTDOWN = 1800.0


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


def _send(name: str, args: tuple[Any, ...], countdown: float = 0.0) -> None:
    """Publish task ``name`` with ``args`` to run ``countdown`` seconds from now. With
    ``CELERY_TASK_ALWAYS_EAGER`` (development, tests) it runs here at once, as a task's own
    ``apply_async`` would: ``send_task`` does not heed that setting."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        if name not in current_app.tasks:
            current_app.loader.import_default_modules()  # the apps' tasks.py
        current_app.tasks[name].apply_async(args, countdown=countdown)
        return
    current_app.send_task(name, args, countdown=min(countdown, MAX_COUNTDOWN))


def forget_pending(match_id: int) -> None:
    """A queued deadline task of the match has started: it is no longer pending."""
    _published.pop(match_id, None)
    _client().delete(pending_key(match_id))


def schedule_deadline(match_id: int, version: int, delay: float) -> None:
    """Make sure a deadline task of match ``match_id`` runs ``delay`` seconds from now
    (or earlier: an earlier queued task moves on to this deadline itself). In an ASGI server
    (:func:`schedule_in_background`) the Redis round trips are left to a background thread, so
    the thread that applied the action goes on at once."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        _send(DEADLINE_TASK, (match_id, version))
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
    # A deadline beyond MAX_COUNTDOWN: the task runs (and is recorded as pending) at the cap
    # and queues the rest itself (clock.on_deadline finds the deadline not yet due).
    eta = min(eta, now + MAX_COUNTDOWN)
    delay = max(0.0, eta - now)
    client.set(key, repr(eta), ex=int(delay) + 60)
    if len(_published) > 100_000:
        _published.clear()
    _published[match_id] = eta
    _send(DEADLINE_TASK, (match_id, version, eta), 0.0 if delay <= 0.001 else delay)


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
    """Queue the time limit task of the match for when its time limit runs out (plus a
    little). A limit beyond :data:`MAX_COUNTDOWN` makes the task run early and do nothing;
    the beat sweeper applies the limit once it passes."""
    _send(TIME_LIMIT_TASK, (match_id,), delay + 0.2)


# ---------------------------------------------------------------- outages (fair clocks)
#: Every ASGI process confirms it is alive this often (seconds)...
WEB_BEAT = 3.0
#: ...and the web counts as down once no process confirmed it for this long.
WEB_TTL = 10


def _key(name: str) -> str:
    prefix = settings.CACHES["default"].get("KEY_PREFIX", "")
    return f"{prefix}:matches:{name}"


def web_beat(now: float | None = None) -> None:
    """Confirm that an ASGI process is alive. The first beat after no process confirmed it for
    :data:`WEB_TTL` seconds records the outage (from the last beat before it until now), which
    :func:`web_outage` reports."""
    now = time.time() if now is None else now
    client = _client()
    last = client.getset(_key("web:last"), repr(now))
    if last is not None and now - float(last) > WEB_TTL:
        client.set(_key("web:outage"), f"{float(last)!r} {now!r}")


def web_outage(now: float | None = None) -> tuple[float, float] | None:
    """The last time no ASGI process was alive, as ``(start, end)`` in epoch seconds; ``end``
    is ``now`` while it lasts. None if there was none (or no web process ever ran here)."""
    now = time.time() if now is None else now
    client = _client()
    last = client.get(_key("web:last"))
    if last is not None and now - float(last) > WEB_TTL:
        return float(last), now  # down now
    outage = client.get(_key("web:outage"))
    if outage is None:
        return None
    start, end = outage.split()
    return float(start), float(end)


def keep_web_alive() -> None:
    """From now on confirm every :data:`WEB_BEAT` seconds, from a background thread, that this
    ASGI process is alive (called by the ASGI application)."""
    global _web_beating
    if _web_beating:
        return
    _web_beating = True

    def beat() -> None:
        while True:
            try:
                with web_beats:
                    web_beat()
            except Exception:  # Redis away: the worker sees an outage and is fair to players
                log.warning("could not confirm that the web is alive")
            time.sleep(WEB_BEAT)

    threading.Thread(target=beat, name="web-alive", daemon=True).start()


_web_beating = False
#: Held around each background beat: whoever holds it (a test that plays the web's part
#: itself) knows that no beat is under way and none starts until it lets go.
web_beats = threading.Lock()


def sweep_gap(now: float | None = None) -> float | None:
    """Record that the sweeper runs now; returns when it ran before if that was more than
    ``MATCHES_LATE_SECONDS`` ago (the worker or beat was down since then), else None."""
    now = time.time() if now is None else now
    previous = _client().getset(_key("sweep:last"), repr(now))
    late = float(getattr(settings, "MATCHES_LATE_SECONDS", 10.0))
    if previous is not None and now - float(previous) > late:
        return float(previous)
    return None


def first_rearm(match_id: int, version: int) -> bool:
    """True the first time (per match version) the worker's lateness re-arms a deadline: a
    worker that keeps running late (an overloaded queue, not an outage) must not hold a table
    for ever."""
    return bool(_client().set(_key(f"rearmed:{match_id}:{version}"), "1", nx=True, ex=86400))
