"""再来一局: after a match, play again with the same seats (issue 43, point 5).

:func:`play_again` gives the players of a finished match one new table of the same game and
options, the bots in the same seats: the first player to ask opens it, and every other player
of the old match who asks comes to the same new table, in their old seat (the table's
address is kept in the cache for a day: :data:`AGAIN_SECONDS`). A table whose every person has
come starts at once; until then the others' seats wait for them. A practice table is opened
again as practice (its strength of bots); a club table in its club (the asker must still be a
member; a rated table stays rated); a kind of club-less table above this app (friends' tables)
answers through :func:`register_opener`. Competition tables (tournaments, leagues) are not
offered: their next match is the competition's to make.
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.cache import cache
from django.db import transaction
from django.utils.translation import gettext_lazy as _

from clubs.models import User
from matches.messages import MatchError
from matches.models import Match, MatchStatus, Seat, Table, TableKind, TableStatus
from matches.services import practice, tables

AGAIN_SECONDS = 24 * 3600
_KEY = "matches:again:%d"

#: Openers of club-less kinds registered by apps above (``kind`` → ``opener(user, table,
#: match) -> Table``): open the new table, the asker not seated yet.
_openers: dict[str, Callable[[User, Table, Match], Table]] = {}


class AgainError(MatchError):
    """A refused 再来一局, with its own translated message."""

    def __init__(self, code: str, text: object) -> None:
        """Keep ``code`` and the (lazily translated) ``text``."""
        super().__init__(code)
        self._text = text

    @property
    def message(self) -> str:  # type: ignore[override]  # translated when read
        """The reason in the active language."""
        return str(self._text)


def register_opener(kind: str, opener: Callable[[User, Table, Match], Table]) -> None:
    """Let the app owning club-less tables of ``kind`` open the new table of 再来一局."""
    _openers[kind] = opener


def seat_of(user: User | None, match: Match | None) -> int | None:
    """The seat ``user`` played in ``match`` (None: not a player of it)."""
    if user is None or not user.is_authenticated or match is None:
        return None
    for index, info in enumerate(match.seats):
        if info.get("user") == user.pk:
            return index
    return None


def offered(user: User | None, table: Table, match: Match | None) -> bool:
    """Whether the finished match's page offers ``user`` to play again."""
    return (
        match is not None
        and match.status != MatchStatus.PLAYING
        and not table.competition
        and seat_of(user, match) is not None
        and (table.kind != TableKind.FRIENDS or table.kind in _openers)
    )


def _open_club_table(user: User, table: Table, match: Match) -> Table:
    new = tables.open_table(
        user,
        table.club,
        variant=table.variant,
        options=dict(table.options or {}),
        clocks=table.clocks,
        time_limit_seconds=table.time_limit_seconds,
        rated=table.rated,
        spectators_allowed=table.spectators_allowed,
        phrases_allowed=table.phrases_allowed,
        sit=False,
    )
    return new


def _open_practice_table(user: User, table: Table, match: Match) -> Table:
    bots = [info.get("bot") for info in match.seats if info.get("bot")]
    strength = bots[0] if bots else practice.DEFAULT_STRENGTH
    return practice.start_practice(user, variant=table.variant, strength=strength)


def play_again(user: User | None, table: Table) -> Table:
    """The new table of 再来一局 for ``user``, a player of ``table``'s finished match, with
    ``user`` in their old seat (opened now if nobody asked before).

    Raises :class:`MatchError` having changed nothing: ``login_required``, ``not_finished``
    (no match, or still playing), ``not_seated`` (not a player of it), ``again_competition``
    (a tournament's or league's table), ``again_not_offered`` (a kind of table that offers no
    new one), and the refusals of opening a table (e.g. ``not_member`` for someone who left
    the club, ``practice_limit``).
    """
    if user is None or not user.is_authenticated:
        raise MatchError("login_required")
    match = Match.objects.filter(table=table).first()
    if match is None or match.status == MatchStatus.PLAYING:
        raise AgainError("not_finished", _("The match is not over yet."))
    index = seat_of(user, match)
    if index is None:
        raise MatchError("not_seated")
    if table.competition:
        raise AgainError(
            "again_competition",
            _("A tournament's or league's next match is made by the competition."),
        )
    if table.kind == TableKind.PRACTICE:
        # one person against bots: a new practice table each time (its own limit applies)
        return _open_practice_table(user, table, match)
    if table.kind == TableKind.CLUB:
        opener = _open_club_table
    elif table.kind in _openers:
        opener = _openers[table.kind]
    else:
        raise AgainError("again_not_offered", _("This table offers no new match."))
    with transaction.atomic():
        # the old table's row serialises the players asking at once: one new table for all
        Table.objects.select_for_update().filter(pk=table.pk).first()
        new_id = cache.get(_KEY % table.pk)
        new = Table.objects.filter(pk=new_id).first() if new_id else None
        if new is not None and Seat.objects.filter(table=new, user=user).exists():
            return new  # asked twice: the same new table
        if new is not None and new.status != TableStatus.OPEN:
            new = None  # started or closed without this player: a table of their own
        if new is None:
            new = opener(user, table, match)
            seats = {s.index: s for s in Seat.objects.filter(table=new)}
            for i, info in enumerate(match.seats):
                if info.get("bot") and i in seats and not seats[i].taken:
                    Seat.objects.filter(pk=seats[i].pk).update(bot=info["bot"])
            cache.set(_KEY % table.pk, new.pk, AGAIN_SECONDS)
        if not Seat.objects.filter(table=new, user=user).exists():
            tables.take_seat(user, new, index)  # the last one to come starts the match
        elif new.status == TableStatus.OPEN and all(
            s.taken for s in Seat.objects.filter(table=new)
        ):
            tables.start_match(new)  # the opener seated the asker; the bots filled the rest
    new.refresh_from_db()
    return new
