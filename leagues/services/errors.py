"""The refusals of the league services."""

from __future__ import annotations

from django.utils.translation import gettext as _

from clubs.services import ClubError
from games.errors import NotAllowed as BaseNotAllowed


class LeagueError(ClubError):
    """A refused league action: ``code`` for programs, a translated ``message`` (a
    ``ClubError``, so the API answers it as every other refusal)."""


class NotAllowed(LeagueError, BaseNotAllowed):
    """The acting user lacks the role the action needs."""


def refuse(code: str, message: str) -> LeagueError:
    """A :class:`LeagueError` to raise."""
    return LeagueError(code, message)


def not_allowed() -> NotAllowed:
    """The refusal of an action the user may not take."""
    return NotAllowed("not_allowed", _("You are not allowed to do this."))
