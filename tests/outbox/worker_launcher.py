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
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class Launcher:
    """A running launcher for one stack: started on first use, started again when it has
    died or the stack's environment has changed (e.g. another settings module)."""

    def __init__(self, log: Path) -> None:
        self.log = log
        self._server: subprocess.Popen | None = None
        self._env: dict[str, str] = {}
        self._lock = threading.Lock()

    def _ask(self, env: dict[str, str] | None, request: dict, timeout: float) -> dict:
        with self._lock:
            server = self._server
            if server is not None and (
                server.poll() is not None or (env is not None and self._env != env)
            ):
                self.stop()
                server = None
            if server is None:
                assert env is not None, "no launcher runs"
                with open(self.log, "ab") as log:
                    server = subprocess.Popen(
                        [sys.executable, str(Path(__file__))],
                        cwd=ROOT,
                        env=env,
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                        stderr=log,
                        text=True,
                        start_new_session=True,
                    )
                self._server, self._env = server, dict(env)
                self._reply(300)  # {"ready": true}: Django and Celery are imported
            assert server.stdin is not None
            server.stdin.write(json.dumps(request) + "\n")
            server.stdin.flush()
            return json.loads(self._reply(timeout))

    def _reply(self, timeout: float) -> str:
        server = self._server
        assert server is not None and server.stdout is not None
        ready, _, _ = select.select([server.stdout], [], [], timeout)
        line = server.stdout.readline() if ready else ""
        if not line:
            self.stop()
            tail = self.log.read_text(errors="replace")[-3000:] if self.log.exists() else ""
            raise RuntimeError(f"the worker launcher gave no answer in {timeout} s:\n{tail}")
        return line

    def start(self, env: dict[str, str], argv: list[str], log: Path) -> ForkedWorker:
        """Start ``celery`` with ``argv`` (``["worker", ...]``) in ``env``, its output appended
        to ``log``."""
        pid = self._ask(env, {"start": argv, "log": str(log)}, 60)["pid"]
        return ForkedWorker(self, pid)

    def wait(self, pid: int, timeout: float) -> int | None:
        """The exit code of worker ``pid`` once it has exited (within ``timeout`` s), else
        None."""
        return self._ask(None, {"wait": pid, "timeout": timeout}, timeout + 60)["code"]

    def stop(self) -> None:
        """End the launcher (it exits when its input closes; killed after 10 s). Its workers
        are not its process group: stop them first."""
        server, self._server = self._server, None
        if server is None:
            return
        try:
            assert server.stdin is not None
            server.stdin.close()
        except OSError:
            pass
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        if server.stdout is not None:
            server.stdout.close()


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
