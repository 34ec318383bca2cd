"""Keep one service running: ``python -m config.supervise NAME -- COMMAND [ARGS...]``.

``./run`` starts every service through this. When the command ends while no stop was asked for,
it is logged and started again after a back-off (1 s, doubling up to ``SUPERVISE_MAX_BACKOFF``
seconds; back to 1 s once it ran for a minute), so one crashing service does not take down the
site. SIGINT/SIGTERM stop the command (SIGTERM, then SIGKILL after 10 s) and this supervisor.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

STABLE_SECONDS = 60.0


def log(name: str, message: str) -> None:
    """Print one line about service ``name`` (to ./run's terminal)."""
    print(f"!! {name}: {message}", file=sys.stderr, flush=True)


def supervise(name: str, command: list[str], max_backoff: float) -> int:
    """Run ``command`` until a stop is requested, restarting it each time it ends; return 0."""
    stopping: list[int] = []
    child: subprocess.Popen[bytes] | None = None

    def request_stop(signum: int, _frame: object) -> None:
        stopping.append(signum)
        if child is not None and child.poll() is None:
            child.send_signal(signal.SIGTERM)

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    backoff = 1.0
    while not stopping:
        started = time.monotonic()
        child = subprocess.Popen(command)
        while child.poll() is None:
            try:
                child.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                continue
        if stopping:
            break
        ran = time.monotonic() - started
        if ran >= STABLE_SECONDS:
            backoff = 1.0
        log(
            name,
            f"exited with code {child.returncode} after {ran:.1f} s; restarting in {backoff:g} s",
        )
        deadline = time.monotonic() + backoff
        while not stopping and time.monotonic() < deadline:
            time.sleep(0.1)
        backoff = min(backoff * 2, max_backoff)
    if child is not None and child.poll() is None:
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
    return 0


def main(argv: list[str]) -> int:
    """Parse ``NAME -- COMMAND...`` and supervise the command."""
    if len(argv) < 3 or argv[1] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    max_backoff = max(1.0, float(os.environ.get("SUPERVISE_MAX_BACKOFF") or "30"))
    return supervise(argv[0], argv[2:], max_backoff)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
