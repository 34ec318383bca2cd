"""The only place that changes tables and matches.

Tables: :func:`open_table`, :func:`take_seat`, :func:`leave_seat`, :func:`add_bot`; a table
whose seats are all taken starts its match (:func:`start_match`).

Matches: every action of a person, a bot, auto-play (托管), the clock or the system goes
through :func:`submit_action`. It reads the match (no lock), lets the engine apply the action
to the state at the stored version (a :class:`~engine.actions.Refusal` changes nothing), then,
in one short transaction, bumps the version with ``UPDATE ... WHERE version = v AND revision =
r`` (optimistic concurrency: a second writer for the same version updates no row and is
refused ``stale``) and appends the event ``(match, seq = v + 1)``. The engine's work is done
outside the transaction, so SQLite's single write lock is held only for the two statements.
A server applies the actions that queued while it wrote in one batch (:func:`submit_actions`):
the same steps for each, with one transaction for all their writes.
Only after the commit (``transaction.on_commit``) are the updates broadcast, each built from
one seat's observation, and the next deadline task queued.

The server acts for the seat to move when :attr:`Match.deadline` passes (:func:`act_on_deadline`):
a bot or a seat on auto-play plays the heuristic's choice; a person whose clock ran out gets the
rules' timeout action, and after two in a row is put on auto-play until they act again.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import secrets
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import orjson
from django.conf import settings
from django.db import connection, models, transaction
from django.utils import timezone
from psycopg.types.json import Jsonb

from clubs import selectors as club_selectors
from clubs.models import Club, User
from engine.actions import Action, Refusal, parse_action
from engine.bots import HeuristicBot, RandomBot
from engine.match import Match as EngineMatch
from engine.variants import combo_rules
from matches.messages import refusal_message
from matches.models import (
    VARIANT_SEATS,
    Actor,
    BotKind,
    Match,
    MatchEvent,
    MatchStatus,
    Presence,
    Seat,
    Table,
    TableStatus,
)

log = logging.getLogger(__name__)

#: Action kinds a person may send for their own seat.
PLAYER_KINDS = frozenset(("play", "pass", "immune", "tribute", "return", "choose", "ask"))
#: After this many clock expiries in a row a person is put on auto-play.
TIMEOUTS_FOR_AUTOPLAY = 2
#: A reconnecting client missing at most this many events gets them; otherwise a snapshot.
MAX_MISSING_EVENTS = 200
#: Hook for tests: called with ``(match_id, version, engine_match)`` after every commit.
after_commit_hooks: list[Any] = []
#: Attempts of an action whose match row changed under it at the same version (a seat put on
#: or taken off auto-play), or of a system action that lost the race to a player.
ATTEMPTS = 5


_sqlite_writers = threading.RLock()
_sqlite_lock_files: dict[str, int] = {}


def _sqlite_lock_file() -> int | None:
    """This process's descriptor of the database's writer lock file (None: an in-memory
    database, which only this process can write)."""
    name = str(connection.settings_dict["NAME"])
    if name.startswith(("file:", ":memory:")) or "mode=memory" in name:
        return None
    fd = _sqlite_lock_files.get(name)
    if fd is None:
        fd = os.open(f"{name}-writers.lock", os.O_RDWR | os.O_CREAT, 0o600)
        _sqlite_lock_files[name] = fd
    return fd


@contextmanager
def _writing() -> Iterator[None]:
    """A write transaction of a match row. SQLite allows one writer at a time and a waiting
    writer polls in its busy handler, sleeping up to 100 ms between tries (with several ASGI
    processes and the worker that left the servers idle while actions queued). So on SQLite
    the writers of this process queue on a lock, and the processes on an ``flock`` of a file
    beside the database, which the kernel hands over at once. Inside a transaction already
    open, SQLite's write lock is held (``transaction_mode`` IMMEDIATE) and no queue is needed.
    """
    if connection.vendor != "sqlite" or connection.in_atomic_block:
        with transaction.atomic():
            yield
        return
    with _sqlite_writers:
        fd = _sqlite_lock_file()
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            with transaction.atomic():
                yield
        finally:
            if fd is not None:
                fcntl.flock(fd, fcntl.LOCK_UN)


class _Moved(Exception):
    """The match row changed between the read and the write, at the same version: read again."""


class MatchError(Exception):
    """A refused table or match operation: a reason ``code`` and a translated message."""

    def __init__(self, code: str, detail: str = "") -> None:
        """Keep the reason code; ``detail`` is the engine's English wording, if any."""
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code
        self.detail = detail

    @property
    def message(self) -> str:
        """The reason in the active language."""
        return refusal_message(self.code, self.detail)

    def to_json(self) -> dict[str, str]:
        """``{"code", "message"}`` in the active language."""
        return {"code": self.code, "message": self.message}


