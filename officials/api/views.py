"""REST API of officials under ``/api/v1/`` (routes in :mod:`officials.api.urls`): an event's
officials (read; appoint and remove; the appeal time; announcements), a player's appeal and
the committee's votes. Thin: :mod:`officials.services` decides, with the pages' permissions;
refusals answer 400 / 403 with ``{"detail", "code"}``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import QuerySet
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from clubs.models import User
from leagues import permissions as league_permissions
from leagues.models import FixtureTable, Season
from officials import permissions as official_permissions
from officials import selectors, services
from officials.api.serializers import (
    AnnouncementSerializer,
    AnnounceSerializer,
    AppealDetailSerializer,
    AppealSerializer,
    AppointSerializer,
    DismissSerializer,
    EscalateSerializer,
    FeeSerializer,
    FileAppealSerializer,
    FileTableAppealSerializer,
    MinutesSerializer,
    OfficialSerializer,
    PanelSerializer,
    VoteSerializer,
)
from officials.models import Appeal, Official, Panel
from tournaments.models import Game, Tournament
from tournaments.permissions import can_view

AUTH = [permissions.IsAuthenticated]


def _viewer(request: Request) -> User | None:
    """The signed-in user, or None."""
    return request.user if isinstance(request.user, User) else None


def _actor(request: Request) -> User:
    """The signed-in user of an action only they reach (``IsAuthenticated``)."""
    user = _viewer(request)
    if user is None:
        raise NotAuthenticated()
    return user


def _official_json(line: selectors.Line) -> dict[str, Any]:
    official = line.official
    return {
        "id": official.pk,
        "user": official.user_id,
        "name": official.user.name,
        "role": official.role,
        "current": line.current,
    }


class _EventOfficials(viewsets.GenericViewSet):
    """Shared actions of an event's officials (a tournament's or a season's)."""

    permission_classes = [permissions.IsAuthenticatedOrReadOnly]
    filter_backends: list = []
    lookup_value_regex = r"[0-9]{1,18}"
    serializer_class = PanelSerializer

    def event(self) -> Tournament | Season:
        """The event named in the URL, if the caller may see it (404 otherwise)."""
        raise NotImplementedError

    def _panel(self, event: Tournament | Season) -> Panel:
        return selectors.panel_of(event) or (
            Panel(tournament=event) if isinstance(event, Tournament) else Panel(season=event)
        )

    def retrieve(self, request: Request, pk: str | None = None) -> Response:
        """The event's officials, its appeal time and the appeals the caller reads."""
        event = self.event()
        panel = selectors.panel_of(event)
        shown = self._panel(event)
        return Response(
            {
                "appeal_minutes": shown.appeal_minutes,
                "appeal_fee": shown.appeal_fee,
                "officials": [_official_json(line) for line in selectors.officials_of(panel)],
                "appeals": AppealSerializer(
                    selectors.appeals_for(_viewer(request), panel), many=True
                ).data,
            }
        )

    @extend_schema(
        summary="Appoint a chief referee, referee or appeals committee member. "
        "Permission: the event's organisers.",
        request=AppointSerializer,
        responses={201: OfficialSerializer},
    )
    @action(detail=True, methods=["post"], permission_classes=AUTH)
    def appoint(self, request: Request, pk: str | None = None) -> Response:
        """Appoint a member of the event's club (one role per person; one chief referee)."""
        event = self.event()
        data = AppointSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        person = User.objects.filter(pk=data.validated_data["user"]).first()
        official = services.appoint(_actor(request), event, person, data.validated_data["role"])
        line = selectors.Line(official, True)
        return Response(_official_json(line), status=201)

    @extend_schema(
        summary="Remove an official. Permission: organisers; the chief referee removes a referee.",
        request=DismissSerializer,
        responses={204: None},
    )
    @action(detail=True, methods=["post"], permission_classes=AUTH)
    def dismiss(self, request: Request, pk: str | None = None) -> Response:
        """Remove an official of this event."""
        event = self.event()
        data = DismissSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        official = Official.objects.filter(
            pk=data.validated_data["official"], panel=selectors.panel_of(event)
        ).first()
        if official is None:
            raise Http404
        services.dismiss(_actor(request), official)
        return Response(status=204)

    @extend_schema(
        summary="Set the minutes to appeal after a round. Permission: organisers.",
        request=MinutesSerializer,
        responses=MinutesSerializer,
    )
    @action(detail=True, methods=["post"], url_path="appeal-minutes", permission_classes=AUTH)
    def appeal_minutes(self, request: Request, pk: str | None = None) -> Response:
        """Whole minutes from 5 to 1440 (the rules' default: 30)."""
        event = self.event()
        data = MinutesSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        panel = services.set_appeal_minutes(
            _actor(request), event, data.validated_data["appeal_minutes"]
        )
        return Response({"appeal_minutes": panel.appeal_minutes})

    @extend_schema(
        summary="Set the appeal fee in whole yuan (0: none; 第三十九条一.4). Permission: organisers.",
        request=FeeSerializer,
        responses=FeeSerializer,
    )
    @action(detail=True, methods=["post"], url_path="appeal-fee", permission_classes=AUTH)
    def appeal_fee(self, request: Request, pk: str | None = None) -> Response:
        """Whole yuan from 0 to 10000; appeals filed before keep their fee."""
        event = self.event()
        data = FeeSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        panel = services.set_appeal_fee(_actor(request), event, data.validated_data["appeal_fee"])
        return Response({"appeal_fee": panel.appeal_fee})

    @extend_schema(
        summary="Send an announcement to all entrants, a division or a team. "
        "Permission: organisers.",
        request=AnnounceSerializer,
        responses={201: AnnouncementSerializer},
    )
    @action(detail=True, methods=["post"], permission_classes=AUTH)
    def announce(self, request: Request, pk: str | None = None) -> Response:
        """A notice and an e-mail (under each player's preferences) to each player reached."""
        event = self.event()
        data = AnnounceSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        sent = services.announce(
            _actor(request),
            event,
            data.validated_data["audience"],
            data.validated_data["subject"],
            data.validated_data["text"],
            target=data.validated_data["target"],
        )
        return Response(
            {
                "id": sent.pk,
                "audience": sent.audience,
                "subject": sent.subject,
                "recipients": sent.recipients,
            },
            status=201,
        )


