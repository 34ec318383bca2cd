"""The only place that changes ladder state: record finished results, apply them, rebuild.

* :func:`record_result` stores a finished rated match from any source (idempotent on
  ``(source, source_id)``) and, once committed, queues the Celery task that applies it.
* :func:`apply_result` applies a result to the club ladder and the platform ladder of its
  variant, **exactly once** per ladder: each ladder is locked (``select_for_update``) for the
  transaction, a result already applied is skipped, and the unique ``(result, ladder, user)``
  constraint on :class:`~ladder.models.RatingChange` refuses a second application even if
  two workers race. Results are applied in the order they ended (``ended_at``, then id); a
  result that arrives after a later one was applied makes the ladder rebuild from scratch.
* :func:`rebuild_ladder` replays every result of a ladder in that order with the same code,
  so it gives the identical ratings; :func:`correct_result` corrects a result's scores and
  rebuilds its ladders that way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.models import Club
from engine import variants as engine_variants
from ladder.models import (
    VARIANT_SIDE_SIZES,
    Ladder,
    RatedResult,
    Rating,
    RatingChange,
    ResultPlayer,
    ResultSource,
    Variant,
)
from ladder.ratings import (
    PlayerState,
    RatingInputError,
    decided_scores,
    established_k,
    rate_match,
)

#: How many past ratings a :class:`Rating` keeps in ``recent`` (the leaderboard trend).
RECENT_KEPT = 10


class LadderError(Exception):
    """A refused ladder operation: ``code`` is machine-readable, the message is translated."""

    def __init__(self, code: str, message: str) -> None:
        """Keep the reason ``code`` beside the translated ``message``."""
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class ApplyOutcome:
    """What :func:`apply_result` did for one ladder: ``applied``, ``skipped`` or ``rebuilt``."""

    ladder_id: int
    action: str


def _validate_sides(variant: str, sides: Sequence[Sequence[int]]) -> list[list[int]]:
    if variant not in Variant.values:
        raise LadderError("bad_variant", _("Unknown game: %(variant)s") % {"variant": variant})
    if (
        isinstance(sides, str | bytes)
        or len(sides) != 2
        or any(isinstance(s, str | bytes) for s in sides)
    ):
        raise LadderError("bad_sides", _("A rated result needs exactly two sides."))
    clean: list[list[int]] = []
    for side in sides:
        ids = []
        for user_id in side:
            if isinstance(user_id, bool) or not isinstance(user_id, int):
                raise LadderError("bad_player", _("Players are given by their user ids."))
            ids.append(user_id)
        clean.append(ids)
    if (len(clean[0]), len(clean[1])) not in VARIANT_SIDE_SIZES[variant]:
        raise LadderError(
            "bad_sides",
            _("This game cannot be rated with sides of %(a)d and %(b)d players.")
            % {"a": len(clean[0]), "b": len(clean[1])},
        )
    everyone = clean[0] + clean[1]
    if len(set(everyone)) != len(everyone):
        raise LadderError("duplicate_player", _("A player appears twice in the result."))
    return clean


def _validate_scores(scores: Sequence[int]) -> tuple[int, int]:
    if isinstance(scores, str | bytes) or len(scores) != 2:
        raise LadderError("bad_score", _("A rated result needs the two sides' scores."))
    for score in scores:
        if isinstance(score, bool) or not isinstance(score, int) or abs(score) > 10**9:
            raise LadderError("bad_score", _("Scores must be whole numbers."))
    return (scores[0], scores[1])


def _decided_scores(scores: Sequence[int], winner: int | None) -> tuple[int, int]:
    """``scores`` validated and decided by ``winner`` (:func:`ladder.ratings.decided_scores`);
    raises :class:`LadderError` for bad scores or a winner with the lower score."""
    try:
        return decided_scores(_validate_scores(scores), winner)
    except RatingInputError:
        raise LadderError("bad_score", _("The winner cannot have the lower score.")) from None


@transaction.atomic
def record_result(
    *,
    source: str,
    source_id: str,
    variant: str,
    sides: Sequence[Sequence[int]],
    scores: Sequence[int],
    ended_at: datetime,
    club_id: int | None = None,
    enqueue: bool = True,
    winner: int | None = None,
) -> RatedResult:
    """Store a finished rated match and queue its rating update; idempotent.

    ``sides`` are two lists of user ids (for Red Two, the partnerships as revealed at the end),
    ``scores`` the two sides' final levels or points. ``winner`` (the side that won, if the
    source knows it) makes a match won with level scores count as won by one level
    (:func:`ladder.ratings.decided_scores`: stored and rated that way, not as a draw); a
    winner with the lower score is refused. Recording the same ``(source,
    source_id)`` again returns the stored result and changes nothing. Raises
    :class:`LadderError` for invalid input, having stored nothing. When ``enqueue`` is true the
    Celery task :func:`ladder.tasks.apply_result_task` is queued after the commit.
    """
    if source not in ResultSource.values:
        raise LadderError("bad_source", _("Unknown result source."))
    if not isinstance(source_id, str) or not 0 < len(source_id) <= 64:
        raise LadderError("bad_source", _("A result needs a source id of 1 to 64 characters."))
    existing = RatedResult.objects.filter(source=source, source_id=source_id).first()
    if existing is not None:
        return existing
    clean_sides = _validate_sides(variant, sides)
    clean_scores = _decided_scores(scores, winner)
    if not isinstance(ended_at, datetime) or timezone.is_naive(ended_at):
        raise LadderError("bad_time", _("The end time must be a time with a zone."))
    if ended_at > timezone.now() + timedelta(minutes=5):
        raise LadderError("bad_time", _("A result cannot end in the future."))
    if club_id is not None and (
        isinstance(club_id, bool)
        or not isinstance(club_id, int)
        or not Club.objects.filter(pk=club_id).exists()
    ):
        raise LadderError("bad_club", _("Unknown club."))
    user_ids = clean_sides[0] + clean_sides[1]
    if get_user_model().objects.filter(pk__in=user_ids).count() != len(user_ids):
        raise LadderError("bad_player", _("Every player must have an account."))
    try:
        with transaction.atomic():
            result = RatedResult.objects.create(
                source=source,
                source_id=source_id,
                variant=variant,
                club_id=club_id,
                score0=clean_scores[0],
                score1=clean_scores[1],
                ended_at=ended_at,
            )
    except IntegrityError:
        # Another process recorded the same match a moment ago.
        return RatedResult.objects.get(source=source, source_id=source_id)
    ResultPlayer.objects.bulk_create(
        ResultPlayer(result=result, user_id=user_id, side=side, position=position)
        for side, ids in enumerate(clean_sides)
        for position, user_id in enumerate(ids)
    )
    if enqueue:
        from ladder.tasks import apply_result_task

        transaction.on_commit(lambda: apply_result_task.delay(result.pk))
    return result


def red_two_sides(
    seat_users: Sequence[int], seat_totals: Sequence[int], revealed_side: Sequence[int]
) -> tuple[list[list[int]], list[int]]:
    """Sides (users) and scores of a Nanping Red Two (南平红二) match for :func:`record_result`,
    by the engine's rule (:func:`engine.variants.red_two_sides`: the revealed side against the
    other seats, each side scored by the sum of its players' match totals).
    Raises :class:`LadderError` (``bad_sides``) for seats that do not make two sides of 2 + 2
    or 1 + 3.
    """
    return _red_two_users(
        seat_users, seat_totals, lambda: engine_variants.red_two_sides(seat_totals, revealed_side)
    )


def red_two_match_sides(
    seat_users: Sequence[int], seat_totals: Sequence[int], deals: Sequence[dict]
) -> tuple[list[list[int]], list[int]] | None:
    """Sides (users) and scores of a finished Nanping Red Two match, from the engine's deal
    summaries, by the engine's rule (:func:`engine.variants.rated_sides` of ``honger``:
    the sides revealed by the last deal played to its end, 2 against 2 or 1 against 3; ``None``
    when no deal finished, and the match is not rated). Raises :class:`LadderError`
    (``bad_sides``) for seats that do not make two sides.
    """
    return _red_two_users(
        seat_users, seat_totals, lambda: engine_variants.rated_sides("honger", seat_totals, deals)
    )


def _red_two_users(
    seat_users: Sequence[int],
    seat_totals: Sequence[int],
    pick: Callable[[], tuple[list[list[int]], list[int]] | None],
) -> tuple[list[list[int]], list[int]] | None:
    """The engine's seat sides from ``pick()`` as users, its refusals as :class:`LadderError`."""
    if len(seat_users) != 4 or len(seat_totals) != 4:
        raise LadderError("bad_sides", _("A Red Two result needs four players and four totals."))
    try:
        picked = pick()
    except ValueError:
        raise LadderError("bad_sides", _("A rated result needs exactly two sides.")) from None
    if picked is None:
        return None
    sides, scores = picked
    return [[seat_users[seat] for seat in side] for side in sides], scores