# ------------------------------------------------------------------------- engine state cache
class _EngineCache:
    """Engine matches by ``(match id, version)`` for this process (a miss replays the snapshot).

    :meth:`take` removes the entry, so an engine object is only ever mutated by one thread.
    """

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self.items: OrderedDict[int, tuple[int, EngineMatch]] = OrderedDict()
        self.lock = threading.Lock()

    def take(self, match_id: int) -> tuple[int, EngineMatch] | None:
        """Remove and return ``(version, engine)`` of the match, if cached."""
        with self.lock:
            return self.items.pop(match_id, None)

    def put(self, match_id: int, version: int, engine: EngineMatch) -> None:
        with self.lock:
            current = self.items.get(match_id)
            if current is not None and current[0] > version:
                return
            self.items[match_id] = (version, engine)
            self.items.move_to_end(match_id)
            while len(self.items) > self.size:
                self.items.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.items.clear()


_engines = _EngineCache()


def _compact(engine: EngineMatch) -> list[str]:
    """The engine's actions as compact strings, kept on the engine object and extended, not
    rebuilt, per action."""
    compact: list[str] = engine.__dict__.setdefault("_platform_compact", [])
    if len(compact) > len(engine.log):
        del compact[len(engine.log) :]
    for action in engine.log[len(compact) :]:
        compact.append(action.to_compact())
    return compact


def snapshot_of(engine: EngineMatch) -> dict[str, Any]:
    """The stored snapshot: ``Match.to_json()`` with the actions as a list of compact strings
    (:meth:`engine.actions.Action.to_compact`), which :meth:`EngineMatch.from_json` replays."""
    compact = _compact(engine)
    return {
        "variant": engine.variant,
        "seed": engine.seed,
        "options": engine.options,
        "actions": list(compact),
        "levels": list(engine.levels),
        "over": engine.over,
    }


#: The table fields an action needs (the rest are loaded only if touched), in the model's order
#: (as ``Model.from_db`` takes them).
_TABLE_FIELDS = tuple(
    f.attname
    for f in Table._meta.concrete_fields
    if f.attname
    in {
        "id",
        "club_id",
        "created_by_id",
        "variant",
        "options",
        "time_limit_seconds",
        "clocks",
        "rated",
        "spectators_allowed",
        "status",
    }
)


_SNAPSHOT = Match._meta.get_field("snapshot")


def _read_plan() -> tuple[str, list[tuple[Any, list[Any]]], int]:
    """The read of :func:`_read_many` for this thread's connection: the SQL up to its ``IN``
    list, each column's field expression with its converters (what the ORM applies), and how
    many are the match's."""
    plan = getattr(connection, "_matches_read_plan", None)
    if plan is None:
        quote = connection.ops.quote_name
        columns = [f.get_col("m") for f in Match._meta.concrete_fields]
        columns += [Table._meta.get_field(name).get_col("t") for name in _TABLE_FIELDS]
        converted = [
            (
                col,
                [_snapshot_from_db]
                if col.target is _SNAPSHOT
                else [*connection.ops.get_db_converters(col), *col.get_db_converters(connection)],
            )
            for col in columns
        ]
        selected = ", ".join(f"{col.alias}.{quote(col.target.column)}" for col in columns)
        sql = (
            f"SELECT {selected} FROM {quote(Match._meta.db_table)} m "
            f"JOIN {quote(Table._meta.db_table)} t ON t.{quote('id')} = m.{quote('table_id')} "
            f"WHERE m.{quote('id')} IN "
        )
        plan = (sql, converted, len(Match._meta.concrete_fields))
        connection._matches_read_plan = plan
    return plan


def _snapshot_from_db(value: Any, expression: Any, connection: Any) -> Any:
    """The stored snapshot decoded with orjson (a few kilobytes on every action's read)."""
    return orjson.loads(value) if isinstance(value, str | bytes) else value


