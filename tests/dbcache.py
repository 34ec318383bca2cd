"""Migrated databases for the tests, made once and copied.

Every pytest worker's test database (the ``django_db_setup`` fixture of tests/conftest.py) and
every stack the end-to-end, browser, outbox and reliability tests start (tests/e2e/stack.py,
tests/outbox/worker_stack.py) needs a fresh database with every migration applied. Running
``migrate`` takes 15-90 s on a busy 2-core machine; copying a migrated database takes
milliseconds.

- SQLite: the migrated file is kept in ``var/test-cache/`` between runs, under a name made of a
  hash of what decides its content (:func:`migrations_key`: the migration files of every app,
  the settings they read, Django's version): a changed migration makes a new one, so a copy
  never has a stale schema (``rm -r var/test-cache`` forgets them). A worker's test database
  is the file loaded into memory (SQLite's backup API), a stack's a copy of it.
- PostgreSQL: a template database on the server, copied with ``CREATE DATABASE ... TEMPLATE``.
  The throwaway servers of ./test live for one run, so the template is also kept between runs
  as a dump (``pg_dump``) in ``var/test-cache/``, under the same hash and the server's version:
  a new server restores it with ``psql`` in a second instead of migrating.

Parallel runs (pytest-xdist's workers, ./test's two backends) take a lock while one of them
builds the template; the others wait for it and copy. A pytest worker that needs a test
database builds a missing template in its own process (:func:`use_migrated_copy`); a stack
started later, maybe in the middle of a test, migrates in a process of its own.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "var" / "test-cache"

MIGRATE = (
    "import os, django\n"
    "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'config.settings')\n"
    "django.setup()\n"
    "from django.core.management import call_command\n"
    "call_command('migrate', verbosity=0, interactive=False, run_syncdb=True)\n"
)


def _schema_files() -> list[Path]:
    """The files a migrated database is made from: the migration modules of every installed
    app (the project's, Django's, the third-party apps': upgrading django-axes changes the
    schema too) and the models module of an app without migrations (``run_syncdb`` makes its
    tables)."""
    import django
    from django.apps import apps

    if not apps.ready:
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
        django.setup()
    from django.db.migrations.loader import MigrationLoader

    files = []
    for config in apps.get_app_configs():
        module, _explicit = MigrationLoader.migrations_module(config.label)
        spec = importlib.util.find_spec(module) if module else None
        if spec is not None and spec.submodule_search_locations:
            for folder in spec.submodule_search_locations:
                files.extend(sorted(Path(folder).glob("*.py")))
        elif config.models_module is not None and config.models_module.__file__:
            files.append(Path(config.models_module.__file__))
    return files


#: The settings the migrations read: a settings module that sets none of them has the schema
#: of the settings it star-imports.
SCHEMA_SETTINGS = ("INSTALLED_APPS", "AUTH_USER_MODEL", "DEFAULT_AUTO_FIELD", "MIGRATION_MODULES")
BASE_SETTINGS = "config.settings"


def _module_file(module: str, env: dict[str, str]) -> Path | None:
    """The source file of the settings module ``module`` on ``env``'s ``PYTHONPATH`` (or the
    project's root), None if not found there."""
    relative = Path(*module.split("."))
    folders = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p] + [str(ROOT)]
    for folder in folders:
        for candidate in (Path(folder) / f"{relative}.py", Path(folder) / relative / "__init__.py"):
            if candidate.is_file():
                return candidate
    return None


