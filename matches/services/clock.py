"""The clock of live play: the server acts for the seat to move when :attr:`Match.deadline`
passes (:func:`act_on_deadline`): a bot plays its own kind's choice, a seat on auto-play the strongest bot that fits its clock; a
person whose clock ran out gets the rules' timeout action, and after two in a row is put on
auto-play until they act again. The match time limit (:func:`apply_time_limit`) and the
sweeper (:func:`sweep`) that applies what a lost task missed."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from engine.actions import Action
from engine.bots import RandomBot, bot_kind_for, make_bot
from engine.match import Match as EngineMatch
from matches import schedule, store
from matches.messages import MatchError
from matches.models import Actor, Match, MatchStatus
from matches.services.play import ATTEMPTS, Moved, apply_to

log = logging.getLogger(__name__)

#: After this many clock expiries in a row a person is put on auto-play.
TIMEOUTS_FOR_AUTOPLAY = 2


def bot_action(engine: EngineMatch, seat: int, kind: str, version: int) -> Action:
    """The action a bot of ``kind`` takes for ``seat``, from that seat's observation only; a
    search bot thinks for at most a quarter of the seat's clock."""
    observation = engine.observation(seat)
    seed = f"{engine.seed}/{seat}/{version}"
    bot = make_bot(kind, seed, budget_ms=engine.action_seconds(seat) * 250)
    try:
        return bot.choose(observation, lambda: engine.legal_actions(seat))
    except Exception:  # a bot bug must not stall a table: play a legal action instead
        log.exception("%s bot failed for %s seat %s", kind, engine.variant, seat)
        return RandomBot(seed).rng.choice(engine.legal_actions(seat))


def act_on_deadline(match_id: int, version: int, *, force: bool = False) -> str:
    """Act for the seat to move if match ``match_id`` is still at ``version`` and its deadline
    has passed (``force``: without waiting for it). Idempotent: a late or duplicate call finds
    another version (or no deadline) and does nothing. Returns what happened."""
    for _attempt in range(ATTEMPTS):
        match = store.read(match_id)
        if match is None or match.status != MatchStatus.PLAYING:
            return "over"
        if match.version != version or match.deadline_version != version:
            return "stale"
        if match.deadline is None or (not force and match.deadline > timezone.now()):
            return "early"
        seat = match.to_move
        if seat is None:
            return "stale"
        engine = store.engine_of(match)
        info = match.seats[seat]
        if info.get("bot"):
            action, actor = bot_action(engine, seat, info["bot"], version), Actor.BOT
        elif match.autoplay[seat]:
            kind = bot_kind_for(engine.action_seconds(seat))  # 托管: the strongest that fits
            action, actor = bot_action(engine, seat, kind, version), Actor.AUTOPLAY
        else:
            action = engine.timeout_action(seat) or bot_action(engine, seat, "heuristic", version)
            actor = Actor.CLOCK
            timeouts = list(match.timeouts)
            timeouts[seat] += 1
            match.timeouts = timeouts
            if timeouts[seat] >= TIMEOUTS_FOR_AUTOPLAY:
                autoplay = list(match.autoplay)
                autoplay[seat] = "timeout"
                match.autoplay = autoplay
        apply = {"seat": seat, "actor": actor, "user": None, "expected": version, "engine": engine}
        try:
            apply_to(match, action, **apply)
            return actor
        except Moved:
            continue
        except MatchError as error:
            if error.code == "stale":
                return "stale"
        # refused (the engine is unchanged): play the first legal action instead
        fallback = engine.legal_actions(seat)[:1]
        if not fallback:
            return "refused"
        log.error("match %s: %s action %s refused", match_id, actor, action)
        try:
            apply_to(match, fallback[0], **apply)
            return actor
        except Moved:
            continue
        except MatchError:
            return "stale"
    return "stale"


def apply_time_limit(match_id: int) -> bool:
    """Apply the match time limit (the engine's ``time_up``) once it has passed; True if it
    was applied now. Idempotent: ``ends_at`` is cleared in the same write. A table that moves
    on between the read and the write (players acting fast) is read again, up to
    :data:`ATTEMPTS` times; the sweeper retries after that."""
    for _attempt in range(ATTEMPTS):
        match = store.read(match_id)
        if match is None or match.status != MatchStatus.PLAYING or match.ends_at is None:
            return False
        if match.ends_at > timezone.now():
            return False
        try:
            apply_to(
                match,
                {"time_up": True},
                seat=None,
                actor=Actor.SYSTEM,
                user=None,
                expected=match.version,
                extra={"ends_at": None},
            )
            return True
        except Moved:
            continue
        except MatchError as error:
            if error.code != "stale":
                raise
    return False


def sweep(now: datetime | None = None) -> dict[str, int]:
    """Apply every overdue deadline and time limit (a lost or late task must not stall a
    table). Returns how many of each were applied."""
    now = now or timezone.now()
    grace = timedelta(seconds=0.5)
    done = {"deadlines": 0, "time_limits": 0}
    overdue = Match.objects.filter(
        status=MatchStatus.PLAYING, deadline__lte=now - grace
    ).values_list("pk", "deadline_version")
    for match_id, version in overdue[:500]:
        if version is not None and act_on_deadline(match_id, version) not in ("stale", "early"):
            done["deadlines"] += 1
    timed = Match.objects.filter(status=MatchStatus.PLAYING, ends_at__lte=now).values_list(
        "pk", flat=True
    )
    for match_id in timed[:500]:
        if apply_time_limit(match_id):
            done["time_limits"] += 1
    return done


def _deadline_of(match_id: int) -> tuple[int, int | None, Any] | None:
    """``(version, deadline_version, deadline)`` of a match still playing (None: over)."""
    return (
        Match.objects.filter(pk=match_id, status=MatchStatus.PLAYING)
        .values_list("version", "deadline_version", "deadline")
        .first()
    )


def on_deadline(match_id: int, version: int, eta: float | None = None) -> str:
    """What a deadline task of match ``match_id`` at ``version`` does (``eta``: the task was
    queued for then by :mod:`matches.schedule`): act for the seat to move if the match is
    still at that version (:func:`act_on_deadline`); if it moved on (or the deadline is not
    yet due), queue the task for its current deadline. Returns what happened."""
    if eta is not None:
        schedule.forget_pending(match_id)  # this task is no longer pending
    current = _deadline_of(match_id)
    if current is None:
        return "over"
    outcome = "stale"  # moved on (most tasks of a busy table): the match is not read whole
    if current[0] == version == current[1] and current[2] is not None:
        outcome = act_on_deadline(match_id, version)
        if outcome in ("stale", "early"):
            current = _deadline_of(match_id)  # as it is now
    if eta is not None and outcome in ("stale", "early"):  # a queued task (not eager, not a call)
        if current is not None and current[2] is not None and current[0] == current[1]:
            delay = max(0.0, (current[2] - timezone.now()).total_seconds())
            if outcome == "early" or current[0] != version:
                schedule.schedule_deadline(match_id, current[0], delay)
    return outcome
