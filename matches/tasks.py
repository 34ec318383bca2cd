"""Celery tasks of live play: deadlines (clocks, bots, auto-play), the match time limit and
the sweeper. Thin and idempotent: each calls :mod:`matches.services.clock`, which acts only if
the match is still at the version the task was scheduled for, so a duplicate, late or
redelivered task does nothing. They are published by name from :mod:`matches.schedule`.
"""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from matches.services import clock


@shared_task(acks_late=True, autoretry_for=(OperationalError,), max_retries=5, retry_backoff=True)
def deadline_task(match_id: int, version: int, eta: float | None = None) -> str:
    """Act for the seat to move of match ``match_id`` if it is still at ``version``, else
    queue the task for its current deadline (:func:`matches.services.clock.on_deadline`)."""
    return clock.on_deadline(match_id, version, eta)


@shared_task(acks_late=True, autoretry_for=(OperationalError,), max_retries=5, retry_backoff=True)
def time_limit_task(match_id: int) -> bool:
    """Apply the match time limit once it has passed (does nothing before, or twice)."""
    return clock.apply_time_limit(match_id)


@shared_task(acks_late=True, ignore_result=True)
def sweep_task() -> dict[str, int]:
    """Beat, every few seconds: apply every overdue deadline and time limit."""
    return clock.sweep()
