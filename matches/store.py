"""How matches are stored: the reads and writes of match rows (plain SQL on every action's
path), the writer lock of SQLite, the stored snapshot, and this process's cache of engine
states. No rules and no permissions here: :mod:`matches.services` decides, this module reads
and writes what it decided.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from datetime import datetime
from functools import cache
from typing import Any, NamedTuple

import orjson
import psycopg
from django.db import DEFAULT_DB_ALIAS, connection, connections, models, transaction
from django.db.models.base import ModelState
from django.db.models.signals import post_init, pre_init

from engine.actions import Refusal
from engine.match import Match as EngineMatch
from matches.models import Match, MatchEvent, Table
from matches.wire import json_dumps

log = logging.getLogger(__name__)


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
def writing() -> Iterator[None]:
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


# ------------------------------------------------------------------------- engine state cache
class EngineCache:
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
        """Keep ``engine`` as the match's state at ``version`` (unless a newer one is kept)."""
        with self.lock:
            current = self.items.get(match_id)
            if current is not None and current[0] > version:
                return
            self.items[match_id] = (version, engine)
            self.items.move_to_end(match_id)
            while len(self.items) > self.size:
                self.items.popitem(last=False)

    def clear(self) -> None:
        """Forget every state."""
        with self.lock:
            self.items.clear()


_engines = EngineCache()


def keep_engine(match_id: int, version: int, engine: EngineMatch) -> None:
    """Keep ``engine``, the state of match ``match_id`` at ``version``, for the next
    :func:`engine_of` of this process (a newer state already kept wins). The caller must not
    change ``engine`` afterwards."""
    _engines.put(match_id, version, engine)


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
    """The read of :func:`read_many` for this thread's connection: the SQL (on PostgreSQL
    whole, its ids one array parameter; elsewhere up to its ``IN`` list), each column's field
    expression with its converters (what the ORM applies), and how many are the match's."""
    plan = getattr(connection, "_matches_read_plan", None)
    if plan is None:
        quote = connection.ops.quote_name
        columns = [f.get_col("m") for f in Match._meta.concrete_fields]
        columns += [Table._meta.get_field(name).get_col("t") for name in _TABLE_FIELDS]
        converted = [
            (
                col,
                [_json_from_db]
                if isinstance(col.target, models.JSONField) and col.target.decoder is None
                else [*connection.ops.get_db_converters(col), *col.get_db_converters(connection)],
            )
            for col in columns
        ]
        selected = ", ".join(f"{col.alias}.{quote(col.target.column)}" for col in columns)
        sql = (
            f"SELECT {selected} FROM {quote(Match._meta.db_table)} m "
            f"JOIN {quote(Table._meta.db_table)} t ON t.{quote('id')} = m.{quote('table_id')} "
            f"WHERE m.{quote('id')} "
        )
        sql += "= ANY($1::bigint[])" if connection.vendor == "postgresql" else "IN "
        plan = (sql, converted, len(Match._meta.concrete_fields))
        connection._matches_read_plan = plan
    return plan


def _json_from_db(value: Any, expression: Any, connection: Any) -> Any:
    """A JSON column decoded with orjson, as the field's own ``json.loads`` would (eight JSON
    columns are read on every action; docs/benchmarks.md, "Why live play's code is as it is")."""
    return orjson.loads(value) if isinstance(value, str | bytes) else value


def version_of(match_id: int) -> int | None:
    """The match's version as stored now (None: no such match): all a ``hint`` or ``check``
    answered from the cached engine state needs to know."""
    return Match.objects.filter(pk=match_id).values_list("version", flat=True).first()


def read(match_id: int) -> Match | None:
    """The match row and its table as stored now (:func:`read_many`)."""
    return read_many([match_id]).get(match_id)


def read_many(match_ids: list[int]) -> dict[int, Match]:
    """The match rows and their tables as stored now, snapshot included (read with the
    version: a snapshot loaded later could already be a newer one), by id. One plain query
    with the ORM's column conversions, since it is on every action's path (docs/benchmarks.md,
    "Why live play's code is as it is")."""
    sql, converted, split = _read_plan()
    conn = _connection()
    if conn.vendor == "postgresql":
        rows = _fetch_prepared(conn, sql, ["{" + ",".join(str(int(i)) for i in match_ids) + "}"])
    else:
        with conn.cursor() as cursor:
            cursor.execute(f"{sql}({', '.join(['%s'] * len(match_ids))})", match_ids)
            rows = cursor.fetchall()
    db = conn.alias
    names = [f.attname for f in Match._meta.concrete_fields]
    matches = {}
    for row in rows:
        values = []
        for value, (col, converters) in zip(row, converted, strict=True):
            for convert in converters:
                value = convert(value, col, conn)
            values.append(value)
        match = _from_db(Match, db, names, values[:split])
        _TABLE_CACHE.set_cached_value(match, _from_db(Table, db, _TABLE_FIELDS, values[split:]))
        matches[match.pk] = match
    return matches


