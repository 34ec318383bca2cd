"""Shared helpers of the league tests."""

from datetime import date, datetime, timedelta

from django.utils import timezone

START = date(2030, 3, 4)


def at(day: date, hour: int = 19) -> datetime:
    return timezone.make_aware(datetime.combine(day, datetime.min.time()) + timedelta(hours=hour))
