"""The only code that changes learning progress, and the answers it records.

An answer is judged by the engine (:func:`learn.lessons.judge`); the outcome is recorded for a
signed-in user (a guest included) and, for a visitor without an account, kept in the session
only, so that the lesson list still shows what was solved in this visit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from learn.lessons import BadAnswer, Lesson, Outcome, judge
from learn.models import LessonProgress

__all__ = ["BadAnswer", "answer_lesson", "judge_again", "solved_lessons"]

#: Session key of the lessons a visitor without an account solved.
SESSION_KEY = "learn.solved"


def answer_lesson(user: Any, session: Any, lesson: Lesson, data: Mapping[str, Any]) -> Outcome:
    """Judge ``data`` as an answer to ``lesson`` and record it: a user's answers and first
    right answer in :class:`LessonProgress`, a visitor's solved lessons in ``session``.
    Raises :class:`BadAnswer` (nothing recorded) when ``data`` is no answer."""
    outcome = judge(lesson, data)
    if user is not None and user.is_authenticated:
        with transaction.atomic():
            row, _ = LessonProgress.objects.select_for_update().get_or_create(
                user=user, course=lesson.course, lesson=lesson.slug
            )
            fields = {"tries": F("tries") + 1}
            if outcome.right and row.solved_at is None:
                fields["solved_at"] = timezone.now()
            LessonProgress.objects.filter(pk=row.pk).update(**fields)
    elif outcome.right and session is not None:
        solved = set(session.get(SESSION_KEY, []))
        solved.add(f"{lesson.course}/{lesson.slug}")
        session[SESSION_KEY] = sorted(solved)
    return outcome


def solved_lessons(user: Any, session: Any, course: str) -> set[str]:
    """Slugs of the lessons of ``course`` the user (or this visitor's session) has solved."""
    if user is not None and user.is_authenticated:
        return set(
            LessonProgress.objects.filter(
                user=user, course=course, solved_at__isnull=False
            ).values_list("lesson", flat=True)
        )
    prefix = f"{course}/"
    stored = session.get(SESSION_KEY, []) if session is not None else []
    return {key[len(prefix) :] for key in stored if key.startswith(prefix)}


def judge_again(lesson: Lesson, data: Mapping[str, Any]) -> Outcome:
    """Judge an answer already recorded, to show its explanation in the active language
    (nothing is recorded again)."""
    return judge(lesson, data)