_TABLE_CACHE = Match._meta.get_field("table")


def _from_db(model: type[models.Model], db: str, names: Any, values: list[Any]) -> Any:
    """``model.from_db(db, names, values)`` for a row read here: the same instance (the fields
    not in ``names`` deferred), built without ``Model.__init__`` when no one listens to its
    ``pre_init`` or ``post_init`` (the measured cost: docs/benchmarks.md, "Why live play's
    code is as it is")."""
    if pre_init.has_listeners(model) or post_init.has_listeners(model):
        return model.from_db(db, names, values)
    instance = model.__new__(model)
    state = instance._state = ModelState()
    state.adding, state.db = False, db
    instance.__dict__.update(zip(names, values, strict=True))
    return instance


_EVENT_MATCH = MatchEvent._meta.get_field("match")
_EVENT_USER = MatchEvent._meta.get_field("user")


def new_event(
    match: Match,
    seq: int,
    action: dict[str, Any],
    seat: int | None,
    actor: str,
    user: Any,
    created_at: datetime,
) -> MatchEvent:
    """A new, unsaved event of ``match``, as ``MatchEvent(match=match, ...)`` builds it (its
    match and user at hand without a query), built without ``Model.__init__`` when no one
    listens to its init signals, as :func:`_from_db`."""
    fields = {"seq": seq, "action": action, "seat": seat, "actor": actor, "created_at": created_at}
    if pre_init.has_listeners(MatchEvent) or post_init.has_listeners(MatchEvent):
        return MatchEvent(match=match, user=user, **fields)
    event = MatchEvent.__new__(MatchEvent)
    state = event._state = ModelState()
    state.db = match._state.db  # as the descriptor sets it from a related row that has one
    user_id = None if user is None else user.pk
    event.__dict__.update(id=None, match_id=match.pk, user_id=user_id, **fields)
    _EVENT_MATCH.set_cached_value(event, match)
    _EVENT_USER.set_cached_value(event, user)
    return event


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


def write(
    match_id: int, version: int, revision: int, fields: dict[str, Any], event: MatchEvent
) -> bool:
    """``UPDATE`` the match row at ``version`` and ``revision`` with ``fields``; if it was
    there, append ``event`` and return True (False: it moved on, nothing written). SQLite's
    write (:func:`write_many`); plain SQL with the fields' own conversions, as the ORM's
    ``update()`` and ``save()`` would convert them."""
    quote = connection.ops.quote_name
    names = [Match._meta.get_field(name) for name in fields]
    update = (
        f"UPDATE {quote(Match._meta.db_table)} SET "
        + ", ".join(f"{quote(f.column)} = %s" for f in names)
        + f" WHERE {quote('id')} = %s AND {quote('version')} = %s AND {quote('revision')} = %s"
    )
    conn = _connection()
    params = [_db_value(f, fields[f.name], conn) for f in names]
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
        cursor.execute(insert, [_db_value(f, getattr(event, f.attname), conn) for f in columns])
    return True


class Write(NamedTuple):
    """One action's write (:func:`write_many`): the match row at ``version`` and ``revision``
    gets ``fields``, and ``event`` is appended."""

    match_id: int
    version: int
    revision: int
    fields: dict[str, Any]
    event: MatchEvent


def write_many(writes: list[Write]) -> set[int]:
    """Apply ``writes`` (at most one per match) as one write and return the ids of the matches
    written; a match that moved on from its write's version or revision is not written (nor
    its event). All or nothing: a database error raised here wrote none of them.

    On PostgreSQL it is **one statement** (the version bumps and the event inserts, the rows
    listed in the order of their ids): a single statement is atomic on its own, so there is no
    ``BEGIN`` and no ``COMMIT`` either: one round trip to the server instead of four. Elsewhere
    (SQLite) it is one transaction of :func:`write` calls under :func:`writing`."""
    conn = _connection()
    if conn.vendor != "postgresql":
        with writing():
            return {w.match_id for w in writes if write(*w)}
    written: set[int] = set()
    groups: dict[tuple[str, ...], list[Write]] = {}
    for w in sorted(writes, key=lambda w: w.match_id):
        groups.setdefault(tuple(w.fields), []).append(w)
    # Writes of different fields (a deal just ended: its pause) are one statement each, in one
    # transaction; inside a caller's transaction, a savepoint keeps it usable if one fails.
    atomic = len(groups) > 1 or conn.in_atomic_block
    with transaction.atomic() if atomic else nullcontext():
        for names, group in groups.items():
            rows = _fetch_prepared(conn, _write_sql(names, len(group)), _write_params(names, group))
            written.update(row[0] for row in rows)
    return written


