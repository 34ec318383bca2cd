"""Applying results to ladders, exactly once, and rebuilding a ladder from its results.

* :func:`apply_result` applies a result to the club ladder and the platform ladder of its
  variant, **exactly once** per ladder: each ladder is locked (``select_for_update``) for the
  transaction, a result already applied is skipped, and the unique ``(result, ladder, user)``
  constraint on :class:`~ladder.models.RatingChange` refuses a second application even if
  two workers race. Results are applied in the order they ended (``ended_at``, then id); a
  result that arrives after a later one was applied makes the ladder rebuild from scratch.
* :func:`rebuild_ladder` replays every result of a ladder in that order with the same code,
  so it gives the identical ratings.
* :func:`unfinished_results` finds the results whose task was lost (a broker outage, a killed
  worker): beat applies them again (:func:`ladder.tasks.sweep_results_task`).

The Celery tasks of :mod:`ladder.tasks` call these; :mod:`ladder.services` records results
and queues those tasks by name.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import Case, Count, F, Q, Value, When
from django.utils import timezone

from games.variants import game, is_game
from ladder.models import Ladder, RatedResult, Rating, RatingChange, ResultPlayer
from ladder.ratings import DEFAULT_PARAMS, PlayerState, rate_match
from ladder.selectors import SCOPES, leaderboard_count_key

log = logging.getLogger(__name__)


def established_k(variant: str) -> float:
    """The established K a new ladder of ``variant`` starts with (the game's
    ``established_k`` in :mod:`games.variants`; the default 8 for an unknown game)."""
    return game(variant).established_k if is_game(variant) else DEFAULT_PARAMS.k_established


#: How many past ratings a :class:`Rating` keeps in ``recent`` (the leaderboard trend).
RECENT_KEPT = 10


@dataclass(frozen=True)
class ApplyOutcome:
    """What :func:`apply_result` did for one ladder: ``applied``, ``skipped`` or ``rebuilt``."""

    ladder_id: int
    action: str


def ladders_for(result: RatedResult) -> list[Ladder]:
    """The ladders a result counts for, created on first use: the platform ladder of its
    variant, then its club's ladder if it has a club."""
    ladders = [_get_or_create_ladder(None, result.variant)]
    if result.club_id is not None:
        ladders.append(_get_or_create_ladder(result.club_id, result.variant))
    return ladders


def _get_or_create_ladder(club_id: int | None, variant: str) -> Ladder:
    try:
        with transaction.atomic():
            return Ladder.objects.get_or_create(
                club_id=club_id,
                variant=variant,
                defaults={"k_established": established_k(variant)},
            )[0]
    except IntegrityError:
        return Ladder.objects.get(club_id=club_id, variant=variant)


def apply_result(result: RatedResult) -> list[ApplyOutcome]:
    """Apply a result to each of its ladders exactly once (see the module docstring).

    Safe to call any number of times, concurrently, and after a crash: each ladder is handled
    in its own transaction, and a ladder that already has the result is left alone.
    """
    return [_apply_to_ladder(ladder.pk, result.pk) for ladder in ladders_for(result)]


def _results_of(ladder: Ladder) -> Iterable[RatedResult]:
    results = RatedResult.objects.filter(variant=ladder.variant)
    if ladder.club_id is not None:
        results = results.filter(club_id=ladder.club_id)
    return results.order_by("ended_at", "id")


def _apply_to_ladder(ladder_id: int, result_id: int) -> ApplyOutcome:
    with transaction.atomic():
        ladder = Ladder.objects.select_for_update().get(pk=ladder_id)
        if RatingChange.objects.filter(ladder=ladder, result_id=result_id).exists():
            return ApplyOutcome(ladder_id, "skipped")
        result = RatedResult.objects.get(pk=result_id)
        # Older than the last applied result, or that result itself without its changes
        # (corrected: :func:`ladder.services.correct_result` deleted them): replay them all.
        if ladder.last_ended_at is not None and (result.ended_at, result.pk) <= (
            ladder.last_ended_at,
            ladder.last_result_id,
        ):
            _rebuild_locked(ladder)
            transaction.on_commit(lambda: _forget_counts(ladder_id))
            return ApplyOutcome(ladder_id, "rebuilt")
        players = list(result.players.all())
        user_ids = [p.user_id for p in players]
        stored = {r.user_id: r for r in Rating.objects.filter(ladder=ladder, user_id__in=user_ids)}
        rows = _rate(ladder, result, players, stored)
        RatingChange.objects.bulk_create(rows)
        existing = [r for r in stored.values() if r.pk is not None]
        Rating.objects.bulk_create([r for r in stored.values() if r.pk is None])
        Rating.objects.bulk_update(existing, _RATING_FIELDS)
        ladder.save(update_fields=["last_ended_at", "last_result_id"])
        transaction.on_commit(lambda: _forget_counts(ladder_id))
        return ApplyOutcome(ladder_id, "applied")


