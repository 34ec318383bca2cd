"""The reviews API: a finished match's review (thin: the services decide who may see it)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from matches.messages import MatchError
from reviews import services
from reviews.api import serializers as s
from reviews.panels import review_summary


class MatchReviewView(APIView):
    """The strong bot's review of a table's finished match."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(
        responses={200: s.MatchReviewSerializer, 404: OpenApiResponse(description="Not found")},
        parameters=[OpenApiParameter("table_id", OpenApiTypes.INT, OpenApiParameter.PATH)],
    )
    def get(self, request: Request, table_id: int) -> Response:
        """The review, to whoever may see the match's replay (a members-only club's only to
        its members); every decision only of the caller's own seat. 404 for anyone else, a
        match not finished, or no such table: nothing says the match exists."""
        try:
            table, match = services.visible_match(request.user, table_id)
        except MatchError as error:
            return Response({"detail": error.message, "code": "not_found"}, status=404)
        user_id = request.user.pk if request.user.is_authenticated else None
        body = {"table": table.pk, "match": match.pk, "game": match.variant}
        return Response({**body, **review_summary(match, user_id)})