def _read(match_id: int) -> Match | None:
    """The match row and its table as stored now (:func:`_read_many`)."""
    return _read_many([match_id]).get(match_id)


def _read_many(match_ids: list[int]) -> dict[int, Match]:
    """The match rows and their tables as stored now, snapshot included (read with the
    version: a snapshot loaded later could already be a newer one), by id. One plain query
    with the ORM's column conversions: it is on every action's path, and the ORM's own select
    with its table cost 0.4 ms to build."""
    sql, converted, split = _read_plan()
    with connection.cursor() as cursor:
        cursor.execute(f"{sql}({', '.join(['%s'] * len(match_ids))})", match_ids)
        rows = cursor.fetchall()
    db = connection.alias
    names = [f.attname for f in Match._meta.concrete_fields]
    matches = {}
    for row in rows:
        values = []
        for value, (col, converters) in zip(row, converted, strict=True):
            for convert in converters:
                value = convert(value, col, connection)
            values.append(value)
        match = Match.from_db(db, names, values[:split])
        match.table = Table.from_db(db, _TABLE_FIELDS, values[split:])
        matches[match.pk] = match
    return matches


def engine_of(match: Match) -> EngineMatch:
    """The engine state of ``match`` at its version (a private copy the caller may change).

    A cached state of an older version is brought up to date with the snapshot's later
    actions (the other ASGI processes applied them), instead of replaying the whole match."""
    cached = _engines.take(match.pk)
    if cached is not None:
        version, engine = cached
        if version == match.version:
            return engine
        actions = match.snapshot.get("actions")
        done = _compact(engine)
        if version < match.version and isinstance(actions, list) and actions[: len(done)] == done:
            try:
                for action in actions[len(done) :]:
                    engine.apply(action)
                    done.append(action)
                return engine
            except Refusal:  # not the same match after all: replay below
                log.warning("cached state of match %s did not catch up", match.pk)
    return EngineMatch.from_json(match.snapshot)


def replay_events(match: Match) -> EngineMatch:
    """Rebuild the engine state from the event log alone (seed, options and every event)."""
    actions = list(match.events.order_by("seq").values_list("action", flat=True))
    return EngineMatch.replay(match.variant, match.seed, match.options, actions)


# ------------------------------------------------------------------------- tables
def _require_member(user: User, club: Club) -> None:
    if user is None or not user.is_authenticated:
        raise MatchError("login_required")
    if club_selectors.membership_of(user, club) is None:
        raise MatchError("not_member")


def open_table(
    user: User,
    club: Club,
    *,
    variant: str,
    options: dict[str, Any] | None = None,
    clocks: bool = True,
    time_limit_seconds: int = 0,
    rated: bool = False,
    spectators_allowed: bool = True,
    sit: bool = True,
) -> Table:
    """Open a table in ``club`` (members only) with engine ``options`` checked by the engine.

    The opener takes seat 0 unless ``sit`` is false. Raises :class:`MatchError`.
    """
    _require_member(user, club)
    if variant not in VARIANT_SEATS:
        raise MatchError("bad_variant")
    if not isinstance(options, dict | None):
        raise MatchError("bad_options")
    try:
        EngineMatch.new(variant, "options-check", options or {})
    except (ValueError, TypeError, Refusal) as error:
        raise MatchError("bad_options", str(error)) from None
    if (
        isinstance(time_limit_seconds, bool)
        or not isinstance(time_limit_seconds, int)
        or not 0 <= time_limit_seconds <= 24 * 3600
    ):
        raise MatchError("bad_options")
    with transaction.atomic():
        table = Table.objects.create(
            club=club,
            created_by=user,
            variant=variant,
            options=dict(options or {}),
            clocks=bool(clocks),
            time_limit_seconds=time_limit_seconds,
            rated=bool(rated),
            spectators_allowed=bool(spectators_allowed),
        )
        Seat.objects.bulk_create(Seat(table=table, index=i) for i in range(table.seat_count))
        if sit:
            take_seat(user, table, 0)
    return table


def _locked_table(table: Table) -> Table:
    return Table.objects.select_for_update().get(pk=table.pk)


def _notify_table(table_id: int) -> None:
    from matches import broadcast

    transaction.on_commit(lambda: broadcast.table_changed(table_id))


