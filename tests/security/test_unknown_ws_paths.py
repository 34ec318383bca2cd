"""Websocket handshakes to paths no app serves (issue 40, item 8): refused cleanly (404), never
answered 500 with "No route found" in the error log. Against a real server in production mode
(``python -m config.serve`` with ``SECRET_KEY`` set), and against the ASGI application."""

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import websockets
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator

from config.asgi import application

ROOT = Path(__file__).resolve().parent.parent.parent
UNKNOWN = [
    "/ws/nothing/",
    "/ws/tables/abc/",
    "/ws/tables/",
    "/ws/tables/12/extra/",
    "/ws/tables/-1/",
    "/ws/tables/1234567890123456789/",  # 19 digits: beyond any table's id
    "/ws/",
    "/",
]


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for(port, server, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert server.poll() is None, "the server ended"
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.2)
    raise AssertionError("the server did not start")


async def _handshake(url, origin):
    """The HTTP status refusing the handshake, or "accepted"."""
    try:
        async with websockets.connect(url, origin=origin, open_timeout=10):
            return "accepted"
    except websockets.InvalidStatus as refused:
        return refused.response.status_code


def test_unknown_paths_are_refused_by_a_production_server(tmp_path, redis_url):
    port = _free_port()
    env = {
        **{k: v for k, v in os.environ.items() if k not in {"DEBUG", "CSRF_TRUSTED_ORIGINS"}},
        "SECRET_KEY": "a-production-secret-" + "x" * 60,
        "ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": "",
        "REDIS_URL": redis_url,
        "VAR_DIR": str(tmp_path),
        "ASGI_PROCESSES": "1",
    }
    log = tmp_path / "server.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "config.serve", "127.0.0.1", str(port)],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        _wait_for(port, server)
        origin = f"http://127.0.0.1:{port}"

        async def probe():
            return {
                path: await _handshake(f"ws://127.0.0.1:{port}{path}", origin) for path in UNKNOWN
            }

        statuses = asyncio.run(probe())
        assert statuses == {path: 404 for path in UNKNOWN}, statuses
        # a table's path is still served (accepted, then refused in the protocol: anonymous)
        assert asyncio.run(_handshake(f"ws://127.0.0.1:{port}/ws/tables/1/", origin)) in (
            "accepted",
            403,
        )
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    text = log.read_text(errors="replace")
    assert "No route found" not in text, text
    assert "Exception in ASGI application" not in text, text
    assert "500 Internal Server Error" not in text, text


@pytest.mark.django_db(transaction=True)
def test_unknown_paths_are_refused_by_the_application():
    async def attempt(path):
        comm = WebsocketCommunicator(application, path, headers=[(b"origin", b"http://testserver")])
        connected, code = await comm.connect()
        if connected:
            await comm.disconnect()
        return connected

    for path in UNKNOWN:
        assert async_to_sync(attempt)(path) is False, path
