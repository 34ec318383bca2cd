"""REST API of leagues under ``/api/v1/`` (routes in :mod:`leagues.api.urls`): everything the
pages do, with the same permissions (the services decide): host admins manage leagues and
seasons, entering clubs' admins enter teams (a player enters a pair; the partner accepts or
declines), captains propose / accept times and submit line-ups, everyone reads.
Refusals answer 400 / 403 with ``{"detail", "code"}``."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import permissions, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from clubs.api.partners import PartnerAnswerActions, partner_schema
from clubs.api.serializers import request_object
from clubs.models import Club, User
from leagues import selectors
from leagues.api.serializers import (
    Id,
    LeagueAnswerSerializer,
    LeagueClubNightSerializer,
    LeagueDivisionSerializer,
    LeagueEntrySerializer,
    LeagueFixtureSerializer,
    LeagueLineUpSerializer,
    LeagueNextSeasonSerializer,
    LeaguePairsSerializer,
    LeagueRosterSerializer,
    LeagueRowSerializer,
    LeagueSeasonSerializer,
    LeagueSerializer,
    LeagueTableScoreSerializer,
    LeagueTeamEntrySerializer,
    LeagueTimeSerializer,
)
from leagues.models import Division, Entry, Fixture, League, Round, Season
from leagues.permissions import visible_leagues_filter
from leagues.services import entries, fixtures, play, setup

AUTH = [permissions.IsAuthenticated]


def _valid(serializer_class: type[serializers.Serializer], request: Request) -> dict[str, Any]:
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _users(ids: list[int]) -> list[User]:
    found = {u.pk: u for u in User.objects.filter(pk__in=ids)}
    if len(found) != len(set(ids)):
        raise serializers.ValidationError({"players": ["No such user."]})
    return [found[i] for i in ids]


class LeagueViewSet(viewsets.ModelViewSet):
    """Leagues: everyone reads; the host club's admins create and invite clubs."""

    serializer_class = LeagueSerializer
    queryset = League.objects.all()
    http_method_names = ["get", "post", "head", "options"]
    filter_backends: list = []

    def get_queryset(self) -> QuerySet[League]:
        """The leagues the caller may see (:func:`leagues.permissions.can_see_league`)."""
        return self.queryset.filter(visible_leagues_filter(self.request.user))

    def perform_create(self, serializer: LeagueSerializer) -> None:
        """Create through the service (host admins only)."""
        data = dict(serializer.validated_data)
        host = data.pop("host")
        serializer.instance = setup.create_league(self.request.user, host, **data)

    @extend_schema(
        summary="Invite a club to an inter-club league. Permission: host admins.",
        request=inline_serializer("Invite", {"club": serializers.IntegerField()}),
        responses=LeagueSerializer,
    )
    @action(detail=True, methods=["post"], permission_classes=AUTH)
    def invite(self, request: Request, pk: str | None = None) -> Response:
        """Its admins may then enter teams."""
        league = self.get_object()
        club = get_object_or_404(
            Club, pk=Id().run_validation(request_object(request.data).get("club"))
        )
        setup.invite_club(request.user, league, club)
        return Response(LeagueSerializer(league).data)