@transaction.atomic
def take_seat(user: User, table: Table, index: int) -> Seat:
    """Sit ``user`` (a club member) in empty seat ``index``; a full table starts its match."""
    table = _locked_table(table)
    _require_member(user, table.club)
    if table.status != TableStatus.OPEN:
        raise MatchError("table_not_open")
    seats = list(table.seats.select_for_update().order_by("index"))
    if not isinstance(index, int) or not 0 <= index < len(seats):
        raise MatchError("no_such_seat")
    if any(s.user_id == user.pk for s in seats):
        raise MatchError("already_seated")
    seat = seats[index]
    if seat.taken:
        raise MatchError("seat_taken")
    seat.user = user
    seat.bot = ""
    seat.save(update_fields=["user", "bot"])
    _notify_table(table.pk)
    if all(s.taken for s in seats):
        start_match(table)
    return seat


@transaction.atomic
def leave_seat(user: User, table: Table) -> None:
    """Stand ``user`` up from an open table."""
    table = _locked_table(table)
    if table.status != TableStatus.OPEN:
        raise MatchError("table_not_open")
    updated = table.seats.filter(user=user).update(user=None)
    if not updated:
        raise MatchError("not_seated")
    _notify_table(table.pk)


@transaction.atomic
def add_bot(user: User, table: Table, index: int, kind: str) -> Seat:
    """Put a bot (``random`` / ``heuristic``) in empty seat ``index``: the table's opener or a
    club admin only, never at a rated table. A full table starts its match."""
    table = _locked_table(table)
    _require_member(user, table.club)
    from clubs.permissions import is_club_admin

    if table.created_by_id != user.pk and not is_club_admin(user, table.club):
        raise MatchError("not_allowed")
    if table.rated:
        raise MatchError("rated_bots")
    if kind not in (BotKind.RANDOM, BotKind.HEURISTIC):
        raise MatchError("bad_options")
    if table.status != TableStatus.OPEN:
        raise MatchError("table_not_open")
    seats = list(table.seats.select_for_update().order_by("index"))
    if not isinstance(index, int) or not 0 <= index < len(seats):
        raise MatchError("no_such_seat")
    seat = seats[index]
    if seat.taken:
        raise MatchError("seat_taken")
    seat.bot = kind
    seat.save(update_fields=["bot"])
    _notify_table(table.pk)
    if all(s.taken for s in seats):
        start_match(table)
    return seat


def start_match(table: Table, seed: str | None = None) -> Match:
    """Start the match of a full table (inside the caller's transaction)."""
    seats = list(table.seats.select_related("user").order_by("index"))
    seed = seed or secrets.token_hex(8)
    engine = EngineMatch.new(table.variant, seed, table.options)
    now = timezone.now()
    limit = table.time_limit_seconds or 60 * int(engine.options.get("time_limit_minutes", 0) or 0)
    match = Match(
        table=table,
        variant=table.variant,
        seed=seed,
        options=engine.options,
        seats=[
            {"user": s.user_id, "bot": s.bot, "name": s.user.name if s.user else ""} for s in seats
        ],
        version=0,
        snapshot=snapshot_of(engine),
        autoplay=[""] * len(seats),
        timeouts=[0] * len(seats),
        started_at=now,
        ends_at=now + timedelta(seconds=limit) if limit else None,
    )
    _plan_deadline(match, engine, table, now)
    match.save()
    Table.objects.filter(pk=table.pk).update(status=TableStatus.PLAYING)
    version = match.version
    transaction.on_commit(lambda: _after_commit(match, version, engine, None, table.pk))
    return match


# ------------------------------------------------------------------------- deadlines
def _plan_deadline(match: Match, engine: EngineMatch, table: Table, now: datetime) -> None:
    """Set ``to_move``, ``deadline`` and ``deadline_version`` for the state ``engine``."""
    seat = engine.to_move()
    match.to_move = seat
    match.deadline = None
    match.deadline_version = None
    if engine.over or seat is None:
        return
    info = match.seats[seat]
    if info.get("bot") or match.autoplay[seat]:
        delay = float(getattr(settings, "MATCHES_BOT_DELAY_SECONDS", 0.8))
        match.deadline = now + timedelta(seconds=delay)
    elif table.clocks:
        match.deadline = now + timedelta(seconds=engine.action_seconds(seat))
    else:
        return
    match.deadline_version = match.version


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
    outcome = submit_actions([request])[0]
    if isinstance(outcome, Exception):
        raise outcome
    return outcome


