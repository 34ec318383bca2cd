"""Who may see a table, and as what: the one decision of the table page, the replay, the
referee console and the websocket.

- A **player** seated at the table (or at its match) always may, even when they are not a
  member of the table's club (an inter-club league seats other clubs' players).
- **Siblings** are tables that play the same deals (the same non-empty
  :attr:`~matches.models.Table.deal_group`: the tables of a league team fixture, the
  tables of a duplicate (复式) tournament round, any number of them). Whatever one shows
  gives away the hands another is still playing, so (:func:`seated_at_sibling`,
  :func:`siblings_playing`):

  * nobody seated at a sibling may watch another sibling while any table of the group
    plays: not as a spectator, not as a referee (their page and websocket are refused
    ``sibling_table``; :func:`barred_as_sibling`);
  * no sibling's replay (every hand from the first step) is shown to anyone — its own
    players, spectators, referees and organisers, the public — until **every** table of the
    group has finished or been closed (``siblings_playing``). This is stricter than "until
    the deals they share are over": a table that ends early (a forfeit) keeps its replay
    sealed until the last sibling ends, whatever deal each one reached, because the tables
    of a group need not stop at the same deal and counting shared deals would leak through
    the counting itself.

- A **referee** (:func:`may_referee`) holds a current role — an admin of the table's club,
  or someone a registered check allows (:func:`matches.hooks.register_referee_check`: the
  tournament's organiser while still a member) — and has no stake in the table
  (:func:`has_stake`: they do not sit at it or at a sibling, and no registered check says
  that their partner or teammate does). A referee may open any table, also one without
  spectators and one of a members-only club; they watch as a spectator does and apply
  sanctions from the referee console. Every sanction asks again (the role may be gone).
- Anyone else is a **spectator**, only where the club's things are visible to them
  (:func:`clubs.permissions.can_see_club`) and, on the websocket, only where the table allows
  spectators and they are signed in.
- A **club-less** table (a practice table against bots, a friends' table: ``table.club`` is
  None) has no club whose public could watch it and no club admin to referee it: besides its
  players, only whom its kind's registered check lets in (:func:`register_clubless_viewer`;
  the friends' tables register theirs) may see it. A practice table registers none: only its
  one seated player ever sees it.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

from django.db.models import QuerySet

from clubs import permissions as club_permissions
from clubs.models import User
from clubs.services import members_only
from matches import hooks, selectors
from matches.messages import MatchError
from matches.models import Match, MatchStatus, Seat, Table, TableStatus

#: A table in these states plays no more deals.
DONE = (TableStatus.FINISHED, TableStatus.CLOSED)


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


# ------------------------------------------------------------------ siblings
def siblings(table: Table) -> QuerySet[Table]:
    """The other tables that play ``table``'s deals (none without a deal group)."""
    if not table.deal_group:
        return Table.objects.none()
    return Table.objects.filter(deal_group=table.deal_group).exclude(pk=table.pk)


def seated_at_sibling(user: User | None, table: Table) -> bool:
    """Whether ``user`` sits at a sibling of ``table`` (not at ``table`` itself: that is
    :func:`is_seated`). Never the anonymous user."""
    if not _signed_in(user) or not table.deal_group:
        return False
    return (
        Seat.objects.filter(table__deal_group=table.deal_group, user_id=user.pk)
        .exclude(table_id=table.pk)
        .exists()
    )


def barred_as_sibling(user: User | None, table: Table, match: Match | None = None) -> bool:
    """Whether ``user`` may not watch ``table`` because they sit at a sibling (not at
    ``table``) and a table of the group is still playing."""
    return (
        seated_at_sibling(user, table)
        and not is_seated(user, table, match)
        and siblings_playing(table)
    )


def siblings_playing(table: Table) -> bool:
    """Whether any table of ``table``'s deal group (``table`` included) has yet to finish:
    then no table of the group shows its replay to anyone. False for a table of no group."""
    if not table.deal_group:
        return False
    return Table.objects.filter(deal_group=table.deal_group).exclude(status__in=DONE).exists()


# ------------------------------------------------------------------ referees
def has_stake(user: User | None, table: Table, match: Match | None = None) -> bool:
    """Whether ``user`` has a stake in ``table``'s result and so may not referee it: they
    sit at it or at a sibling, or a registered check (:func:`matches.hooks.registered_stake`) says
    their partner or teammate plays it (a league team's roster, a tournament team)."""
    if not _signed_in(user):
        return False
    return (
        is_seated(user, table, match)
        or seated_at_sibling(user, table)
        or hooks.registered_stake(user, table)
    )


