"""Refusals of friends' tables: a stable code and a message translated when it is read."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from games.errors import Refused

REASONS = {
    "login_required": _("Please log in first."),
    "guest": _("Guests can play practice tables only: sign up to play with friends."),
    "bad_code": _("No friends' table is open with that code. Check the six digits."),
    "bad_link": _("This invitation link is not valid."),
    "ended": _("This friends' table has ended."),
    "rate_limited": _("Too many tries. Wait a few minutes and try again."),
    "removed": _("The host has taken you off this table."),
    "not_host": _("Only the table's host can do that."),
    "started": _("The first deal has begun: seats can no longer be changed."),
    "no_occupant": _("Nobody sits in that seat."),
    "own_seat": _("To leave your own seat, stand up."),
    "too_many_rooms": _(
        "You already have friends' tables waiting for players: invite friends to one of them."
    ),
}

#: The HTTP status of each refusal that is not a plain 400.
STATUS = {
    "login_required": 403,
    "guest": 403,
    "not_host": 403,
    "rate_limited": 429,
    "too_many_rooms": 429,
}


class FriendsError(Refused):
    """A refused friends' table operation: ``code`` (one of :data:`REASONS`) and the message
    in the language active when it is read."""

    def __init__(self, code: str) -> None:
        """Keep the reason code; the message is translated when read."""
        Exception.__init__(self, code)
        self.code = code
        self.status = STATUS.get(code, 400)

    @property
    def message(self) -> str:  # type: ignore[override]  # translated when read
        """The reason in the active language."""
        return str(REASONS[self.code])