def submit_actions(requests: list[ActionRequest]) -> list[Accepted | Exception]:
    """Apply each request as :func:`submit_action` would, in order, and return for each its
    :class:`Accepted` or the :class:`MatchError` (or database error) that refused it, having
    changed nothing for a refused one. The accepted actions of different matches are written
    in one transaction (a round; one action per match per round): what a server does with the
    actions that queued while it wrote the last ones, so they share one write lock and one
    commit. If a shared write fails, each of its actions is tried again alone, so one bad
    write refuses only its own action."""
    outcomes: list[Accepted | Exception | None] = [None] * len(requests)
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
            again = _round(requests, batch, outcomes)
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
    return outcomes  # type: ignore[return-value]  # every request has its outcome now


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
) -> list[tuple[int, Any]]:
    """Apply ``batch`` (one action per match) and write what the engine accepts in one
    transaction; set each one's outcome, or return it to be read and tried again (its match
    row changed at the same version)."""
    rows = _read_many([requests[index].match_id for index, _ in batch])
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
    written = _write_prepared([change for _, _, change in prepared])
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


def _apply(match: Match, action: Any, **how: Any) -> Accepted:
    """Apply ``action`` to ``match`` as read (``how``: the keywords of :func:`_prepare`) and
    write it in one short transaction; raise :class:`MatchError` (nothing changed) or
    :class:`_Moved` (the row changed at the same version: read it again and retry)."""
    change = _prepare(match, action, **how)
    result = _write_prepared([change])[0]
    if result == "moved":
        raise _Moved
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
        engine = engine_of(match)
    level = _level(engine)
    try:
        act = engine.apply(action)
    except Refusal as refusal:
        _engines.put(match.pk, version, engine)  # unchanged: a refusal changes nothing
        raise MatchError(refusal.code, refusal.message) from None
    now = timezone.now()
    autoplay = list(match.autoplay)
    timeouts = list(match.timeouts)
    if actor == Actor.PLAYER and act.seat is not None:
        autoplay[act.seat] = ""
        timeouts[act.seat] = 0
    match.autoplay = autoplay
    match.timeouts = timeouts
    if extra:
        for key, value in extra.items():
            setattr(match, key, value)
    match.version = version + 1
    match.revision = match.revision + 1
    match.snapshot = snapshot_of(engine)
    _plan_deadline(match, engine, match.table, now)
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
    if extra:
        fields.update(extra)
    if engine.over:
        match.status = MatchStatus.FINISHED
        match.result = engine.result()
        match.finished_at = now
        fields.update(status=match.status, result=match.result, finished_at=now, ends_at=None)
    event = MatchEvent(
        match=match,
        seq=match.version,
        action=act.to_json(),
        seat=act.seat,
        actor=actor,
        user=user if user is not None and user.is_authenticated else None,
        created_at=now,
    )
    return _Prepared(match, version, fields, event, engine, _level(engine) != level)


def _level(engine: EngineMatch) -> Any:
    """The level of the engine's current deal (None for games without levels)."""
    return getattr(engine.deal, "level", None)


def _write_prepared(changes: list[_Prepared]) -> list[str]:
    """Write ``changes`` in one transaction, in the order of their match ids (so that two
    writers never wait for each other's rows on PostgreSQL); for each, "ok", "moved" (the
    row changed at the same version: read it again) or "stale" (another action came first).
    Once committed, each written change is broadcast (:func:`_after_commit`)."""
    results = ["stale"] * len(changes)
    with _writing():
        for k in sorted(range(len(changes)), key=lambda k: changes[k].match.pk):
            change = changes[k]
            match = change.match
            if _write(match.pk, change.version, match.revision - 1, change.fields, change.event):
                results[k] = "ok"
            elif Match.objects.filter(pk=match.pk, version=change.version).exists():
                results[k] = "moved"
                continue
            else:
                continue
            if change.engine.over:
                Table.objects.filter(pk=match.table_id).update(status=TableStatus.FINISHED)
                _record_rated_result(match, change.engine)
    # after the write lock is released (at once, or when the caller's transaction commits)
    for change, result in zip(changes, results, strict=True):
        if result == "ok":
            match = change.match
            transaction.on_commit(
                partial(
                    _after_commit,
                    match,
                    match.version,
                    change.engine,
                    change.event,
                    match.table_id,
                    change.new_level,
                )
            )
    return results