@partner_schema(
    LeagueAnswerSerializer,
    LeagueEntrySerializer,
    accepted="The pending pair is entered (in a running season from the next round).",
    declined="The pending pair is removed: both players may enter again.",
)
class SeasonViewSet(PartnerAnswerActions, viewsets.ModelViewSet):
    """Seasons: everyone reads; host admins create, start and close them; entering clubs'
    admins enter teams."""

    partners = entries.PARTNERS
    partner_request = LeagueAnswerSerializer
    partner_response = LeagueEntrySerializer

    serializer_class = LeagueSeasonSerializer
    queryset = Season.objects.select_related("league").prefetch_related("divisions")
    http_method_names = ["get", "post", "head", "options"]
    filter_backends: list = []

    def get_queryset(self) -> QuerySet[Season]:
        """The seasons of the leagues the caller may see."""
        return self.queryset.filter(visible_leagues_filter(self.request.user, "league"))

    def perform_create(self, serializer: LeagueSeasonSerializer) -> None:
        """Create through the service (host admins only)."""
        data = dict(serializer.validated_data)
        league = data.pop("league")
        serializer.instance = setup.create_season(self.request.user, league, **data)

    @extend_schema(summary="Start: draw the schedule. Permission: host admins.", request=None)
    @action(detail=True, methods=["post"], permission_classes=AUTH)
    def start(self, request: Request, pk: str | None = None) -> Response:
        """Rounds and fixtures are created."""
        season = setup.start_season(request.user, self.get_object())
        return Response(LeagueSeasonSerializer(season).data)

    @extend_schema(summary="Close a finished season. Permission: host admins.", request=None)
    @action(detail=True, methods=["post"], permission_classes=AUTH)
    def close(self, request: Request, pk: str | None = None) -> Response:
        """Every fixture must have its result."""
        season = setup.close_season(request.user, self.get_object())
        return Response(LeagueSeasonSerializer(season).data)

    @extend_schema(
        summary="Add the next lower division to a draft season. Permission: host admins.",
        request=inline_serializer(
            "LeagueDivisionName", {"name": serializers.CharField(max_length=60)}
        ),
        responses=LeagueDivisionSerializer,
    )
    @action(detail=True, methods=["post"], permission_classes=AUTH, url_path="add-division")
    def add_division(self, request: Request, pk: str | None = None) -> Response:
        """Level: one below the lowest."""
        name = serializers.CharField(max_length=60).run_validation(
            request_object(request.data).get("name")
        )
        division = setup.add_division(request.user, self.get_object(), name)
        return Response(LeagueDivisionSerializer(division).data, status=201)

    @extend_schema(
        summary="Remove an empty division of a draft season (those below move up a level). "
        "Permission: host admins.",
        request=inline_serializer("LeagueDivisionRef", {"division": serializers.IntegerField()}),
        responses={204: None},
    )
    @action(detail=True, methods=["post"], permission_classes=AUTH, url_path="remove-division")
    def remove_division(self, request: Request, pk: str | None = None) -> Response:
        """A division with entries is refused: move them first."""
        season = self.get_object()
        number = serializers.IntegerField().run_validation(
            request_object(request.data).get("division")
        )
        division = get_object_or_404(Division, season=season, pk=number)
        setup.remove_division(request.user, season, division)
        return Response(status=204)

    @extend_schema(
        summary="Move an entry of a draft season to another division. Permission: host admins.",
        request=inline_serializer(
            "LeagueEntryMove",
            {"entry": serializers.IntegerField(), "division": serializers.IntegerField()},
        ),
        responses=LeagueEntrySerializer,
    )
    @action(detail=True, methods=["post"], permission_classes=AUTH, url_path="move-entry")
    def move_entry(self, request: Request, pk: str | None = None) -> Response:
        """The entry becomes the last seed of its new division."""
        season = self.get_object()
        data = request_object(request.data)
        entry_id = serializers.IntegerField().run_validation(data.get("entry"))
        division_id = serializers.IntegerField().run_validation(data.get("division"))
        entry = get_object_or_404(Entry, season=season, pk=entry_id)
        division = get_object_or_404(Division, season=season, pk=division_id)
        return Response(LeagueEntrySerializer(setup.move_entry(request.user, entry, division)).data)

    @extend_schema(
        summary="Set a club night for every open fixture of a round. Permission: host admins.",
        request=inline_serializer(
            "LeagueClubNight",
            {"round": serializers.IntegerField(), "when": serializers.DateTimeField()},
        ),
        responses=inline_serializer("LeagueClubNightSet", {"fixtures": serializers.IntegerField()}),
    )
    @action(detail=True, methods=["post"], permission_classes=AUTH, url_path="club-night")
    def club_night(self, request: Request, pk: str | None = None) -> Response:
        """Inside the round's window; every fixture still open gets the time."""
        season = self.get_object()
        data = _valid(LeagueClubNightSerializer, request)
        rnd = get_object_or_404(Round, season=season, number=data["round"])
        return Response({"fixtures": fixtures.set_club_night(request.user, rnd, data["when"])})

    @extend_schema(
        summary="Propose the next season from a closed one (promotion and relegation). "
        "Permission: host admins.",
        request=inline_serializer(
            "LeagueNextSeason",
            {"name": serializers.CharField(max_length=120), "starts_on": serializers.DateField()},
        ),
        responses=LeagueSeasonSerializer,
    )
    @action(detail=True, methods=["post"], permission_classes=AUTH, url_path="next-season")
    def next_season(self, request: Request, pk: str | None = None) -> Response:
        """A draft with the same settings; its divisions follow the closed standings."""
        data = _valid(LeagueNextSeasonSerializer, request)
        season = setup.next_season(request.user, self.get_object(), **data)
        return Response(LeagueSeasonSerializer(season).data, status=201)

    @extend_schema(
        summary="Enter a team, a pair or a player. Permission: the entering club's admins.",
        request=LeagueTeamEntrySerializer,
        responses=LeagueEntrySerializer,
    )
    @action(detail=True, methods=["post"], permission_classes=AUTH)
    def enter(self, request: Request, pk: str | None = None) -> Response:
        """The roster's players are members of the club."""
        season = self.get_object()
        data = _valid(LeagueTeamEntrySerializer, request)
        division = None
        if data.get("division") is not None:
            division = get_object_or_404(Division, season=season, pk=data["division"])
        players = _users(data["players"])
        if season.entry_kind == "team":
            captain = _users([data.get("captain") or 0])[0]
            entry = entries.enter_team(
                request.user,
                season,
                data["club"],
                name=data["name"],
                captain=captain,
                players=players,
                division=division,
            )
        else:
            entry = entries.enter_players(
                request.user, season, data["club"], players=players, division=division
            )
        return Response(LeagueEntrySerializer(entry).data, status=201)

    def partner_entry(self, event: Season, entry_id: int | None, request: Request) -> Entry:
        """The season's entry named, else the invitation naming the caller (404 when there
        is none)."""
        if entry_id is None:
            entry = selectors.invitation_of(request.user, event)
        else:
            entry = Entry.objects.filter(season=event, pk=entry_id).first()
        if entry is None:
            raise NotFound()
        return entry

    @extend_schema(
        summary="The season's entries (public)", responses=LeagueEntrySerializer(many=True)
    )
    @action(detail=True, methods=["get"], url_path="entries")
    def entry_list(self, request: Request, pk: str | None = None) -> Response:
        """Every entry with its roster."""
        season = self.get_object()
        qs = season.entries.select_related("team")
        return Response(LeagueEntrySerializer(qs, many=True).data)

    @extend_schema(
        summary="The season's fixtures (public)", responses=LeagueFixtureSerializer(many=True)
    )
    @action(detail=True, methods=["get"], url_path="fixtures")
    def fixture_list(self, request: Request, pk: str | None = None) -> Response:
        """In round order."""
        qs = selectors.fixtures_of(self.get_object()).order_by("round__number", "id")
        return Response(LeagueFixtureSerializer(qs, many=True).data)

    @extend_schema(
        summary="Each division's standings (public)",
        responses=inline_serializer(
            "DivisionStandings",
            {"division": serializers.IntegerField(), "rows": LeagueRowSerializer(many=True)},
            many=True,
        ),
    )
    @action(detail=True, methods=["get"])
    def standings(self, request: Request, pk: str | None = None) -> Response:
        """Match points, then the season's tie-breaks."""
        # plain dicts from the cached standings: a serializer per row costs more than they do
        return Response(
            [
                {
                    "division": table["division"],
                    "rows": [{k: line[k] for k in _ROW_FIELDS} for line in table["lines"]],
                }
                for table in selectors.season_table(self.get_object())
            ]
        )