class TournamentOfficialsViewSet(_EventOfficials):
    """A tournament's officials, appeals and announcements (by the tournament's id)."""

    def get_queryset(self) -> QuerySet[Tournament]:
        """Tournaments (visibility checked per tournament)."""
        return Tournament.objects.select_related("club")

    def event(self) -> Tournament:
        """The tournament, if the caller may see it."""
        tournament = self.get_object()
        if not can_view(_viewer(self.request), tournament):
            raise Http404
        return tournament

    @extend_schema(
        summary="File a written appeal about one of your finished games. "
        "Permission: a player of the game, within the appeal time.",
        request=FileAppealSerializer,
        responses={201: AppealSerializer},
    )
    @action(detail=True, methods=["post"], permission_classes=AUTH)
    def appeal(self, request: Request, pk: str | None = None) -> Response:
        """The committee and the chief referee are told."""
        tournament = self.event()
        data = FileAppealSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        game = Game.objects.filter(
            pk=data.validated_data["game"], round__tournament=tournament
        ).first()
        if game is None:
            raise Http404
        appeal = services.file_appeal(
            _actor(request), game, data.validated_data["subject"], data.validated_data["text"]
        )
        return Response(AppealSerializer(appeal).data, status=201)


class SeasonOfficialsViewSet(_EventOfficials):
    """A league season's officials, appeals and announcements (by the season's id)."""

    def get_queryset(self) -> QuerySet[Season]:
        """Seasons (visibility checked per season)."""
        return Season.objects.select_related("league__host")

    def event(self) -> Season:
        """The season, if the caller may see its league."""
        season = self.get_object()
        if not league_permissions.can_see_league(_viewer(self.request), season.league):
            raise Http404
        return season

    @extend_schema(
        summary="File a written appeal about a league table you sat at. "
        "Permission: a player seated at the table, within the appeal time after its fixture.",
        request=FileTableAppealSerializer,
        responses={201: AppealSerializer},
    )
    @action(detail=True, methods=["post"], permission_classes=AUTH)
    def appeal(self, request: Request, pk: str | None = None) -> Response:
        """The committee and the chief referee are told."""
        season = self.event()
        data = FileTableAppealSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        table = FixtureTable.objects.filter(
            pk=data.validated_data["table"], fixture__round__season=season
        ).first()
        if table is None:
            raise Http404
        appeal = services.file_appeal(
            _actor(request), table, data.validated_data["subject"], data.validated_data["text"]
        )
        return Response(AppealSerializer(appeal).data, status=201)


