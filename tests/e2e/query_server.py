"""The process behind ``Stack.query``: Django set up once, then a fresh child per query.

Starting Python and setting Django up costs one to three seconds of CPU; the end-to-end and
browser tests ask the stack's database hundreds of times (some every half second while they
wait), which slowed the stack they were waiting for. This process sets Django up once, then for
each request forks: the child is what a fresh ``python -c`` with ``django.setup()`` would be (no
database connection, no cache, nothing imported by an earlier query), runs the code, and
returns what it assigned to ``out``.

Protocol, one JSON object a line: in ``{"code": "..."}``, out ``{"out": ...}`` or
``{"error": "traceback"}``. What the code prints goes to this process' stderr (the stack's log).
:class:`Queries` is the side the tests hold (``Stack.query``, ``WorkerStack.python``).
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import threading
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class LineServer:
    """A helper process of a stack that answers one JSON line per request (this module's
    :func:`main`, tests/outbox/worker_launcher.py's): started on first use, started again when
    it has died or the stack's environment has changed (e.g. a test changed a setting)."""

    #: The script the process runs, what to call it in errors, how long it may take to start.
    script = Path(__file__)
    name = "the query process"
    start_seconds = 120.0

    def __init__(self, log: Path) -> None:
        self.log = log
        self._server: subprocess.Popen | None = None
        self._env: dict[str, str] = {}
        self._lock = threading.Lock()

    def ask(self, env: dict[str, str] | None, request: dict, timeout: float) -> dict:
        """Send ``request`` and return the answer, (re)starting the process in ``env`` first
        if needed (``env`` None: the running process, whatever its environment)."""
        with self._lock:
            server = self._server
            if server is not None and (
                server.poll() is not None or (env is not None and self._env != env)
            ):
                self.stop()
                server = None
            if server is None:
                assert env is not None, f"{self.name} is not running"
                with open(self.log, "ab") as log:
                    server = subprocess.Popen(
                        [sys.executable, str(self.script)],
                        cwd=ROOT,
                        env=env,
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                        stderr=log,
                        text=True,
                        start_new_session=True,
                    )
                self._server, self._env = server, dict(env)
                self._reply(self.start_seconds)  # {"ready": true}: set up
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
            raise RuntimeError(f"{self.name} gave no answer in {timeout} s:\n{tail}")
        return line

    def stop(self) -> None:
        """End the process (it exits when its input closes; killed after 10 s)."""
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


class Queries(LineServer):
    """The query process of one stack."""

    def run(self, env: dict[str, str], code: str, timeout: float = 300) -> object:
        """Run ``code`` with Django set up in ``env``, in a fresh fork; return what it assigns
        to ``out`` (RuntimeError with the traceback if it raised)."""
        reply = self.ask(env, {"code": code}, timeout)
        if "error" in reply:
            raise RuntimeError(reply["error"])
        return reply["out"]


def _child(code: str, reply: int) -> None:
    """Run ``code`` in a fresh namespace; write its ``out`` (or the error) to ``reply``."""
    try:
        namespace = {"__name__": "__main__"}
        exec(compile(code, "<query>", "exec"), namespace)
        data = json.dumps({"out": namespace["out"]})
    except BaseException:
        data = json.dumps({"error": traceback.format_exc()})
    try:
        from django.db import connections

        connections.close_all()
    except Exception:
        pass
    with os.fdopen(reply, "w") as handle:
        handle.write(data)
    sys.stdout.flush()
    sys.stderr.flush()


def main() -> None:
    """Set Django up, then answer one query a line of stdin until it closes."""
    channel = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # what queries print must not mix with the replies
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    channel.write(json.dumps({"ready": True}) + "\n")
    channel.flush()
    for line in sys.stdin:
        code = json.loads(line)["code"]
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            _child(code, write)
            os._exit(0)
        os.close(write)
        with os.fdopen(read) as handle:
            data = handle.read()
        os.waitpid(pid, 0)
        channel.write((data or json.dumps({"error": "the query's process died"})) + "\n")
        channel.flush()


if __name__ == "__main__":
    sys.path[0] = ""  # as ``python -c`` in the stack's folder: the project, not tests/e2e
    main()
