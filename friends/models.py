"""A friends' table's invitation (:class:`Room`) and who came in through it (:class:`Admission`).

The table itself is a :class:`matches.models.Table` of kind ``friends`` (no club, never
rated); this app only keeps how people reach it. Changes go through :mod:`friends.services`.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Room(models.Model):
    """The invitation of one friends' table: a long random link token and a 6-digit code.

    ``code`` is unique among the rooms that have one and is taken away (None) once the table
    has ended, so the same six digits can serve a later table; the token stays (a finished
    table's link says that it has ended) but admits nobody new.
    """

    table = models.OneToOneField(
        "matches.Table", on_delete=models.CASCADE, related_name="friends_room"
    )
    host = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", verbose_name=_("host")
    )
    token = models.CharField(_("link token"), max_length=64, unique=True)
    code = models.CharField(_("code"), max_length=6, unique=True, null=True, blank=True)
    created_at = models.DateTimeField(_("opened at"), default=timezone.now)

    class Meta:
        verbose_name = _("friends' table invitation")
        verbose_name_plural = _("friends' table invitations")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"room {self.table_id}"


class Via(models.TextChoices):
    """How someone reached a friends' table."""

    LINK = "link", _("Link")
    CODE = "code", _("Code")


class Admission(models.Model):
    """Someone who reached a friends' table through its link or its code: they may sit there
    and see it. ``removed``: the host took them out of their seat before the first deal; they
    are not admitted again."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="admissions")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    via = models.CharField(max_length=4, choices=Via.choices)
    removed = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("admission")
        verbose_name_plural = _("admissions")
        constraints = [
            models.UniqueConstraint(fields=["room", "user"], name="unique_friends_admission"),
        ]

    def __str__(self) -> str:
        return f"{self.room_id}:{self.user_id}"
