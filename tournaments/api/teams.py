"""The API of an event open to several clubs and of team events, under
``/api/v1/tournaments/{id}/``: ``teams/`` (GET the team standings, the teams with their
roster changes, the waiting list and the clubs; POST a captain's team, or an organiser's on a
captain's behalf), ``teams/{team}/roster/`` (change its pairs), ``teams/{team}/withdraw/``, ``invite/`` and
``uninvite/`` (organisers). Thin: the services check the roles and every value, refusing in
the same words as the pages (every problem at once, by field)."""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import permissions, serializers
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from clubs.api.serializers import request_object
from clubs.models import Club, User
from tournaments import team_selectors
from tournaments.models import ClubTeam, Entry, Tournament
from tournaments.permissions import can_view
from tournaments.services import eligibility
from tournaments.services import teams as team_services

#: The largest database id (a number beyond it names nothing).
ID_MAX = 2**31 - 1


def _tournament(request: Request, pk: int) -> Tournament:
    viewer = request.user if request.user.is_authenticated else None
    tournament = Tournament.objects.select_related("club").filter(pk=pk).first()
    if tournament is None or not can_view(viewer, tournament):
        raise NotFound()
    return tournament


def _entry_json(entry: Entry) -> dict[str, Any]:
    return {"id": entry.pk, "name": entry.name, "status": entry.status}


def teams_json(tournament: Tournament) -> dict[str, Any]:
    """The team standings (``second``: ``grade_points`` under national scoring, else
    ``level_diff``), every team with its entries, the waiting list and the clubs."""
    second = "grade_points" if team_selectors.national(tournament) else "level_diff"
    return {
        "team_size": tournament.team_size,
        "max_entries": tournament.max_entries,
        "second": second,
        "standings": [
            {
                "team": line.team.pk,
                "name": line.team.name,
                "club": line.team.club_id,
                "place": line.row.place,
                "played": line.row.played,
                "wins": line.row.wins,
                "draws": line.row.draws,
                "losses": line.row.losses,
                "match_points": line.row.match_points,
                second: line.row.second,
                "entries": [
                    {"entry": e.pk, "name": e.name, "match_points": mp, second: s}
                    for e, mp, s in line.entries
                ],
            }
            for line in team_selectors.team_standings(tournament)
        ],
        "teams": [
            {
                "id": team.pk,
                "name": team.name,
                "club": team.club_id,
                "captain": team.captain_id,
                "entries": [_entry_json(e) for e in team.entries.all()],
                "history": [
                    {"at": h.created_at.isoformat(), "text": h.text}
                    for h in team_selectors.roster_history(team)
                ],
            }
            for team in team_selectors.club_teams(tournament)
        ],
        "waiting": [_entry_json(e) for e in team_selectors.waiting(tournament)],
        "host_club": tournament.club_id,
        "invited_clubs": [
            {"id": c.pk, "name": c.name, "slug": c.slug}
            for c in tournament.invited_clubs.order_by("name")
        ],
    }


def _units_field() -> serializers.ListField:
    return serializers.ListField(
        child=serializers.ListField(
            child=serializers.IntegerField(min_value=1, max_value=ID_MAX), max_length=2
        ),
        max_length=16,
    )


class TeamRequest(serializers.Serializer):
    """A team: its club (id), name and its pairs (or players) as lists of user ids; an
    organiser entering it on a captain's behalf names the captain (a user id)."""

    club = serializers.IntegerField(min_value=1, max_value=ID_MAX)
    name = serializers.CharField(max_length=200, allow_blank=True, trim_whitespace=False)
    units = _units_field()
    captain = serializers.IntegerField(min_value=1, max_value=ID_MAX, required=False)


class RosterRequest(serializers.Serializer):
    """A team's new pairs (or players), as lists of user ids."""

    units = _units_field()


def _users(unit_ids: list[list[int]], extra: list[int] | None = None) -> dict[int, User]:
    """The users named by ``unit_ids`` (and ``extra``), refused in words if one is unknown."""
    ids = {uid for unit in unit_ids for uid in unit} | set(extra or [])
    users = {u.pk: u for u in User.objects.filter(pk__in=ids)}
    if len(users) != len(ids):
        raise eligibility.refusal("bad_player", {"players": [_("Unknown player.")]})
    return users


