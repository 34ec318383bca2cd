"""Django admin for the score-sheet models, with lists and search; the entry log is
append-only (shown read-only, never added, changed or deleted here)."""

from __future__ import annotations

from django.contrib import admin

from matches.admin import ReadOnlyAdmin
from sheets.models import ScoreSheet, SheetEntry, SheetPlayer, SheetVerdict


class SheetPlayerInline(admin.TabularInline):
    """The players of a score sheet."""

    model = SheetPlayer
    extra = 0
    raw_id_fields = ["user"]


@admin.register(ScoreSheet)
class ScoreSheetAdmin(admin.ModelAdmin):
    """Score sheets of games played at a real table."""

    list_display = ["id", "club", "variant", "status", "scorer", "rated", "started_at"]
    list_filter = ["variant", "status", "rated"]
    search_fields = ["club__name", "club__slug", "scorer__username"]
    raw_id_fields = ["club", "scorer"]
    readonly_fields = ["state", "version"]
    inlines = [SheetPlayerInline]


@admin.register(SheetPlayer)
class SheetPlayerAdmin(admin.ModelAdmin):
    """A seat of a score sheet: a member or a guest."""

    list_display = ["id", "sheet", "seat", "user", "guest_name"]
    search_fields = ["user__username", "guest_name"]
    raw_id_fields = ["sheet", "user"]


@admin.register(SheetEntry)
class SheetEntryAdmin(ReadOnlyAdmin):
    """The append-only entry log of the score sheets."""

    list_display = ["id", "sheet", "seq", "undone", "user", "created_at"]
    list_filter = ["undone"]
    search_fields = ["sheet__id", "user__username"]


@admin.register(SheetVerdict)
class SheetVerdictAdmin(admin.ModelAdmin):
    """Confirmations and disputes of finished score sheets."""

    list_display = ["id", "sheet", "user", "side", "kind", "version", "created_at"]
    list_filter = ["kind"]
    search_fields = ["user__username", "reason"]
    raw_id_fields = ["sheet", "user"]
