"""Who may do what with a tournament (the services check these; pages and the API ask them
to show or hide actions)."""

from __future__ import annotations

from clubs import permissions as club_permissions
from clubs.models import User
from tournaments.models import Game, Tournament, TournamentStatus


def can_manage(user: User | None, tournament: Tournament) -> bool:
    """Club owner and admins set up and run the club's tournaments."""
    return club_permissions.is_club_admin(user, tournament.club)


def can_view(user: User | None, tournament: Tournament) -> bool:
    """Everyone who may see the club's things (:func:`clubs.permissions.can_see_club`: in a
    members-only club its members) sees a published tournament; a draft only its organisers."""
    if not club_permissions.can_see_club(user, tournament.club):
        return False
    return tournament.status != TournamentStatus.DRAFT or can_manage(user, tournament)


def can_referee_table(user: User | None, table: object) -> bool:
    """The organisers of the tournament a live table belongs to (its club's admins, and the
    tournament's creator) may referee it."""
    if user is None or not user.is_authenticated:
        return False
    game = Game.objects.select_related("round__tournament__club").filter(table=table).first()
    if game is None:
        return False
    tournament = game.round.tournament
    return tournament.created_by_id == user.pk or can_manage(user, tournament)
