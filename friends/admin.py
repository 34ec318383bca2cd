"""Django admin of friends' tables' invitations: listed and searched, read-only (the services
draw codes and tokens and record who came in)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from friends.models import Admission, Room


class AdmissionInline(admin.TabularInline):
    """Who came in through the room's link or code."""

    model = Admission
    extra = 0
    readonly_fields = ["user", "via", "removed", "created_at"]
    can_delete = False


@admin.register(Room)
class RoomAdmin(admin.ModelAdmin):
    """A friends' table's invitation: the table, its host, its code (None once expired)."""

    list_display = ["table", "host", "code", "created_at"]
    search_fields = ["code", "host__username", "host__display_name"]
    readonly_fields = ["table", "host", "token", "code", "created_at"]
    inlines = [AdmissionInline]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Never: rooms are opened by their hosts (friends.services.open_room)."""
        return False
