"""Celery tasks of live play: deadlines (clocks, bots, auto-play), the match time limit and
the sweeper. Thin and idempotent: each calls :mod:`matches.services`, which acts only if the
match is still at the version the task was scheduled for, so a duplicate, late or redelivered
task does nothing.
"""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from matches import services


@shared_task(acks_late=True, autoretry_for=(OperationalError,), max_retries=5, retry_backoff=True)
def deadline_task(match_id: int, version: int) -> str:
    """Act for the seat to move of match ``match_id`` if it is still at ``version``."""
    return services.act_on_deadline(match_id, version)


@shared_task(acks_late=True, autoretry_for=(OperationalError,), max_retries=5, retry_backoff=True)
def time_limit_task(match_id: int) -> bool:
    """Apply the match time limit once it has passed (does nothing before, or twice)."""
    return services.apply_time_limit(match_id)


@shared_task(acks_late=True, ignore_result=True)
def sweep_task() -> dict[str, int]:
    """Beat, every few seconds: apply every overdue deadline and time limit."""
    return services.sweep()


def schedule_deadline(match_id: int, version: int, delay: float) -> None:
    """Queue :func:`deadline_task` to run ``delay`` seconds from now."""
    if delay <= 0.001:
        deadline_task.delay(match_id, version)
    else:
        deadline_task.apply_async((match_id, version), countdown=delay)


def schedule_time_limit(match_id: int, delay: float) -> None:
    """Queue :func:`time_limit_task` for when the time limit runs out (plus a little)."""
    time_limit_task.apply_async((match_id,), countdown=delay + 0.2)
