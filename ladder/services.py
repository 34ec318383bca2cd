"""The only place that changes ladder state from outside: record finished results, correct
them, ask for a rebuild.

* :func:`record_result` stores a finished rated match from any source (idempotent on
  ``(source, source_id)``) and, once committed, queues the Celery task that applies it
  (:func:`ladder.apply.apply_result`: exactly once per ladder, in the order results ended).
* :func:`correct_result` corrects a result's scores and, once committed, queues the rebuild
  of its ladders (:func:`ladder.apply.rebuild_ladder`), so every rating after it follows.
* :func:`request_rebuild` queues a ladder's rebuild for its organisers or staff.

The tasks are queued by name after the commit, so this module imports no task module (and
:mod:`ladder.tasks` none of this one). Every refusal raises
:class:`~ladder.errors.LadderError` having stored nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from celery import current_app
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.models import Club, User
from clubs.permissions import is_club_admin
from clubs.services import require_club_visible
from engine import variants as engine_variants
from games.variants import game, is_game
from ladder.errors import LadderError
from ladder.models import Ladder, RatedResult, RatingChange, ResultPlayer, ResultSource
from ladder.ratings import RatingInputError, decided_scores

#: The Celery tasks this module queues, by name (see :mod:`ladder.tasks`).
APPLY_RESULT_TASK = "ladder.tasks.apply_result_task"
CORRECT_RESULT_TASK = "ladder.tasks.correct_result_task"
REBUILD_LADDER_TASK = "ladder.tasks.rebuild_ladder_task"

log = logging.getLogger(__name__)


def _publish_after_commit(task: str, *args: object) -> None:
    """Queue Celery task ``task`` with ``args`` once the transaction commits. By name, so this
    module needs no import of the task module; an eager Celery (tests) still runs the
    registered task at once. A broker that cannot be reached never fails the caller (what it
    wrote is committed): the warning is logged and beat's sweep
    (:func:`ladder.apply.unfinished_results`) applies the result later."""

    def publish() -> None:
        try:
            current_app.signature(task, args=args).delay()
        except Exception:
            log.warning("task %s%r not published; the sweep will run it", task, args, exc_info=True)

    transaction.on_commit(publish)


def _validate_sides(variant: str, sides: Sequence[Sequence[int]]) -> list[list[int]]:
    if not is_game(variant):
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
    if (len(clean[0]), len(clean[1])) not in game(variant).side_sizes:
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
    Celery task :func:`ladder.tasks.apply_result_task` is queued after the commit
    (:data:`APPLY_RESULT_TASK`).
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
        _publish_after_commit(APPLY_RESULT_TASK, result.pk)
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
    if len(seat_users) != 4 or len(seat_totals) != 4:
        raise LadderError("bad_sides", _("A Red Two result needs four players and four totals."))
    return _as_users(seat_users, lambda: engine_variants.red_two_sides(seat_totals, revealed_side))


def match_sides(
    variant: str, seat_users: Sequence[int], score: Sequence[int], deals: Sequence[dict]
) -> tuple[list[list[int]], list[int]] | None:
    """Sides (users) and scores of a finished match of ``variant`` for :func:`record_result`,
    by the engine's rule (:func:`engine.variants.rated_sides`: the fixed teams or players with
    their levels or points; in Red Two the sides revealed by the last deal played to its end,
    2 against 2 or 1 against 3, ``None`` when no deal finished and the match is not rated).
    Raises :class:`LadderError` (``bad_sides``) when the seats do not make two sides.
    """
    if not is_game(variant) or len(seat_users) != game(variant).seats:
        raise LadderError("bad_sides", _("A rated result needs exactly two sides."))
    return _as_users(seat_users, lambda: engine_variants.rated_sides(variant, score, deals))


def _as_users(
    seat_users: Sequence[int], pick: Callable[[], tuple[list[list[int]], list[int]] | None]
) -> tuple[list[list[int]], list[int]] | None:
    """The engine's seat sides from ``pick()`` as users, its refusals as :class:`LadderError`."""
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
    once committed, rebuild each of its ladders (its old rating changes are deleted with the
    correction, so a lost task is redone by beat's sweep), so every rating after it follows the
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
    # The old rating changes go with the old scores: the result is then "not applied" to its
    # ladders, so applying it again (the task, or beat's sweep if the task is lost) rebuilds them.
    RatingChange.objects.filter(result=result).delete()
    _publish_after_commit(CORRECT_RESULT_TASK, result.pk)
    return result


def require_ladder_visible(user: User | None, ladder: Ladder) -> None:
    """Raise :class:`clubs.services.MembersOnly` (404) when ``ladder`` is a members-only
    club's and ``user`` is not its member; platform ladders are public."""
    if ladder.club_id is not None:
        require_club_visible(user, ladder.club)


def can_rebuild(user: object, ladder: Ladder) -> bool:
    """Staff rebuild any ladder; a club's owner and admins rebuild their club's ladders."""
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
    _publish_after_commit(REBUILD_LADDER_TASK, ladder.pk)
