"""``tests/throwaway.py`` stops its PostgreSQL for sure: no postmaster outlives ``stop()``."""

import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import throwaway  # noqa: E402


def test_stop_ends_the_postmaster_and_its_backends():
    # As root the launcher is runuser, which ignores SIGINT: signalling it orphaned postgres.
    servers = throwaway.Servers()
    try:
        servers.start()
        pid = servers.postmaster_pid()
        assert pid is not None and throwaway.pid_alive(pid)
        backends = throwaway.child_pids(pid)
        assert backends, "a running postmaster has its background processes"
    finally:
        servers.stop()
    assert not throwaway.pid_alive(pid)
    assert not any(throwaway.pid_alive(child) for child in backends)
    assert servers.pg.poll() is not None
    assert not os.path.exists(servers.tmp)


def test_a_postmaster_that_ignores_sigint_is_killed():
    servers = throwaway.Servers()
    try:
        servers.start()
        pid = servers.postmaster_pid()
        # A stopped process never handles SIGINT: the stop must fall back to SIGKILL.
        os.kill(pid, signal.SIGSTOP)
        servers.stop_postgres(timeout=1)
        assert not throwaway.pid_alive(pid)
    finally:
        servers.stop()
