"""Who may do what in a league: the one permissions module of the services, views and API.

* the host club's owner and admins manage the league and its seasons;
* an entering club's admins (the host's, and in an inter-club league an invited club's)
  enter and withdraw that club's teams;
* a team's captain manages the team's line-ups and fixture times; in pair and single
  seasons the entry's players do;
* a team's roster (players and captain) is changed, and an entry withdrawn, by its captain
  (its players), its club's admins and the host club's admins;
* everyone reads a league's pages, unless its host club is members-only: then its members and
  the members of the clubs invited to it do (:func:`can_see_league`); a line-up is read only by
  its own side until it is revealed (``leagues.selectors.lineup_revealed``).
"""

from __future__ import annotations

from django.db.models import Q

from clubs import invitations
from clubs.models import Club, Membership, User
from clubs.permissions import can_see_club, is_club_admin, visible_clubs_filter
from clubs.services import members_only
from leagues.models import Entry, League, Season


def _signed_in(user: User | None) -> bool:
    return user is not None and user.is_authenticated


def can_see_league(user: User | None, league: League) -> bool:
    """Whether ``user`` may see ``league``, its seasons, fixtures and entries: whoever may see
    its host club's things (:func:`clubs.permissions.can_see_club`), and in an inter-club
    league the members of the invited clubs (their teams play in it)."""
    if can_see_club(user, league.host):
        return True
    return (
        _signed_in(user)
        and league.inter_club
        and Membership.objects.filter(user=user, club__in=league.invited_clubs.all()).exists()
    )


def visible_leagues_filter(user: User | None, field: str = "") -> Q:
    """:func:`can_see_league` as a query: a ``Q`` keeping the rows whose league (reached by
    ``field``, e.g. ``"season__league"``; empty for leagues) ``user`` may see."""
    prefix = f"{field}__" if field else ""
    visible = visible_clubs_filter(user, f"{prefix}host")
    if not _signed_in(user):
        return visible
    invited = League.objects.filter(inter_club=True, invited_clubs__memberships__user=user).values(
        "pk"
    )
    return visible | Q(**{f"{field}__in" if field else "pk__in": invited})


def require_league_visible(user: User | None, league: League) -> None:
    """Raise :class:`clubs.services.MembersOnly` (404) unless :func:`can_see_league`."""
    if not can_see_league(user, league):
        raise members_only()


def can_manage(user: User | None, league: League) -> bool:
    """The host club's owner and admins run the league and its seasons."""
    return _signed_in(user) and is_club_admin(user, league.host)


def may_enter(club: Club, league: League) -> bool:
    """Whether ``club`` may enter a season of ``league``: the host, and in an inter-club
    league every invited club."""
    invited = league.invited_clubs.all() if league.inter_club else Club.objects.none()
    return invitations.takes_part(club, league.host_id, invited)


def can_enter(user: User | None, season: Season, club: Club) -> bool:
    """An admin of an entering club enters (and withdraws) that club's teams."""
    return _signed_in(user) and may_enter(club, season.league) and is_club_admin(user, club)


def acts_for(user: User | None, entry: Entry) -> bool:
    """Whether ``user`` speaks for ``entry`` in its fixtures: the team's captain, or a
    player of a pair / single entry."""
    if not _signed_in(user):
        return False
    if entry.team_id:
        return entry.team.captain_id == user.pk
    return user.pk in (entry.player1_id, entry.player2_id)


def plays_for(user: User | None, entry: Entry) -> bool:
    """Whether ``user`` is on ``entry``'s side (a roster player, the captain, a player)."""
    if not _signed_in(user):
        return False
    if entry.team_id:
        team = entry.team
        return team.captain_id == user.pk or team.members.filter(user_id=user.pk).exists()
    return user.pk in (entry.player1_id, entry.player2_id)


def can_manage_entry(user: User | None, entry: Entry) -> bool:
    """The entry's captain (or players), its club's admins (in an inter-club league the
    entering club's) and the host club's admins change its roster or withdraw it."""
    if acts_for(user, entry):
        return True
    return _signed_in(user) and (
        is_club_admin(user, entry.club) or is_club_admin(user, entry.season.league.host)
    )
