"""What friends' tables answer to the apps below them (registered from
:meth:`friends.apps.FriendsConfig.ready`):

- live play's access rule (:func:`matches.services.access.register_clubless_viewer`): who
  came in by the link or code (and the host) may see the table;
- live play's seating rule (:func:`matches.hooks.register_clubless_seating`): the same people
  may sit there (a club's table asks for membership instead);
- the table page (:func:`matches.hooks.register_table_panel`): the invitation — code, link,
  share button, QR code — and the host's "take off a seat" buttons, before the first deal.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from clubs.models import User
from friends import links, services
from friends.models import Room
from matches import hooks as match_hooks
from matches.models import Table, TableKind, TableStatus
from matches.services import access


def table_panel(request: Any, table: Table, match: Any) -> dict[str, Any] | None:
    """The invitation panel of friends' table ``table`` for whoever may see it, while it
    waits for players (None otherwise)."""
    if table.kind != TableKind.FRIENDS or table.status != TableStatus.OPEN or match is not None:
        return None
    user: User = request.user
    if not services.is_admitted(user, table) and not access.is_seated(user, table):
        return None
    room = Room.objects.select_related("host").filter(table=table).first()
    if room is None:
        return None
    link = links.invitation_url(request, room)
    is_host = room.host_id == user.pk
    removable = []
    if is_host:
        for seat in table.seats.select_related("user").order_by("index"):
            if seat.taken and seat.user_id != user.pk:
                name = seat.user.name if seat.user else seat.get_bot_display()
                removable.append({"index": seat.index, "name": name})
    return {
        "template": "friends/_table_panel.html",
        "room": room,
        "link": link,
        "title": links.invitation_title(room),
        "text": links.invitation_text(room),
        "is_host": is_host,
        "removable": removable,
        "remove_url": reverse("friends:remove", args=[table.pk]),
    }


def may_sit(user: User, table: Table) -> bool:
    """Whether ``user`` may sit at friends' table ``table``: its host, or someone who came in
    by its link or code and was not taken off."""
    return services.is_admitted(user, table)


def register() -> None:
    """Register the answers above with the apps below."""
    access.register_clubless_viewer(TableKind.FRIENDS, services.is_admitted)
    match_hooks.register_clubless_seating(TableKind.FRIENDS, may_sit)
    match_hooks.register_table_panel(table_panel)
