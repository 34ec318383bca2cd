"""API views of a user's notifications and e-mail preferences (routes in :mod:`outbox.api.urls`):
thin, they call :mod:`outbox.notices`."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics, permissions
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from outbox import notices
from outbox.api.serializers import (
    EmailPreferencesSerializer,
    NotificationSerializer,
)
from outbox.models import Notification


@extend_schema_view(
    get=extend_schema(summary="Your notifications, newest first. Permission: signed in.")
)
class NotificationList(generics.ListAPIView):
    """The signed-in user's notices, newest first, paginated (reading them marks nothing)."""

    serializer_class = NotificationSerializer
    permission_classes = [permissions.IsAuthenticated]
    filter_backends: list = []

    def get_queryset(self) -> QuerySet[Notification]:
        """The requesting user's notices."""
        return notices.notices_of(self.request.user)


class EmailPreferencesView(APIView):
    """Which kinds of notice the signed-in user gets by e-mail. Permission: signed in."""

    permission_classes = [permissions.IsAuthenticated]
    serializer_class = EmailPreferencesSerializer

    @extend_schema(summary="Your e-mail preferences per kind. Permission: signed in.")
    def get(self, request: Request) -> Response:
        """Every kind with true (e-mailed) or false (in the notifications only)."""
        return Response(notices.email_preferences(request.user))

    @extend_schema(
        summary="Turn e-mails of some kinds on or off. Permission: signed in.",
        request=EmailPreferencesSerializer,
        responses=EmailPreferencesSerializer,
    )
    def patch(self, request: Request) -> Response:
        """Change the kinds named (others keep their setting); an unknown kind refuses all."""
        data = request.data if isinstance(request.data, dict) else None
        try:
            return Response(notices.set_email_preferences(request.user, data))
        except notices.NoticeError as error:
            return Response({"detail": error.message, "code": error.code}, status=error.status)
