"""Celery tasks of tournaments: the beat tick that runs every tournament, and the round
notifications still queued from before rounds notified in their own transaction. Thin and
idempotent: :func:`tournaments.services.schedule.advance` does only what is due and locks the
tournament, so a duplicate or late tick does nothing twice.
"""

from __future__ import annotations

from datetime import datetime

from celery import shared_task
from django.db import OperationalError, transaction
from django.utils.dateparse import parse_datetime

from tournaments import notifications
from tournaments.models import Round
from tournaments.services import schedule as schedule_services


@shared_task(acks_late=True, ignore_result=True)
def tournament_tick_task(now: str | None = None) -> dict[int, list[str]]:
    """Beat, every few seconds: open registration / check-in by their windows (they are
    computed from the times), start rounds at their time, collect results, forfeit no-shows,
    start the next round when one finishes. ``now`` (ISO 8601) is for tests and replays."""
    when: datetime | None = parse_datetime(now) if now else None
    return schedule_services.tick(when)


@shared_task(acks_late=True, autoretry_for=(OperationalError,), max_retries=5, retry_backoff=True)
def notify_round_task(round_id: int) -> int:
    """Notify the players of a started round (on site and by e-mail), at most once. Rounds now
    notify in their own transaction; this task stays for messages queued before that change."""
    rnd = Round.objects.select_related("tournament").filter(pk=round_id).first()
    if rnd is None:
        return 0
    with transaction.atomic():
        return notifications.notify_round(rnd)
