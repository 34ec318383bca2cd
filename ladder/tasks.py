"""Celery tasks of the ladder: apply a finished result to the ladders, then email the players.

Tasks are thin: they call :mod:`ladder.apply` and are safe to run twice (the services are
idempotent), so a task redelivered after a worker died does no harm; beat's
:func:`sweep_results_task` queues again the results whose task was lost.
"""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from ladder import notifications
from ladder.apply import apply_result, ladders_for, rebuild_ladder, unfinished_results
from ladder.models import Ladder, RatedResult


@shared_task(acks_late=True, autoretry_for=(OperationalError,), max_retries=5, retry_backoff=True)
def apply_result_task(result_id: int) -> list[str]:
    """Apply result ``result_id`` to its ladders (exactly once each), then queue the emails.

    Returns ``"<ladder id>:<applied|skipped|rebuilt>"`` per ladder; an unknown id does nothing.
    """
    result = RatedResult.objects.filter(pk=result_id).first()
    if result is None:
        return []
    outcomes = apply_result(result)
    send_result_emails_task.delay(result_id)
    return [f"{o.ladder_id}:{o.action}" for o in outcomes]


@shared_task(acks_late=True)
def send_result_emails_task(result_id: int, corrected: bool = False) -> int:
    """Email each player of the result their rating changes, at most once; return the count.
    ``corrected``: the emails say that the result was corrected."""
    return notifications.send_result_emails(result_id, corrected=corrected)


@shared_task(acks_late=True, autoretry_for=(OperationalError,), max_retries=5, retry_backoff=True)
def correct_result_task(result_id: int) -> int:
    """After :func:`ladder.services.correct_result`: rebuild each ladder of the result, then
    email its players the correction. Returns how many ladders were rebuilt."""
    result = RatedResult.objects.filter(pk=result_id).first()
    if result is None:
        return 0
    ladders = ladders_for(result)
    for ladder in ladders:
        rebuild_ladder(ladder)
    send_result_emails_task.delay(result_id, corrected=True)
    return len(ladders)


@shared_task(acks_late=True)
def rebuild_ladder_task(ladder_id: int) -> int:
    """Rebuild one ladder from its results; return how many results were replayed."""
    ladder = Ladder.objects.filter(pk=ladder_id).first()
    if ladder is None:
        return 0
    return rebuild_ladder(ladder)


@shared_task(ignore_result=True)
def sweep_results_task() -> int:
    """Beat: queue again :func:`apply_result_task` for every result whose task was lost
    (:func:`ladder.apply.unfinished_results`); return how many. Queuing one twice is harmless:
    the task applies each result once per ladder and claims its emails once."""
    ids = unfinished_results()
    for result_id in ids:
        apply_result_task.delay(result_id)
    return len(ids)
