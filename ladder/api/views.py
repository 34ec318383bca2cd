"""API views of the ladders: thin, reads through :mod:`ladder.selectors`.

Everything is public and read-only except ``POST ladders/{id}/rebuild/`` (club owner or
admin for a club ladder, staff for a platform ladder).
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response

from games.variants import Variant
from ladder import selectors, services
from ladder.api import serializers as s
from ladder.errors import LadderError
from ladder.models import Ladder

LEADERBOARD_PARAMS = [
    OpenApiParameter("q", str, description="Search player names (substring)."),
    OpenApiParameter(
        "scope",
        str,
        enum=list(selectors.SCOPES),
        description="`ranked` (default): non-provisional players active within the ladder's "
        "activity window, with ranks. `all`: every rated player, no ranks.",
    ),
    OpenApiParameter("page", int, description="Page number, from 1."),
    OpenApiParameter("page_size", int, description=f"Rows per page, 1..{selectors.MAX_PER_PAGE}."),
]


#: The largest id a row can have (a signed 64-bit integer): a larger one names nothing.
MAX_ID = 2**63 - 1
#: The highest page number read; a later one shows the last page, as any page past the end does.
MAX_PAGE = 100_000


def _int(request: Request, name: str, default: int, maximum: int) -> int:
    """Query parameter ``name`` as a whole number, at most ``maximum``; ``default`` if absent
    or not a number."""
    try:
        return min(int(request.query_params.get(name, default)), maximum)
    except (TypeError, ValueError):
        return default


def _id(value: str | None) -> int | None:
    """A query parameter naming a row: its id, or None if it is not one (not a plain
    positive number, or too large for any row)."""
    if not value or not (value.isascii() and value.isdigit()):
        return None
    number = int(value)
    return number if 0 < number <= MAX_ID else None


@extend_schema_view(
    list=extend_schema(
        summary="List ladders (public; a members-only club's to its members)",
        parameters=[
            OpenApiParameter("club", int, description="Only this club's ladders."),
            OpenApiParameter("variant", str, enum=Variant.values, description="Only this game."),
            OpenApiParameter("platform", bool, description="Only the platform-wide ladders."),
        ],
    ),
    retrieve=extend_schema(summary="A ladder and its rating parameters (public)"),
)
class LadderViewSet(viewsets.ReadOnlyModelViewSet):
    """Ladders: one per club and game, plus one platform-wide ladder per game."""

    serializer_class = s.LadderSerializer
    permission_classes = [permissions.AllowAny]
    filter_backends: list = []

    def get_queryset(self) -> QuerySet[Ladder]:
        """The ladders the caller may see (a members-only club's to its members only; a
        hidden ladder is 404), filtered by ``club``, ``variant`` and ``platform``."""
        params = self.request.query_params
        club = params.get("club")
        club_id = _id(club)
        variant = params.get("variant")
        queryset = selectors.ladders(
            self.request.user,
            club_id=club_id,
            variant=variant if variant in Variant.values else None,
        )
        if club and club_id is None:  # no club has that id
            return queryset.none()
        if variant and variant not in Variant.values:
            return queryset.none()
        if params.get("platform") in ("true", "1"):
            queryset = queryset.filter(club__isnull=True)
        return queryset

    @extend_schema(
        summary="A page of the ladder's leaderboard (public)",
        parameters=LEADERBOARD_PARAMS,
        responses=s.LeaderboardSerializer,
    )
    @action(detail=True, methods=["get"])
    def leaderboard(self, request: Request, pk: str | None = None) -> Response:
        """Rank, player, rating, matches, win rate and trend; a fixed number of queries."""
        ladder = self.get_object()
        board = selectors.leaderboard(
            ladder,
            scope=request.query_params.get("scope", "ranked"),
            query=request.query_params.get("q", ""),
            page=_int(request, "page", 1, MAX_PAGE),
            per_page=_int(request, "page_size", 50, selectors.MAX_PER_PAGE),
        )
        return Response(s.LeaderboardSerializer(board).data)

    @extend_schema(
        summary="A player's rating and full rating history in the ladder (public)",
        responses=s.PlayerHistorySerializer,
    )
    @action(detail=True, methods=["get"], url_path=r"players/(?P<user_id>\d+)")
    def player(self, request: Request, pk: str | None = None, user_id: str = "") -> Response:
        """The rating (null before the first rated match) and every change, oldest first."""
        ladder = self.get_object()
        user = get_object_or_404(get_user_model(), pk=int(user_id))
        data = {
            "ladder": ladder,
            "user": user,
            "rating": selectors.player_rating(ladder, user.pk),
            "history": selectors.rating_history(ladder, user.pk).select_related("result"),
        }
        return Response(s.PlayerHistorySerializer(data).data)

    @extend_schema(
        summary="Rebuild the ladder from its results. Permission: club owner or admin; staff "
        "for a platform ladder.",
        request=None,
        responses={202: inline_serializer("RebuildQueued", {"queued": serializers.BooleanField()})},
    )
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def rebuild(self, request: Request, pk: str | None = None) -> Response:
        """Queue a rebuild; the ratings come out identical unless results were missing."""
        ladder = self.get_object()
        try:
            services.request_rebuild(request.user, ladder)
        except LadderError as error:
            raise PermissionDenied(error.message) from error
        return Response({"queued": True}, status=status.HTTP_202_ACCEPTED)


@extend_schema(
    summary="A player's ratings in every ladder (public)",
    responses=s.RatingSerializer(many=True),
    parameters=[OpenApiParameter("user_id", OpenApiTypes.INT, OpenApiParameter.PATH)],
)
class PlayerRatingsViewSet(viewsets.ViewSet):
    """All ladders a player is rated in."""

    permission_classes = [permissions.AllowAny]

    def list(self, request: Request, user_id: str = "") -> Response:
        """The player's ratings, platform ladders first."""
        user = get_object_or_404(get_user_model(), pk=int(user_id))
        ratings = selectors.player_ratings(user.pk, request.user)
        return Response(s.RatingSerializer(ratings, many=True).data)
