"""Who may do what with a tournament (the services check these; pages and the API ask them
to show or hide actions)."""

from __future__ import annotations

from django.db.models import Q

from clubs import permissions as club_permissions
from clubs import selectors as club_selectors
from clubs.models import User
from tournaments.models import Game, Tournament, TournamentStatus


def can_manage(user: User | None, tournament: Tournament) -> bool:
    """Club owner and admins set up and run the club's tournaments."""
    return club_permissions.is_club_admin(user, tournament.club)


def can_view(user: User | None, tournament: Tournament) -> bool:
    """Everyone who may see the club's things (:func:`clubs.permissions.can_see_club`: in a
    members-only club its members) and the members of the clubs it invited see a published
    tournament; a draft only its organisers."""
    if not (
        club_permissions.can_see_club(user, tournament.club) or is_invited_member(user, tournament)
    ):
        return False
    return tournament.status != TournamentStatus.DRAFT or can_manage(user, tournament)


def is_invited_member(user: User | None, tournament: Tournament) -> bool:
    """Whether ``user`` is a member of a club the tournament invited (its members may see it
    and enter, :mod:`tournaments.services.eligibility`)."""
    if user is None or not user.is_authenticated or tournament.pk is None:
        return False
    return tournament.invited_clubs.filter(memberships__user=user).exists()


def visible_to_invited(user: User | None, field: str = "") -> Q:
    """:func:`is_invited_member` as a query: the tournaments (reached by ``field``) that
    invited a club of ``user``'s."""
    if user is None or not user.is_authenticated:
        return Q(pk__in=[])
    prefix = f"{field}__" if field else ""
    return Q(**{f"{prefix}invited_clubs__memberships__user": user})


def can_referee_table(user: User | None, table: object) -> bool:
    """Whether ``user`` holds a referee's role at a live table of a tournament now: its club's
    admins, and the tournament's creator while still a member of its club (a creator who
    left or was removed keeps nothing: the role comes from the membership, not from having
    created the event). A stake in the game (seated, partner, teammate) is
    :func:`has_stake_in_table`'s; :func:`matches.services.access.may_referee` asks both."""
    if user is None or not user.is_authenticated:
        return False
    game = Game.objects.select_related("round__tournament__club").filter(table=table).first()
    if game is None:
        return False
    tournament = game.round.tournament
    if can_manage(user, tournament):
        return True
    return tournament.created_by_id == user.pk and (
        club_selectors.membership_of(user, tournament.club) is not None
    )


def has_stake_in_table(user: User | None, table: object) -> bool:
    """Whether ``user`` has a stake in the tournament game at ``table``: they play one of its
    entries (a pair's partner included, though not seated yet), or they entered the
    tournament in the same team (``Entry.team``, an individual event's team label) as a
    player of the game. Such a user may not referee the table."""
    if user is None or not user.is_authenticated:
        return False
    game = Game.objects.select_related("round__tournament").filter(table=table).first()
    if game is None:
        return False
    tournament = game.round.tournament
    playing = list(tournament.entries.filter(pk__in=[*game.side0, *game.side1]))
    if any(user.pk in entry.user_ids for entry in playing):
        return True
    teams = {entry.team for entry in playing if entry.team}
    return bool(teams) and (
        tournament.entries.filter(team__in=teams)
        .filter(Q(player1_id=user.pk) | Q(player2_id=user.pk))
        .exists()
    )
