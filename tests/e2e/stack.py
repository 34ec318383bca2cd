"""The real stack for end-to-end tests: a Redis server, a fresh database, the ASGI server
(uvicorn) and a Celery worker with beat, as separate processes that can be SIGKILLed and
restarted.

Run as a script it is the load test's stack: ``python tests/e2e/stack.py --asgi 2 -- --tables
200 --seconds 20 --think 1`` starts it with DEBUG off and two uvicorn processes, runs
``python -m bench.loadtest`` against them with the arguments after ``--``, and stops it.
``--runs 5 --databases postgresql,sqlite`` does that five times on each database, taking
turns (a fresh stack and database each time; PostgreSQL: ``DATABASE_URL``'s server, else a
throwaway one), and prints the min / median / max of every figure; ``--stacks 2`` runs two
stacks of ``--asgi`` uvicorn processes and a Celery worker each (separate process groups, as on
two machines) sharing the one database and Redis, with every table's sockets spread over both.

The database is a fresh SQLite file, or, when ``DATABASE_URL`` points at PostgreSQL (the
second ./test run), a fresh database created on that server.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
import dbcache  # noqa: E402
from query_server import Queries  # noqa: E402
from throwaway import Servers  # noqa: E402

from config.serve import UVICORN_OPTIONS, WEBSOCKET_MAX_MESSAGE  # noqa: E402

BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Stack:
    def __init__(self, bot_delay: float = 0.0, sweep_seconds: float = 1.0) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="bao2-e2e-"))
        self.port = free_port()
        self.procs: dict[str, subprocess.Popen] = {}
        self.logs: dict[str, Path] = {}
        self.redis: subprocess.Popen | None = None
        self.socket = self.tmp / "redis.sock"
        self.env = {
            **os.environ,
            "REDIS_URL": f"unix://{self.socket}",
            "VAR_DIR": str(self.tmp),
            "MATCHES_BOT_DELAY_SECONDS": str(bot_delay),
            "MATCHES_SWEEP_SECONDS": str(sweep_seconds),
            "PYTHONUNBUFFERED": "1",
            "LOG_LEVEL": "WARNING",
            "DB_CONN_MAX_AGE": "300",
            "ASGI_EXTRA_ROUTES": "bench.broadcast_ws",  # the load test's bare baseline
            # bench/ (the load test, its tables) is in the source tree, not installed
            "PYTHONPATH": os.pathsep.join(
                p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p
            ),
            # the layer ./run uses (CHANNEL_LAYER=core for channels-redis' default layer)
            "CHANNEL_LAYER": os.environ.get("CHANNEL_LAYER", "pubsub"),
        }
        self.env.pop("EMBEDDED_REDIS_DIR", None)
        self.queries = Queries(self.tmp / "queries.log")
        self.pg_admin_url: str | None = None
        self.db_name: str | None = None
        url = os.environ.get("DATABASE_URL", "")
        if url.startswith("postgres"):
            self.db_name = "e2e_" + uuid.uuid4().hex[:10]
            self.pg_admin_url = url
            self.env["DATABASE_URL"] = url.rsplit("/", 1)[0] + "/" + self.db_name
        else:
            self.env["DATABASE_URL"] = f"sqlite:///{self.tmp / 'db.sqlite3'}"

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> Stack:
        from config.embedded_redis import server_command

        self.redis = subprocess.Popen(
            server_command(self.socket), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 15
        from config.embedded_redis import is_answering

        while not is_answering(self.socket):
            if time.monotonic() > deadline:
                raise RuntimeError("redis did not start")
            time.sleep(0.05)
        # a copy of a database migrated once (tests/dbcache.py), not a migrate per stack
        dbcache.prepare(self.env, self.env["DATABASE_URL"], self.pg_admin_url, self.db_name)
        self.start_asgi()
        self.start_worker()
        return self

    def manage(self, *args: str) -> str:
        result = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if result.returncode != 0:
            raise RuntimeError(f"manage.py {args} failed:\n{result.stdout}\n{result.stderr}")
        return result.stdout

    def _spawn(self, name: str, argv: list[str]) -> None:
        log = self.tmp / f"{name}.log"
        self.logs[name] = log
        self.procs[name] = subprocess.Popen(
            argv,
            cwd=ROOT,
            env=self.env,
            stdout=open(log, "ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def start_asgi(self, name: str = "asgi", port: int | None = None) -> str:
        """Start an ASGI server process, uvicorn (``ASGI_SERVER=daphne``: daphne), another one
        with a new ``name`` and ``port``; return its URL."""
        port = port or self.port
        if os.environ.get("ASGI_SERVER") == "daphne":  # to compare servers (benchmarks.md)
            argv = [
                str(BIN / "daphne"),
                *("--websocket-max-message-size", str(WEBSOCKET_MAX_MESSAGE)),
                *("--websocket-max-frame-size", str(WEBSOCKET_MAX_MESSAGE)),
                *("-b", "127.0.0.1", "-p", str(port), "config.asgi:application"),
            ]
        else:
            argv = [
                str(BIN / "uvicorn"),
                *UVICORN_OPTIONS,
                *("--host", "127.0.0.1", "--port", str(port), "config.asgi:application"),
            ]
        self._spawn(name, argv)
        url = f"http://127.0.0.1:{port}"
        # Django's start-up takes a few seconds; on a machine loaded by a whole ./test, a minute
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(url + "/healthz", timeout=2).read()
                return url
            except OSError as error:
                if self.procs[name].poll() is not None or time.monotonic() > deadline:
                    log = self.logs[name].read_text()
                    raise RuntimeError("the ASGI server did not start:\n" + log) from error
                time.sleep(0.1)

    def start_worker(self, name: str = "worker", beat: bool = True) -> None:
        """Start a Celery worker (another one: a new ``name``; ``beat``: with the one beat)."""
        self._spawn(
            name,
            [
                str(BIN / "celery"),
                "-A",
                "config",
                "worker",
                *(["-B", "--schedule", str(self.tmp / "beat-schedule")] if beat else []),
                "--pool",
                "threads",
                "--concurrency",
                "4",
                "--loglevel",
                "WARNING",
                "--hostname",
                f"e2e-{self.port}-{name}@%h",
            ],
        )

    def kill(self, name: str) -> None:
        """SIGKILL a process group (the service and its children)."""
        proc = self.procs.pop(name)
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()

    def call_command(self, *args: str) -> str:
        """``manage.py`` ``args`` run through the query process (as ``manage`` does, without
        starting Python and Django again); returns what the command wrote to its stdout."""
        code = (
            "import io\n"
            "from django.core.management import call_command\n"
            "from bench.loadtest import Command as LoadTest\n"
            "buffer = io.StringIO()\n"
            f"name, *rest = {list(args)!r}\n"
            "call_command(LoadTest() if name == 'loadtest' else name, *rest, stdout=buffer)\n"
            "out = buffer.getvalue()\n"
        )
        return self.query(code)

    def setup_tables(self, count: int = 1, **kwargs) -> list[dict]:
        args = ["loadtest", "--setup-only", "--tables", str(count), "--prefix", "e2e"]
        if "options" in kwargs:
            args += ["--options", json.dumps(kwargs["options"])]
        if kwargs.get("time_limit"):
            args += ["--time-limit", str(kwargs["time_limit"])]
        if kwargs.get("no_clocks"):
            args.append("--no-clocks")
        if kwargs.get("spectators"):
            args += ["--spectators", str(kwargs["spectators"])]
        return json.loads(self.call_command(*args).strip().splitlines()[-1])

    def query(self, code: str, timeout: float = 300) -> object:
        """Run Python with Django set up against the stack's database, in a process of its
        own; returns the JSON that the code assigns to ``out`` (RuntimeError: the traceback).

        Each query is a fork of one process that set Django up once (tests/e2e/query_server.py),
        as fresh as a new ``python -c`` but without its seconds of start-up."""
        self.logs["queries"] = self.queries.log
        return self.queries.run(self.env, code, timeout)

    def stop(self) -> None:
        self.queries.stop()
        for name in list(self.procs):
            proc = self.procs[name]
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
            del self.procs[name]
        if self.redis is not None:
            self.redis.terminate()
            self.redis.wait()
        if self.pg_admin_url:
            import psycopg

            with psycopg.connect(self.pg_admin_url, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{self.db_name}" WITH (FORCE)')
        shutil.rmtree(self.tmp, ignore_errors=True)


#: The load test's figures summarised over runs (``figures`` line of ``python -m bench.loadtest``),
#: with how each is printed.
FIGURES = {
    "failed_connects": "{:.0f}",
    "retries": "{:.0f}",
    "actions_per_s": "{:.0f}",
    "p50_ms": "{:.0f}",
    "p99_ms": "{:.0f}",
    "lost": "{:.0f}",
    "resyncs": "{:.0f}",
    "resync_share": "{:.2%}",
    "baseline_actions_per_s": "{:.0f}",
    "ratio": "{:.2f}",
    "baseline_thinking_actions_per_s": "{:.0f}",
    "baseline_thinking_p99_ms": "{:.0f}",
    "ratio_thinking": "{:.2f}",
    "baseline_lost": "{:.0f}",
    "client_cpu_share": "{:.0%}",
    "machine_busy": "{:.0%}",
    "load_1min": "{:.1f}",
    "cpu_ms_asgi": "{:.2f}",
    "cpu_ms_worker": "{:.2f}",
    "cpu_ms_postgresql": "{:.2f}",
    "cpu_ms_redis": "{:.2f}",
    "cpu_ms_client": "{:.2f}",
    "baseline_cpu_ms_asgi": "{:.2f}",
    "baseline_cpu_ms_redis": "{:.2f}",
    "baseline_cpu_ms_client": "{:.2f}",
    "baseline_machine_busy": "{:.0%}",
}


def run_load(
    asgi: int,
    stacks: int,
    loadtest: list[str],
    bot_delay: float = 0.8,
    postgres: int | None = None,
) -> dict[str, float]:
    """Start ``stacks`` stacks of ``asgi`` uvicorn processes and one Celery worker each (one
    Redis and one database shared by all; only the first worker runs beat; every group of
    processes its own session, as on separate machines), run ``python -m bench.loadtest`` against
    all of them with ``loadtest`` arguments, stop everything; return the figures printed.
    ``bot_delay``: seconds the worker's bots wait before acting. The CPU per action of the ASGI
    processes, the workers, Redis and the PostgreSQL server ``postgres`` (its postmaster's
    pid, if known) is among the figures."""
    stack = Stack(bot_delay=bot_delay, sweep_seconds=5.0).start()
    try:
        # interleaved, so that consecutive seats of a table go to different stacks
        ports = {(0, 0): stack.port}
        for k in range(stacks):
            for a in range(asgi):
                if (k, a) not in ports:
                    ports[k, a] = free_port()
                    stack.start_asgi(f"asgi{k}-{a}", ports[k, a])
            if k:
                stack.start_worker(f"worker{k}", beat=False)
        urls = [f"http://127.0.0.1:{ports[k, a]}" for a in range(asgi) for k in range(stacks)]
        for k in range(stacks):
            print(
                f"stack {k + 1}: ASGI servers on ports {[ports[k, a] for a in range(asgi)]}",
                flush=True,
            )
        command = [sys.executable, "-m", "bench.loadtest", *loadtest]
        for url in urls:
            command += ["--url", url]
        kinds = {
            "asgi": [p.pid for n, p in stack.procs.items() if n.startswith("asgi")],
            "worker": [p.pid for n, p in stack.procs.items() if n.startswith("worker")],
            "redis": [stack.redis.pid],
            "postgresql": [postgres] if postgres else [],
        }
        command += [f"--cpu={k}={','.join(map(str, pids))}" for k, pids in kinds.items() if pids]
        figures: dict[str, float] = {}
        with subprocess.Popen(
            command, cwd=ROOT, env=stack.env, stdout=subprocess.PIPE, text=True
        ) as proc:
            for line in proc.stdout:
                if line.startswith("figures "):
                    figures = json.loads(line[len("figures ") :])
                else:
                    print(line, end="", flush=True)
        if proc.returncode:
            raise RuntimeError(f"python -m bench.loadtest exited with {proc.returncode}")
        return figures
    finally:
        stack.stop()


def summary(results: dict[str, list[dict[str, float]]]) -> str:
    """A Markdown table: min / median / max of every figure, one row per database."""
    names = [n for n in FIGURES if any(n in r for runs in results.values() for r in runs)]
    lines = [
        "| database | runs | " + " | ".join(names) + " |",
        "| --- | --- | " + " | ".join("---" for _ in names) + " |",
    ]
    for database, runs in results.items():
        cells = []
        for name in names:
            values = sorted(r[name] for r in runs if not math.isnan(r.get(name, math.nan)))
            if not values:
                cells.append("")
                continue
            low, mid, high = (
                FIGURES[name].format(v) for v in (values[0], median(values), values[-1])
            )
            cells.append(low if low == high else f"{low} / {mid} / {high}")
        lines.append(f"| {database} | {len(runs)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Start a stack with ``--asgi`` uvicorn processes, run the load test against it, stop it;
    with ``--runs`` and ``--databases``, that many runs on each database, taking turns, then
    the min / median / max of every figure."""
    import argparse

    parser = argparse.ArgumentParser(prog="python tests/e2e/stack.py")
    parser.add_argument("--asgi", type=int, default=2, help="uvicorn processes per stack (2)")
    parser.add_argument(
        "--stacks",
        type=int,
        default=1,
        help="stacks of --asgi uvicorn processes and a Celery worker, sharing one database and "
        "one Redis (scale-out; default 1)",
    )
    parser.add_argument("--runs", type=int, default=1, help="runs per database (taking turns)")
    parser.add_argument(
        "--bot-delay",
        type=float,
        default=0.8,
        help="seconds the worker's bots wait before acting (loadtest --bots; default 0.8)",
    )
    parser.add_argument(
        "--databases",
        default="",
        help="comma-separated: postgresql (DATABASE_URL's server, else a throwaway one), "
        "sqlite; default: DATABASE_URL's",
    )
    parser.add_argument("loadtest", nargs="*", help="arguments of python -m bench.loadtest")
    args = parser.parse_args(argv)
    os.environ.setdefault("DEBUG", "0")
    url = os.environ.get("DATABASE_URL", "")
    databases = [d for d in args.databases.split(",") if d] or [
        "postgresql" if url.startswith("postgres") else "sqlite"
    ]
    servers = None
    results: dict[str, list[dict[str, float]]] = {}
    try:
        # the databases take turns, so that the machine's load drifting during the runs
        # weighs on each alike
        for run in range(args.runs):
            for database in databases:
                if database == "postgresql" and not url.startswith("postgres"):
                    if servers is None:
                        servers = Servers()
                        servers.start()
                    os.environ["DATABASE_URL"] = servers.env["DATABASE_URL"]
                elif database == "sqlite":
                    os.environ.pop("DATABASE_URL", None)
                elif database != "postgresql":
                    parser.error(f"unknown database {database!r}")
                print(f"== {database}, run {run + 1} of {args.runs}", flush=True)
                results.setdefault(database, []).append(
                    run_load(
                        args.asgi,
                        args.stacks,
                        args.loadtest,
                        args.bot_delay,
                        servers.postmaster_pid()
                        if servers is not None and database == "postgresql"
                        else None,
                    )
                )
                if url:
                    os.environ["DATABASE_URL"] = url
    finally:
        if servers is not None:
            servers.stop()
    if args.runs > 1 or len(databases) > 1:
        print(summary(results))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
