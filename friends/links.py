"""The invitation as it is shared: the link's absolute address and the words that go with it
(the share sheet's title and text, the chat preview's title and description)."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import gettext as _

from friends.models import Room


def absolute(request: HttpRequest, path: str) -> str:
    """``path`` on the site's public address (``SITE_URL``, else the request's own host)."""
    base = getattr(settings, "SITE_URL", "") or ""
    return base.rstrip("/") + path if base else request.build_absolute_uri(path)


def invitation_url(request: HttpRequest, room: Room) -> str:
    """The absolute address of ``room``'s invitation link."""
    return absolute(request, reverse("friends:invitation", args=[room.token]))


def invitation_title(room: Room) -> str:
    """ "<host> invites you to <game>", in the active language."""
    return _("%(host)s invites you to %(game)s") % {
        "host": room.host.name,
        "game": room.table.get_variant_display(),
    }


def invitation_text(room: Room) -> str:
    """The line under the title: a friends' table, unrated, and its code, in the active
    language."""
    return _(
        "A friends' table, not rated. Open the link to take a seat, or enter room code %(code)s."
    ) % {"code": room.code or ""}
