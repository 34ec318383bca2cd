"""The outbox rows: one email to one recipient for one cause, one notice to one user for
one cause, and the kinds of notice a user gets no e-mail for."""

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
    #: The one-click unsubscribe link (RFC 8058) sent in the headers; empty for other mail.
    unsubscribe_url = models.CharField(
        _("unsubscribe link"), max_length=500, blank=True, default=""
    )
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


class Kind(models.TextChoices):
    """What a notice is about: a user turns e-mails off per kind (the notices stay)."""

    RESULTS = "results", _("Results")
    TOURNAMENTS = "tournaments", _("Tournaments")
    LEAGUES = "leagues", _("Leagues")
    SHEETS = "sheets", _("Score sheets")
    CLUB = "club", _("Club")


class Notification(models.Model):
    """One notice to one user, shown in their notification list whether or not it was
    e-mailed. ``key`` names the recipient and the cause, as an outbox message's does (the
    same key when the notice was e-mailed), and is unique: a cause notifies a user once."""

    key = models.CharField(_("key"), max_length=200, unique=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="notifications",
        verbose_name=_("user"),
    )
    kind = models.CharField(_("kind"), max_length=12, choices=Kind.choices)
    text = models.CharField(_("text"), max_length=300)
    url = models.CharField(_("link"), max_length=300, blank=True, default="")
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    read_at = models.DateTimeField(_("read at"), null=True, blank=True)

    class Meta:
        verbose_name = _("notice")
        verbose_name_plural = _("notices")
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "read_at"], name="notification_unread")]

    def __str__(self) -> str:
        return self.key


class MutedKind(models.Model):
    """A kind of notice a user gets no e-mail for (the default is every kind e-mailed)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("user"),
    )
    kind = models.CharField(_("kind"), max_length=12, choices=Kind.choices)

    class Meta:
        verbose_name = _("e-mail turned off")
        verbose_name_plural = _("e-mails turned off")
        constraints = [
            models.UniqueConstraint(fields=["user", "kind"], name="mutedkind_user_kind"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}:{self.kind}"