def may_referee(user: User | None, table: Table, match: Match | None = None) -> bool:
    """Whether ``user`` may referee ``table`` now: a current role (an admin of the table's
    club, or a registered check: :func:`matches.hooks.referee_role`) and no stake in it
    (:func:`has_stake`). Anonymous users never may. Asked on every sanction, at the
    websocket's handshake and when the table page offers the referee console."""
    if not _signed_in(user):
        return False
    if not hooks.referee_role(user, table):
        return False
    return not has_stake(user, table, match)


# ------------------------------------------------------------------ pages and the socket
#: Who besides its players may see a club-less table, by the table's kind (``friends``: the
#: friends' tables' check). A kind without a check (``practice``) shows its players only.
_clubless_viewers: dict[str, Callable[[User, Table], bool]] = {}


def register_clubless_viewer(kind: str, check: Callable[[User, Table], bool]) -> None:
    """Register ``check(user, table) -> bool`` for the club-less tables of ``kind``: True if
    the signed-in ``user`` (not seated there) may see ``table`` as a spectator would (e.g. they
    came in through the friends' table's link or code). One check per kind, the last kept."""
    _clubless_viewers[kind] = check


def public_may_see(user: User | None, table: Table) -> bool:
    """Whether ``user`` may see ``table`` without playing or refereeing it: a club's table
    where they may see the club's things (:func:`clubs.permissions.can_see_club`); a club-less
    table only where its kind's registered check says so (never the anonymous user)."""
    if table.club_id is None:
        check = _clubless_viewers.get(table.kind)
        return _signed_in(user) and check is not None and bool(check(user, table))
    return club_permissions.can_see_club(user, table.club)


def can_see_table(user: User | None, table: Table, match: Match | None = None) -> bool:
    """Whether ``user`` may see ``table``'s page: a player, a referee, or anyone who may see
    the table's club's things (the replay asks :func:`require_replay_visible` besides)."""
    return (
        public_may_see(user, table)
        or is_seated(user, table, match)
        or may_referee(user, table, match)
    )


def require_table_visible(user: User | None, table: Table, match: Match | None = None) -> None:
    """Raise :class:`clubs.services.MembersOnly` (404) unless :func:`can_see_table`, and
    :class:`MatchError` ``sibling_table`` for someone seated at a sibling (not at ``table``)
    while the group plays (:func:`barred_as_sibling`): they may not watch it."""
    if not can_see_table(user, table, match):
        raise members_only()
    if barred_as_sibling(user, table, match):
        raise MatchError("sibling_table")


def replay_open(table: Table, match: Match | None) -> bool:
    """Whether ``table``'s replay may be shown at all: its match is finished and no sibling
    is still playing (:func:`siblings_playing`). The same for everyone, referees too."""
    return (
        match is not None and match.status == MatchStatus.FINISHED and not siblings_playing(table)
    )


def require_replay_visible(user: User | None, table: Table, match: Match | None) -> None:
    """Raise unless ``user`` may see ``table``'s replay now: :func:`require_table_visible`,
    then :class:`MatchError` ``not_finished`` (the match is not over) or ``siblings_playing``
    (a table playing the same deals has not finished: nobody sees any of the group's
    replays before every one of them ends)."""
    require_table_visible(user, table, match)
    if match is None or match.status != MatchStatus.FINISHED:
        raise MatchError("not_finished")
    if siblings_playing(table):
        raise MatchError("siblings_playing")


def watch(user: User | None, table_id: int) -> tuple[Watcher, Match | None]:
    """How ``user`` may watch table ``table_id`` over its websocket, and the table's match
    (None before it starts; read with the table in one query, for the caller to attach to);
    raises :class:`MatchError` when they may not: ``not_allowed`` (no such table),
    ``sibling_table`` (they sit at a table playing the same deals, and a table of the group
    still plays), ``members_only`` (a
    members-only club's table to a non-member), ``no_spectators``, ``login_required`` (an
    anonymous spectator). A referee is someone :func:`may_referee` allows now."""
    table = Table.objects.select_related("club", "match").filter(pk=table_id).first()
    if table is None:
        raise MatchError("not_allowed")
    match = getattr(table, "match", None)
    if is_seated(user, table, match):
        return Watcher.PLAYER, match
    if barred_as_sibling(user, table, match):
        raise MatchError("sibling_table")
    if may_referee(user, table, match):
        return Watcher.REFEREE, match
    if not public_may_see(user, table):
        # a club-less table is not there for anyone else (practice: its player only)
        raise MatchError("members_only" if table.club_id is not None else "not_allowed")
    if not table.spectators_allowed:
        raise MatchError("no_spectators")
    if not _signed_in(user):
        raise MatchError("login_required")
    return Watcher.SPECTATOR, match


def watcher(user: User | None, table_id: int) -> Watcher:
    """How ``user`` may watch table ``table_id`` (:func:`watch` without the match)."""
    return watch(user, table_id)[0]
