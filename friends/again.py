"""再来一局 at a friends' table (issue 43, point 5): live play asks this app to open the new
table (:func:`matches.services.again.register_opener`), since a friends' table is a room with
its link, its code and the people let in."""

from __future__ import annotations

from clubs.models import User
from friends import services
from friends.models import Admission, Via
from matches.models import Match, Seat, Table, TableKind
from matches.services import again


def open_again(user: User, table: Table, match: Match) -> Table:
    """A new room of the same game, options and clocks, hosted by ``user`` in their old seat;
    every other person of ``match`` is let in (they come by the same 再来一局 button), so they
    may sit there without a new link or code."""
    room = services.open_room(
        user, variant=table.variant, options=dict(table.options or {}), clocks=table.clocks
    )
    new = room.table
    index = again.seat_of(user, match)
    if index is not None and index != 0:
        # the host opens a room in seat 0: back to the seat they played in
        Seat.objects.filter(table=new, index=0).update(user=None)
        Seat.objects.filter(table=new, index=index).update(user=user, bot="")
    for info in match.seats:
        other = info.get("user")
        if other and other != user.pk:
            Admission.objects.get_or_create(room=room, user_id=other, defaults={"via": Via.LINK})
    return new


def register() -> None:
    """Offer 再来一局 at friends' tables."""
    again.register_opener(TableKind.FRIENDS, open_again)
