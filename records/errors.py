"""The statistics' refusals (a :class:`games.errors.Refused`)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from games.errors import Refused
from records import periods


class RecordsError(Refused):
    """A request the statistics refuse (HTTP 400)."""


def period_key(choice: str | None) -> str:
    """The key of the period a request chose (``month`` when none); :class:`RecordsError`
    ``bad_period`` for another word."""
    try:
        return periods.current(choice or "month")
    except ValueError:
        raise RecordsError(
            "bad_period", _("Choose the period: this month, this season or all time.")
        ) from None
