"""Entries: players register (a pair registers both partners), check in and withdraw; an
organiser may do each for any player."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs import selectors as club_selectors
from clubs.models import User
from tournaments.models import (
    ACTIVE_STATUSES,
    Entry,
    EntryStatus,
    Tournament,
    TournamentStatus,
    UnitKind,
)
from tournaments.permissions import can_manage
from tournaments.services.errors import TournamentError, not_allowed
from tournaments.services.setup import locked
from tournaments.windows import checkin_open, registration_open


def entry_of(user: User | None, tournament: Tournament) -> Entry | None:
    """The user's active or withdrawn entry in the tournament (as a player or partner)."""
    if user is None or not user.is_authenticated:
        return None
    return (
        tournament.entries.filter(player1=user).first()
        or tournament.entries.filter(player2=user).first()
    )


@transaction.atomic
def register(
    user: User,
    tournament: Tournament,
    *,
    partner: User | None = None,
    player: User | None = None,
    team: str = "",
    now: datetime | None = None,
) -> Entry:
    """Register ``user`` (or, for an organiser, ``player``) with ``partner`` for a pair event.

    Both players must be club members without an entry; the window must be open (an
    organiser may register outside it until the tournament is over)."""
    tournament = locked(tournament)
    now = now or timezone.now()
    manager = can_manage(user, tournament)
    if player is not None and player != user and not manager:
        raise not_allowed()
    player = player or user
    if not manager and not registration_open(tournament, now):
        raise TournamentError("registration_closed", _("Registration is not open."))
    if tournament.status not in ACTIVE_STATUSES:
        raise TournamentError("registration_closed", _("Registration is not open."))
    if tournament.unit_kind == UnitKind.PAIR and partner is None:
        raise TournamentError("partner_needed", _("A pair event needs your partner."))
    if tournament.unit_kind != UnitKind.PAIR and partner is not None:
        raise TournamentError("no_partner", _("This event is played without a fixed partner."))
    people = [player] + ([partner] if partner else [])
    if partner is not None and partner.pk == player.pk:
        raise TournamentError("bad_partner", _("Your partner must be someone else."))
    for person in people:
        if club_selectors.membership_of(person, tournament.club) is None:
            raise TournamentError("not_member", _("Every player must be a member of the club."))
        if entry_of(person, tournament) is not None:
            raise TournamentError(
                "already_registered",
                _("%(name)s is already registered.") % {"name": person.name},
            )
    if not isinstance(team, str) or len(team) > 60:
        raise TournamentError("bad_team", _("A team name is at most 60 characters."))
    name = " / ".join(p.name for p in people)
    seed = tournament.entries.count() + 1
    return Entry.objects.create(
        tournament=tournament,
        player1=player,
        player2=partner,
        team=team.strip(),
        name=name[:120],
        seed=seed,
        registered_at=now,
    )


def _entry_for_action(user: User, tournament: Tournament, entry: Entry | None) -> Entry:
    if entry is None:
        own = entry_of(user, tournament)
        if own is None:
            raise TournamentError("not_registered", _("You are not registered."))
        return own
    if entry.tournament_id != tournament.pk:
        raise TournamentError("not_registered", _("This entry is not in the tournament."))
    if user.pk not in entry.user_ids and not can_manage(user, tournament):
        raise not_allowed()
    return entry


@transaction.atomic
def check_in(
    user: User, tournament: Tournament, entry: Entry | None = None, now: datetime | None = None
) -> Entry:
    """Check in the user's own entry (or, for an organiser, any entry) in the window."""
    tournament = locked(tournament)
    now = now or timezone.now()
    entry = _entry_for_action(user, tournament, entry)
    if entry.status == EntryStatus.WITHDRAWN:
        raise TournamentError("withdrawn", _("This entry has withdrawn."))
    if not checkin_open(tournament, now) and not can_manage(user, tournament):
        raise TournamentError("checkin_closed", _("Check-in is not open."))
    if entry.status != EntryStatus.CHECKED_IN:
        entry.status = EntryStatus.CHECKED_IN
        entry.checked_in_at = now
        entry.save(update_fields=["status", "checked_in_at"])
    return entry


@transaction.atomic
def withdraw(
    user: User, tournament: Tournament, entry: Entry | None = None, now: datetime | None = None
) -> Entry:
    """Withdraw an entry: it is not paired in any later round (games already paired are
    played or forfeited)."""
    tournament = locked(tournament)
    entry = _entry_for_action(user, tournament, entry)
    if tournament.status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED):
        raise TournamentError("closed", _("This tournament is over."))
    if entry.status != EntryStatus.WITHDRAWN:
        entry.status = EntryStatus.WITHDRAWN
        entry.withdrawn_at = now or timezone.now()
        entry.save(update_fields=["status", "withdrawn_at"])
    return entry
