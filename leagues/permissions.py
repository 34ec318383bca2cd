"""Who may do what in a league: the one permissions module of the services, views and API.

* the host club's owner and admins manage the league and its seasons;
* an entering club's admins (the host's, and in an inter-club league an invited club's)
  enter and withdraw that club's teams;
* a team's captain manages the team's line-ups and fixture times; in pair and single
  seasons the entry's players do;
* a team's roster (players and captain) is changed, and an entry withdrawn, by its captain
  (its players), its club's admins and the host club's admins;
* everyone reads a league's public pages; a line-up is read only by its own side until it is
  revealed (``leagues.selectors.lineup_revealed``).
"""

from __future__ import annotations

from clubs.models import Club, User
from clubs.permissions import is_club_admin
from leagues.models import Entry, League, Season


def _signed_in(user: User | None) -> bool:
    return user is not None and user.is_authenticated


def can_manage(user: User | None, league: League) -> bool:
    """The host club's owner and admins run the league and its seasons."""
    return _signed_in(user) and is_club_admin(user, league.host)


def may_enter(club: Club, league: League) -> bool:
    """Whether ``club`` may enter a season of ``league``: the host, and in an inter-club
    league every invited club."""
    if club.pk == league.host_id:
        return True
    return league.inter_club and league.invited_clubs.filter(pk=club.pk).exists()


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
