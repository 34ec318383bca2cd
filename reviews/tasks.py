"""Celery tasks of the reviews: review a finished match, and beat's sweep that publishes them.

Thin: they call :mod:`reviews.services`, which is idempotent and takes over the claim of a
worker that died, so a task delivered twice or after a SIGKILL does no harm.
"""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from reviews import services


@shared_task(acks_late=True, autoretry_for=(OperationalError,), max_retries=3, retry_backoff=True)
def review_match_task(match_id: int) -> str:
    """Review match ``match_id`` (once); "done" or "skipped"."""
    return "done" if services.review_match(match_id) is not None else "skipped"


@shared_task(acks_late=True)
def sweep_reviews_task() -> int:
    """Publish the review of every recent finished match that still needs one; how many."""
    return services.sweep()
