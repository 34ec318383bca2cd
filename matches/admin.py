"""Django admin for every live-play model, with lists and search.

The event log of the matches is append-only: the admin shows them
read-only and refuses to add, change or delete them (a match's state is its log).
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from matches.models import Match, MatchEvent, Presence, Seat, Table


class ReadOnlyAdmin(admin.ModelAdmin):
    """An append-only log: listed and shown, never added, changed or deleted here."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Never: entries are written by the services only."""
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Never: the log is append-only."""
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Never: the log is append-only."""
        return False


class SeatInline(admin.TabularInline):
    """The seats of a table."""

    model = Seat
    extra = 0
    raw_id_fields = ["user"]


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    """Tables with their club, game and status."""

    list_display = [
        "id",
        "club",
        "variant",
        "status",
        "rated",
        "clocks",
        "created_by",
        "created_at",
    ]
    list_filter = ["variant", "status", "rated", "clocks"]
    search_fields = ["club__name", "club__slug", "created_by__username"]
    raw_id_fields = ["club", "created_by"]
    inlines = [SeatInline]


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin):
    """Seats: a person or a bot at a table."""

    list_display = ["id", "table", "index", "user", "bot"]
    list_filter = ["bot"]
    search_fields = ["user__username", "user__display_name", "table__club__name"]
    raw_id_fields = ["table", "user"]


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    """Matches: state read-only (it is rebuilt from the event log), times and status."""

    list_display = ["id", "table", "variant", "status", "version", "started_at", "finished_at"]
    list_filter = ["variant", "status"]
    search_fields = ["seed", "table__club__name", "table__club__slug"]
    readonly_fields = [
        "table",
        "variant",
        "seed",
        "options",
        "seats",
        "version",
        "snapshot",
        "to_move",
        "deadline",
        "deadline_version",
        "autoplay",
        "timeouts",
        "result",
        "started_at",
        "finished_at",
    ]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Never: matches start when a table's seats are all taken."""
        return False


@admin.register(MatchEvent)
class MatchEventAdmin(ReadOnlyAdmin):
    """The append-only event log of the matches."""

    list_display = ["id", "match", "seq", "seat", "actor", "user", "action", "created_at"]
    list_filter = ["actor"]
    search_fields = ["match__id", "user__username"]
    list_select_related = ["user"]


@admin.register(Presence)
class PresenceAdmin(admin.ModelAdmin):
    """Live connections of seats and spectators."""

    list_display = ["id", "match", "seat", "channel_name", "connected_at"]
    search_fields = ["channel_name", "match__id"]
    raw_id_fields = ["match"]
