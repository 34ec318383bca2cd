"""What the statistics keep: each recorded match, each player's facts in it, and the sums.

- :class:`MatchRecord`: one finished match read into facts (a live match or a confirmed score
  sheet), unique on ``(source, source_id)`` so that recording it twice changes nothing.
- :class:`PlayerMatch`: one person's facts in one recorded match (their counters, outcome,
  partner).
- :class:`Tally`: the sums the pages read, per person, game, club, rated or casual, period
  (``all``, a month ``m2026-12``, a season ``s2026-4``) and kind — the person's ``total``,
  with one ``partner`` or against one ``opponent``. Added to in the same transaction that
  writes the :class:`MatchRecord`, so a tally never counts a match twice or half.
- :class:`Honour`: a club's honours for a month or a season, computed again after each of
  its matches.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from clubs.models import Club
from games.variants import Variant


class Source(models.TextChoices):
    """Where a recorded match comes from."""

    LIVE = "live", _("Live match")
    SHEET = "sheet", _("Score sheet")
    ENTERED = "entered", _("Result entered by an organiser")


class MatchRecord(models.Model):
    """A finished match read into facts (:func:`engine.facts.match_facts` or
    :func:`engine.facts.sheet_facts`)."""

    source = models.CharField(max_length=8, choices=Source.choices)
    source_id = models.CharField(max_length=32)
    variant = models.CharField(_("game"), max_length=16, choices=Variant.choices)
    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    rated = models.BooleanField(_("rated"), default=False)
    deals = models.PositiveIntegerField(default=0)
    ended_at = models.DateTimeField(_("ended at"), db_index=True)
    recorded_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("recorded match")
        verbose_name_plural = _("recorded matches")
        constraints = [
            models.UniqueConstraint(fields=["source", "source_id"], name="records_unique_source"),
        ]

    def __str__(self) -> str:
        return f"{self.source}:{self.source_id}"


class PlayerMatch(models.Model):
    """One person's facts in one recorded match."""

    record = models.ForeignKey(MatchRecord, on_delete=models.CASCADE, related_name="players")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    seat = models.PositiveSmallIntegerField()
    partner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    outcome = models.CharField(max_length=8)
    counters = models.JSONField(default=dict)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["record", "user"], name="records_one_row_per_player"),
        ]


class TallyKind(models.TextChoices):
    """What a tally sums: the person's own matches, those with one partner, or against one
    opponent."""

    TOTAL = "total", _("Total")
    PARTNER = "partner", _("Partner")
    OPPONENT = "opponent", _("Opponent")


class Tally(models.Model):
    """Summed counters of one person for one game, club (none: a club-less table), rated or
    casual, period and kind. ``other``: the partner or opponent (none: the total, or matches
    without a fixed partner). ``club_key`` and ``other_key`` are the ids or 0, for the unique
    key (a NULL is never equal to another)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    variant = models.CharField(max_length=16, choices=Variant.choices)
    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    club_key = models.BigIntegerField(default=0)
    rated = models.BooleanField(default=False)
    period = models.CharField(max_length=12)
    kind = models.CharField(max_length=8, choices=TallyKind.choices)
    other = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    other_key = models.BigIntegerField(default=0)
    counters = models.JSONField(default=dict)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "period", "kind", "variant", "rated", "club_key", "other_key"],
                name="records_unique_tally",
            ),
        ]
        indexes = [models.Index(fields=["club_key", "period", "kind"], name="records_tally_club")]


class Honour(models.Model):
    """An honour of a club for a period (``m2026-12`` or ``s2026-4``): its ``code`` (one of
    :data:`records.honours.HONOURS`), the person who holds it (and their partner for a
    partnership honour), and the figure that won it."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="+")
    period = models.CharField(max_length=12)
    code = models.CharField(max_length=24)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    partner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    value = models.FloatField(default=0)
    matches = models.PositiveIntegerField(default=0)
    computed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(fields=["club", "period"], name="records_honour_club"),
            models.Index(fields=["user", "period"], name="records_honour_user"),
        ]
