"""The review of a finished match (one row per match, written by the review task)."""

from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class ReviewStatus(models.TextChoices):
    """Running: a worker claimed it at ``claimed_at`` (a claim older than the lease is taken
    over: the worker died); done: ``seats`` holds the review; failed: given up after
    :data:`reviews.services.MAX_ATTEMPTS` claims."""

    RUNNING = "running", _("Running")
    DONE = "done", _("Done")
    FAILED = "failed", _("Failed")


class MatchReview(models.Model):
    """The strong bot's review of each person's decisions in one finished match."""

    match = models.OneToOneField(
        "matches.Match", on_delete=models.CASCADE, related_name="review", verbose_name=_("match")
    )
    status = models.CharField(
        _("status"), max_length=8, choices=ReviewStatus.choices, default=ReviewStatus.RUNNING
    )
    claimed_at = models.DateTimeField(_("claimed at"), default=timezone.now)
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    #: Per reviewed seat: :func:`reviews.analysis.review_seat`'s result.
    seats = models.JSONField(_("seats"), default=list)
    #: The budget the review ran with (process time per decision and per match).
    budget = models.JSONField(_("budget"), default=dict)
    complete = models.BooleanField(_("complete"), default=False)
    cpu_ms = models.FloatField(_("process time (ms)"), default=0.0)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        verbose_name = _("match review")
        verbose_name_plural = _("match reviews")

    def __str__(self) -> str:
        return f"review of match #{self.match_id}"
