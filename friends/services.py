"""Friends' tables (好友房): open one, let people in by its link or its 6-digit code, take
someone off a seat before the first deal.

What this module promises:

- Only a signed-in person who is not a guest (guests play practice tables only) opens a
  friends' table or comes in. The table is a :class:`matches.models.Table` of kind
  ``friends``: no club, never rated (a database constraint holds it), no spectators.
- The link's token is 256 random bits; the code is six random digits, unique among the
  rooms that hold one. Both let people in only while the table is waiting or playing: once it
  has ended — or has waited ``FRIENDS_CODE_WAITING_HOURS`` (default 24) without its first
  deal — the code is taken away (:func:`release_ended_codes`, also run before a new code is
  drawn) and a look-up of it is refused exactly like a code that never existed, so a code
  says nothing about any other table. Codes exist only for friends' tables, so no code leads
  to a club's table, members-only or not.
- Code look-ups are rate-limited per user and per client address (:mod:`friends.limits`).
- Whoever came in (:class:`~friends.models.Admission`) may see the table and sit at it; they
  are put in the first empty seat while the table waits. The host may empty any other seat
  before the first deal (the match starts when the last seat is taken); a person taken off is
  not let in again.

Refusals are :class:`~friends.errors.FriendsError` (or :class:`matches.messages.MatchError`
from the table services), translated.
"""

from __future__ import annotations

import re
import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from clubs.guests import is_guest
from clubs.models import User
from friends.errors import FriendsError
from friends.limits import allow_code_lookup
from friends.models import Admission, Room, Via
from matches.messages import MatchError
from matches.models import Seat, Table, TableKind, TableStatus
from matches.services import tables

#: A table that still lets people in by its link or code.
ACTIVE = (TableStatus.OPEN, TableStatus.PLAYING)
CODE_LENGTH = 6
_CODE = re.compile(r"\d{6}")
#: Full-width digits (as a Chinese keyboard may type them) read as ASCII ones.
_WIDE_DIGITS = str.maketrans("０１２３４５６７８９", "0123456789")


def _require_person(user: User | None) -> None:
    if user is None or not user.is_authenticated:
        raise FriendsError("login_required")
    if is_guest(user):
        raise FriendsError("guest")


def _waited_too_long() -> Q:
    """The rooms whose table still waits for its first deal after ``FRIENDS_CODE_WAITING_HOURS``
    (an abandoned room: its code would only be one more for a guesser to find)."""
    hours = float(getattr(settings, "FRIENDS_CODE_WAITING_HOURS", 24))
    cutoff = timezone.now() - timedelta(hours=hours)
    return Q(table__status=TableStatus.OPEN, created_at__lt=cutoff)


def release_ended_codes() -> int:
    """Take the code away from every room whose table has ended (finished or closed) or has
    waited too long for its first deal, so its six digits admit nobody and may be drawn again.
    Returns how many were released."""
    ended = ~Q(table__status__in=ACTIVE) | _waited_too_long()
    return Room.objects.filter(code__isnull=False).filter(ended).update(code=None)


def _draw_code(room: Room) -> None:
    """Give ``room`` a random code no other room holds (retrying on a collision)."""
    for _attempt in range(50):
        room.code = f"{secrets.randbelow(10**CODE_LENGTH):0{CODE_LENGTH}d}"
        try:
            with transaction.atomic():
                room.save(update_fields=["code"])
            return
        except IntegrityError:
            continue
    raise FriendsError("rate_limited")  # a million codes all taken: far beyond any real load


def open_room(
    user: User,
    *,
    variant: str,
    options: dict[str, Any] | None = None,
    clocks: bool = True,
) -> Room:
    """Open a friends' table of ``variant`` for ``user`` (seated in seat 0), with its link
    token and its code. Raises :class:`FriendsError` (not signed in, a guest, already
    ``FRIENDS_WAITING_ROOMS_MAX`` rooms waiting for their first deal: each holds a code) or
    :class:`MatchError` (a bad game or options)."""
    _require_person(user)
    release_ended_codes()
    waiting = Room.objects.filter(host=user, code__isnull=False, table__status=TableStatus.OPEN)
    if waiting.count() >= int(getattr(settings, "FRIENDS_WAITING_ROOMS_MAX", 5)):
        raise FriendsError("too_many_rooms")
    with transaction.atomic():
        table = tables.open_table(
            user,
            None,
            kind=TableKind.FRIENDS,
            variant=variant,
            options=options,
            clocks=clocks,
            spectators_allowed=False,
        )
        room = Room.objects.create(table=table, host=user, token=secrets.token_urlsafe(32))
        _draw_code(room)
    return room


