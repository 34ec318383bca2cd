"""The statistics API: a player's statistics, a club's honours (thin: selectors read)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from clubs.models import Club
from clubs.services import require_club_visible
from records import selectors
from records.api import serializers as s
from records.errors import RecordsError, period_key


class PlayerStatisticsView(APIView):
    """A player's statistics (per game, rated and casual apart) over a period."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(
        responses=s.StatisticsSerializer,
        parameters=[
            OpenApiParameter("user_id", OpenApiTypes.INT, OpenApiParameter.PATH),
            OpenApiParameter("period", str, enum=["month", "season", "all"]),
        ],
    )
    def get(self, request: Request, user_id: int) -> Response:
        """Statistics of the clubs the caller may see (club-less tables: only their own)."""
        try:
            key = period_key(request.query_params.get("period"))
        except RecordsError as error:
            return Response({"detail": error.message, "code": error.code}, status=error.status)
        person = get_object_or_404(get_user_model(), pk=user_id)
        stats = selectors.player_statistics(selectors.viewer_of(request.user), person, key)
        return Response({"user": person.pk, "period": key, "games": [g.as_json() for g in stats]})


def _honour(view: selectors.HonourView) -> dict[str, Any]:
    h = view.honour
    return {
        "code": h.code,
        "title": str(view.kind.title),
        "explanation": str(view.kind.explanation),
        "period": h.period,
        "user": h.user_id,
        "partner": h.partner_id,
        "value": h.value,
        "matches": h.matches,
    }


class ClubHonoursView(APIView):
    """A club's honours of this month and this season."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(
        responses=s.ClubHonoursSerializer,
        parameters=[OpenApiParameter("slug", str, OpenApiParameter.PATH)],
    )
    def get(self, request: Request, slug: str) -> Response:
        """The honours; 404 (``members_only``) for a members-only club the caller is not in."""
        club = get_object_or_404(Club, slug=slug)
        require_club_visible(selectors.viewer_of(request.user), club)
        found = selectors.club_honours(club)
        return Response({name: [_honour(v) for v in rows] for name, rows in found.items()})
