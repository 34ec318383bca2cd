"""Reviewing finished matches: which ones, claiming one, running it, keeping the result.

A review is one :class:`~reviews.models.MatchReview` row per match. :func:`review_match` is
idempotent and survives a killed worker: it *claims* the row (status ``running`` with the time
of the claim) in a short transaction, computes outside any transaction, and writes the result
only if its claim still holds. A claim older than :func:`lease_seconds` is taken over (the
worker that held it died, e.g. SIGKILL); after :data:`MAX_ATTEMPTS` claims the review is given
up (``failed``), so a match that kills its worker cannot take the workers down in a loop.
Live play's hook (:func:`queue_review`, registered with :func:`matches.hooks.
register_match_finished`) publishes the task once the finishing transaction commits; beat's
:func:`sweep` is only the safety net: it publishes it again for every recent finished match
whose task was lost (no review a grace period after the end) or whose claim ran out.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import asdict
from datetime import timedelta
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from clubs.models import User
from matches import selectors
from matches.messages import MatchError
from matches.models import Actor, Match, MatchStatus, Table
from matches.services import access
from reviews.analysis import REVIEWED_GAMES, Budget, review_seat, seat_view
from reviews.models import MatchReview, ReviewStatus

log = logging.getLogger(__name__)

#: The review task, published by name (this module never imports the task module).
REVIEW_TASK = "reviews.tasks.review_match_task"
#: Claims of one review before it is given up.
MAX_ATTEMPTS = 3


def visible_match(user: Any, table_id: int) -> tuple[Table, Match]:
    """Table ``table_id`` and its finished match, if ``user`` (anonymous: any non-``User``)
    may see its replay now (:func:`matches.services.access.require_replay_visible`: a
    members-only club's match only to its members, nothing of a group of sibling tables before
    all have finished). The one rule for the review, the share page, the card and the API;
    raises :class:`~matches.messages.MatchError` (``not_allowed`` for no such table)."""
    table = Table.objects.select_related("club").filter(pk=table_id).first()
    if table is None:
        raise MatchError("not_allowed")
    match = selectors.match_of_table(table)
    access.require_replay_visible(user if isinstance(user, User) else None, table, match)
    assert match is not None  # require_replay_visible refuses a table without a finished match
    return table, match


def budget() -> Budget:
    """The process time a review may spend (settings ``REVIEWS_SEARCH_MS``, ``REVIEWS_EVAL_MS``
    per decision, ``REVIEWS_MATCH_SECONDS`` per match; defaults 40 ms, 80 ms, 120 s)."""
    return Budget(
        search_ms=float(getattr(settings, "REVIEWS_SEARCH_MS", 40.0)),
        eval_ms=float(getattr(settings, "REVIEWS_EVAL_MS", 80.0)),
        match_seconds=float(getattr(settings, "REVIEWS_MATCH_SECONDS", 120.0)),
    )


def lease_seconds() -> float:
    """How long a claim holds (``REVIEWS_LEASE_SECONDS``, default 600 s): longer than a
    review's budget, so only a dead worker's claim runs out."""
    return float(getattr(settings, "REVIEWS_LEASE_SECONDS", 600.0))


def person_seats(match: Match) -> list[int]:
    """The seats a person played (a bot's seat is not reviewed)."""
    return [i for i, s in enumerate(match.seats or []) if s.get("user") and not s.get("bot")]


def wants_review(match: Match) -> bool:
    """Whether ``match`` is reviewed: finished, of a game the strong bot plays, at a table of
    a club that keeps reviews on, with a person seated (club-less tables are not reviewed)."""
    table = match.table
    club = table.club if table.club_id is not None else None
    return (
        match.status == MatchStatus.FINISHED
        and match.variant in REVIEWED_GAMES
        and club is not None
        and bool(club.match_reviews)
        and bool(person_seats(match))
    )


def _claim(match_id: int) -> MatchReview | None:
    """Claim the review of ``match_id`` for this worker; None if it is done, given up, held by
    a live claim, or not wanted."""
    now = timezone.now()
    with transaction.atomic():
        match = Match.objects.select_related("table__club").filter(pk=match_id).first()
        if match is None or not wants_review(match):
            return None
        review, created = MatchReview.objects.select_for_update().get_or_create(
            match=match, defaults={"claimed_at": now, "attempts": 1}
        )
        if created:
            return review
        if review.status != ReviewStatus.RUNNING:
            return None
        if review.attempts and review.claimed_at > now - timedelta(seconds=lease_seconds()):
            return None  # another worker holds a live claim
        if review.attempts >= MAX_ATTEMPTS:
            review.status = ReviewStatus.FAILED
            review.save(update_fields=["status"])
            log.warning("review of match %s given up after %s claims", match_id, review.attempts)
            return None
        review.claimed_at = now
        review.attempts += 1
        review.save(update_fields=["claimed_at", "attempts"])
        return review


class _Heartbeat:
    """Renews a claim while its worker computes (at most every third of the lease), so a live
    worker's claim never runs out however slow a loaded machine makes the review; only a dead
    worker's does."""

    def __init__(self, review: MatchReview) -> None:
        self.review = review
        self.last = time.monotonic()

    def __call__(self) -> None:
        if time.monotonic() - self.last < lease_seconds() / 3:
            return
        now = timezone.now()
        renewed = MatchReview.objects.filter(
            pk=self.review.pk, status=ReviewStatus.RUNNING, claimed_at=self.review.claimed_at
        ).update(claimed_at=now)
        if renewed:
            self.review.claimed_at = now
        self.last = time.monotonic()


def compute(
    match: Match, limits: Budget | None = None, tick: Callable[[], None] | None = None
) -> dict[str, Any]:
    """The review of every person's seat of ``match`` (no database write but ``tick``'s):
    ``seats``, ``complete``, ``cpu_ms``, ``budget``. Each seat is reviewed from a
    :class:`~reviews.analysis.SeatView` (its own observations only); the match's budget is
    shared out between the seats; ``tick()`` is called before each decision."""
    limits = limits or budget()
    events = list(match.events.order_by("seq").values_list("action", "actor"))
    actions = [a for a, _ in events]
    persons = [actor == Actor.PLAYER for _, actor in events]
    seats = person_seats(match)
    start = time.process_time()
    out = []
    complete = True
    for k, seat in enumerate(seats):
        spent = time.process_time() - start
        left = max(0.0, limits.match_seconds - spent) / (len(seats) - k)
        view = seat_view(match.variant, match.seed, match.options, actions, seat, persons)
        share = Budget(**{**asdict(limits), "match_seconds": left})
        result = review_seat(view, share, seed=f"review/{match.pk}", tick=tick)
        complete = complete and result["complete"]
        out.append(result)
    return {
        "seats": out,
        "complete": complete,
        "cpu_ms": round((time.process_time() - start) * 1000, 1),
        "budget": asdict(limits),
    }


def review_match(match_id: int, limits: Budget | None = None) -> MatchReview | None:
    """Review match ``match_id`` once (see the module docstring); the review, or None when
    there was nothing to do (done already, claimed by another worker, not wanted)."""
    review = _claim(match_id)
    if review is None:
        return MatchReview.objects.filter(match_id=match_id, status=ReviewStatus.DONE).first()
    match = Match.objects.get(pk=match_id)
    result = compute(match, limits, _Heartbeat(review))
    with transaction.atomic():
        held = (
            MatchReview.objects.select_for_update()
            .filter(pk=review.pk, status=ReviewStatus.RUNNING, claimed_at=review.claimed_at)
            .first()
        )
        if held is None:  # a later claim took it over: its result will be written
            return None
        held.seats = result["seats"]
        held.complete = result["complete"]
        held.cpu_ms = result["cpu_ms"]
        held.budget = result["budget"]
        held.status = ReviewStatus.DONE
        held.finished_at = timezone.now()
        held.save()
    return held


def grace_seconds() -> float:
    """How long after a match's end the sweep leaves its review to the task published at the
    end (``REVIEWS_SWEEP_GRACE_SECONDS``, default 60 s): a review not even claimed by then had
    its task lost."""
    return float(getattr(settings, "REVIEWS_SWEEP_GRACE_SECONDS", 60.0))


def due_matches(limit: int = 50) -> list[int]:
    """Recent finished matches (``REVIEWS_SWEEP_HOURS``, default 48) of clubs that keep
    reviews on that still need a review: none yet :func:`grace_seconds` after the end (the
    task published at the end was lost), or a claim that ran out."""
    now = timezone.now()
    since = now - timedelta(hours=float(getattr(settings, "REVIEWS_SWEEP_HOURS", 48)))
    stale = now - timedelta(seconds=lease_seconds())
    lost = now - timedelta(seconds=grace_seconds())
    rows = (
        Match.objects.filter(
            status=MatchStatus.FINISHED,
            finished_at__gte=since,
            variant__in=REVIEWED_GAMES,
            table__club__match_reviews=True,
        )
        .filter(
            Q(review__isnull=True, finished_at__lte=lost)
            | Q(review__status=ReviewStatus.RUNNING, review__claimed_at__lt=stale)
        )
        .order_by("finished_at")
        .values_list("pk", "seats")[:limit]
    )
    return [pk for pk, seats in rows if any(s.get("user") and not s.get("bot") for s in seats)]


def publish(match_id: int) -> None:
    """Publish the review task of ``match_id`` by name; a broker away is logged (the sweep
    publishes it again)."""
    try:
        current_app.signature(REVIEW_TASK, args=(match_id,)).delay()
    except Exception:
        log.warning("review task of match %s not published", match_id, exc_info=True)


def queue_review(match_id: int) -> None:
    """Live play's hook (:func:`matches.hooks.register_match_finished`, called inside the
    transaction that finishes match ``match_id``): publish the review task once it commits, so
    the review is there a short time after the end. Not with an eager Celery (no worker: the
    task would run its up to ``REVIEWS_MATCH_SECONDS`` of process time inside live play's
    thread, holding the table); the sweep publishes it there."""
    if current_app.conf.task_always_eager:
        return
    transaction.on_commit(lambda: publish(match_id))


def sweep() -> int:
    """Publish the review task of every match :func:`due_matches` finds; how many."""
    due = due_matches()
    for match_id in due:
        publish(match_id)
    return len(due)