def _forget_counts(ladder_id: int) -> None:
    """Drop the ladder's cached leaderboard counts, after the commit. Never raises: the cache
    only holds what can be recomputed (a stale count expires on its own), and a cache error
    must not stop the result reaching its other ladders, nor its emails."""
    try:
        cache.delete_many([leaderboard_count_key(ladder_id, scope) for scope in SCOPES])
    except Exception:
        log.warning("ladder %s: its cached counts could not be dropped", ladder_id, exc_info=True)


_RATING_FIELDS = ["rating", "matches", "wins", "draws", "last_played", "provisional", "recent"]


def _rate(
    ladder: Ladder,
    result: RatedResult,
    players: Sequence[ResultPlayer],
    stored: dict[int, Rating],
) -> list[RatingChange]:
    """Rate one result: update the players' :class:`Rating` objects in ``stored`` (adding new
    ones, unsaved, at the initial rating) and the ladder's last-applied key in memory, and
    return the unsaved :class:`RatingChange` rows. Both the incremental path and the rebuild
    go through here, so they compute the same numbers in the same order."""
    params = ladder.params
    for player in players:
        if player.user_id not in stored:
            stored[player.user_id] = Rating(
                ladder=ladder, user_id=player.user_id, rating=params.initial_rating, recent=[]
            )
    sides: list[list[PlayerState]] = [[], []]
    for player in players:
        rating = stored[player.user_id]
        sides[player.side].append(PlayerState(player.user_id, rating.rating, rating.matches))
    rows = []
    for change in rate_match(sides, result.scores, params):
        rating = stored[change.player]
        rating.rating = change.after
        rating.matches += 1
        if change.score == 1.0:
            rating.wins += 1
        elif change.score == 0.5:
            rating.draws += 1
        rating.last_played = result.ended_at
        rating.provisional = params.is_provisional(rating.matches)
        rating.recent = [*rating.recent, change.before][-RECENT_KEPT:]
        rows.append(
            RatingChange(
                ladder=ladder,
                user_id=change.player,
                result=result,
                ended_at=result.ended_at,
                side=change.side,
                before=change.before,
                after=change.after,
                expected=change.expected,
                score=change.score,
                k=change.k,
                multiplier=change.multiplier,
            )
        )
    ladder.last_ended_at = result.ended_at
    ladder.last_result_id = result.pk
    return rows


def rebuild_ladder(ladder: Ladder) -> int:
    """Recompute a ladder from all its results in the order they ended; return how many.

    Deletes the ladder's ratings and changes and replays every result through the same code
    that applies them one by one, so the ratings are identical to the incremental ones.
    """
    with transaction.atomic():
        locked = Ladder.objects.select_for_update().get(pk=ladder.pk)
        count = _rebuild_locked(locked)
        transaction.on_commit(lambda: _forget_counts(ladder.pk))
    ladder.refresh_from_db()
    return count


def _rebuild_locked(ladder: Ladder) -> int:
    RatingChange.objects.filter(ladder=ladder).delete()
    Rating.objects.filter(ladder=ladder).delete()
    ladder.last_ended_at = None
    ladder.last_result_id = None
    stored: dict[int, Rating] = {}
    pending: list[RatingChange] = []
    count = 0
    results = _results_of(ladder).prefetch_related("players")
    for result in results.iterator(chunk_size=1000):
        pending.extend(_rate(ladder, result, list(result.players.all()), stored))
        count += 1
        if len(pending) >= 4000:
            RatingChange.objects.bulk_create(pending)
            pending = []
    RatingChange.objects.bulk_create(pending)
    Rating.objects.bulk_create(stored.values(), batch_size=2000)
    ladder.save(update_fields=["last_ended_at", "last_result_id"])
    return count


def unfinished_results(now: datetime | None = None) -> list[int]:
    """The ids of results whose work is not done: not applied to every ladder, or their
    emails not queued (a result's emails are claimed only after it is on all its ladders, and a
    correction deletes its rating changes and clears the claim, so an unclaimed result is one
    still to finish). Only results recorded ``LADDER_SWEEP_GRACE_SECONDS`` (60) ago or more,
    which their own task had time to finish; a result recorded more than
    ``LADDER_SWEEP_MAX_AGE_SECONDS`` (2 days) ago only if it is missing from a ladder (its
    emails would be stale news). Oldest first, at most ``LADDER_SWEEP_BATCH`` (200)."""
    now = now or timezone.now()
    grace = timedelta(seconds=float(getattr(settings, "LADDER_SWEEP_GRACE_SECONDS", 60)))
    max_age = timedelta(seconds=float(getattr(settings, "LADDER_SWEEP_MAX_AGE_SECONDS", 172800)))
    return list(
        RatedResult.objects.filter(emails_sent_at__isnull=True, recorded_at__lte=now - grace)
        .annotate(
            on=Count("rating_changes__ladder", distinct=True),
            needs=Case(When(club__isnull=True, then=Value(1)), default=Value(2)),
        )
        .filter(Q(recorded_at__gte=now - max_age) | Q(on__lt=F("needs")))
        .order_by("ended_at", "id")
        .values_list("pk", flat=True)[: int(getattr(settings, "LADDER_SWEEP_BATCH", 200))]
    )