def _write(
    match_id: int, version: int, revision: int, fields: dict[str, Any], event: MatchEvent
) -> bool:
    """``UPDATE`` the match row at ``version`` and ``revision`` with ``fields``; if it was
    there, append ``event`` and return True (False: it moved on, nothing written). Plain SQL
    with the fields' own conversions: the ORM spent 0.25 ms building the two statements on
    every action."""
    quote = connection.ops.quote_name
    names = [Match._meta.get_field(name) for name in fields]
    update = (
        f"UPDATE {quote(Match._meta.db_table)} SET "
        + ", ".join(f"{quote(f.column)} = %s" for f in names)
        + f" WHERE {quote('id')} = %s AND {quote('version')} = %s AND {quote('revision')} = %s"
    )
    params = [_db_value(f, fields[f.name]) for f in names]
    columns = [f for f in MatchEvent._meta.concrete_fields if not f.primary_key]
    insert = (
        f"INSERT INTO {quote(MatchEvent._meta.db_table)} "
        f"({', '.join(quote(f.column) for f in columns)}) "
        f"VALUES ({', '.join(['%s'] * len(columns))})"
    )
    with connection.cursor() as cursor:
        cursor.execute(update, [*params, match_id, version, revision])
        if cursor.rowcount != 1:
            return False
        cursor.execute(insert, [_db_value(f, getattr(event, f.attname)) for f in columns])
    return True


def _db_value(field: Any, value: Any) -> Any:
    """``value`` as ``field`` stores it. The snapshot is encoded with orjson: the standard
    encoder took most of the write's time for its list of actions. (Other JSON is encoded as
    the ORM does: on SQLite, JSON lookups compare the stored text.)"""
    if not isinstance(field, models.JSONField):
        if type(value) in (int, str, type(None)):
            return value  # stored as it is: the field's conversion would change nothing
        return field.get_db_prep_save(value, connection)
    if value is None:
        return None
    dumps = json_dumps if field is _SNAPSHOT else json.dumps  # json.dumps: the ORM's text
    if connection.vendor == "postgresql":
        return Jsonb(value, dumps=dumps)
    return dumps(value)


def _after_commit(
    match: Match,
    version: int,
    engine: EngineMatch,
    event: MatchEvent | None,
    table_id: int,
    new_level: bool = True,
) -> None:
    match_id = match.pk
    from matches import broadcast, tasks

    try:
        broadcast.match_updated(match, engine, event, new_level)
    except Exception:  # a broadcast failure must not undo or block the accepted action
        log.exception("broadcast of match %s v%s failed", match_id, version)
    if event is None:
        broadcast.table_changed(table_id)
    if match.deadline is not None and match.deadline_version == version:
        delay = max(0.0, (match.deadline - timezone.now()).total_seconds())
        tasks.schedule_deadline(match_id, version, delay)
    if event is None and match.ends_at is not None:
        delay = max(0.0, (match.ends_at - timezone.now()).total_seconds())
        tasks.schedule_time_limit(match_id, delay)
    for hook in after_commit_hooks:
        hook(match_id, version, engine)
    # cached last: a thread that takes it from the cache may change it (the frames above are
    # built from it; an action sent without a version could come in at once)
    _engines.put(match_id, version, engine)


def _record_rated_result(match: Match, engine: EngineMatch | None = None) -> None:
    """Hand a finished rated match of people to the ladder (its Celery task rates it);
    ``engine``: its final state, if the caller has it (else it is rebuilt for Red Two)."""
    if not match.table.rated or any(s.get("bot") for s in match.seats):
        return
    result = match.result or {}
    users = [s["user"] for s in match.seats]
    if match.variant in ("bao2", "guandan"):
        sides = [[users[0], users[2]], [users[1], users[3]]]
    elif match.variant == "shuangkou2":
        sides = [[users[0]], [users[1]]]
    elif match.variant != "honger":
        return
    score = [int(points) for points in result.get("score") or [0, 0]]
    from ladder import services as ladder_services

    try:
        if match.variant == "honger":  # per-seat totals; sides as revealed by the last deal
            deals = (engine or EngineMatch.from_json(match.snapshot)).deals
            picked = ladder_services.red_two_match_sides(users, score, deals)
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
            winner=result.get("winner") if match.variant in ("bao2", "guandan") else None,
        )
    except ladder_services.LadderError:
        log.exception("match %s could not be recorded for the ladder", match.pk)


