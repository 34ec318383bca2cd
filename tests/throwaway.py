"""Run a command against throwaway PostgreSQL and Redis servers on loopback.

    python tests/throwaway.py --available      # exit 0 if both server binaries exist
    python tests/throwaway.py -- pytest ...     # start both, run the command, stop both

Each server gets a fresh temporary directory and a random free port on 127.0.0.1. As root,
PostgreSQL runs as the unprivileged ``postgres`` user (or ``nobody``) via ``runuser``. The command
sees ``DATABASE_URL`` and ``REDIS_URL``; its exit code is returned.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time


def postgres_bin_dir() -> str | None:
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0,
    )
    if candidates:
        return os.path.dirname(candidates[-1])
    initdb = shutil.which("initdb")
    if initdb and shutil.which("postgres"):
        return os.path.dirname(initdb)
    return None


def redis_server() -> str | None:
    return shutil.which("redis-server")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited early with code {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{what} did not listen on port {port} in {timeout}s")


def as_user_prefix() -> tuple[list[str], str | None]:
    """Return the command prefix to drop root privileges, and the user name used."""
    if os.geteuid() != 0:
        return [], None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        return ["runuser", "-u", name, "--"], name
    raise RuntimeError("running as root and no unprivileged user for PostgreSQL")


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def child_pids(pid: int) -> list[int]:
    """The pids of the direct children of ``pid`` (from /proc)."""
    children = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if parent == pid:
            children.append(int(entry))
    return children


class Servers:
    def __init__(self) -> None:
        self.tmp = tempfile.mkdtemp(prefix="bao2-throwaway-")
        os.chmod(self.tmp, 0o755)
        self.pg: subprocess.Popen | None = None
        self.pg_data = os.path.join(self.tmp, "pg", "data")
        self.redis: subprocess.Popen | None = None
        self.pg_port = free_port()
        self.redis_port = free_port()

    def start(self) -> None:
        bindir = postgres_bin_dir()
        prefix, user = as_user_prefix()
        pgdir = os.path.join(self.tmp, "pg")
        os.makedirs(pgdir)
        if user:
            info = pwd.getpwnam(user)
            os.chown(pgdir, info.pw_uid, info.pw_gid)
        subprocess.run(
            [
                *prefix,
                os.path.join(bindir, "initdb"),
                "-D",
                os.path.join(pgdir, "data"),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            cwd=pgdir,
        )
        self.pg = subprocess.Popen(
            [
                *prefix,
                os.path.join(bindir, "postgres"),
                "-D",
                self.pg_data,
                "-h",
                "127.0.0.1",
                "-p",
                str(self.pg_port),
                "-k",
                pgdir,
                "-c",
                "fsync=off",
                "-c",
                "synchronous_commit=off",
                "-c",
                "full_page_writes=off",
                "-c",
                "max_connections=200",
            ],
            stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(self.tmp, "postgres.log"), "wb"),
            cwd=pgdir,
        )
        self.redis = subprocess.Popen(
            [
                redis_server(),
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.redis_port),
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                self.tmp,
                "--maxclients",
                "10000",
            ],
            stdout=subprocess.DEVNULL,
        )
        wait_for_port(self.pg_port, self.pg, "postgres")
        wait_for_port(self.redis_port, self.redis, "redis-server")
        # The port opens a moment before PostgreSQL accepts logins; retry until it does.
        deadline = time.monotonic() + 30
        while True:
            result = subprocess.run(
                [
                    os.path.join(bindir, "psql"),
                    "-h",
                    "127.0.0.1",
                    "-p",
                    str(self.pg_port),
                    "-U",
                    "postgres",
                    "-c",
                    "CREATE DATABASE bao2",
                ],
                capture_output=True,
            )
            if result.returncode == 0:
                break
            if time.monotonic() > deadline:
                raise RuntimeError(result.stderr.decode())
            time.sleep(0.2)

    @property
    def env(self) -> dict[str, str]:
        return {
            "DATABASE_URL": f"postgres://postgres@127.0.0.1:{self.pg_port}/bao2",
            "REDIS_URL": f"redis://127.0.0.1:{self.redis_port}/0",
        }

    def postmaster_pid(self) -> int | None:
        """The PostgreSQL server's own pid, from its ``postmaster.pid`` (None if not running).

        As root the server runs under ``runuser``, which ignores SIGINT and, when killed, leaves
        the postmaster orphaned: so the postmaster itself is signalled, never only ``runuser``.
        """
        try:
            with open(os.path.join(self.pg_data, "postmaster.pid")) as pid_file:
                return int(pid_file.readline().strip())
        except (OSError, ValueError):
            return None

    def stop_postgres(self, timeout: float = 20) -> None:
        """Fast shutdown (SIGINT) of the postmaster; SIGKILL it and its children after timeout."""
        pid = self.postmaster_pid()
        if pid is not None and pid_alive(pid):
            os.kill(pid, signal.SIGINT)
            deadline = time.monotonic() + timeout
            while pid_alive(pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            if pid_alive(pid):
                # Backends are the postmaster's children: kill them first, then the postmaster.
                for victim in [*child_pids(pid), pid]:
                    try:
                        os.kill(victim, signal.SIGKILL)
                    except ProcessLookupError:  # ended meanwhile
                        pass
                while pid_alive(pid):
                    time.sleep(0.05)
        if self.pg is not None:
            try:
                self.pg.wait(timeout=5)  # runuser (or postgres itself) ends with the postmaster
            except subprocess.TimeoutExpired:
                self.pg.kill()
                self.pg.wait()

    def stop(self) -> None:
        try:
            self.stop_postgres()
        finally:
            self._stop_redis()
            shutil.rmtree(self.tmp, ignore_errors=True)

    def _stop_redis(self) -> None:
        if self.redis is not None and self.redis.poll() is None:
            self.redis.terminate()
            try:
                self.redis.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.redis.kill()
                self.redis.wait()


def main(argv: list[str]) -> int:
    if argv[:1] == ["--available"]:
        missing = [
            name
            for name, found in (("postgres", postgres_bin_dir()), ("redis-server", redis_server()))
            if not found
        ]
        if missing:
            print(f"throwaway servers unavailable: no {', '.join(missing)} binary", flush=True)
            return 1
        return 0
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        print(__doc__)
        return 2
    servers = Servers()
    try:
        servers.start()
        env = {**os.environ, **servers.env}
        print(
            f"throwaway PostgreSQL on 127.0.0.1:{servers.pg_port}, "
            f"Redis on 127.0.0.1:{servers.redis_port}",
            flush=True,
        )
        return subprocess.call(argv, env=env)
    finally:
        servers.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