#: A standings line's fields, as :class:`LeagueRowSerializer` documents them.
_ROW_FIELDS = ("place", "entry", "played", "wins", "draws", "losses", "byes", "values")


class FixtureViewSet(viewsets.ReadOnlyModelViewSet):
    """Fixtures: everyone reads; the two sides propose / accept times and submit line-ups;
    host admins extend, correct and award."""

    serializer_class = LeagueFixtureSerializer
    queryset = Fixture.objects.select_related("round__season__league", "home__team", "away__team")
    filter_backends: list = []

    def get_queryset(self) -> QuerySet[Fixture]:
        """The fixtures of the leagues the caller may see."""
        visible = visible_leagues_filter(self.request.user, "round__season__league")
        return self.queryset.filter(visible).order_by("id")

    def _done(self, fixture: Fixture) -> Response:
        fixture.refresh_from_db()
        return Response(LeagueFixtureSerializer(fixture).data)

    @extend_schema(
        summary="Propose a time. Permission: a side's captain.", request=LeagueTimeSerializer
    )
    @action(detail=True, methods=["post"], permission_classes=AUTH)
    def propose(self, request: Request, pk: str | None = None) -> Response:
        """Inside the round's window, in the future."""
        fixture = self.get_object()
        data = _valid(LeagueTimeSerializer, request)
        fixtures.propose_time(request.user, fixture, data["when"])
        return self._done(fixture)

    @extend_schema(summary="Accept the proposed time. Permission: the other side.", request=None)
    @action(detail=True, methods=["post"], permission_classes=AUTH)
    def accept(self, request: Request, pk: str | None = None) -> Response:
        """The time becomes the agreed time."""
        fixture = self.get_object()
        fixtures.accept_time(request.user, fixture)
        return self._done(fixture)

    @extend_schema(
        summary="The line-ups the caller may read (secret until both are in)",
        responses=LeagueLineUpSerializer(many=True),
        methods=["GET"],
    )
    @extend_schema(
        summary="Submit a line-up. Permission: a side's captain.",
        request=LeaguePairsSerializer,
        responses=LeagueLineUpSerializer,
        methods=["POST"],
    )
    @action(detail=True, methods=["get", "post"], permission_classes=[])
    def lineups(self, request: Request, pk: str | None = None) -> Response:
        """GET: both once revealed, else only the caller's own side's."""
        fixture = self.get_object()
        if request.method == "POST":
            if not request.user.is_authenticated:
                self.permission_denied(request)
            data = _valid(LeaguePairsSerializer, request)
            pairs = [_users(pair) for pair in data["pairs"]]
            lineup = fixtures.submit_lineup(request.user, fixture, pairs)
            return Response(LeagueLineUpSerializer(lineup).data, status=201)
        visible = selectors.visible_lineups(request.user, fixture)
        return Response(LeagueLineUpSerializer(visible, many=True).data)

    @extend_schema(
        summary="Extend the play-by date. Permission: host admins.",
        request=inline_serializer("LeagueExtension", {"until": serializers.DateField()}),
    )
    @action(detail=True, methods=["post"], permission_classes=AUTH)
    def extend(self, request: Request, pk: str | None = None) -> Response:
        """The fixture is then not forfeited at the round's end."""
        fixture = self.get_object()
        field = serializers.DateField()
        until = field.run_validation(request_object(request.data).get("until"))
        fixtures.extend(request.user, fixture, until)
        return self._done(fixture)

    @extend_schema(
        summary="Award a fixture (0 home, 1 away, null: both lose). Permission: host admins.",
        request=inline_serializer(
            "LeagueAward", {"winner": serializers.IntegerField(allow_null=True)}
        ),
    )
    @action(detail=True, methods=["post"], permission_classes=AUTH)
    def award(self, request: Request, pk: str | None = None) -> Response:
        """A forfeit result; the standings follow."""
        fixture = self.get_object()
        winner = request_object(request.data).get("winner", -1)
        play.award(request.user, fixture, winner if winner in (0, 1, None) else -1)
        return self._done(fixture)

    @extend_schema(
        summary="Correct a table's result. Permission: host admins.",
        request=LeagueTableScoreSerializer,
    )
    @action(detail=True, methods=["post"], permission_classes=AUTH)
    def correct(self, request: Request, pk: str | None = None) -> Response:
        """The fixture's total and the ladder follow."""
        fixture = self.get_object()
        data = _valid(LeagueTableScoreSerializer, request)
        table = get_object_or_404(fixture.tables, number=data["table"])
        play.correct_table(request.user, table, data["home_score"], data["away_score"])
        return self._done(fixture)


