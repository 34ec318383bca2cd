"""Celery tasks of the outbox: thin, they call :mod:`outbox.services`.

Both are safe to run twice or at once: :func:`outbox.services.deliver` claims a message before
sending it and never sends a sent one.
"""

from __future__ import annotations

from celery import shared_task

from outbox import services


@shared_task(name=services.SEND_TASK, acks_late=True, ignore_result=True)
def send_message(pk: int) -> str:
    """Send outbox message ``pk`` if it is due (see :func:`outbox.services.deliver`)."""
    return services.deliver(pk)


@shared_task(name="outbox.tasks.sweep", ignore_result=True)
def sweep() -> int:
    """Beat: publish again the send task of every overdue pending message."""
    return services.sweep()
