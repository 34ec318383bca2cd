"""Result emails: after a rated result is applied, each player gets their rating changes.

Each email is rendered in the player's own language (``User.language``). A result's emails are
claimed once (``emails_sent_at`` set by a conditional UPDATE) before sending, so a task that
runs twice sends nothing the second time.
"""

from __future__ import annotations

from collections import defaultdict

from django.conf import settings
from django.core.mail import EmailMessage, get_connection
from django.template.loader import render_to_string
from django.utils import timezone, translation

from ladder.models import RatedResult, RatingChange


def send_result_emails(result_id: int, *, corrected: bool = False) -> int:
    """Send each player of result ``result_id`` an email with the result and their rating
    changes (one line per ladder; ``corrected``: saying that the result was corrected).
    Returns the number of emails sent; 0 if the result's emails were already claimed, if it
    has no rating changes yet, or if it does not exist."""
    if not RatingChange.objects.filter(result_id=result_id).exists():
        return 0
    claimed = RatedResult.objects.filter(pk=result_id, emails_sent_at__isnull=True).update(
        emails_sent_at=timezone.now()
    )
    if not claimed:
        return 0
    result = RatedResult.objects.select_related("club").get(pk=result_id)
    changes = (
        RatingChange.objects.filter(result=result)
        .select_related("user", "ladder", "ladder__club")
        .order_by("user_id", "ladder__club_id", "ladder_id")
    )
    by_user: dict[int, list[RatingChange]] = defaultdict(list)
    for change in changes:
        by_user[change.user_id].append(change)
    messages = []
    for user_changes in by_user.values():
        user = user_changes[0].user
        if not user.email:
            continue
        won = result.winning_side
        with translation.override(getattr(user, "language", None) or settings.LANGUAGE_CODE):
            context = {
                "user": user,
                "result": result,
                "corrected": corrected,
                "changes": user_changes,
                "own_side": user_changes[0].side,
                "won": won == user_changes[0].side,
                "draw": won is None,
                "own_score": result.scores[user_changes[0].side],
                "other_score": result.scores[1 - user_changes[0].side],
            }
            subject = render_to_string("ladder/email/result_subject.txt", context)
            body = render_to_string("ladder/email/result_body.txt", context)
        messages.append(
            EmailMessage(" ".join(subject.split()), body, settings.DEFAULT_FROM_EMAIL, [user.email])
        )
    if messages:
        get_connection().send_messages(messages)
    return len(messages)
