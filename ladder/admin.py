"""Django admin for ladders: edit a ladder's parameters (then rebuild it), inspect results."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from ladder.apply import rebuild_ladder
from ladder.models import Ladder, RatedResult, Rating, ResultPlayer


@admin.register(Ladder)
class LadderAdmin(admin.ModelAdmin):
    """Ladders with their rating parameters; changed parameters apply after a rebuild."""

    list_display = ["__str__", "variant", "club", "k_provisional", "k_established"]
    list_filter = ["variant"]
    actions = ["rebuild"]

    @admin.action(description=_("Rebuild the selected ladders from their results"))
    def rebuild(self, request: HttpRequest, queryset: QuerySet[Ladder]) -> None:
        """Rebuild each selected ladder now (uses the current parameters)."""
        for ladder in queryset:
            count = rebuild_ladder(ladder)
            self.message_user(request, f"{ladder}: {count}", messages.SUCCESS)


class ResultPlayerInline(admin.TabularInline):
    """The players of a result and their sides."""

    model = ResultPlayer
    extra = 0
    can_delete = False
    readonly_fields = ["user", "side", "position"]


@admin.register(RatedResult)
class RatedResultAdmin(admin.ModelAdmin):
    """Finished rated results; read-only (they come from live matches and score sheets)."""

    list_display = ["__str__", "variant", "club", "ended_at"]
    list_filter = ["variant", "source"]
    inlines = [ResultPlayerInline]

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        """Results are never edited by hand."""
        return False


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    """Current ratings; read-only (they change only by applying results)."""

    list_display = ["user", "ladder", "rating", "matches", "provisional", "last_played"]
    list_select_related = ["user", "ladder", "ladder__club"]
    search_fields = ["user__username", "user__display_name"]
    raw_id_fields = ["user", "ladder"]

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        """Ratings are never edited by hand."""
        return False
