"""Celery tasks of the statistics: record a finished match; beat's sweep of lost ones.

Thin: they call :mod:`records.services`, which records a match once in one transaction, so a
task run twice or redelivered after its worker was killed (``acks_late``) changes nothing.
"""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from records import services


@shared_task(acks_late=True, autoretry_for=(OperationalError,), max_retries=5, retry_backoff=True)
def record_match_task(match_id: int) -> bool:
    """Record finished live match ``match_id`` (True if recorded by this run)."""
    return services.record_live_match(match_id)


@shared_task(acks_late=True, autoretry_for=(OperationalError,), max_retries=5, retry_backoff=True)
def record_sheet_task(sheet_id: int) -> bool:
    """Record confirmed score sheet ``sheet_id`` (True if recorded by this run)."""
    return services.record_sheet(sheet_id)


@shared_task(acks_late=True, autoretry_for=(OperationalError,), max_retries=5, retry_backoff=True)
def follow_game_task(game_id: int) -> int:
    """Follow tournament game ``game_id``'s entered, corrected or cleared result into the
    statistics (how many recorded matches changed)."""
    return services.follow_game(game_id)


@shared_task(acks_late=True, autoretry_for=(OperationalError,), max_retries=5, retry_backoff=True)
def follow_fixture_task(fixture_id: int) -> int:
    """Follow league fixture ``fixture_id``'s corrected table results into the statistics."""
    return services.follow_fixture(fixture_id)


@shared_task(acks_late=True)
def sweep_records_task() -> int:
    """Record the finished matches, confirmed sheets and results organisers entered (without
    a live match or sheet) of the last days that are not yet (their task was lost, or sheets,
    which have no hook), and follow the corrections of the last days (a lost task); returns
    how many recorded matches changed."""
    done = sum(services.record_live_match(pk) for pk in services.unrecorded_matches())
    done += sum(services.record_sheet(pk) for pk in services.unrecorded_sheets())
    done += sum(services.record_entered(key) for key in services.unrecorded_entered())
    games, fixtures, entered = services.corrected_results()
    done += sum(services.follow_game(pk) for pk in games)
    done += sum(services.follow_fixture(pk) for pk in fixtures)
    return done + sum(services.record_entered(key) for key in entered)
