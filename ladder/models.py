"""Ladders, ratings, rating history and the finished results that feed them.

State changes go through ``ladder.services``; reads shared by callers live in
``ladder.selectors``; the rating maths is the pure module ``ladder.ratings``.

A finished, rated result from any source (a live match, an in-person score sheet) is a
:class:`RatedResult` with its players in :class:`ResultPlayer` rows. Applying it to a
:class:`Ladder` writes one :class:`RatingChange` per player and updates their
:class:`Rating` — exactly once, guarded by the unique ``(result, ladder, user)`` constraint.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.variants import Variant
from ladder.ratings import RatingParams


class Ladder(models.Model):
    """A ranked ladder: a scope (one club, or the whole platform when ``club`` is empty),
    a variant and the rating parameters."""

    club = models.ForeignKey(
        "clubs.Club",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="ladders",
        verbose_name=_("club"),
    )
    variant = models.CharField(_("game"), max_length=16, choices=Variant.choices)
    initial_rating = models.FloatField(_("initial rating"), default=1500.0)
    k_provisional = models.FloatField(_("K while provisional"), default=16.0)
    k_established = models.FloatField(_("K once established"), default=8.0)
    #: Rated matches before a rating is established (shown without "?", the lower K); a
    #: club's admins set it for their ladder (ladder.club_settings).
    provisional_matches = models.PositiveIntegerField(
        _("provisional matches"),
        default=10,
        validators=[MinValueValidator(1), MaxValueValidator(200)],
    )
    draw_multiplier = models.FloatField(_("draw factor"), default=1.0)
    activity_weeks = models.PositiveIntegerField(_("activity window (weeks)"), default=12)
    # The (ended_at, id) of the last result applied, so a late, older result triggers a rebuild.
    last_ended_at = models.DateTimeField(null=True, blank=True, editable=False)
    last_result_id = models.BigIntegerField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("ladder")
        verbose_name_plural = _("ladders")
        ordering = ["club_id", "variant", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["club", "variant"],
                condition=Q(club__isnull=False),
                name="ladder_one_per_club_variant",
            ),
            models.UniqueConstraint(
                fields=["variant"], condition=Q(club__isnull=True), name="ladder_one_platform"
            ),
        ]

    @property
    def params(self) -> RatingParams:
        """The ladder's parameters as the rating maths takes them."""
        return RatingParams(
            initial_rating=self.initial_rating,
            k_provisional=self.k_provisional,
            k_established=self.k_established,
            provisional_matches=self.provisional_matches,
            draw_multiplier=self.draw_multiplier,
        )

    def __str__(self) -> str:
        scope = self.club.name if self.club_id else _("Platform")
        return f"{scope} · {self.get_variant_display()}"


class ResultSource(models.TextChoices):
    """Where a finished result comes from."""

    LIVE = "live", _("Live match")
    SHEET = "sheet", _("Score sheet")
    #: A tournament game's result entered by an organiser (source id: the game's id).
    ADMIN = "admin", _("Entered by an organiser")


class RatedResult(models.Model):
    """A finished rated match from any source: its variant, club, sides and final scores.

    ``(source, source_id)`` is unique, so recording the same match twice is harmless.
    Scores are levels (Bao 2, Guandan) or points (Red Two, Shuangkou); the higher wins,
    equal scores are a draw.
    """

    source = models.CharField(_("source"), max_length=8, choices=ResultSource.choices)
    source_id = models.CharField(_("source id"), max_length=64)
    variant = models.CharField(_("game"), max_length=16, choices=Variant.choices)
    club = models.ForeignKey(
        "clubs.Club",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="rated_results",
        verbose_name=_("club"),
    )
    score0 = models.IntegerField(_("score of side 1"))
    score1 = models.IntegerField(_("score of side 2"))
    ended_at = models.DateTimeField(_("ended at"), db_index=True)
    recorded_at = models.DateTimeField(_("recorded at"), default=timezone.now)
    emails_sent_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        verbose_name = _("rated result")
        verbose_name_plural = _("rated results")
        ordering = ["ended_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["source", "source_id"], name="ratedresult_unique_source"
            )
        ]
        indexes = [models.Index(fields=["variant", "ended_at", "id"], name="ratedresult_order")]

    @property
    def scores(self) -> tuple[int, int]:
        """The two sides' final scores."""
        return (self.score0, self.score1)

    @property
    def winning_side(self) -> int | None:
        """0 or 1, or None for a draw."""
        if self.score0 == self.score1:
            return None
        return 0 if self.score0 > self.score1 else 1

    def __str__(self) -> str:
        return f"{self.source}:{self.source_id} {self.score0}:{self.score1}"


