"""A learner's progress through the tutorials: one row per user and lesson.

A guest (``User.is_guest``) is a user like any other, so a guest's progress is kept the same
way and stays with the account when the guest signs up.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class LessonProgress(models.Model):
    """How a user did on one lesson: answers given, and when it was first answered right."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="lesson_progress",
        verbose_name=_("user"),
    )
    course = models.CharField(_("course"), max_length=20)
    lesson = models.CharField(_("lesson"), max_length=40)
    tries = models.PositiveIntegerField(_("answers"), default=0)
    solved_at = models.DateTimeField(_("solved"), null=True, blank=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("lesson progress")
        verbose_name_plural = _("lesson progress")
        constraints = [
            models.UniqueConstraint(
                fields=["user", "course", "lesson"], name="learn_progress_one_per_lesson"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.course}/{self.lesson}"
