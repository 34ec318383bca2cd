"""The refusals of tournament actions: a stable ``code`` and a translated message, rooted in
:class:`games.errors.Refused` (through :class:`clubs.services.ClubError`, so the API answers
them as every other refusal)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from clubs.services import ClubError
from games import errors


class TournamentError(ClubError):
    """A refused tournament action: ``code`` for programs, ``message`` for people."""


class NotAllowed(TournamentError, errors.NotAllowed):
    """The acting user lacks the role the action needs (HTTP 403)."""


def not_allowed() -> NotAllowed:
    """The refusal of an action the user has no role for."""
    return NotAllowed("not_allowed", _("You are not allowed to do this."))
