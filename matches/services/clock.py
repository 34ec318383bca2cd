"""The clock of live play: the server acts for the seat to move when :attr:`Match.deadline`
passes (:func:`act_on_deadline`): a bot plays its own kind's choice, a seat on auto-play the
search within a bound per move while a person plays (:mod:`matches.services.bots`); a
person whose clock ran out gets the rules' timeout action, and after two in a row is put on
auto-play until they act again. The match time limit (:func:`apply_time_limit`) and the
sweeper (:func:`sweep`) that applies what a lost task missed. Their actions are written by
:func:`matches.services.play.apply_to` (the row is read and the engine state built here
already), which publishes their updates itself after the commit.

Fair clocks across outages: a person's deadline that passed while no ASGI process was alive
(:func:`matches.schedule.web_outage`), or while the worker or beat was down (the task or the
sweep runs late), is not timed out: it is re-armed to at least the action clock after the
outage ended (:func:`_fair_deadline`)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from engine.actions import Action
from engine.bots import RandomBot
from engine.match import Match as EngineMatch
from matches import broadcast, schedule, store
from matches.messages import MatchError
from matches.models import Actor, Match, MatchStatus
from matches.services import bots
from matches.services.play import ATTEMPTS, Moved, apply_to

log = logging.getLogger(__name__)

#: After this many clock expiries in a row a person is put on auto-play.
TIMEOUTS_FOR_AUTOPLAY = 2


def bot_action(
    engine: EngineMatch,
    seat: int,
    kind: str,
    version: int,
    *,
    match_id: int | None = None,
    budget_ms: float | None = None,
) -> Action:
    """The action a bot of ``kind`` takes for ``seat``, from that seat's observation only; a
    search bot thinks for at most ``budget_ms``, by default a quarter of the seat's clock
    (capped at a second), and with ``match_id`` is the one this worker keeps for the match,
    seat and deal (:mod:`matches.services.bots`)."""
    seed = f"{engine.seed}/{seat}/{version}"
    if budget_ms is None:
        budget_ms = engine.action_seconds(seat) * 250
    try:
        return bots.choose(engine, seat, kind, seed, budget_ms, match_id)
    except Exception:  # a bot bug must not stall a table: play a legal action instead
        log.exception("%s bot failed for %s seat %s", kind, engine.variant, seat)
        return RandomBot(seed).rng.choice(engine.legal_actions(seat))


def act_on_deadline(
    match_id: int,
    version: int,
    *,
    force: bool = False,
    fair: bool = False,
    late_since: float | None = None,
) -> str:
    """Act for the seat to move if match ``match_id`` is still at ``version`` and its deadline
    has passed (``force``: without waiting for it). Idempotent: a late or duplicate call finds
    another version (or no deadline) and does nothing. ``fair`` (the tasks and the sweeper):
    a person's deadline that fell into an outage of the web, or of the worker when
    ``late_since`` (epoch seconds) says since when it was down, is re-armed instead
    ("rearmed"). Returns what happened."""
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
        fairer = None if force or not fair else _fair_deadline(match, engine, seat, late_since)
        if fairer is not None:
            store.keep_engine(match.pk, match.version, engine)
            if _rearm(match, fairer):
                return "rearmed"
            continue
        if info.get("bot"):
            action = bot_action(engine, seat, info["bot"], version, match_id=match.pk)
            actor = Actor.BOT
        elif match.autoplay[seat]:
            # 托管: the search within a bound per move while a person plays at the table, else
            # the heuristic (an absent table costs the worker next to nothing)
            kind, budget = bots.autoplay_bot(
                match.seats, match.autoplay, engine.action_seconds(seat)
            )
            action = bot_action(engine, seat, kind, version, match_id=match.pk, budget_ms=budget)
            actor = Actor.AUTOPLAY
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


def _fair_deadline(
    match: Match, engine: EngineMatch, seat: int, late_since: float | None
) -> datetime | None:
    """The later deadline a person's overdue clock gets because it ran out during an outage,
    or None (time them out). At least the seat's action clock from the end of the outage:
    of the web (nobody could act; ``end`` is now while it lasts) when the deadline fell in or
    after it, or of the worker (``late_since``: the task or sweep ran late since then) once
    per version when the deadline fell into that gap."""
    if match.seats[seat].get("bot") or match.autoplay[seat] or match.deadline is None:
        return None
    now = timezone.now()
    clock = timedelta(seconds=engine.action_seconds(seat))
    deadline = match.deadline.timestamp()
    fairer: list[datetime] = []
    try:
        outage = schedule.web_outage(now.timestamp())
        if outage is not None and deadline >= outage[0]:
            fairer.append(datetime.fromtimestamp(outage[1], UTC) + clock)
        if (
            late_since is not None
            and deadline >= late_since
            and schedule.first_rearm(match.pk, match.version)
        ):
            fairer.append(now + clock)
    except Exception:  # Redis away: the clock cannot tell, and acts as it would have
        log.warning("outage state of match %s unknown", match.pk)
    if not fairer or max(fairer) <= now:
        return None
    return max(fairer)


def _rearm(match: Match, deadline: datetime) -> bool:
    """Move the deadline of ``match`` (at its version) to ``deadline``, tell the table and
    queue its task; False if the match moved on meanwhile."""
    version = match.version
    moved = Match.objects.filter(
        pk=match.pk, version=version, deadline_version=version, revision=match.revision
    ).update(deadline=deadline, revision=match.revision + 1)
    if not moved:
        return False
    log.info("match %s v%s: deadline re-armed to %s after an outage", match.pk, version, deadline)
    broadcast.seats_changed(match.pk)
    delay = (deadline - timezone.now()).total_seconds()
    schedule.schedule_deadline(match.pk, version, max(0.0, delay))
    return True


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
    try:
        late_since = schedule.sweep_gap(now.timestamp())  # the worker or beat was down since
    except Exception:  # Redis away
        late_since = None
    done = {"deadlines": 0, "time_limits": 0}
    overdue = Match.objects.filter(
        status=MatchStatus.PLAYING, deadline__lte=now - grace
    ).values_list("pk", "deadline_version")
    for match_id, version in overdue[:500]:
        outcome = (
            act_on_deadline(match_id, version, fair=True, late_since=late_since)
            if version is not None
            else "stale"
        )
        if outcome not in ("stale", "early", "rearmed"):
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
    late_since = None
    if eta is not None:
        schedule.forget_pending(match_id)  # this task is no longer pending
        if timezone.now().timestamp() - eta > float(settings.MATCHES_LATE_SECONDS):
            late_since = eta  # the worker was down (or far behind) since it was due
    current = _deadline_of(match_id)
    if current is None:
        return "over"
    outcome = "stale"  # moved on (most tasks of a busy table): the match is not read whole
    if current[0] == version == current[1] and current[2] is not None:
        outcome = act_on_deadline(match_id, version, fair=True, late_since=late_since)
        if outcome in ("stale", "early"):
            current = _deadline_of(match_id)  # as it is now
    if eta is not None and outcome in ("stale", "early"):  # a queued task (not eager, not a call)
        if current is not None and current[2] is not None and current[0] == current[1]:
            delay = max(0.0, (current[2] - timezone.now()).total_seconds())
            if outcome == "early" or current[0] != version:
                schedule.schedule_deadline(match_id, current[0], delay)
    return outcome
