"""Play: every action of a match.

Every action goes through :func:`_prepare` and :func:`_write_prepared`: the actions of people
through :func:`submit_actions` (a server's batch) or :func:`submit_action` (one, e.g. a
referee's sanction, a bot of the worker), the clock's and the time limit's through
:func:`apply_to` (:mod:`matches.services.clock`, which has read the row and built the engine
state already). Each reads the match (no lock), lets the engine apply the action to the
state at the stored version (a :class:`~engine.actions.Refusal` changes nothing), then, in one
write, bumps the version with ``UPDATE ... WHERE version = v AND revision = r`` (optimistic
concurrency: a second writer for the same version updates no row and is refused ``stale``)
and appends the event ``(match, seq = v + 1)``: one statement on PostgreSQL, one short
transaction on SQLite (:func:`matches.store.write_many`). The engine's work is done before
it, so SQLite's single write lock is held only for the two statements. A server applies the
actions that queued while it wrote in one batch (:func:`submit_actions`): the same steps for
each, with one write for all of them. Only after the commit (``transaction.on_commit``) are
the updates built, each from one seat's observation, and the next deadline task queued
(:mod:`matches.schedule`); :func:`submit_actions` returns the updates for its caller to
publish (the server's loop sends them before it answers the actions), the others publish
them at once (:func:`matches.broadcast.publish`).

Rows are read and written by :mod:`matches.store`; tables are opened and seated in
:mod:`matches.services.tables`, the clock is :mod:`matches.services.clock`, connections and
auto-play :mod:`matches.services.presence`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from clubs.models import User
from engine.actions import SANCTIONS, Action, Refusal, parse_action
from engine.match import Match as EngineMatch
from games.variants import game
from ladder import services as ladder_services
from ladder.errors import LadderError
from matches import broadcast, hooks, schedule, store
from matches.messages import MatchError
from matches.models import Actor, Match, MatchEvent, MatchStatus, Table, TableStatus
from matches.services.access import may_referee

log = logging.getLogger(__name__)

#: Action kinds a person may send for their own seat.
PLAYER_KINDS = frozenset(("play", "pass", "immune", "tribute", "return", "choose", "ask"))
#: Longest reason a referee gives for a sanction.
REASON_LENGTH = 200
#: Hook for tests: called with ``(match_id, version, engine_match)`` after every commit.
after_commit_hooks: list[Any] = []
#: Attempts of an action whose match row changed under it at the same version (a seat put on
#: or taken off auto-play), or of a system action that lost the race to a player.
ATTEMPTS = 5


class Moved(Exception):
    """The match row changed between the read and the write, at the same version: read again."""


def pause_seconds() -> float:
    """How long the next deal's clock waits for the last deal's summary to be dismissed
    (setting ``MATCHES_SUMMARY_PAUSE_SECONDS``, default 10)."""
    return float(getattr(settings, "MATCHES_SUMMARY_PAUSE_SECONDS", 10))


def plan_deadline(match: Match, engine: EngineMatch, table: Table, now: datetime) -> None:
    """Set ``to_move``, ``deadline`` and ``deadline_version`` of ``match`` (not saved) for the
    state ``engine``: when the server acts for the seat to move. While the pause between deals
    is on, every clock starts when it ends."""
    seat = engine.to_move()
    match.to_move = seat
    match.deadline = None
    match.deadline_version = None
    if engine.over or seat is None:
        return
    start = match.pause_ends(now) or now
    info = match.seats[seat]
    if info.get("bot") or match.autoplay[seat]:
        delay = float(getattr(settings, "MATCHES_BOT_DELAY_SECONDS", 0.8))
        match.deadline = start + timedelta(seconds=delay)
    elif table.clocks:
        match.deadline = start + timedelta(seconds=engine.action_seconds(seat))
    else:
        return
    match.deadline_version = match.version


def _new_pause(match: Match, engine: EngineMatch, now: datetime) -> dict[str, Any] | None:
    """The pause after a deal just finished (``engine`` is at the next deal): every seated
    person not on auto-play is to dismiss the summary; bots and auto-play count as done.
    None if nobody is to."""
    pending = [
        seat
        for seat, info in enumerate(match.seats)
        if info.get("user") and not info.get("bot") and not match.autoplay[seat]
    ]
    if not pending or pause_seconds() <= 0:
        return None
    until = now + timedelta(seconds=pause_seconds())
    return {"deal": engine.deal_no - 1, "pending": pending, "until": until.timestamp()}


def dismiss_summary(match_id: int, seat: int, deal: Any) -> bool:
    """``seat`` has dismissed the summary of deal number ``deal`` (0-based). Once every seated
    person has, the pause between deals ends at once: the deadline of the next deal's first
    action moves earlier by what was left of the pause, and everyone is told. A dismissal of
    another deal, a second one, or one after the pause changes nothing. Returns True if
    anything changed."""
    if isinstance(deal, bool) or not isinstance(deal, int):
        raise MatchError("bad_message")
    with store.writing():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None or match.status != MatchStatus.PLAYING:
            return False
        now = timezone.now()
        until = match.pause_ends(now)
        pause = match.pause
        if until is None or pause.get("deal") != deal or seat not in pause["pending"]:
            return False
        pending = [s for s in pause["pending"] if s != seat]
        fields: dict[str, Any] = {"revision": match.revision + 1}
        fields["pause"] = {**pause, "pending": pending} if pending else None
        if not pending and match.deadline is not None and match.deadline_version == match.version:
            fields["deadline"] = match.deadline - (until - now)
        Match.objects.filter(pk=match.pk).update(**fields)
        version, deadline = match.version, fields.get("deadline")

        def notify() -> None:
            broadcast.seats_changed(match_id)
            if deadline is not None:
                delay = max(0.0, (deadline - timezone.now()).total_seconds())
                schedule.schedule_deadline(match_id, version, delay)

        transaction.on_commit(notify)
    return True


def referee_sanctions(variant: str) -> list[str]:
    """The sanctions a referee may apply in ``variant`` (the engine's, in its order): yellow
    and red cards lower levels, so they exist only in games won by levels."""
    cards = ("yellow", "red")
    return [s for s in SANCTIONS if game(variant).levels or s not in cards]


def referee_sanction(
    user: User | None, match_id: int, sanction: Any, target: Any, reason: Any
) -> Accepted:
    """Apply a referee's ``sanction`` against seat ``target`` of match ``match_id`` for
    ``reason`` (1 to :data:`REASON_LENGTH` characters), as an engine action of actor
    ``referee`` through :func:`submit_action`: its event (with the reason) goes to every seat
    and into the log and the replay. Only someone who may referee the table now
    (:func:`matches.services.access.may_referee`: a current role, asked again on every
    sanction, and no stake in the table: not seated at it or at a sibling, no partner or
    teammate playing it) may, else ``not_referee``; a finished match refuses. Raises
    :class:`MatchError` having changed nothing."""
    match = Match.objects.select_related("table__club").filter(pk=match_id).first()
    if match is None:
        raise MatchError("not_started")
    if not may_referee(user, match.table):
        raise MatchError("not_referee")
    if match.status != MatchStatus.PLAYING:
        raise MatchError("match_over")
    if sanction not in referee_sanctions(match.variant):
        raise MatchError("bad_sanction")
    if (
        isinstance(target, bool)
        or not isinstance(target, int)
        or not 0 <= target < len(match.seats)
    ):
        raise MatchError("no_such_seat")
    reason = reason.strip() if isinstance(reason, str) else ""
    if not 0 < len(reason) <= REASON_LENGTH:
        raise MatchError("reason_required")
    action = {"sanction": sanction, "target": target, "reason": reason}
    return submit_action(match_id, action, seat=None, actor=Actor.REFEREE, user=user)


@dataclass
class Accepted:
    """An accepted action: the new version and the stored event."""

    version: int
    event: MatchEvent


@dataclass
class ActionRequest:
    """One action to apply (:func:`submit_actions`), with what :func:`submit_action` takes."""

    match_id: int
    action: Any
    seat: int | None
    actor: str = Actor.PLAYER
    user: User | None = None
    expected_version: int | None = None


@dataclass
class Submitted:
    """What :func:`submit_actions` did: each request's outcome, in the requests' order, and
    the group messages of the accepted actions, for the caller to publish (in that order)."""

    outcomes: list[Accepted | Exception]
    frames: list[broadcast.Frame]


class _Outgoing:
    """The frames of one :func:`submit_actions` call, collected after each commit while the
    call runs; a commit after it returned (the caller's own transaction) publishes its frames
    at once, since the call's list has been handed over already."""

    def __init__(self) -> None:
        self.frames: list[broadcast.Frame] = []
        self.open = True

    def add(self, frames: list[broadcast.Frame], key: object) -> None:
        if self.open:
            self.frames.extend(frames)
        else:
            broadcast.publish(frames, key)


def submit_action(
    match_id: int,
    action: Any,
    *,
    seat: int | None,
    actor: str = Actor.PLAYER,
    user: User | None = None,
    expected_version: int | None = None,
) -> Accepted:
    """Apply one action to match ``match_id`` (see the module docstring); raise
    :class:`MatchError` with the engine's reason code (or ``stale``, ``not_your_seat``,
    ``match_over``) having changed nothing.

    ``seat`` is the seat the caller acts for (None: a system action); a person's action that
    names another seat is refused. ``expected_version`` is the version the caller saw.
    """
    request = ActionRequest(match_id, action, seat, actor, user, expected_version)
    submitted = submit_actions([request])
    if submitted.frames:
        broadcast.publish(submitted.frames, key=("match", match_id))
    outcome = submitted.outcomes[0]
    if isinstance(outcome, Exception):
        raise outcome
    return outcome


def submit_actions(requests: list[ActionRequest]) -> Submitted:
    """Apply each request as :func:`submit_action` would, in order, and return for each its
    :class:`Accepted` or the :class:`MatchError` (or database error) that refused it, having
    changed nothing for a refused one, with the frames of the accepted actions, which the
    caller publishes (nothing is sent here, unless the caller's own transaction commits
    after the return). The accepted actions of different matches are written
    in one transaction (a round; one action per match per round): what a server does with the
    actions that queued while it wrote the last ones, so they share one write lock and one
    commit. If a shared write fails, each of its actions is tried again alone, so one bad
    write refuses only its own action."""
    outcomes: list[Accepted | Exception | None] = [None] * len(requests)
    outgoing = _Outgoing()
    queue: list[tuple[int, Action]] = []
    for index, request in enumerate(requests):
        try:
            queue.append((index, _checked_action(request)))
        except MatchError as error:
            outcomes[index] = error
    tries = [0] * len(requests)
    alone: list[tuple[int, Action]] = []
    while queue or alone:
        if alone:
            batch = [alone.pop(0)]
        else:
            batch, queue = _one_per_match(requests, queue)
        try:
            again = _round(requests, batch, outcomes, outgoing)
        except Exception as error:  # a database error: the round was undone
            if len(batch) > 1:
                alone.extend(batch)
            else:
                outcomes[batch[0][0]] = error
            continue
        for item in again:
            tries[item[0]] += 1
            if tries[item[0]] >= ATTEMPTS:
                outcomes[item[0]] = MatchError("stale")
        again = [item for item in again if tries[item[0]] < ATTEMPTS]
        queue = again + queue
    outgoing.open = False
    # every request has its outcome now
    return Submitted(outcomes, outgoing.frames)  # type: ignore[arg-type]


def _checked_action(request: ActionRequest) -> Any:
    """The action of ``request``, parsed if a person sent it; :class:`MatchError` if a person
    may not send it (another seat's action, a system action, no seat)."""
    action, seat = request.action, request.seat
    if request.actor != Actor.PLAYER:
        return action
    if seat is None:
        raise MatchError("spectator")
    if isinstance(action, dict):
        named = action.get("seat", seat)
        if isinstance(named, bool) or not isinstance(named, int):
            raise MatchError("invalid_action")
        if named != seat:
            raise MatchError("not_your_seat")
        action = {**action, "seat": seat}
    try:
        parsed = parse_action(action)
    except Refusal as refusal:
        raise MatchError(refusal.code, refusal.message) from None
    if parsed.kind not in PLAYER_KINDS:
        raise MatchError("invalid_action")
    if parsed.seat != seat:
        raise MatchError("not_your_seat")
    return parsed


def _one_per_match(
    requests: list[ActionRequest], queue: list[tuple[int, Any]]
) -> tuple[list[tuple[int, Any]], list[tuple[int, Any]]]:
    """The first queued action of each match, and the rest (in their order)."""
    batch, rest, seen = [], [], set()
    for item in queue:
        match_id = requests[item[0]].match_id
        (rest if match_id in seen else batch).append(item)
        seen.add(match_id)
    return batch, rest


def _round(
    requests: list[ActionRequest],
    batch: list[tuple[int, Any]],
    outcomes: list[Accepted | Exception | None],
    outgoing: _Outgoing,
) -> list[tuple[int, Any]]:
    """Apply ``batch`` (one action per match) and write what the engine accepts in one
    transaction; set each one's outcome, or return it to be read and tried again (its match
    row changed at the same version)."""
    rows = store.read_many([requests[index].match_id for index, _ in batch])
    prepared: list[tuple[int, Any, _Prepared]] = []
    for index, action in batch:
        request = requests[index]
        match = rows.get(request.match_id)
        if match is None:
            outcomes[index] = MatchError("not_started")
            continue
        try:
            change = _prepare(
                match,
                action,
                seat=request.seat,
                actor=request.actor,
                user=request.user,
                expected=request.expected_version,
            )
        except MatchError as error:
            outcomes[index] = error
            continue
        prepared.append((index, action, change))
    if not prepared:
        return []
    again = []
    written = _write_prepared([change for _, _, change in prepared], outgoing)
    for (index, action, change), result in zip(prepared, written, strict=True):
        if result == "moved":
            again.append((index, action))
        elif result == "stale":
            outcomes[index] = MatchError("stale")
        else:
            outcomes[index] = Accepted(change.match.version, change.event)
    return again


@dataclass
class _Prepared:
    """An action the engine accepted, not yet written: the match row's new ``fields`` at
    ``version`` + 1, the ``event``, the new engine state and whether the deal's level changed."""

    match: Match
    version: int
    fields: dict[str, Any]
    event: MatchEvent
    engine: EngineMatch
    new_level: bool


def apply_to(match: Match, action: Any, **how: Any) -> Accepted:
    """Apply ``action`` to ``match`` as read (``how``: the keywords of :func:`_prepare`) and
    write it in one short transaction; raise :class:`MatchError` (nothing changed) or
    :class:`Moved` (the row changed at the same version: read it again and retry)."""
    change = _prepare(match, action, **how)
    result = _write_prepared([change])[0]
    if result == "moved":
        raise Moved
    if result == "stale":
        raise MatchError("stale")
    return Accepted(change.match.version, change.event)


def _prepare(
    match: Match,
    action: Any,
    *,
    seat: int | None,
    actor: str,
    user: User | None,
    expected: int | None,
    extra: dict[str, Any] | None = None,
    engine: EngineMatch | None = None,
) -> _Prepared:
    """Let the engine apply ``action`` to ``match`` as read (``engine``: its state, if the
    caller has it) and work out the row's new fields and the event (nothing written yet);
    :class:`MatchError` if it is refused."""
    if match.status != MatchStatus.PLAYING:
        raise MatchError("match_over")
    version = match.version
    if expected is not None and expected != version:
        raise MatchError("stale")
    if engine is None:
        engine = store.engine_of(match)
    level = _level(engine)
    deals = len(engine.deals)
    try:
        act = engine.apply(action)
    except Refusal as refusal:
        store.keep_engine(match.pk, version, engine)  # unchanged: a refusal changes nothing
        raise MatchError(refusal.code, refusal.message) from None
    now = timezone.now()
    autoplay = list(match.autoplay)
    timeouts = list(match.timeouts)
    if actor == Actor.PLAYER and act.seat is not None:
        autoplay[act.seat] = ""
        timeouts[act.seat] = 0
    match.autoplay = autoplay
    match.timeouts = timeouts
    pause = match.pause
    if len(engine.deals) > deals and not engine.over:
        match.pause = _new_pause(match, engine, now)
    elif match.pause_ends(now) is None:
        match.pause = None  # over (or none)
    elif actor == Actor.PLAYER and act.seat in pause["pending"]:
        # acting in the new deal is as good as dismissing the summary
        pending = [s for s in pause["pending"] if s != act.seat]
        match.pause = {**pause, "pending": pending} if pending else None
    if extra:
        for key, value in extra.items():
            setattr(match, key, value)
    match.version = version + 1
    match.revision = match.revision + 1
    match.snapshot = store.snapshot_of(engine)
    plan_deadline(match, engine, match.table, now)
    fields = {
        "version": match.version,
        "revision": match.revision,
        "snapshot": match.snapshot,
        "to_move": match.to_move,
        "deadline": match.deadline,
        "deadline_version": match.deadline_version,
        "autoplay": match.autoplay,
        "timeouts": match.timeouts,
    }
    if match.pause != pause:
        fields["pause"] = match.pause
    if extra:
        fields.update(extra)
    if engine.over:
        match.status = MatchStatus.FINISHED
        match.result = engine.result()
        match.finished_at = now
        fields.update(status=match.status, result=match.result, finished_at=now, ends_at=None)
    stored = act.to_json()
    if actor == Actor.REFEREE and isinstance(action, dict) and action.get("reason"):
        stored["reason"] = action["reason"]  # the engine ignores it; the log keeps it
    event = store.new_event(
        match,
        match.version,
        stored,
        act.seat,
        actor,
        user if user is not None and user.is_authenticated else None,
        now,
    )
    return _Prepared(match, version, fields, event, engine, _level(engine) != level)


def _level(engine: EngineMatch) -> Any:
    """The level of the engine's current deal (None for games without levels)."""
    return getattr(engine.deal, "level", None)


def _write_prepared(changes: list[_Prepared], outgoing: _Outgoing | None = None) -> list[str]:
    """Write ``changes`` (:func:`store.write_many`: one statement on PostgreSQL, one
    transaction on SQLite); an action that ends its match is written in a transaction of its
    own with the table's status and the rated result. For each change: "ok", "moved" (the row
    changed at the same version: read it again) or "stale" (another action came first). Once
    committed, each written change is broadcast (:func:`after_commit`; its frames go to
    ``outgoing`` when given)."""
    results = ["stale"] * len(changes)
    going_on = [k for k, change in enumerate(changes) if not change.engine.over]
    if going_on:
        written = store.write_many([_write_of(changes[k]) for k in going_on])
        for k in going_on:
            if changes[k].match.pk in written:
                results[k] = "ok"
    for k, change in enumerate(changes):
        if not change.engine.over:
            continue
        match = change.match
        with store.writing():
            if store.write_many([_write_of(change)]):
                results[k] = "ok"
                Table.objects.filter(pk=match.table_id).update(status=TableStatus.FINISHED)
                _record_rated_result(match, change.engine)
                hooks.match_finished(match.pk)
    for k, change in enumerate(changes):
        if results[k] != "ok" and (
            Match.objects.filter(pk=change.match.pk, version=change.version).exists()
        ):
            results[k] = "moved"
    # after the write (at once, or when the caller's transaction commits)
    for change, result in zip(changes, results, strict=True):
        if result == "ok":
            match = change.match
            transaction.on_commit(
                partial(
                    after_commit,
                    match,
                    match.version,
                    change.engine,
                    change.event,
                    match.table_id,
                    change.new_level,
                    outgoing,
                )
            )
    return results


def _write_of(change: _Prepared) -> store.Write:
    """The row write of ``change``: at the version and revision it was read at."""
    match = change.match
    return store.Write(match.pk, change.version, match.revision - 1, change.fields, change.event)


def after_commit(
    match: Match,
    version: int,
    engine: EngineMatch,
    event: MatchEvent | None,
    table_id: int,
    new_level: bool = True,
    outgoing: _Outgoing | None = None,
) -> None:
    """Once ``match`` is committed at ``version`` (state ``engine``, after ``event``; None:
    the match started): broadcast it (into ``outgoing``, if given, for the caller of
    :func:`submit_actions` to publish), queue its next deadline and time-limit tasks, and
    keep the engine state for the next action."""
    match_id = match.pk
    try:
        frames = broadcast.match_frames(match, engine, event, new_level)
        if outgoing is not None:
            outgoing.add(frames, ("match", match_id))
        else:
            broadcast.publish(frames, key=("match", match_id))
    except Exception:  # a broadcast failure must not undo or block the accepted action
        log.exception("broadcast of match %s v%s failed", match_id, version)
    if event is None:
        broadcast.table_changed(table_id)
    if match.deadline is not None and match.deadline_version == version:
        delay = max(0.0, (match.deadline - timezone.now()).total_seconds())
        schedule.schedule_deadline(match_id, version, delay)
    if event is None and match.ends_at is not None:
        delay = max(0.0, (match.ends_at - timezone.now()).total_seconds())
        schedule.schedule_time_limit(match_id, delay)
    for hook in after_commit_hooks:
        hook(match_id, version, engine)
    # cached last: a thread that takes it from the cache may change it (the frames above are
    # built from it; an action sent without a version could come in at once)
    store.keep_engine(match_id, version, engine)


def _record_rated_result(match: Match, engine: EngineMatch | None = None) -> None:
    """Hand a finished rated match of people to the ladder (its Celery task rates it);
    ``engine``: its final state, if the caller has it (else it is rebuilt for a game whose
    sides change every deal)."""
    if not match.table.rated or any(s.get("bot") for s in match.seats):
        return
    result = match.result or {}
    users = [s["user"] for s in match.seats]
    facts = game(match.variant)
    score = [int(points) for points in result.get("score") or [0, 0]]
    try:
        # sides that change every deal (Red Two) are read from the deal summaries
        deals = [] if facts.fixed_sides else (engine or EngineMatch.from_json(match.snapshot)).deals
        picked = ladder_services.match_sides(match.variant, users, score, deals)
        if picked is None:
            return
        sides, score = picked
        ladder_services.record_result(
            source="live",
            source_id=str(match.pk),
            variant=match.variant,
            sides=sides,
            scores=score,
            ended_at=match.finished_at or timezone.now(),
            club_id=match.table.club_id,
            # levels: a match won by passing the top level may end level (23:23)
            winner=result.get("winner") if facts.levels else None,
        )
    except LadderError:
        log.exception("match %s could not be recorded for the ladder", match.pk)
