"""Serializers of the notifications API (:mod:`outbox.api.views`)."""

from __future__ import annotations

from rest_framework import serializers

from outbox.models import Notification


class NotificationSerializer(serializers.ModelSerializer):
    """One notice: what it says, its kind, its link and when it was read (null: unread)."""

    class Meta:
        model = Notification
        fields = ["id", "kind", "text", "url", "created_at", "read_at"]
        read_only_fields = fields


class EmailPreferencesSerializer(serializers.Serializer):
    """Each kind of notice, true when it is e-mailed."""

    results = serializers.BooleanField(required=False)
    tournaments = serializers.BooleanField(required=False)
    leagues = serializers.BooleanField(required=False)
    sheets = serializers.BooleanField(required=False)
    club = serializers.BooleanField(required=False)