@transaction.atomic
def correct_result(
    *, source: str, source_id: str, scores: Sequence[int], winner: int | None = None
) -> RatedResult | None:
    """Correct the scores of a recorded result (``winner`` as for :func:`record_result`) and,
    once committed, rebuild each of its ladders, so every rating after it follows the
    correction exactly as if the result had been right from the start, then email its
    players the corrected result and their new rating changes. Returns the result,
    or None if no such result was recorded; an unchanged result queues nothing. Raises
    :class:`LadderError` for invalid scores, having changed nothing."""
    result = (
        RatedResult.objects.select_for_update()
        .filter(source=source, source_id=str(source_id))
        .first()
    )
    if result is None:
        return None
    corrected = _decided_scores(scores, winner)
    if corrected == result.scores:
        return result
    result.score0, result.score1 = corrected
    result.emails_sent_at = None  # the players hear of the correction (and their new ratings)
    result.save(update_fields=["score0", "score1", "emails_sent_at"])
    from ladder.tasks import correct_result_task

    transaction.on_commit(lambda: correct_result_task.delay(result.pk))
    return result


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
        if ladder.last_ended_at is not None and (result.ended_at, result.pk) < (
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
    from ladder.selectors import SCOPES, leaderboard_count_key

    cache.delete_many([leaderboard_count_key(ladder_id, scope) for scope in SCOPES])


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


def can_rebuild(user: object, ladder: Ladder) -> bool:
    """Staff rebuild any ladder; a club's owner and admins rebuild their club's ladders."""
    from clubs.permissions import is_club_admin

    if user is None or not getattr(user, "is_authenticated", False):
        return False
    if getattr(user, "is_staff", False):
        return True
    return ladder.club is not None and is_club_admin(user, ladder.club)


def request_rebuild(user: object, ladder: Ladder) -> None:
    """Queue :func:`ladder.tasks.rebuild_ladder_task` for ``ladder`` after the commit.

    Raises :class:`LadderError` (``forbidden``) unless :func:`can_rebuild` allows it.
    """
    if not can_rebuild(user, ladder):
        raise LadderError(
            "forbidden", _("Only the club's owner and admins may rebuild its ladder.")
        )
    from ladder.tasks import rebuild_ladder_task

    transaction.on_commit(lambda: rebuild_ladder_task.delay(ladder.pk))
