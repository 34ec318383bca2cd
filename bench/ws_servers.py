"""Websocket throughput of the ASGI servers, measured here: ``python -m bench.ws_servers``.

Starts each server (daphne, uvicorn) on loopback with a tiny Channels app, then opens
``--clients`` websockets and measures two loads:

* ``echo``: each client sends ``--messages`` messages one after another and waits for each echo
  (server and websocket stack only);
* ``table``: clients sit at 4-seat tables; each message is ``group_send`` to the table through the
  Redis channel layer and every seat receives it (the live-play pattern).

It prints messages per second and latency percentiles. Needs the ``bench`` extras
(``pip install -e .[bench]``). Uses the embedded Redis unless REDIS_URL is set.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

if os.environ.get("BENCH_WS_APP") == "1":  # imported by the ASGI server under test
    from channels.generic.websocket import AsyncWebsocketConsumer
    from channels.routing import ProtocolTypeRouter, URLRouter
    from django.core.asgi import get_asgi_application
    from django.urls import path

    django_app = get_asgi_application()

    class EchoConsumer(AsyncWebsocketConsumer):
        """Sends every text frame straight back."""

        async def receive(
            self, text_data: str | None = None, bytes_data: bytes | None = None
        ) -> None:
            """Echo the frame."""
            await self.send(text_data=text_data)

    class TableConsumer(AsyncWebsocketConsumer):
        """Joins table ``n`` and broadcasts every frame to the table through the channel layer."""

        async def connect(self) -> None:
            """Join the table group, then accept."""
            self.group = f"bench-table-{self.scope['url_route']['kwargs']['table']}"
            await self.channel_layer.group_add(self.group, self.channel_name)
            await self.accept()

        async def disconnect(self, code: int) -> None:
            """Leave the table group."""
            await self.channel_layer.group_discard(self.group, self.channel_name)

        async def receive(
            self, text_data: str | None = None, bytes_data: bytes | None = None
        ) -> None:
            """Broadcast the frame to every seat of the table."""
            await self.channel_layer.group_send(
                self.group, {"type": "table.event", "text": text_data}
            )

        async def table_event(self, event: dict) -> None:
            """Deliver a broadcast frame to this seat."""
            await self.send(text_data=event["text"])

    application = ProtocolTypeRouter(
        {
            "http": django_app,
            "websocket": URLRouter(
                [
                    path("echo/", EchoConsumer.as_asgi()),
                    path("table/<int:table>/", TableConsumer.as_asgi()),
                ]
            ),
        }
    )


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_command(name: str, port: int) -> list[str]:
    """The argv that serves the bench app with the named server."""
    app = "bench.ws_servers:application"
    if name == "daphne":
        return [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), app]
    ws = name.split("-", 1)[1] if "-" in name else "websockets"
    return [
        sys.executable,
        "-m",
        "uvicorn",
        app,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--ws",
        ws,
        "--log-level",
        "warning",
        "--no-access-log",
    ]


async def echo_client(url: str, messages: int, latencies: list[float]) -> None:
    """Send ``messages`` frames one after another, waiting for each echo."""
    import websockets

    async with websockets.connect(url, max_queue=None) as ws:
        payload = json.dumps({"type": "play", "cards": ["3H", "3S"], "seq": 0})
        for _ in range(messages):
            started = time.perf_counter()
            await ws.send(payload)
            await ws.recv()
            latencies.append(time.perf_counter() - started)


async def table_clients(url: str, seats: int, messages: int, latencies: list[float]) -> int:
    """One table: each seat in turn sends a frame; wait until every seat has received it."""
    import websockets

    sockets = [await websockets.connect(url, max_queue=None) for _ in range(seats)]
    received = 0
    try:
        for index in range(messages):
            sender = sockets[index % seats]
            started = time.perf_counter()
            await sender.send(json.dumps({"seq": index}))
            await asyncio.gather(*(ws.recv() for ws in sockets))
            latencies.append(time.perf_counter() - started)
            received += seats
    finally:
        for ws in sockets:
            await ws.close()
    return received


async def run_load(base: str, mode: str, clients: int, messages: int) -> dict:
    """Run one load against a server; return messages/s and latency percentiles (ms)."""
    latencies: list[float] = []
    started = time.perf_counter()
    if mode == "echo":
        await asyncio.gather(
            *(echo_client(f"{base}/echo/", messages, latencies) for _ in range(clients))
        )
        delivered = clients * messages
    else:
        tables = max(1, clients // 4)
        counts = await asyncio.gather(
            *(table_clients(f"{base}/table/{t}/", 4, messages, latencies) for t in range(tables))
        )
        delivered = sum(counts)
    elapsed = time.perf_counter() - started
    latencies.sort()
    return {
        "delivered": delivered,
        "per_second": delivered / elapsed,
        "p50_ms": statistics.median(latencies) * 1000,
        "p99_ms": latencies[int(len(latencies) * 0.99) - 1] * 1000,
    }


def wait_for_port(port: int, process: subprocess.Popen, timeout: float = 30) -> None:
    """Wait until the server accepts TCP connections."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("server exited early")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("server did not start")


def main() -> None:
    """Measure each server and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", default="daphne,uvicorn-websockets,uvicorn-wsproto")
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--messages", type=int, default=50)
    args = parser.parse_args()

    from config.embedded_redis import EmbeddedRedis

    redis_dir = None
    redis = None
    env = {**os.environ, "BENCH_WS_APP": "1", "DJANGO_SETTINGS_MODULE": "config.settings"}
    if not os.environ.get("REDIS_URL"):
        redis_dir = tempfile.mkdtemp(prefix="bao2-bench-")
        env["EMBEDDED_REDIS_DIR"] = redis_dir
        redis = EmbeddedRedis(redis_dir)
        redis.start()
    print(f"{args.clients} clients, {args.messages} messages each; {os.cpu_count()} CPUs")
    print(f"{'server':22} {'load':6} {'msgs/s':>9} {'p50 ms':>8} {'p99 ms':>8}")
    try:
        for name in args.servers.split(","):
            port = free_port()
            process = subprocess.Popen(
                server_command(name, port),
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            try:
                wait_for_port(port, process)
                for mode in ("echo", "table"):
                    result = asyncio.run(
                        run_load(f"ws://127.0.0.1:{port}", mode, args.clients, args.messages)
                    )
                    print(
                        f"{name:22} {mode:6} {result['per_second']:9.0f} "
                        f"{result['p50_ms']:8.2f} {result['p99_ms']:8.2f}",
                        flush=True,
                    )
            except Exception as error:  # report and go on with the next server
                print(f"{name:22} failed: {error!r}", flush=True)
            finally:
                process.terminate()
                process.wait(timeout=15)
    finally:
        if redis is not None:
            redis.stop()
        if redis_dir:
            shutil.rmtree(redis_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