class AppealViewSet(viewsets.GenericViewSet):
    """Appeals: read one (its filer, the game's players, the organisers, the chief referee
    and the committee), and the committee's votes."""

    permission_classes = AUTH
    filter_backends: list = []
    lookup_value_regex = r"[0-9]{1,18}"
    serializer_class = AppealDetailSerializer

    def get_queryset(self) -> QuerySet[Appeal]:
        """Appeals (who reads one is checked per appeal)."""
        return Appeal.objects.select_related(
            "panel", "game__round__tournament", "table__fixture__round__season"
        )

    def _appeal(self) -> Appeal:
        appeal = self.get_object()
        if not official_permissions.can_read_appeal(_viewer(self.request), appeal):
            raise Http404
        return appeal

    def _json(self, appeal: Appeal) -> dict[str, Any]:
        data = dict(AppealSerializer(appeal).data)
        data["votes"] = [
            {
                "member": v.member_id,
                "verdict": v.verdict,
                "score0": v.score0,
                "score1": v.score1,
                "winner": v.winner,
                "reason": v.reason,
            }
            for v in appeal.votes.all()
        ]
        data["history"] = [
            {
                "at": serializers.DateTimeField().to_representation(step.at),
                "what": step.what,
                "by": step.by.pk if step.by is not None else None,
                "text": step.text,
            }
            for step in selectors.appeal_history(appeal)
        ]
        return data

    def _decide(self, request: Request, decide: Callable[..., Appeal]) -> Response:
        """A vote or a ruling (:data:`VoteSerializer`) through the service ``decide``."""
        appeal = self._appeal()
        data = VoteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        decide(
            _actor(request),
            appeal,
            values["verdict"],
            values["reason"],
            score0=values.get("score0"),
            score1=values.get("score1"),
            winner=values.get("winner"),
        )
        appeal.refresh_from_db()
        return Response(self._json(appeal))

    def retrieve(self, request: Request, pk: str | None = None) -> Response:
        """The appeal, the result before and after, every vote with its reason."""
        return Response(self._json(self._appeal()))

    @extend_schema(
        summary="The chief referee's first ruling on an open appeal (第三十九条二.1). Permission: "
        "the chief referee (or a deputy while there is none) who does not play in the game.",
        request=VoteSerializer,
        responses=AppealDetailSerializer,
    )
    @action(detail=True, methods=["post"])
    def rule(self, request: Request, pk: str | None = None) -> Response:
        """Dismiss, or uphold with a result (changed at once); the players may take it to
        the committee in time."""
        return self._decide(request, services.rule)

    @extend_schema(
        summary="Take the chief referee's ruling to the appeals committee (第三十九条二.2). "
        "Permission: a player of the game or table, within the event's appeal time.",
        request=EscalateSerializer,
        responses=AppealDetailSerializer,
    )
    @action(detail=True, methods=["post"])
    def escalate(self, request: Request, pk: str | None = None) -> Response:
        """The appeal is open again, for the committee to decide."""
        appeal = self._appeal()
        data = EscalateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.escalate(_actor(request), appeal, data.validated_data["text"])
        appeal.refresh_from_db()
        return Response(self._json(appeal))

    @extend_schema(
        summary="Record that the appeal fee was paid to the organising committee "
        "(第三十九条一.4). Permission: the event's organisers and the chief referee (a deputy "
        "while there is none), not the filer.",
        request=None,
        responses=AppealDetailSerializer,
    )
    @action(detail=True, methods=["post"], url_path="fee-received")
    def fee_received(self, request: Request, pk: str | None = None) -> Response:
        """Due becomes received; the ruling and the committee's votes wait for it."""
        appeal = self._appeal()
        services.mark_fee_received(_actor(request), appeal)
        appeal.refresh_from_db()
        return Response(self._json(appeal))

    @extend_schema(
        summary="Vote on an open appeal. Permission: a current appeals committee member who "
        "does not play in the game.",
        request=VoteSerializer,
        responses=AppealDetailSerializer,
    )
    @action(detail=True, methods=["post"])
    def vote(self, request: Request, pk: str | None = None) -> Response:
        """Dismiss, or uphold with a result; the first proposal a majority of the committee
        backs decides (a changed result goes through the tournament's result service or the
        league's table correction)."""
        return self._decide(request, services.cast_vote)
