"""Several ASGI processes on one port: ``python -m config.serve HOST PORT [daphne args]``.

Binds ``HOST:PORT`` once and starts ``ASGI_PROCESSES`` daphne processes (default: one per
core, at most 4) that all accept on that socket (``daphne --fd``), so the kernel spreads the
connections over them, as a proxy in front of several ports would. One process serves one core
at a time (the GIL); with two of them 200 live tables kept p99 under 150 ms where one did not
(README, "Benchmarks"). Any process ending, or SIGINT/SIGTERM, stops them all.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

#: The largest websocket message (and frame) daphne reads, in bytes: far above the table
#: consumer's own limit (``matches.consumers.MAX_FRAME``), so that an oversize frame gets the
#: consumer's ``too_large`` answer and the connection goes on; beyond this one the
#: connection is closed (1009) without reading more.
WEBSOCKET_MAX_MESSAGE = 4 * 1024 * 1024
#: Daphne's options for that limit (``./run`` and the end-to-end stack pass them).
DAPHNE_LIMITS = [
    "--websocket-max-message-size",
    str(WEBSOCKET_MAX_MESSAGE),
    "--websocket-max-frame-size",
    str(WEBSOCKET_MAX_MESSAGE),
]


def process_count() -> int:
    """``ASGI_PROCESSES`` if set, else the number of cores (at least 1, at most 4)."""
    configured = os.environ.get("ASGI_PROCESSES", "")
    if configured:
        return max(1, int(configured))
    return max(1, min(4, os.cpu_count() or 1))


def main(argv: list[str]) -> int:
    """Bind, start the daphne processes, wait; return the exit code of the first to end."""
    host, port, extra = argv[0], int(argv[1]), argv[2:]
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, port))
    listener.listen(1024)
    listener.set_inheritable(True)
    daphne = str(Path(sys.executable).parent / "daphne")
    children = [
        subprocess.Popen(
            [
                daphne,
                "--fd",
                str(listener.fileno()),
                *DAPHNE_LIMITS,
                *extra,
                "config.asgi:application",
            ],
            pass_fds=(listener.fileno(),),
        )
        for _ in range(process_count())
    ]

    def stop(*_args: object) -> None:
        for child in children:
            if child.poll() is None:
                child.terminate()

    signal.signal(signal.SIGTERM, lambda *a: stop())
    signal.signal(signal.SIGINT, lambda *a: stop())
    code = 0
    try:
        while all(child.poll() is None for child in children):
            time.sleep(0.2)
        code = next(child.returncode for child in children if child.poll() is not None)
    finally:
        stop()
        for child in children:
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()
    return code or 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
