"""Who may do what with a tournament (the services check these; pages and the API ask them
to show or hide actions)."""

from __future__ import annotations

from clubs import permissions as club_permissions
from clubs.models import User
from tournaments.models import Tournament, TournamentStatus


def can_manage(user: User | None, tournament: Tournament) -> bool:
    """Club owner and admins set up and run the club's tournaments."""
    return club_permissions.is_club_admin(user, tournament.club)


def can_view(user: User | None, tournament: Tournament) -> bool:
    """Everyone sees a published tournament; a draft only its organisers."""
    return tournament.status != TournamentStatus.DRAFT or can_manage(user, tournament)