class ResultPlayer(models.Model):
    """A player of a rated result and the side (0 or 1) they ended on."""

    result = models.ForeignKey(
        RatedResult, on_delete=models.CASCADE, related_name="players", verbose_name=_("result")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="rated_results",
        verbose_name=_("player"),
    )
    side = models.PositiveSmallIntegerField(_("side"))
    position = models.PositiveSmallIntegerField(_("position"), default=0)

    class Meta:
        verbose_name = _("result player")
        verbose_name_plural = _("result players")
        ordering = ["result_id", "side", "position"]
        constraints = [
            models.UniqueConstraint(fields=["result", "user"], name="resultplayer_unique_user"),
            models.CheckConstraint(condition=Q(side__in=[0, 1]), name="resultplayer_side_0_1"),
        ]


class Rating(models.Model):
    """A player's current standing in one ladder."""

    ladder = models.ForeignKey(
        Ladder, on_delete=models.CASCADE, related_name="ratings", verbose_name=_("ladder")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="ladder_ratings",
        verbose_name=_("player"),
    )
    rating = models.FloatField(_("rating"))
    matches = models.PositiveIntegerField(_("matches"), default=0)
    wins = models.PositiveIntegerField(_("wins"), default=0)
    draws = models.PositiveIntegerField(_("draws"), default=0)
    last_played = models.DateTimeField(_("last played"), null=True, blank=True)
    provisional = models.BooleanField(_("provisional"), default=True)
    #: The rating after each of the last few matches (oldest first): the trend, with no query.
    recent = models.JSONField(default=list, blank=True)

    class Meta:
        verbose_name = _("rating")
        verbose_name_plural = _("ratings")
        constraints = [
            models.UniqueConstraint(fields=["ladder", "user"], name="rating_unique_player")
        ]
        indexes = [
            # Covers the ranked leaderboard (filter, order, activity check, id) so that
            # PostgreSQL can count and page through it with an index-only scan.
            models.Index(
                fields=["ladder", "provisional", "-rating", "user"],
                include=["last_played", "id"],
                name="rating_leaderboard",
            ),
        ]

    @property
    def win_rate(self) -> float | None:
        """Share of matches won (a draw counts half), or None before the first match."""
        if not self.matches:
            return None
        return (self.wins + 0.5 * self.draws) / self.matches

    @property
    def trend(self) -> float:
        """Rating change over the recent matches kept in ``recent``."""
        if not self.recent:
            return 0.0
        return self.rating - self.recent[0]

    def __str__(self) -> str:
        return f"{self.user} {self.rating:.0f}{'?' if self.provisional else ''}"


class RatingChange(models.Model):
    """How and why a player's rating moved in one ladder after one result."""

    ladder = models.ForeignKey(
        Ladder, on_delete=models.CASCADE, related_name="changes", verbose_name=_("ladder")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="rating_changes",
        verbose_name=_("player"),
    )
    result = models.ForeignKey(
        RatedResult,
        on_delete=models.CASCADE,
        related_name="rating_changes",
        verbose_name=_("result"),
    )
    ended_at = models.DateTimeField(_("ended at"))
    side = models.PositiveSmallIntegerField(_("side"))
    before = models.FloatField(_("before"))
    after = models.FloatField(_("after"))
    expected = models.FloatField(_("expected score"))
    score = models.FloatField(_("score"))
    k = models.FloatField("K")
    multiplier = models.FloatField(_("margin factor"))

    class Meta:
        verbose_name = _("rating change")
        verbose_name_plural = _("rating changes")
        ordering = ["ended_at", "result_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["result", "ladder", "user"], name="ratingchange_once_per_result"
            )
        ]
        indexes = [
            models.Index(fields=["ladder", "user", "ended_at", "result"], name="ratingchange_hist")
        ]

    @property
    def delta(self) -> float:
        """The change of rating, ``after - before``."""
        return self.after - self.before

    def __str__(self) -> str:
        return f"{self.user} {self.before:.0f}→{self.after:.0f}"
