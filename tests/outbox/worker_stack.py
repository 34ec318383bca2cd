"""A database, a Redis broker and Celery workers (with beat) as real processes, for the outbox
tests that SIGKILL a worker while it sends. The database is a fresh SQLite file, or a fresh
database on the PostgreSQL server of ``DATABASE_URL`` (the second ./test run)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

from config.embedded_redis import EmbeddedRedis

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
import dbcache  # noqa: E402
from query_server import Queries  # noqa: E402

# this folder is not on the path (tests/outbox/conftest.py loads its modules by file)
if "worker_launcher" not in sys.modules:
    _spec = importlib.util.spec_from_file_location(
        "worker_launcher", Path(__file__).with_name("worker_launcher.py")
    )
    assert _spec is not None and _spec.loader is not None
    sys.modules["worker_launcher"] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sys.modules["worker_launcher"])
from worker_launcher import ForkedWorker, Launcher  # noqa: E402

BIN = Path(sys.executable).parent


class WorkerStack:
    def __init__(self, smtp_port: int) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="bao2-outbox-"))
        self.redis = EmbeddedRedis(self.tmp / "redis.sock")
        self.worker: ForkedWorker | None = None
        self.queries = Queries(self.tmp / "queries.log")
        self.launcher = Launcher(self.tmp / "worker.log")
        self.workers_started = 0
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "outbox_worker_settings",
            "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), str(ROOT)]),
            "OUTBOX_TEST_SMTP_PORT": str(smtp_port),
            "REDIS_URL": self.redis.url,
            "VAR_DIR": str(self.tmp),
            "PYTHONUNBUFFERED": "1",
            "LOG_LEVEL": "WARNING",
        }
        self.env.pop("EMBEDDED_REDIS_DIR", None)
        self.env.pop("CELERY_BROKER_URL", None)
        self.pg_admin_url: str | None = None
        url = os.environ.get("DATABASE_URL", "")
        if url.startswith("postgres"):
            self.db_name = "outbox_" + uuid.uuid4().hex[:10]
            self.pg_admin_url = url
            self.env["DATABASE_URL"] = url.rsplit("/", 1)[0] + "/" + self.db_name
        else:
            self.env["DATABASE_URL"] = f"sqlite:///{self.tmp / 'db.sqlite3'}"

    def start(self) -> WorkerStack:
        self.redis.start()
        # a copy of a database migrated once (tests/dbcache.py), not a migrate per stack
        dbcache.prepare(
            self.env, self.env["DATABASE_URL"], self.pg_admin_url, getattr(self, "db_name", None)
        )
        return self

    def python(self, code: str) -> object:
        """Run ``code`` with Django set up on the stack's database, in a process of its own;
        return what it assigns to ``out`` (as JSON). The process is a fork of one that set
        Django up once (tests/e2e/query_server.py): as fresh as a new ``python -c``, without
        its seconds of start-up, so that polling the outbox does not slow the worker."""
        return self.queries.run(self.env, code)

    def start_worker(self) -> None:
        """Start a worker (4 threads) with beat, as its own process group: what
        ``celery -A config worker -B ...`` starts, forked from a process that imported Django
        and Celery once for the stack (tests/outbox/worker_launcher.py), not seconds of
        imports per worker."""
        assert self.worker is None
        self.workers_started += 1
        self.worker = self.launcher.start(
            self.env,
            [
                "worker",
                "-B",
                "--pool",
                "threads",
                "--concurrency",
                "4",
                "--loglevel",
                "WARNING",
                "--schedule",
                str(self.tmp / f"beat-{self.workers_started}"),
                "--hostname",
                f"outbox-{uuid.uuid4().hex[:6]}@%h",
            ],
            self.tmp / "worker.log",
        )

    def kill_worker(self) -> None:
        """SIGKILL the worker and its children: no cleanup, no acknowledgement."""
        assert self.worker is not None
        try:
            os.killpg(self.worker.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.worker.wait()
        self.worker = None

    def log(self) -> str:
        path = self.tmp / "worker.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self) -> None:
        self.queries.stop()
        if self.worker is not None:
            os.killpg(self.worker.pid, signal.SIGTERM)
            try:
                self.worker.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.worker.pid, signal.SIGKILL)
                self.worker.wait()
            self.worker = None
        self.launcher.stop()
        self.redis.stop()
        if self.pg_admin_url:
            import psycopg

            with psycopg.connect(self.pg_admin_url, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{self.db_name}" WITH (FORCE)')
        shutil.rmtree(self.tmp, ignore_errors=True)
