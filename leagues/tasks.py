"""Celery tasks of leagues: the beat tick. Thin: :func:`leagues.services.play.tick` does only
what is due, so a duplicate or late tick does nothing twice."""

from __future__ import annotations

from celery import shared_task
from django.utils.dateparse import parse_datetime

from leagues.services import play


@shared_task(acks_late=True, ignore_result=True)
def league_tick_task(now: str | None = None) -> dict[str, int]:
    """Beat, every minute: open rounds, remind, open due tables, collect results, forfeit
    and close rounds at their window's end. ``now`` (ISO 8601) is for tests."""
    return play.tick(parse_datetime(now) if now else None)
