"""Celery tasks of accounts and clubs. Thin and idempotent: each calls one service."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from clubs import guests


@shared_task(acks_late=True, ignore_result=True, autoretry_for=(OperationalError,), max_retries=3)
def remove_unused_guests_task() -> int:
    """Beat, every ``GUESTS_SWEEP_SECONDS``: delete the guest accounts unused for
    ``GUESTS_EXPIRE_DAYS`` (:func:`clubs.guests.remove_unused_guests`); never a signed-up one."""
    return guests.remove_unused_guests()
