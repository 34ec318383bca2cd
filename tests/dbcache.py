"""Migrated databases for the test stacks, made once and copied.

Every stack the end-to-end, browser, outbox and reliability tests start (tests/e2e/stack.py,
tests/outbox/worker_stack.py) needs a fresh database with every migration applied. Running
``migrate`` takes 15-90 s on a busy 2-core machine; copying a migrated file takes milliseconds.

- SQLite: the migrated file is kept in ``var/test-cache/`` between runs, under a name made of a
  hash of every migration file, the settings files and Django's version: a changed migration
  makes a new one, so a copy never has a stale schema (``rm -r var/test-cache`` forgets them).
- PostgreSQL: a template database on the server, made once per server (the throwaway servers of
  ./test live for one run), copied with ``CREATE DATABASE ... TEMPLATE``.

Parallel runs (pytest-xdist's workers, ./test's two backends) take a lock while one of them
migrates; the others wait for it and copy.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "var" / "test-cache"

MIGRATE = (
    "import os, django\n"
    "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'config.settings')\n"
    "django.setup()\n"
    "from django.core.management import call_command\n"
    "call_command('migrate', verbosity=0, interactive=False)\n"
)


def migrations_key(env: dict[str, str]) -> str:
    """A hash of what decides a migrated database's content: every migration file, the
    settings files, Django's version and the settings module ``env`` names."""
    import django

    digest = hashlib.sha256()
    digest.update(django.get_version().encode())
    digest.update(env.get("DJANGO_SETTINGS_MODULE", "config.settings").encode())
    files = [*sorted(ROOT.glob("*/migrations/*.py")), ROOT / "config" / "settings.py"]
    for path in files:
        digest.update(str(path.relative_to(ROOT)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _migrate(env: dict[str, str], database_url: str) -> None:
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
def _file_lock(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def sqlite_copy(env: dict[str, str], target: Path) -> None:
    """Write a migrated SQLite database to ``target`` (made once per migrations key, under a
    lock, then copied)."""
    key = migrations_key(env)
    template = CACHE / f"migrated-{key}.sqlite3"
    if not template.exists():
        with _file_lock(CACHE / f"migrated-{key}.lock"):
            if not template.exists():
                building = CACHE / f"building-{key}-{os.getpid()}.sqlite3"
                _migrate(env, f"sqlite:///{building}")
                # one self-contained file: the write-ahead log folded in
                connection = sqlite3.connect(building)
                connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                connection.execute("PRAGMA journal_mode=DELETE")
                connection.close()
                os.replace(building, template)
                for suffix in ("-wal", "-shm"):
                    Path(f"{building}{suffix}").unlink(missing_ok=True)
                _prune(keep=key)
    shutil.copyfile(template, target)


def _prune(keep: str) -> None:
    """Remove the cached databases of other migration states older than a day."""
    for path in CACHE.glob("migrated-*"):
        if keep not in path.name and time.time() - path.stat().st_mtime > 86400:
            path.unlink(missing_ok=True)


def postgresql_copy(env: dict[str, str], admin_url: str, name: str) -> None:
    """Create the database ``name`` on ``admin_url``'s server as a copy of a migrated template
    (made once per server and migrations key, under an advisory lock)."""
    import psycopg

    key = migrations_key(env)
    template = f"migrated_{key}"
    base = admin_url.rsplit("/", 1)[0]
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", [int(key[:15], 16)])
        try:
            found = conn.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", [template]
            ).fetchone()
            if not found:
                building = template + "_building"
                conn.execute(f'DROP DATABASE IF EXISTS "{building}" WITH (FORCE)')
                conn.execute(f'CREATE DATABASE "{building}"')
                _migrate(env, f"{base}/{building}")
                _retry(conn, f'ALTER DATABASE "{building}" RENAME TO "{template}"')
            _retry(conn, f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", [int(key[:15], 16)])


def _retry(conn: object, sql: str) -> None:
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
