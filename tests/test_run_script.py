"""``./run`` starts every service, serves the site, and Ctrl-C stops all of them (no orphans)."""

import json
import os
import pty
import select
import signal
import socket
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

from config.embedded_redis import server_answers
from tests import dbcache

ROOT = Path(__file__).resolve().parent.parent


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def processes_with_marker(marker):
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if marker.encode() in (proc / "environ").read_bytes():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def read(path):
    try:
        return Path(path).read_bytes()
    except OSError:  # the process just ended
        return b""


def parent_of(pid):
    stat = read(f"/proc/{pid}/stat")
    return int(stat.rsplit(b")", 1)[1].split()[1]) if stat else None


def celery_worker_main(marker):
    """The pid of the Celery worker's main process (the child of supervisord), or None."""
    for pid in processes_with_marker(marker):
        cmdline = read(f"/proc/{pid}/cmdline")
        if b"celery" not in cmdline or b"worker" not in cmdline:
            continue
        parent = parent_of(pid)
        if parent and b"supervisord" in read(f"/proc/{parent}/cmdline"):
            return pid
    return None


def read_until(fd, needle, timeout):
    output = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
            if needle in output:
                return output
    raise AssertionError(f"{needle!r} not seen; output:\n{output.decode(errors='replace')[-3000:]}")


def run_once(tmp_path, marker, port):
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "SECRET_KEY", "ALLOWED_HOSTS", "DEBUG"}
    }
    env.update(
        {
            "PORT": str(port),
            "VAR_DIR": str(tmp_path / "var"),
            "EMBEDDED_REDIS_DIR": str(tmp_path / "redis"),
            "RUN_TEST_MARKER": marker,
            "ASGI_PROCESSES": "2",
        }
    )
    pid, fd = pty.fork()
    if pid == 0:  # child: becomes ./run in a terminal of its own
        # as in a person's terminal: a suite started in the background (``./test &``) inherits
        # SIGINT ignored, and a shell cannot trap a signal ignored when it started
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.chdir(ROOT)
        os.execve(str(ROOT / "run"), [str(ROOT / "run")], env)
    reaped = False
    try:
        output = read_until(fd, b"== running", timeout=240)
        assert b"laowang" in output  # the demo logins are printed
        # (generous: on a loaded machine a uvicorn process may still be loading Django)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=60) as response:
            health = json.loads(response.read())
        assert health == {"status": "ok"}  # the details are for staff only
        assert server_answers(tmp_path / "redis")  # the embedded Redis, on its loopback port
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/clubs/demo/", timeout=10) as page:
            assert "保2示范俱乐部" in page.read().decode()
        # run, supervisord, redis, uvicorn and its 2 workers, worker, beat
        assert len(processes_with_marker(marker)) >= 8
        servers = [
            p for p in processes_with_marker(marker) if b"bin/uvicorn" in read(f"/proc/{p}/cmdline")
        ]
        assert len(servers) == 1  # uvicorn's own multi-worker mode (config.serve)
        workers = [
            p
            for p in processes_with_marker(marker)
            if parent_of(p) == servers[0] and b"spawn_main" in read(f"/proc/{p}/cmdline")
        ]
        assert len(workers) == 2  # ASGI_PROCESSES workers, all accepting on the one port
        # X-Forwarded-For is the client's to write: uvicorn must not take addresses from it.
        assert b"--no-proxy-headers" in read(f"/proc/{servers[0]}/cmdline").split(b"\0")
        # a service that dies is restarted (logged), and the site keeps serving
        worker = celery_worker_main(marker)
        assert worker is not None
        os.kill(worker, signal.SIGKILL)
        output = read_until(fd, b"exited: worker", timeout=30)  # supervisord's log line
        deadline = time.monotonic() + 60
        while celery_worker_main(marker) in (None, worker) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert celery_worker_main(marker) not in (None, worker)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as response:
            assert json.loads(response.read())["status"] == "ok"
        assert list((tmp_path / "redis").glob("appendonly*"))  # the queue persists on disk
        os.write(fd, b"\x03")  # Ctrl-C, as a person would type it
        read_until(fd, b"== stopped", timeout=90)
        _, status = os.waitpid(pid, 0)
        reaped = True
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        if not reaped:
            stop_leftovers(pid, marker)
        os.close(fd)
    assert processes_with_marker(marker) == []


def stop_leftovers(pid, marker):
    """After a failure half-way: let ./run stop its services, then end whatever it left."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            break
        if done:
            break
        time.sleep(0.2)
    deadline = time.monotonic() + 10
    while processes_with_marker(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    for leftover in processes_with_marker(marker):  # started by this test: safe to end
        try:
            os.kill(leftover, signal.SIGKILL)
        except ProcessLookupError:
            pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


@pytest.mark.skipif(not Path("/proc").exists(), reason="needs /proc to find leftover processes")
def test_run_starts_everything_and_ctrl_c_stops_it_twice(tmp_path):
    marker = f"bao2-run-{uuid.uuid4().hex}"
    port = free_port()
    # a copy of a database migrated once (tests/dbcache.py): ./run's migrate still runs, with
    # nothing left to do, where migrating from nothing cost a minute or more of a loaded machine
    (tmp_path / "var").mkdir()
    dbcache.sqlite_copy(dict(os.environ), tmp_path / "var" / "db.sqlite3")
    run_once(tmp_path, marker, port)
    run_once(tmp_path, marker, port)  # running it again works (migrations, demo idempotent)