def schema_settings_module(env: dict[str, str]) -> str:
    """The settings module whose schema ``env``'s ``DJANGO_SETTINGS_MODULE`` has: the project's
    (``config.settings``) when the named module only star-imports it (directly or through
    other such modules: the worker settings of the outbox, records, reliability and reviews
    tests) and never names a setting of :data:`SCHEMA_SETTINGS`, so that their stacks copy
    the one template the test databases use instead of migrating one each; else the named
    module itself (a template of its own)."""
    import ast

    named = env.get("DJANGO_SETTINGS_MODULE", BASE_SETTINGS)
    module, seen = named, set()
    while module != BASE_SETTINGS:
        path = _module_file(module, env)
        if path is None or module in seen:
            return named
        seen.add(module)
        try:
            tree = ast.parse(path.read_text())
        except (OSError, SyntaxError, ValueError):
            return named
        bases = [
            node.module
            for node in tree.body
            if isinstance(node, ast.ImportFrom)
            and node.level == 0
            and [alias.name for alias in node.names] == ["*"]
        ]
        names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
        names |= {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
        if len(bases) != 1 or bases[0] is None or names & set(SCHEMA_SETTINGS):
            return named
        module = bases[0]
    return BASE_SETTINGS


def migrations_key(env: dict[str, str]) -> str:
    """A hash of what decides a migrated database's content: every installed app's migration
    files (:func:`_schema_files`), the settings the migrations read (the installed apps, the
    user model, the default primary key, the migration modules), Django's version and the
    settings module whose schema ``env``'s settings have (:func:`schema_settings_module`).
    The rest of the settings file is left out: a changed timeout or schedule must not cost
    every run a ``migrate``."""
    import django

    digest = hashlib.sha256()
    digest.update(django.get_version().encode())
    digest.update(schema_settings_module(env).encode())
    files = _schema_files()  # sets Django up if need be
    from django.conf import settings

    for name in SCHEMA_SETTINGS:
        digest.update(f"{name}={getattr(settings, name, None)!r}".encode())
    for path in files:
        name = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        digest.update(str(name).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _migrate(env: dict[str, str], database_url: str) -> None:
    """``migrate`` the database of ``database_url`` in a new Python process."""
    result = subprocess.run(
        [sys.executable, "-c", MIGRATE],
        cwd=ROOT,
        env={**env, "DATABASE_URL": database_url},
        capture_output=True,
        text=True,
        timeout=600,
    )
    if result.returncode != 0:
        raise RuntimeError(f"migrate failed:\n{result.stdout}\n{result.stderr}")


@contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def sqlite_template(env: dict[str, str], migrate: Callable[[str], None] | None = None) -> Path:
    """The migrated SQLite file of the current migrations key, built under a lock if missing:
    ``migrate(path)`` migrates the empty file (by default ``migrate`` in a new process)."""
    key = migrations_key(env)
    template = CACHE / f"migrated-{key}.sqlite3"
    if not template.exists():
        with _file_lock(CACHE / f"migrated-{key}.lock"):
            if not template.exists():
                building = CACHE / f"building-{key}-{os.getpid()}.sqlite3"
                try:
                    if migrate is None:
                        _migrate(env, f"sqlite:///{building}")
                    else:
                        migrate(str(building))
                    # one self-contained file: the write-ahead log folded in
                    connection = sqlite3.connect(building)
                    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                    connection.execute("PRAGMA journal_mode=DELETE")
                    connection.close()
                    os.replace(building, template)
                finally:
                    for suffix in ("", "-wal", "-shm", "-journal"):
                        Path(f"{building}{suffix}").unlink(missing_ok=True)
                _prune(keep=key)
    return template


def sqlite_copy(env: dict[str, str], target: Path) -> None:
    """Write a migrated SQLite database to ``target`` (made once per migrations key, under a
    lock, then copied)."""
    shutil.copyfile(sqlite_template(env), target)


def _prune(keep: str) -> None:
    """Remove the cached databases of other migration states older than a day."""
    for path in CACHE.glob("migrated-*"):
        if keep not in path.name and time.time() - path.stat().st_mtime > 86400:
            path.unlink(missing_ok=True)


def _as_url(conninfo: str) -> str:
    """``conninfo`` as the ``postgres://`` URL ``DATABASE_URL`` takes (dj-database-url reads
    no libpq key=value string)."""
    from urllib.parse import quote

    from psycopg.conninfo import conninfo_to_dict

    parts = conninfo_to_dict(conninfo)
    auth = quote(str(parts.get("user", "")), safe="")
    if parts.get("password"):
        auth += ":" + quote(str(parts["password"]), safe="")
    host = f"{parts.get('host', 'localhost')}:{parts.get('port', 5432)}"
    return f"postgres://{auth + '@' if auth else ''}{host}/{quote(str(parts['dbname']), safe='')}"


def _with_dbname(conninfo: str, name: str) -> str:
    """``conninfo`` (a libpq URL or key=value string) naming the database ``name``."""
    from psycopg.conninfo import make_conninfo

    return make_conninfo(conninfo, dbname=name)


def _pg_bin(name: str) -> str | None:
    """A PostgreSQL client program (``pg_dump``, ``psql``) of the newest installed version."""
    if str(ROOT / "tests") not in sys.path:
        sys.path.insert(0, str(ROOT / "tests"))
    from throwaway import postgres_bin_dir

    folder = postgres_bin_dir()
    found = Path(folder) / name if folder else None
    return str(found) if found and found.exists() else shutil.which(name)


def _pg_dump_path(key: str, conn: Any) -> Path | None:
    """Where the template of ``key`` is kept between servers (None without ``pg_dump``): the
    server's and the client's versions are part of the name."""
    pg_dump = _pg_bin("pg_dump")
    if pg_dump is None:
        return None
    try:
        version = subprocess.run(
            [pg_dump, "--version"], capture_output=True, text=True, timeout=30
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.search(r"\d+(\.\d+)+", version)  # "pg_dump (PostgreSQL) 15.18 (Debian ...)"
    if found is None:
        return None
    client = found.group()
    server = conn.execute("SHOW server_version_num").fetchone()[0]
    return CACHE / f"migrated-{key}-pg{server}-dump{client}.sql"


def _restore(dump: Path, url: str) -> bool:
    """Load ``dump`` into the empty database of ``url`` with ``psql``; False if that failed."""
    psql = _pg_bin("psql")
    if psql is None:
        return False
    result = subprocess.run(
        [psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "--single-transaction", "-f", str(dump), url],
        capture_output=True,
        text=True,
        timeout=600,
    )
    return result.returncode == 0


def _dump(dump: Path, url: str) -> None:
    """Keep the migrated database of ``url`` in ``dump`` (written whole, then renamed)."""
    pg_dump = _pg_bin("pg_dump")
    partial = dump.with_name(f"{dump.name}.{os.getpid()}")
    CACHE.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(
        [pg_dump, "--no-owner", "--no-privileges", "-f", str(partial), url],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if result.returncode == 0:
        os.replace(partial, dump)
    else:
        partial.unlink(missing_ok=True)


def postgresql_copy(
    env: dict[str, str],
    admin_url: str,
    name: str,
    migrate: Callable[[str], None] | None = None,
) -> None:
    """Create the database ``name`` on ``admin_url``'s server as a copy of a migrated template
    (made once per server and migrations key, under an advisory lock: restored from the dump
    kept in ``var/test-cache/`` when there is one, else migrated, by ``migrate(database name)``
    or ``migrate`` in a new process, and dumped for the next server)."""
    import psycopg

    key = migrations_key(env)
    template = f"migrated_{key}"
    lock = int(key[:15], 16)
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", [lock])
        try:
            found = conn.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", [template]
            ).fetchone()
            if not found:
                building = template + "_building"
                url = _with_dbname(admin_url, building)
                dump = _pg_dump_path(key, conn)
                conn.execute(f'DROP DATABASE IF EXISTS "{building}" WITH (FORCE)')
                conn.execute(f'CREATE DATABASE "{building}"')
                if dump is None or not dump.exists() or not _restore(dump, url):
                    conn.execute(f'DROP DATABASE IF EXISTS "{building}" WITH (FORCE)')
                    conn.execute(f'CREATE DATABASE "{building}"')
                    if migrate is None:
                        _migrate(env, _as_url(url))
                    else:
                        migrate(building)
                    if dump is not None:
                        _dump(dump, url)
                        _prune(keep=key)
                _retry(conn, f'ALTER DATABASE "{building}" RENAME TO "{template}"')
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            _retry(conn, f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", [lock])


def _retry(conn: Any, sql: str) -> None:
    """Run ``sql``, retrying while the migrating process' sessions are still closing (a
    template must have no session open)."""
    import psycopg

    for attempt in range(100):
        try:
            conn.execute(sql)
            return
        except psycopg.errors.ObjectInUse:
            if attempt == 99:
                raise
            time.sleep(0.1)


def prepare(
    env: dict[str, str], database_url: str, admin_url: str | None, name: str | None
) -> None:
    """Make the migrated database a stack uses: ``database_url`` a SQLite file, or ``name`` on
    the PostgreSQL server of ``admin_url``."""
    if admin_url:
        assert name is not None
        postgresql_copy(env, admin_url, name)
    else:
        sqlite_copy(env, Path(database_url.removeprefix("sqlite:///")))


# --- the test database of a pytest process ----------------------------------------------------


def _point(connection: Any, name: str) -> None:
    """Point ``connection`` (a Django connection) at the database ``name``, closing what it
    had open (PostgreSQL: its pool too, whose connections name the old database)."""
    from django.conf import settings

    connection.close()
    if hasattr(connection, "close_pool"):
        connection.close_pool()
    settings.DATABASES[connection.alias]["NAME"] = name
    connection.settings_dict["NAME"] = name


def _migrate_here(connection: Any) -> Callable[[str], None]:
    """A ``migrate`` for the templates run in this process through ``connection``, pointed at
    the database being built for the while (as Django's own test setup does); only before any
    test has used the connection."""

    def migrate(name: str) -> None:
        from django.contrib.contenttypes.models import ContentType
        from django.core.management import call_command

        old = connection.settings_dict["NAME"]
        _point(connection, name)
        try:
            call_command(
                "migrate",
                verbosity=0,
                interactive=False,
                database=connection.alias,
                run_syncdb=True,
            )
        finally:
            _point(connection, old)
            ContentType.objects.clear_cache()  # the ids were the template's, not yet a copy's

    return migrate


def _test_name(connection: Any) -> str:
    """The test database's name, as Django's test setup names it (``TEST["NAME"]``, which
    pytest-django suffixes per xdist worker; else ``test_<NAME>``, or SQLite's in-memory
    database)."""
    from django.db.backends.base.creation import TEST_DATABASE_PREFIX

    configured = connection.settings_dict["TEST"].get("NAME")
    if connection.vendor == "sqlite":
        if not configured or configured == ":memory:":
            return f"file:memorydb_{connection.alias}?mode=memory&cache=shared"
        return configured
    return configured or TEST_DATABASE_PREFIX + connection.settings_dict["NAME"]


def use_migrated_copy(connection: Any, env: dict[str, str]) -> str:
    """Point ``connection`` (a Django connection, not yet used by a test) at a new test
    database that is a copy of the migrated template, in place of Django's ``create_test_db``
    (which migrates each worker's database from nothing). Return the name it had, for
    Django's ``destroy_test_db``.

    PostgreSQL: ``CREATE DATABASE <test name> TEMPLATE migrated_<key>``. SQLite: the cached
    migrated file loaded into the in-memory test database with SQLite's backup API (or copied
    to ``TEST["NAME"]`` when that names a file). A missing template is built in this
    process."""
    from django.core.management import call_command

    old = connection.settings_dict["NAME"]
    name = _test_name(connection)
    migrate = _migrate_here(connection)
    if connection.vendor == "postgresql":
        from psycopg.conninfo import make_conninfo

        settings_dict = connection.settings_dict
        parts = {
            "dbname": old,
            "host": settings_dict.get("HOST"),
            "port": settings_dict.get("PORT"),
            "user": settings_dict.get("USER"),
            "password": settings_dict.get("PASSWORD"),
        }
        admin = make_conninfo(**{k: str(v) for k, v in parts.items() if v})
        postgresql_copy(env, admin, name, migrate)
        _point(connection, name)
    elif connection.vendor == "sqlite":
        template = sqlite_template(env, migrate)
        _point(connection, name)
        if connection.is_in_memory_db():
            connection.ensure_connection()  # Django keeps it open: the database lives with it
            source = sqlite3.connect(template)
            try:
                source.backup(connection.connection)
            finally:
                source.close()
        else:
            shutil.copyfile(template, name)
    else:
        raise RuntimeError(f"no migrated template for {connection.vendor}")
    call_command("createcachetable", database=connection.alias)
    connection.ensure_connection()
    return old
