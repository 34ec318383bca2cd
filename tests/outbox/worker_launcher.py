"""The process that starts a :class:`~worker_stack.WorkerStack`'s Celery workers: Django and the
worker's modules imported once, then each worker a fork of it.

A worker started as ``celery -A config worker`` spends three to four seconds of CPU importing
Django, the project and Celery before it takes a task; the tests that SIGKILL workers start a
dozen of them. A fork of this process is the worker ``celery worker`` would be (``app.start``
with the same arguments, its own session and process group, its output in the stack's log, no
database connection or broker connection open), without that start-up.

Protocol, one JSON object a line: in ``{"start": [argv...], "log": path}`` (out ``{"pid": n}``),
``{"wait": pid, "timeout": seconds}`` (out ``{"code": exit code, or null while it runs}``).
:class:`Launcher` is the side the tests hold.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.append(str(ROOT / "tests" / "e2e"))
from query_server import LineServer  # noqa: E402


class Launcher(LineServer):
    """A running launcher for one stack (its workers are not its process group: stop them
    before the launcher)."""

    script = Path(__file__)
    name = "the worker launcher"
    start_seconds = 300.0  # Django and Celery imported

    def start(self, env: dict[str, str], argv: list[str], log: Path) -> ForkedWorker:
        """Start ``celery`` with ``argv`` (``["worker", ...]``) in ``env``, its output appended
        to ``log``."""
        pid = self.ask(env, {"start": argv, "log": str(log)}, 60)["pid"]
        return ForkedWorker(self, pid)

    def wait(self, pid: int, timeout: float) -> int | None:
        """The exit code of worker ``pid`` once it has exited (within ``timeout`` s), else
        None."""
        return self.ask(None, {"wait": pid, "timeout": timeout}, timeout + 60)["code"]


class ForkedWorker:
    """A worker the launcher started, with the part of :class:`subprocess.Popen` the stacks use:
    ``pid`` (also its process group), ``poll``, ``wait``, ``kill``."""

    def __init__(self, launcher: Launcher, pid: int) -> None:
        self.launcher = launcher
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self.launcher.wait(self.pid, 0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Its exit code, once it has exited; :class:`subprocess.TimeoutExpired` after
        ``timeout`` s (None: ten minutes, as no test waits longer for a worker to die)."""
        if self.returncode is None:
            self.returncode = self.launcher.wait(self.pid, 600 if timeout is None else timeout)
        if self.returncode is None:
            raise subprocess.TimeoutExpired(f"worker {self.pid}", timeout or 600)
        return self.returncode

    def kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _run_worker(argv: list[str], log: str) -> None:
    """In the fork: become the worker (its own session, its output in ``log``)."""
    os.setsid()
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    out = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.dup2(out, 1)
    os.dup2(out, 2)
    code = 1
    try:
        from config.celery import app

        app.start(argv=argv)
        code = 0
    except SystemExit as exit:
        code = exit.code if isinstance(exit.code, int) else 1
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _group_of(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except ProcessLookupError:
        return None


def main() -> None:
    """Import Django and the worker's modules, then start or wait for a worker per line of
    stdin until it closes."""
    channel = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # what the imports print must not mix with the replies
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    import celery.apps.beat  # noqa: F401  (what ``celery worker -B --pool threads`` loads)
    import celery.apps.worker  # noqa: F401
    import celery.beat  # noqa: F401
    import celery.concurrency.thread  # noqa: F401
    import celery.worker.consumer  # noqa: F401

    from config.celery import app

    app.loader.import_default_modules()  # the tasks, as the worker imports them at start
    channel.write(json.dumps({"ready": True}) + "\n")
    channel.flush()
    exited: dict[int, int] = {}  # the exit codes of the workers reaped
    for line in sys.stdin:
        request = json.loads(line)
        if "start" in request:
            pid = os.fork()
            if pid == 0:
                channel.close()
                _run_worker(request["start"], request["log"])
            # answered once the fork leads its process group: a SIGKILL of the group then
            # reaches it however soon it is sent
            while _group_of(pid) != pid:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    exited[pid] = os.waitstatus_to_exitcode(status)
                    break
                time.sleep(0.001)
            reply: dict = {"pid": pid}
        else:
            pid = int(request["wait"])
            deadline = time.monotonic() + float(request["timeout"])
            while pid not in exited:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    exited[pid] = os.waitstatus_to_exitcode(status)
                elif time.monotonic() >= deadline:
                    break
                else:
                    time.sleep(0.02)
            reply = {"code": exited.get(pid)}
        channel.write(json.dumps(reply) + "\n")
        channel.flush()


if __name__ == "__main__":
    sys.path[0] = ""  # as ``celery`` run in the stack's folder: the project, not tests/outbox
    main()
