"""The outbox row: one email to one recipient for one cause."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class OutboxStatus(models.TextChoices):
    """Where an outbox message stands; ``sent`` and ``failed`` are final."""

    PENDING = "pending", _("Waiting to be sent")
    SENT = "sent", _("Sent")
    FAILED = "failed", _("Failed for good")


class OutboxMessage(models.Model):
    """An email waiting to be sent, or sent.

    ``key`` names the recipient and the cause (``result:42:user:7``) and is unique, so writing
    the same message twice keeps one row. ``message_id`` is chosen once, when the row is written:
    a message sent again after a crash carries the same Message-ID, so the receiving side can
    recognise it. ``lease_until`` is the claim of the worker sending it right now.
    """

    key = models.CharField(_("key"), max_length=200, unique=True)
    to = models.CharField(_("to"), max_length=254)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("user"),
    )
    subject = models.CharField(_("subject"), max_length=255)
    body = models.TextField(_("body"))
    html = models.TextField(_("HTML body"), blank=True, default="")
    message_id = models.CharField(_("Message-ID"), max_length=255, editable=False)
    status = models.CharField(
        _("status"), max_length=8, choices=OutboxStatus.choices, default=OutboxStatus.PENDING
    )
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    next_attempt_at = models.DateTimeField(_("next attempt at"), default=timezone.now)
    lease_until = models.DateTimeField(_("claimed until"), null=True, blank=True)
    sent_at = models.DateTimeField(_("sent at"), null=True, blank=True)
    last_error = models.CharField(_("last error"), max_length=300, blank=True, default="")
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("outgoing email")
        verbose_name_plural = _("outgoing emails")
        ordering = ["-created_at", "-id"]
        indexes = [
            # The sweep reads only the pending rows, oldest due first.
            models.Index(
                fields=["next_attempt_at"],
                condition=Q(status="pending"),
                name="outbox_pending_due",
            )
        ]

    def __str__(self) -> str:
        return f"{self.key} ({self.status})"
