"""Several ASGI processes on one port: ``python -m config.serve HOST PORT [uvicorn args]``.

Binds ``HOST:PORT`` once and starts ``ASGI_PROCESSES`` uvicorn processes (default: one per
core, at most 4) that all accept on that socket (``uvicorn --fd``), so the kernel spreads the
connections over them, as a proxy in front of several ports would. One process serves one core
at a time (the GIL), hence one per core. Any process ending, or SIGINT/SIGTERM, stops them all.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

#: The largest websocket message the server reads, in bytes: far above the table consumer's
#: own limit (``matches.live.intake.MAX_FRAME``), so that an oversize frame gets the consumer's
#: ``too_large`` answer and the connection goes on; beyond this one the connection is closed
#: (1009) without reading more.
WEBSOCKET_MAX_MESSAGE = 4 * 1024 * 1024
#: uvicorn's options (``./run``, the production command and the end-to-end stack pass them):
#: - the frame limit above;
#: - no ``permessage-deflate``: compressing every frame was a quarter of a server's CPU under
#:   load, for frames of a few hundred bytes (docs/benchmarks.md, "ASGI servers");
#: - no proxy headers: the client's address is decided by ``clubs.client_ip`` from
#:   ``TRUSTED_PROXIES`` alone, never rewritten from ``X-Forwarded-For`` before it;
#: - no lifespan protocol (Channels has none) and no access log (the proxy keeps one);
#: - on SIGTERM, open connections get 5 s to end before they are closed.
UVICORN_OPTIONS = [
    "--ws",
    "websockets-sansio",
    "--ws-max-size",
    str(WEBSOCKET_MAX_MESSAGE),
    "--ws-per-message-deflate",
    "false",
    "--loop",
    "uvloop",
    "--http",
    "httptools",
    "--no-proxy-headers",
    "--lifespan",
    "off",
    "--no-access-log",
    "--timeout-graceful-shutdown",
    "5",
]


def process_count() -> int:
    """``ASGI_PROCESSES`` if set, else the number of cores (at least 1, at most 4)."""
    configured = os.environ.get("ASGI_PROCESSES", "")
    if configured:
        return max(1, int(configured))
    return max(1, min(4, os.cpu_count() or 1))


def main(argv: list[str]) -> int:
    """Bind, start the uvicorn processes, wait; return the exit code of the first to end."""
    host, port, extra = argv[0], int(argv[1]), argv[2:]
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, port))
    listener.listen(1024)
    listener.set_inheritable(True)
    uvicorn = str(Path(sys.executable).parent / "uvicorn")
    children = [
        subprocess.Popen(
            [
                uvicorn,
                "--fd",
                str(listener.fileno()),
                *UVICORN_OPTIONS,
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
