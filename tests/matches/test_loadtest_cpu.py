"""The load test's CPU per kind of process (``python -m bench.loadtest --cpu``) counts a process and
its descendants, and only them."""

import os
import signal
import subprocess
import sys
import time

from bench.loadtest import _tree_cpu

SPIN = "import time\nend = time.process_time() + 0.4\nwhile time.process_time() < end: pass\n"
SLEEP = "import time\ntime.sleep(30)\n"
# a parent that only sleeps, and whose child spins 0.4 s of CPU first
PARENT = f"import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', {SPIN + SLEEP!r}])\n"


def start(code):
    return subprocess.Popen([sys.executable, "-c", code], start_new_session=True)


def test_a_process_tree_counts_its_descendants_cpu():
    parent, idle = start(PARENT + SLEEP), start(SLEEP)
    try:
        # the child starts and spins meanwhile (slowly on a loaded machine): wait for its spin
        deadline = time.monotonic() + 60
        spent = _tree_cpu([parent.pid])
        while spent < 0.4 and time.monotonic() < deadline:
            time.sleep(0.1)
            spent = _tree_cpu([parent.pid])
        assert 0.4 <= spent < 1.5  # the child's spin and both start-ups
        assert _tree_cpu([idle.pid]) < 0.3  # its start-up only
        assert _tree_cpu([2**22 + 1]) == 0.0  # above Linux's largest pid: no such process
    finally:
        for proc in (parent, idle):
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
