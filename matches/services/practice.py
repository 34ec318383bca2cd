"""Practice against bots: a table of no club where one person plays the bots at once.

:func:`start_practice` opens a practice table (``Table.kind`` ``practice``, no club) for any
signed-in person, a guest (:mod:`clubs.guests`) included: they take seat 0, bots of the chosen
strength — 入门 (``random``), 普通 (``heuristic``) or 高手 (``search``) — the other seats, and the
match starts at once. A practice table is never rated (the database refuses a rated club-less
table, and the ladder takes only rated tables' results), so it never reaches a ladder nor the
statistics of rated play; nobody but its player sees it (:mod:`matches.services.access`).

Its clocks are off and it has no time limit: a learner is never hurried, and a table left alone
costs nothing (no person's turn ever times out, so the bots do not play on for them). The
played cards are shown (``show_history``, casual tables only). At most
``MATCHES_PRACTICE_TABLES_MAX`` practice tables of a person may be unfinished at once.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext_lazy as _

from clubs import guests
from clubs.models import User
from games.variants import DEFAULT_GAME, game, is_game
from matches.messages import MatchError
from matches.models import BotKind, Seat, Table, TableKind, TableStatus
from matches.services.tables import start_match

#: The bot strengths a practice table offers, easiest first: 入门, 普通, 高手.
STRENGTHS: tuple[str, ...] = (BotKind.RANDOM, BotKind.HEURISTIC, BotKind.SEARCH)
#: The strength chosen when none is: 普通 (the heuristic bot).
DEFAULT_STRENGTH: str = BotKind.HEURISTIC
#: How the practice form names the strengths (the bots' own names are in BotKind).
STRENGTH_LABELS = {
    BotKind.RANDOM: _("Beginner"),
    BotKind.HEURISTIC: _("Normal"),
    BotKind.SEARCH: _("Expert"),
}
#: What each strength is, from its measured play (docs/bots.md, docs/benchmarks.md): shown
#: under each strength in the practice form.
STRENGTH_HINTS = {
    BotKind.RANDOM: _("Plays at random: for learning the rules"),
    BotKind.HEURISTIC: _("Plans its hand: as strong as the AI competition's rule bots"),
    BotKind.SEARCH: _("The strongest: reads the possible hands before each play"),
}


class PracticeError(MatchError):
    """A refused practice table, with its own translated message."""

    def __init__(self, code: str, text: object) -> None:
        """Keep ``code`` and the (lazily translated) ``text``."""
        super().__init__(code)
        self._text = text

    @property
    def message(self) -> str:  # type: ignore[override]  # translated when read
        """The reason in the active language."""
        return str(self._text)


def unfinished_practice(user: User) -> Sequence[Table]:
    """``user``'s practice tables still open or playing, the newest first."""
    return list(
        Table.objects.filter(
            kind=TableKind.PRACTICE,
            created_by=user,
            status__in=[TableStatus.OPEN, TableStatus.PLAYING],
        ).order_by("-created_at", "-id")
    )


def start_practice(
    user: User | None, *, variant: str = DEFAULT_GAME, strength: str = DEFAULT_STRENGTH
) -> Table:
    """Open a practice table of ``variant`` for ``user`` (signed in; a guest may) against bots
    of ``strength`` (one of :data:`STRENGTHS`) and start its match: ``user`` in seat 0, a bot
    in every other seat, unrated, no club, clocks off, no time limit, played cards shown.

    Raises :class:`MatchError` having created nothing: ``login_required``, ``bad_variant``,
    ``bad_options`` (an unknown strength), ``practice_limit`` (``MATCHES_PRACTICE_TABLES_MAX``
    practice tables of theirs are unfinished).
    """
    if user is None or not user.is_authenticated:
        raise MatchError("login_required")
    if not is_game(variant):
        raise MatchError("bad_variant")
    if strength not in STRENGTHS:
        raise MatchError("bad_options")
    options = {"show_history": True} if "show_history" in game(variant).options else {}
    with transaction.atomic():
        # one person's practice tables are counted under a lock of their row, so two quick
        # taps cannot both pass the limit
        User.objects.select_for_update().filter(pk=user.pk).first()
        if len(unfinished_practice(user)) >= settings.MATCHES_PRACTICE_TABLES_MAX:
            raise PracticeError(
                "practice_limit",
                _(
                    "You already have %(count)d practice tables in play: finish one of them "
                    "(on the home page) first."
                )
                % {"count": settings.MATCHES_PRACTICE_TABLES_MAX},
            )
        table = Table.objects.create(
            club=None,
            kind=TableKind.PRACTICE,
            created_by=user,
            variant=variant,
            options=options,
            clocks=False,
            time_limit_seconds=0,
            rated=False,
            competition=False,
            spectators_allowed=False,
        )
        Seat.objects.bulk_create(
            Seat(
                table=table, index=i, user=user if i == 0 else None, bot="" if i == 0 else strength
            )
            for i in range(table.seat_count)
        )
        start_match(table)
        table.status = TableStatus.PLAYING
    guests.touch(user)  # a guest who plays is not unused
    return table


def forget_guests_tables(user_ids: Sequence[int]) -> None:
    """Delete the practice tables the guests ``user_ids`` opened (their matches and event logs
    with them): nobody else ever sees them. Registered with :mod:`clubs.guests` and called in
    the transaction that removes those guests."""
    Table.objects.filter(kind=TableKind.PRACTICE, created_by_id__in=list(user_ids)).delete()
