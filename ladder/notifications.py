"""Result emails: after a rated result is applied, each player gets their rating changes.

The emails go through the outbox (:mod:`outbox.services`): a result's emails are claimed once
(``emails_sent_at`` set by a conditional UPDATE) in the same transaction that writes one
outbox message per player, so either both are committed or neither is; the outbox sends them
after the commit, retrying until the SMTP server accepted each. A task that runs twice, or a
sweep that finds the result again, writes nothing the second time. Each email is rendered in
the player's own language (``User.language``).
"""

from __future__ import annotations

from collections import defaultdict

from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from ladder.models import RatedResult, RatingChange
from outbox import services as outbox
from outbox.models import Kind

#: The templates of a result email (``_subject.txt``, ``_body.txt``).
TEMPLATE = "ladder/email/result"


def result_key_prefix(result_id: int) -> str:
    """The start of the outbox key of every email about result ``result_id``."""
    return f"result:{result_id}:"


def send_result_emails(result_id: int, *, corrected: bool = False) -> int:
    """Queue for each player of result ``result_id`` (with an email address) an email with the
    result and their rating changes (one line per ladder). ``corrected``: the emails say that
    the result was corrected; they also say so whenever the players were emailed about this
    result before. Returns the number of emails queued; 0 if the result's emails were already
    claimed, if it has no rating changes yet, or if it does not exist.

    The outbox key is ``result:<id>:<claim time>:user:<id>``: unique per recipient and
    mailing, so a correction's emails (claimed anew) are distinct from the first ones."""
    if not RatingChange.objects.filter(result_id=result_id).exists():
        return 0
    with transaction.atomic():
        stamp = timezone.now()
        claimed = RatedResult.objects.filter(pk=result_id, emails_sent_at__isnull=True).update(
            emails_sent_at=stamp
        )
        if not claimed:
            return 0
        result = RatedResult.objects.select_related("club").get(pk=result_id)
        corrected = corrected or outbox.has_messages(result_key_prefix(result_id))
        changes = (
            RatingChange.objects.filter(result=result)
            .select_related("user", "ladder", "ladder__club")
            .order_by("user_id", "ladder__club_id", "ladder_id")
        )
        by_user: dict[int, list[RatingChange]] = defaultdict(list)
        for change in changes:
            by_user[change.user_id].append(change)
        queued = 0
        for user_id, user_changes in by_user.items():
            side = user_changes[0].side
            context = {
                "user": user_changes[0].user,
                "result": result,
                "corrected": corrected,
                "changes": user_changes,
                "own_side": side,
                "won": result.winning_side == side,
                "draw": result.winning_side is None,
                "own_score": result.scores[side],
                "other_score": result.scores[1 - side],
            }
            message = outbox.email_user(
                key=f"{result_key_prefix(result_id)}{stamp:%Y%m%dT%H%M%S%f}:user:{user_id}",
                user=user_changes[0].user,
                template=TEMPLATE,
                context=context,
                kind=Kind.RESULTS,
                url=reverse("ladder:player", args=[user_changes[0].ladder_id, user_id]),
            )
            queued += message is not None
    return queued