def _fetch_prepared(conn: Any, sql: str, params: list[str | None]) -> list[tuple[Any, ...]]:
    """The rows of ``sql`` (placeholders ``$1``, ``$2``, ...; every parameter text or None,
    typed by a cast in ``sql``) run on ``conn``, a PostgreSQL connection, as a statement
    prepared on the server once per connection (parsing and planning them is saved).
    Parameters given as text make one prepared
    statement per ``sql`` (psycopg keys them by their parameters' types too). Unprepared
    when the settings turn prepared statements off (``prepare_threshold`` None: a pooler
    in transaction mode). Errors are Django's database errors, as from its own cursors;
    Django's query log and execute wrappers do not see the statement."""
    with conn.cursor() as outer, conn.wrap_database_errors:
        with psycopg.RawCursor(outer.connection) as cursor:
            cursor.execute(sql, params, prepare=True)
            return cursor.fetchall() if cursor.description else []


@cache
def _write_sql(names: tuple[str, ...], count: int) -> str:
    """The statement of :func:`write_many` on PostgreSQL for ``count`` writes of the match
    fields ``names``: the new values and the events as ``VALUES`` lists (parameters ``$1``,
    ``$2``, ... cast to the columns' types), the ``UPDATE ... WHERE version = v AND revision
    = r`` as a data-modifying ``WITH``, and the insert of the events of the rows it updated,
    returning their match ids."""
    quote = connection.ops.quote_name
    fields = [Match._meta.get_field(name) for name in names]
    casts = ["bigint", "bigint", "bigint", *(f.cast_db_type(connection) for f in fields)]
    new = ["id", "old_version", "old_revision", *(f"new_{k}" for k in range(len(fields)))]
    row = "(" + ", ".join(f"%s::{cast}" for cast in casts) + ")"
    columns = [f for f in MatchEvent._meta.concrete_fields if not f.primary_key]
    event = "(" + ", ".join(f"%s::{f.cast_db_type(connection)}" for f in columns) + ")"
    event_columns = ", ".join(quote(f.column) for f in columns)
    match_id = quote(MatchEvent._meta.get_field("match").column)
    sql = (
        f"WITH v ({', '.join(new)}) AS (VALUES {', '.join([row] * count)}), "
        f"u AS (UPDATE {quote(Match._meta.db_table)} AS m SET "
        + ", ".join(f"{quote(f.column)} = v.new_{k}" for k, f in enumerate(fields))
        + f" FROM v WHERE m.{quote('id')} = v.id AND m.{quote('version')} = v.old_version"
        f" AND m.{quote('revision')} = v.old_revision RETURNING m.{quote('id')}) "
        f"INSERT INTO {quote(MatchEvent._meta.db_table)} ({event_columns}) "
        f"SELECT {', '.join(f'e.{quote(f.column)}' for f in columns)} "
        f"FROM (VALUES {', '.join([event] * count)}) AS e ({event_columns}) "
        f"JOIN u ON u.{quote('id')} = e.{match_id} RETURNING {match_id}"
    )
    parts = sql.split("%s")
    return parts[0] + "".join(f"${k}{part}" for k, part in enumerate(parts[1:], start=1))


def _write_params(names: tuple[str, ...], writes: list[Write]) -> list[str | None]:
    """The parameters of :func:`_write_sql` for ``writes`` as text (:func:`_pg_text`): the
    rows' values, then the events'."""
    fields = [Match._meta.get_field(name) for name in names]
    columns = [f for f in MatchEvent._meta.concrete_fields if not f.primary_key]
    params: list[str | None] = []
    for w in writes:
        params += [str(w.match_id), str(w.version), str(w.revision)]
        params += [_pg_text(f, w.fields[f.name]) for f in fields]
    for w in writes:
        params += [_pg_text(f, getattr(w.event, f.attname)) for f in columns]
    return params


def _pg_text(field: Any, value: Any) -> str | None:
    """``value`` of ``field`` as the text PostgreSQL reads for the column's type (None: NULL):
    JSON encoded with orjson (``jsonb`` keeps no text of its own), a time in ISO 8601 with its
    offset, anything else as the field prepares it, in ``str`` (which PostgreSQL reads for
    numbers, text and flags alike)."""
    if value is None:
        return None
    if isinstance(field, models.JSONField):
        return json_dumps(value)
    if type(value) in (int, str):
        return str(value)  # the field's conversion would change nothing
    value = field.get_db_prep_save(value, _connection())
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


def _db_value(field: Any, value: Any, conn: Any) -> Any:
    """``value`` as ``field`` stores it on SQLite's connection ``conn``. The snapshot is
    encoded with orjson (it is the bulk of the write); other JSON as the ORM does, since
    SQLite's JSON lookups compare the stored text."""
    if not isinstance(field, models.JSONField):
        if type(value) in (int, str, type(None)):
            return value  # stored as it is: the field's conversion would change nothing
        return field.get_db_prep_save(value, conn)
    if value is None:
        return None
    return (json_dumps if field is _SNAPSHOT else json.dumps)(value)


def _connection() -> Any:
    """This thread's default database connection itself: ``django.db.connection`` is a
    proxy that looks it up again for every attribute."""
    return connections[DEFAULT_DB_ALIAS]