class ClubRequest(serializers.Serializer):
    """A club, by its address name (``slug``) or its id (``club``)."""

    slug = serializers.CharField(max_length=60, required=False)
    club = serializers.IntegerField(required=False, min_value=1, max_value=ID_MAX)


TEAMS = inline_serializer("TournamentTeams", {"team_size": serializers.IntegerField()})


class TeamsView(APIView):
    """``GET``: the team standings, teams, waiting list and clubs (whoever sees the
    tournament); ``POST``: enter a team (a member of the host or an invited club, its
    captain)."""

    permission_classes = [permissions.IsAuthenticatedOrReadOnly]

    @extend_schema(summary="Team standings, teams, waiting list and clubs", responses=TEAMS)
    def get(self, request: Request, pk: int) -> Response:
        """See the class."""
        return Response(teams_json(_tournament(request, pk)))

    @extend_schema(
        summary="Enter a club's team (its captain: you)", request=TeamRequest, responses=TEAMS
    )
    def post(self, request: Request, pk: int) -> Response:
        """Every problem is refused at once, by field (``name``, ``players``, ``club``,
        ``min_rating``, ``max_rating``, ``min_rated_matches``)."""
        tournament = _tournament(request, pk)
        data = TeamRequest(data=request_object(request.data))
        data.is_valid(raise_exception=True)
        values = data.validated_data
        club = get_object_or_404(Club, pk=values["club"])
        captain_id = values.get("captain")
        users = _users(values["units"], [captain_id] if captain_id else [])
        units = [[users[uid] for uid in unit] for unit in values["units"]]
        user: Any = request.user
        team_services.enter_team(
            user,
            tournament,
            club=club,
            name=values["name"],
            units=units,
            captain=users[captain_id] if captain_id else None,
        )
        return Response(teams_json(tournament), status=201)


class RosterView(APIView):
    """``POST``: change a team's pairs (or players) before round 1 is paired (its captain or
    an organiser; nobody else); the new roster is checked as an entry is."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(summary="Change a team's roster", request=RosterRequest, responses=TEAMS)
    def post(self, request: Request, pk: int, team: int) -> Response:
        """Every problem is refused at once, by field (``players``, ``club``, ``min_rating``,
        ``max_rating``, ``min_rated_matches``); after round 1 is paired ``roster_closed``."""
        tournament = _tournament(request, pk)
        found = get_object_or_404(ClubTeam, tournament=tournament, pk=team)
        data = RosterRequest(data=request_object(request.data))
        data.is_valid(raise_exception=True)
        unit_ids = data.validated_data["units"]
        users = _users(unit_ids)
        user: Any = request.user
        team_services.change_roster(
            user, tournament, found, [[users[uid] for uid in unit] for unit in unit_ids]
        )
        return Response(teams_json(tournament))


class WithdrawTeamView(APIView):
    """``POST``: withdraw a team before round 1 is paired (its captain or an organiser)."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(summary="Withdraw a team", request=None, responses=TEAMS)
    def post(self, request: Request, pk: int, team: int) -> Response:
        """See the class."""
        tournament = _tournament(request, pk)
        found = get_object_or_404(ClubTeam, tournament=tournament, pk=team)
        user: Any = request.user
        team_services.withdraw_team(user, tournament, found)
        return Response(teams_json(tournament))


def _club_of(request: Request) -> Club:
    data = ClubRequest(data=request_object(request.data))
    data.is_valid(raise_exception=True)
    values = data.validated_data
    return eligibility.find_club(values.get("slug", ""), values.get("club"))


class InviteView(APIView):
    """``POST``: invite a club (organisers of the host club)."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(summary="Invite a club", request=ClubRequest, responses=TEAMS)
    def post(self, request: Request, pk: int) -> Response:
        """See the class."""
        tournament = _tournament(request, pk)
        user: Any = request.user
        eligibility.invite_club(user, tournament, _club_of(request))
        return Response(teams_json(tournament))


class UninviteView(APIView):
    """``POST``: take back a club's invitation (organisers), while none of its entries is
    in."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(summary="Take back a club's invitation", request=ClubRequest, responses=TEAMS)
    def post(self, request: Request, pk: int) -> Response:
        """See the class."""
        tournament = _tournament(request, pk)
        user: Any = request.user
        eligibility.uninvite_club(user, tournament, _club_of(request))
        return Response(teams_json(tournament))
