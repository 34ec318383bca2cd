"""The outbox in the admin: what was sent, what waits, what failed; failed rows can be retried."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from outbox import services
from outbox.models import Notification, OutboxMessage


@admin.register(OutboxMessage)
class OutboxMessageAdmin(admin.ModelAdmin):
    """Read-only: the rows are written by the services only."""

    list_display = ("key", "to", "status", "attempts", "next_attempt_at", "sent_at", "last_error")
    list_filter = ("status",)
    search_fields = ("key", "to", "message_id")
    date_hierarchy = "created_at"
    actions = ["retry"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        """Nobody writes an email by hand."""
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        """The rows are the record of what was sent: not edited."""
        return False

    def has_retry_permission(self, request: HttpRequest) -> bool:
        """Sending again is a change: it needs the model's change permission."""
        return request.user.has_perm("outbox.change_outboxmessage")

    @admin.action(description=_("Try the selected failed emails again"), permissions=["retry"])
    def retry(self, request: HttpRequest, queryset: QuerySet[OutboxMessage]) -> None:
        """Reset failed messages to pending with fresh attempts."""
        count = services.retry_failed(list(queryset.values_list("pk", flat=True)))
        self.message_user(
            request,
            ngettext(
                "%(count)d email will be sent again.",
                "%(count)d emails will be sent again.",
                count,
            )
            % {"count": count},
            messages.SUCCESS,
        )


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    """Read-only: every user's notices, as the services wrote them."""

    list_display = ("key", "user", "kind", "text", "created_at", "read_at")
    list_filter = ("kind",)
    search_fields = ("key", "text", "user__username")
    raw_id_fields = ("user",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        """Notices are written by the services only."""
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        """A notice is the record of what a user was told: not edited."""
        return False