def room_by_token(token: str) -> Room | None:
    """The room of link ``token`` (any state), or None."""
    if not isinstance(token, str) or not 20 <= len(token) <= 64:
        return None
    return Room.objects.select_related("table", "host").filter(token=token).first()


def normalise_code(text: Any) -> str | None:
    """The six digits of ``text`` (spaces and full-width digits allowed), or None."""
    if not isinstance(text, str):
        return None
    digits = re.sub(r"[\s\-]", "", text.translate(_WIDE_DIGITS))
    return digits if _CODE.fullmatch(digits) else None


def join_by_code(user: User, text: str, address: str | None) -> Table:
    """Let ``user`` in by a code typed as ``text``, counted against the look-up limits of the
    user and of client ``address``. A code of no room, or of a table that has ended, is
    refused ``bad_code`` alike. Returns the table."""
    _require_person(user)
    code = normalise_code(text)
    if code is None:
        raise FriendsError("bad_code")
    if not allow_code_lookup(user.pk, address):
        raise FriendsError("rate_limited")
    room = Room.objects.select_related("table").filter(code=code).first()
    if room is None:
        raise FriendsError("bad_code")
    if (
        room.table.status not in ACTIVE
        or Room.objects.filter(_waited_too_long(), pk=room.pk).exists()
    ):
        Room.objects.filter(pk=room.pk).update(code=None)
        raise FriendsError("bad_code")
    return admit(user, room, Via.CODE)


def join_by_link(user: User, token: str) -> Table:
    """Let ``user`` in by the link of ``token``. Returns the table."""
    _require_person(user)
    room = room_by_token(token)
    if room is None:
        raise FriendsError("bad_link")
    return admit(user, room, Via.LINK)


@transaction.atomic
def admit(user: User, room: Room, via: str) -> Table:
    """Record that ``user`` came in to ``room``'s table and, while it waits for players, seat
    them in its first empty seat (none free: they choose later, e.g. after the host removes a
    bot). Someone already in (the host, a player) just comes back, also to a table that has
    ended; a newcomer to an ended table is refused ``ended``, and someone the host removed
    ``removed``."""
    _require_person(user)
    table = Table.objects.select_for_update().get(pk=room.table_id)
    if user.pk == room.host_id:
        return table
    admission = Admission.objects.filter(room=room, user=user).first()
    if admission is not None and admission.removed:
        raise FriendsError("removed")
    seated = table.seats.filter(user=user).exists()
    if admission is None:
        if table.status not in ACTIVE and not seated:
            raise FriendsError("ended")
        Admission.objects.create(room=room, user=user, via=via)
    if table.status == TableStatus.OPEN and not seated:
        for seat in table.seats.filter(user__isnull=True, bot="").order_by("index"):
            try:
                tables.take_seat(user, table, seat.index)
            except MatchError:
                continue  # taken meanwhile: the next one
            break
    return table


def remove_occupant(user: User, table: Table, index: int) -> Seat:
    """The host empties seat ``index`` of their friends' table before the first deal (a
    person or a bot, never their own seat); a person taken off is not let in again. Returns
    the seat, now empty."""
    _require_person(user)
    room = Room.objects.filter(table_id=table.pk).first()
    if room is None:
        raise FriendsError("bad_link")
    if room.host_id != user.pk:
        raise FriendsError("not_host")
    with transaction.atomic():
        locked = Table.objects.select_for_update().get(pk=table.pk)
        if locked.status != TableStatus.OPEN:
            raise FriendsError("started")
        seat = locked.seats.filter(index=index).first() if isinstance(index, int) else None
        if seat is None or not seat.taken:
            raise FriendsError("no_occupant")
        if seat.user_id == user.pk:
            raise FriendsError("own_seat")
        removed = seat.user_id
        seat = tables.clear_seat(user, locked, index)
        if removed is not None:
            Admission.objects.update_or_create(
                room=room,
                user_id=removed,
                defaults={"removed": True},
                create_defaults={"removed": True, "via": Via.LINK},
            )
    return seat


def is_admitted(user: User | None, table: Table) -> bool:
    """Whether ``user`` is the host of friends' table ``table`` or came in by its link or
    code and was not removed: they may see it and sit at it."""
    if user is None or not user.is_authenticated or table.kind != TableKind.FRIENDS:
        return False
    if is_guest(user):
        return False
    room = Room.objects.filter(table_id=table.pk).values_list("pk", "host_id").first()
    if room is None:
        return False
    if room[1] == user.pk:
        return True
    return Admission.objects.filter(room_id=room[0], user=user, removed=False).exists()