class EntryViewSet(viewsets.ReadOnlyModelViewSet):
    """Entries: everyone reads; a team's captain, its club's admins and the host club's
    admins change its roster and captain or withdraw it."""

    serializer_class = LeagueEntrySerializer
    queryset = Entry.objects.select_related("season__league", "team", "club").order_by("id")
    filter_backends: list = []

    @extend_schema(
        summary="Change a team's roster and captain. Permission: its captain, its club's "
        "admins, the host club's admins.",
        request=LeagueRosterSerializer,
        responses=LeagueEntrySerializer,
    )
    @action(detail=True, methods=["post"], permission_classes=AUTH)
    def roster(self, request: Request, pk: str | None = None) -> Response:
        """4–10 members of the team's club, none in another entry of the season."""
        entry = self.get_object()
        if not entry.team_id:
            raise NotFound()
        data = _valid(LeagueRosterSerializer, request)
        players = _users(data["players"])
        captain = _users([data["captain"]])[0] if data.get("captain") else None
        entries.set_roster(request.user, entry.team, players, captain=captain)
        entry.refresh_from_db()
        return Response(LeagueEntrySerializer(entry).data)

    @extend_schema(
        summary="Withdraw an entry. Permission: its captain (players), its club's admins, "
        "the host club's admins.",
        request=None,
        responses=LeagueEntrySerializer,
    )
    @action(detail=True, methods=["post"], permission_classes=AUTH)
    def withdraw(self, request: Request, pk: str | None = None) -> Response:
        """Before the start the entry is removed (204); later its fixtures still to play
        are lost by forfeit."""
        entry = entries.withdraw(request.user, self.get_object())
        stored = Entry.objects.filter(pk=entry.pk).first()
        if stored is None:
            return Response(status=204)
        return Response(LeagueEntrySerializer(stored).data)


class NextFixtureView(APIView):
    """The caller's next fixture (``{"fixture": null}`` when none)."""

    permission_classes = AUTH

    @extend_schema(
        summary="My next fixture",
        responses=inline_serializer(
            "NextLeagueFixture", {"fixture": LeagueFixtureSerializer(allow_null=True)}
        ),
    )
    def get(self, request: Request) -> Response:
        """The earliest agreed time to come, else the earliest open window."""
        fixture = selectors.next_fixture(request.user)
        return Response({"fixture": LeagueFixtureSerializer(fixture).data if fixture else None})
