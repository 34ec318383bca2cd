"""Who may see a table, and as what: the one decision of the table page, the replay and the
websocket.

- A **player** seated at the table (or at its match) always may, even when they are not a
  member of the table's club (an inter-club league seats other clubs' players).
- A **referee** (:func:`matches.hooks.may_referee`: an admin of the table's club, or the
  organiser of the tournament or league the match belongs to) may open any table, also one
  without spectators and one of a members-only club; they watch as a spectator does and
  apply sanctions from the referee console.
- Anyone else is a **spectator**, only where the club's things are visible to them
  (:func:`clubs.permissions.can_see_club`) and, on the websocket, only where the table allows
  spectators and they are signed in.
"""

from __future__ import annotations

from enum import StrEnum

from clubs import permissions as club_permissions
from clubs.models import User
from clubs.services import members_only
from matches import selectors
from matches.hooks import may_referee
from matches.messages import MatchError
from matches.models import Match, Table


class Watcher(StrEnum):
    """How a connection sees a table."""

    PLAYER = "player"
    REFEREE = "referee"
    SPECTATOR = "spectator"


def _signed_in(user: User | None) -> bool:
    return user is not None and user.is_authenticated


def is_seated(user: User | None, table: Table, match: Match | None = None) -> bool:
    """Whether ``user`` sits at ``table`` or plays its match (``match``, when the caller
    already has it). The anonymous user never does: its pk is None, which would match every
    bot and empty seat (``user_id IS NULL``)."""
    if not _signed_in(user):
        return False
    if match is not None and selectors.seat_of(match, user) is not None:
        return True
    return table.seats.filter(user_id=user.pk).exists()


def can_see_table(user: User | None, table: Table, match: Match | None = None) -> bool:
    """Whether ``user`` may see ``table``'s page and its replay: a player, a referee, or
    anyone who may see the table's club's things."""
    return (
        club_permissions.can_see_club(user, table.club)
        or is_seated(user, table, match)
        or may_referee(user, table)
    )


def require_table_visible(user: User | None, table: Table, match: Match | None = None) -> None:
    """Raise :class:`clubs.services.MembersOnly` (404) unless :func:`can_see_table`."""
    if not can_see_table(user, table, match):
        raise members_only()


def watch(user: User | None, table_id: int) -> tuple[Watcher, Match | None]:
    """How ``user`` may watch table ``table_id`` over its websocket, and the table's match
    (None before it starts; read with the table in one query, for the caller to attach to);
    raises :class:`MatchError` when they may not: ``not_allowed`` (no such table),
    ``members_only`` (a members-only club's table to a non-member), ``no_spectators``,
    ``login_required`` (an anonymous spectator)."""
    table = Table.objects.select_related("club", "match").filter(pk=table_id).first()
    if table is None:
        raise MatchError("not_allowed")
    match = getattr(table, "match", None)
    if is_seated(user, table, match):
        return Watcher.PLAYER, match
    if may_referee(user, table):
        return Watcher.REFEREE, match
    if not club_permissions.can_see_club(user, table.club):
        raise MatchError("members_only")
    if not table.spectators_allowed:
        raise MatchError("no_spectators")
    if not _signed_in(user):
        raise MatchError("login_required")
    return Watcher.SPECTATOR, match


def watcher(user: User | None, table_id: int) -> Watcher:
    """How ``user`` may watch table ``table_id`` (:func:`watch` without the match)."""
    return watch(user, table_id)[0]