def bot_action(engine: EngineMatch, seat: int, kind: str, version: int) -> Action:
    """The action a bot of ``kind`` takes for ``seat``, from that seat's observation only."""
    observation = engine.observation(seat)
    seed = f"{engine.seed}/{seat}/{version}"
    bot = RandomBot(seed) if kind == "random" else HeuristicBot()
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
        match = _read(match_id)
        if match is None or match.status != MatchStatus.PLAYING:
            return "over"
        if match.version != version or match.deadline_version != version:
            return "stale"
        if match.deadline is None or (not force and match.deadline > timezone.now()):
            return "early"
        seat = match.to_move
        if seat is None:
            return "stale"
        engine = engine_of(match)
        info = match.seats[seat]
        if info.get("bot"):
            action, actor = bot_action(engine, seat, info["bot"], version), Actor.BOT
        elif match.autoplay[seat]:
            action, actor = bot_action(engine, seat, "heuristic", version), Actor.AUTOPLAY
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
            _apply(match, action, **apply)
            return actor
        except _Moved:
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
            _apply(match, fallback[0], **apply)
            return actor
        except _Moved:
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
        match = _read(match_id)
        if match is None or match.status != MatchStatus.PLAYING or match.ends_at is None:
            return False
        if match.ends_at > timezone.now():
            return False
        try:
            _apply(
                match,
                {"time_up": True},
                seat=None,
                actor=Actor.SYSTEM,
                user=None,
                expected=match.version,
                extra={"ends_at": None},
            )
            return True
        except _Moved:
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


# ------------------------------------------------------------------------- auto-play, presence
def set_autoplay(match_id: int, seat: int, reason: str) -> bool:
    """Put ``seat`` on auto-play (``reason`` "timeout"/"disconnect") or take it off (""),
    re-planning the deadline if it is that seat's turn. Returns True if anything changed."""
    with _writing():
        match = (
            Match.objects.select_for_update().select_related("table").filter(pk=match_id).first()
        )
        if match is None or match.status != MatchStatus.PLAYING:
            return False
        if not 0 <= seat < len(match.seats) or match.seats[seat].get("bot"):
            return False
        if match.autoplay[seat] == reason:
            return False
        if reason == "" and match.autoplay[seat] == "timeout":
            pass  # a person takes back their seat explicitly
        autoplay = list(match.autoplay)
        autoplay[seat] = reason
        match.autoplay = autoplay
        fields: dict[str, Any] = {"autoplay": autoplay, "revision": match.revision + 1}
        if reason == "":
            timeouts = list(match.timeouts)
            timeouts[seat] = 0
            fields["timeouts"] = timeouts
        if match.to_move == seat:
            engine = engine_of(match)
            _plan_deadline(match, engine, match.table, timezone.now())
            _engines.put(match.pk, match.version, engine)
            fields.update(deadline=match.deadline, deadline_version=match.deadline_version)
        Match.objects.filter(pk=match.pk).update(**fields)
        version = match.version

        def notify() -> None:
            from matches import broadcast, tasks

            broadcast.seats_changed(match_id)
            fresh = Match.objects.filter(pk=match_id).first()
            if fresh and fresh.deadline is not None and fresh.deadline_version == version:
                delay = max(0.0, (fresh.deadline - timezone.now()).total_seconds())
                tasks.schedule_deadline(match_id, version, delay)

        transaction.on_commit(notify)
    return True


#: A live connection confirms itself (:func:`heartbeat`) this often (seconds)...
PRESENCE_HEARTBEAT = 60.0
#: ...and a presence row not confirmed for this long is a leftover of a crashed server.
PRESENCE_TTL = timedelta(seconds=3 * PRESENCE_HEARTBEAT)


