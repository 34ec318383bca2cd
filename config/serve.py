"""The ASGI server: ``python -m config.serve HOST PORT [uvicorn args]`` runs uvicorn with the
platform's options (:data:`UVICORN_OPTIONS`) and its own multi-worker mode (``--workers``:
``ASGI_PROCESSES`` processes, default one per core, at most 4, all accepting on the one port,
so the kernel spreads the connections over them; uvicorn starts a worker again if one dies and
stops them all on SIGINT/SIGTERM). One process serves one core at a time (the GIL), hence one
per core. This module only builds the command line and becomes uvicorn (``exec``).
"""

from __future__ import annotations

import os
import sys
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


def command(host: str, port: int, extra: list[str]) -> list[str]:
    """The uvicorn command line serving ``config.asgi`` on ``host:port`` with
    :func:`process_count` workers, the platform's options and ``extra``."""
    uvicorn = str(Path(sys.executable).parent / "uvicorn")
    return [
        uvicorn,
        "--host",
        host,
        "--port",
        str(port),
        "--workers",
        str(process_count()),
        *UVICORN_OPTIONS,
        *extra,
        "config.asgi:application",
    ]


def main(argv: list[str]) -> None:
    """Become uvicorn (see the module); never returns."""
    argv_ = command(argv[0], int(argv[1]), argv[2:])
    os.execv(argv_[0], argv_)


if __name__ == "__main__":
    main(sys.argv[1:])
