"""The periods statistics and honours are kept for: all time, a calendar month, a season.

A season is a quarter of the calendar year (1: January–March … 4: October–December), in the
site's time zone. Keys: ``all``, ``m2026-12`` (a month), ``s2026-4`` (a season).
"""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone
from django.utils.translation import gettext as _

ALL = "all"
#: The choices a page or the API offers, by name: this month, this season, all time.
CHOICES = ("month", "season", "all")


def month_key(when: datetime) -> str:
    """The key of the month ``when`` falls in (local time)."""
    local = timezone.localtime(when)
    return f"m{local.year}-{local.month:02d}"


def season_key(when: datetime) -> str:
    """The key of the season (quarter) ``when`` falls in (local time)."""
    local = timezone.localtime(when)
    return f"s{local.year}-{(local.month - 1) // 3 + 1}"


def keys_for(when: datetime) -> list[str]:
    """Every period a match that ended at ``when`` counts in: all time, its month, its season."""
    return [ALL, month_key(when), season_key(when)]


def current(choice: str, now: datetime | None = None) -> str:
    """The key of the period ``choice`` (one of :data:`CHOICES`) as of ``now``; ``ValueError``
    for another choice."""
    now = now or timezone.now()
    if choice == "month":
        return month_key(now)
    if choice == "season":
        return season_key(now)
    if choice == "all":
        return ALL
    raise ValueError(f"unknown period {choice!r}")


def label(key: str) -> str:
    """The period ``key`` in the reader's language: 全部, 2026年12月, 2026年第4季."""
    if key == ALL:
        return _("All time")
    year, _sep, part = key[1:].partition("-")
    if key.startswith("m"):
        return _("%(year)s-%(month)s") % {"year": year, "month": part}
    return _("Season %(season)s of %(year)s") % {"year": year, "season": part}


def bounds(key: str) -> tuple[datetime, datetime]:
    """The start (included) and end (excluded) of a month or season key, as aware datetimes
    in the site's time zone; ``ValueError`` for ``all`` or a malformed key."""
    try:
        year_text, part_text = key[1:].split("-")
        year, part = int(year_text), int(part_text)
    except ValueError:
        raise ValueError(f"not a month or season: {key!r}") from None
    if key.startswith("m") and 1 <= part <= 12:
        first, months = part, 1
    elif key.startswith("s") and 1 <= part <= 4:
        first, months = (part - 1) * 3 + 1, 3
    else:
        raise ValueError(f"not a month or season: {key!r}")
    tz = timezone.get_current_timezone()
    start = datetime(year, first, 1, tzinfo=tz)
    last = first + months
    end = datetime(year + (last - 1) // 12, (last - 1) % 12 + 1, 1, tzinfo=tz)
    return start, end