def connected(match_id: int, seat: int | None, channel_name: str) -> None:
    """Record a live connection; a seat back from a disconnect leaves auto-play."""
    Presence.objects.update_or_create(
        channel_name=channel_name,
        defaults={"match_id": match_id, "seat": seat, "connected_at": timezone.now()},
    )
    if seat is not None:
        autoplay = Match.objects.filter(pk=match_id).values_list("autoplay", flat=True).first()
        if autoplay and 0 <= seat < len(autoplay) and autoplay[seat] == "disconnect":
            set_autoplay(match_id, seat, "")


def heartbeat(channel_name: str) -> None:
    """Confirm that a connection is alive (its presence row's ``connected_at`` is now)."""
    Presence.objects.filter(channel_name=channel_name).update(connected_at=timezone.now())


def disconnected(channel_name: str) -> None:
    """Forget a connection; a seat with no live connection left goes on auto-play (托管).

    Rows not confirmed by a :func:`heartbeat` within :data:`PRESENCE_TTL` (left behind by a
    server that crashed) do not count as live and are removed."""
    presence = Presence.objects.filter(channel_name=channel_name).first()
    if presence is None:
        return
    presence.delete()
    seat = presence.seat
    if seat is None:
        return
    alive_since = timezone.now() - PRESENCE_TTL
    Presence.objects.filter(match_id=presence.match_id, connected_at__lt=alive_since).delete()
    if Presence.objects.filter(match_id=presence.match_id, seat=seat).exists():
        return
    autoplay = Match.objects.filter(pk=presence.match_id).values_list("autoplay", flat=True).first()
    if autoplay and 0 <= seat < len(autoplay) and not autoplay[seat]:
        set_autoplay(presence.match_id, seat, "disconnect")


# ------------------------------------------------------------------------- helpers for clients
def check_selection(engine: EngineMatch, seat: int, cards: list[str]) -> list[dict[str, Any]]:
    """The legal plays the selected ``cards`` can make for ``seat`` (one per combo type);
    raises :class:`MatchError` explaining why the selection cannot be played."""
    from engine.cards import InvalidCard, parse_card

    if not isinstance(cards, list) or not cards or len(cards) > 60:
        raise MatchError("no_selection")
    try:
        ids = [parse_card(c) for c in cards]
    except (InvalidCard, TypeError, ValueError):
        raise MatchError("invalid_card") from None
    observation = engine.observation(seat)
    rules = combo_rules(engine.variant, observation.get("level"))
    readings = rules.readings(ids)
    first: MatchError | None = None
    legal: list[dict[str, Any]] = []
    if not readings:
        try:
            engine.check(Action("play", seat, tuple(sorted(ids)), "single"))
        except Refusal as refusal:
            if refusal.code in ("not_your_turn", "wrong_phase", "not_in_hand", "match_over"):
                raise MatchError(refusal.code, refusal.message) from None
        raise MatchError("invalid_combo")
    for combo in readings:
        action = Action("play", seat, tuple(sorted(ids)), combo.type)
        if engine.variant == "bao2" and combo.type == "immune":
            action = Action("immune", seat, tuple(sorted(ids)), "immune")
        try:
            engine.check(action)
        except Refusal as refusal:
            first = first or MatchError(refusal.code, refusal.message)
            continue
        legal.append(action.to_json())
    if not legal:
        assert first is not None
        raise first
    return legal


def hints(engine: EngineMatch, seat: int, limit: int = 40) -> list[dict[str, Any]]:
    """Up to ``limit`` legal plays of ``seat`` for the hint button, smallest first."""
    if engine.to_move() != seat:
        return []
    seen: set[tuple] = set()
    out: list[tuple[int, int, dict[str, Any]]] = []
    for i, action in enumerate(engine.legal_actions(seat)):
        if action.kind not in ("play", "immune", "tribute", "return"):
            continue
        key = (action.kind, action.type, action.cards)
        if key in seen:
            continue
        seen.add(key)
        out.append((len(action.cards), i, action.to_json()))
        if len(out) >= limit * 4:
            break
    out.sort(key=lambda t: (t[0] > 4, t[1]))
    return [a for _, _, a in out[:limit]]


def json_dumps(data: Any) -> str:
    """Compact JSON used on the wire (UTF-8, no spaces; orjson: the four frames of every
    action took a tenth of a server's time with the standard library's encoder); also the
    stored snapshot's text."""
    return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode()
