"""Score sheets (保2记分器): matches played with real cards at a real table, scored on a phone.

A sheet's authoritative record is its append-only entry log (:class:`SheetEntry`, unique
``(sheet, seq)`` and unique ``(sheet, key)``: the key is the client's UUID, so an entry sent
twice from an offline queue is stored once). Replaying the entries through the engine's
:class:`engine.match.TableMatch` gives the levels / totals and the result; :attr:`ScoreSheet.state`
caches that. State changes go through :mod:`sheets.services`.

The tables keep the names they had when score sheets were part of ``matches`` (``db_table``):
the move to this app changed no row.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.variants import Variant


class SheetStatus(models.TextChoices):
    """A sheet is scored, then finished, then confirmed (it counts) or disputed / voided."""

    PLAYING = "playing", _("Playing")
    FINISHED = "finished", _("Finished, awaiting confirmation")
    CONFIRMED = "confirmed", _("Confirmed")
    DISPUTED = "disputed", _("Disputed")
    VOIDED = "voided", _("Voided")


class ScoreSheet(models.Model):
    """A match scored at a real table: its club, game, options, players and entry log."""

    club = models.ForeignKey(
        "clubs.Club", on_delete=models.CASCADE, related_name="score_sheets", verbose_name=_("club")
    )
    scorer = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("scorer"),
    )
    variant = models.CharField(_("game"), max_length=16, choices=Variant.choices)
    #: Engine options (``colour_twos``, ``time_limit_minutes``, ``deals``, ...), as validated by
    #: the engine when the sheet was started.
    options = models.JSONField(_("options"), default=dict)
    rated = models.BooleanField(_("rated"), default=True)
    status = models.CharField(
        _("status"), max_length=10, choices=SheetStatus.choices, default=SheetStatus.PLAYING
    )
    #: :meth:`engine.match.TableMatch.state` after the last active entry.
    state = models.JSONField(_("state"), default=dict)
    #: Number of entries (the last ``seq``).
    version = models.PositiveIntegerField(_("version"), default=0)
    started_at = models.DateTimeField(_("started at"), default=timezone.now)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    confirmed_at = models.DateTimeField(_("confirmed at"), null=True, blank=True)

    class Meta:
        db_table = "matches_scoresheet"
        verbose_name = _("score sheet")
        verbose_name_plural = _("score sheets")
        ordering = ["-started_at", "-id"]
        indexes = [models.Index(fields=["club", "status"])]

    def __str__(self) -> str:
        return f"{self.variant} sheet #{self.pk}"


class SheetPlayer(models.Model):
    """A seat of a sheet: a club member (``user``) or a named guest."""

    sheet = models.ForeignKey(ScoreSheet, on_delete=models.CASCADE, related_name="players")
    seat = models.PositiveSmallIntegerField(_("seat"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="sheet_seats",
        verbose_name=_("player"),
    )
    guest_name = models.CharField(_("guest name"), max_length=60, blank=True)

    class Meta:
        db_table = "matches_sheetplayer"
        verbose_name = _("sheet player")
        verbose_name_plural = _("sheet players")
        ordering = ["sheet", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["sheet", "seat"], name="unique_sheet_seat"),
        ]

    @property
    def name(self) -> str:
        """The member's display name or the guest's name."""
        return self.user.name if self.user_id else self.guest_name

    def __str__(self) -> str:
        return f"{self.sheet_id}:{self.seat}"


class SheetEntry(models.Model):
    """One entry of a sheet's log, in order: a deal, a referee card, time up, or an undo."""

    sheet = models.ForeignKey(ScoreSheet, on_delete=models.CASCADE, related_name="entries")
    seq = models.PositiveIntegerField()
    #: The client's idempotency key (a UUID made on the phone).
    key = models.UUIDField(default=uuid.uuid4)
    #: The engine entry (``{"deal": ...}``, ``{"card": ...}``, ``{"time_up": true}``) or
    #: ``{"undo": true}``.
    entry = models.JSONField()
    #: What the entry changed (the engine's record), or for an undo the ``seq`` it undid.
    record = models.JSONField(default=dict)
    #: Set when a later undo took this entry back.
    undone = models.BooleanField(default=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "matches_sheetentry"
        verbose_name = _("sheet entry")
        verbose_name_plural = _("sheet entries")
        ordering = ["sheet", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["sheet", "seq"], name="unique_sheet_entry_seq"),
            models.UniqueConstraint(fields=["sheet", "key"], name="unique_sheet_entry_key"),
        ]

    def __str__(self) -> str:
        return f"{self.sheet_id}#{self.seq}"


class SheetVerdict(models.Model):
    """A confirmation or dispute of a finished sheet by a player of a side or a club admin."""

    class Kind(models.TextChoices):
        """Confirm the result, or dispute it."""

        CONFIRM = "confirm", _("Confirm")
        DISPUTE = "dispute", _("Dispute")

    sheet = models.ForeignKey(ScoreSheet, on_delete=models.CASCADE, related_name="verdicts")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    #: The user's side (None: a club admin who is not playing).
    side = models.SmallIntegerField(null=True, blank=True)
    kind = models.CharField(max_length=8, choices=Kind.choices)
    reason = models.CharField(_("reason"), max_length=500, blank=True)
    #: The sheet version the verdict was given on (an undo afterwards makes it stale).
    version = models.PositiveIntegerField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "matches_sheetverdict"
        verbose_name = _("sheet verdict")
        verbose_name_plural = _("sheet verdicts")
        ordering = ["sheet", "created_at", "id"]
