"""Setting a tournament up and changing its state: create, edit, publish, pause, resume,
cancel (organisers: the club's owner and admins); and :func:`managed`, the lock and
permission check every organiser action starts with. The settings themselves are checked by
:func:`tournaments.forms.check_settings`, the one place for them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs import permissions as club_permissions
from clubs.models import Club, User
from tournaments import forms as settings_form
from tournaments.models import (
    ACTIVE_STATUSES,
    Tournament,
    TournamentStatus,
)
from tournaments.permissions import can_manage
from tournaments.services import places
from tournaments.services.errors import TournamentError, not_allowed

#: The settings an organiser may set (checked in one place: :mod:`tournaments.forms`).
EDITABLE = set(settings_form.EDITABLE)

#: Fields that can no longer change once the first round was paired.
STRUCTURAL = {"variant", "format", "unit_kind", "online", "rated", "duplicate", "scoring"}


def create_tournament(user: User, club: Club, **fields: Any) -> Tournament:
    """Create a draft tournament in ``club`` (owner / admins only)."""
    if not club_permissions.is_club_admin(user, club):
        raise not_allowed()
    clean = settings_form.check_settings(fields, None)
    return Tournament.objects.create(club=club, created_by=user, **clean)


@transaction.atomic
def update_tournament(user: User, tournament: Tournament, **fields: Any) -> Tournament:
    """Change a tournament's settings; the format, game, entry kind and scoring (club or the
    national rules) only before round 1."""
    tournament = managed(user, tournament)
    if tournament.status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED):
        raise TournamentError("closed", _("This tournament is over."))
    fixed = set(fields) & STRUCTURAL
    if fixed and tournament.rounds.exists():
        if fixed == {"scoring"}:
            raise TournamentError(
                "started", _("The scoring cannot change once the first round is paired.")
            )
        raise TournamentError(
            "started", _("The format cannot change once the first round is paired.")
        )
    clean = settings_form.check_settings(fields, tournament)
    for key, value in clean.items():
        setattr(tournament, key, value)
    tournament.save()
    if "max_entries" in clean:  # a cap raised (or lifted) gives waiting entries their places
        places.fill_places(tournament)
    return tournament


def locked(tournament: Tournament) -> Tournament:
    """``tournament`` read again with its club and locked until the transaction ends."""
    return Tournament.objects.select_for_update().select_related("club").get(pk=tournament.pk)


def managed(user: User, tournament: Tournament) -> Tournament:
    """The preamble of every organiser action, in one place: ``tournament`` read again and
    locked for the transaction (with its club) if ``user`` may manage it; raises
    :class:`~tournaments.services.errors.NotAllowed` otherwise, having changed nothing."""
    tournament = locked(tournament)
    if not can_manage(user, tournament):
        raise not_allowed()
    return tournament


@transaction.atomic
def publish(user: User, tournament: Tournament, now: datetime | None = None) -> Tournament:
    """Publish a draft: it becomes visible and registration opens (now, unless a later
    opening time is set)."""
    tournament = managed(user, tournament)
    if tournament.status != TournamentStatus.DRAFT:
        raise TournamentError("not_draft", _("Only a draft can be published."))
    now = now or timezone.now()
    tournament.status = TournamentStatus.SCHEDULED
    if tournament.registration_opens is None:
        tournament.registration_opens = now
    tournament.save(update_fields=["status", "registration_opens"])
    return tournament


def _set_status(user: User, tournament: Tournament, allowed: Sequence[str], new: str) -> Tournament:
    with transaction.atomic():
        tournament = managed(user, tournament)
        if tournament.status not in allowed:
            raise TournamentError(
                "bad_status",
                _("Not possible while the tournament is %(s)s.")
                % {"s": tournament.get_status_display()},
            )
        tournament.status = new
        tournament.save(update_fields=["status"])
    return tournament


def pause(user: User, tournament: Tournament) -> Tournament:
    """Pause a running tournament: no round starts, no no-show forfeits until resumed
    (games being played go on and their results are still collected)."""
    return _set_status(user, tournament, [TournamentStatus.RUNNING], TournamentStatus.PAUSED)


def resume(user: User, tournament: Tournament) -> Tournament:
    """Resume a paused tournament."""
    return _set_status(user, tournament, [TournamentStatus.PAUSED], TournamentStatus.RUNNING)


def cancel(user: User, tournament: Tournament) -> Tournament:
    """Cancel a tournament that has not finished."""
    return _set_status(
        user,
        tournament,
        [TournamentStatus.DRAFT, *ACTIVE_STATUSES],
        TournamentStatus.CANCELLED,
    )
