"""ASGI entry point: HTTP through Django, websockets through Channels.

Apps add websocket routes by defining ``websocket_urlpatterns`` in ``<app>/routing.py``;
they are collected here (``matches.routing`` for live play); any other path is refused
(:func:`unknown_websocket`).
"""

import gc
import importlib
import os
from typing import Any

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import re_path  # noqa: E402

from config.busy import auth_stack  # noqa: E402
from config.origin import SameOriginValidator  # noqa: E402


def collect_websocket_urlpatterns() -> list:
    """Return the websocket URL patterns of every app that has a ``routing`` module."""
    patterns: list = []
    for app_name in ("matches", "ladder", "clubs"):
        try:
            module = importlib.import_module(f"{app_name}.routing")
        except ModuleNotFoundError as error:
            if error.name != f"{app_name}.routing":
                raise
            continue
        patterns.extend(getattr(module, "websocket_urlpatterns", []))
    return patterns


def extra_websocket_urlpatterns() -> list:
    """The websocket URL patterns of the modules named in ``ASGI_EXTRA_ROUTES`` (comma-separated
    dotted names, each with ``websocket_urlpatterns``): routes from outside the apps, chosen by
    the server's environment, e.g. the load test's bare broadcast baseline
    ``bench.broadcast_ws``, which no production module imports. Empty by default."""
    patterns: list = []
    for name in os.environ.get("ASGI_EXTRA_ROUTES", "").split(","):
        if name.strip():
            patterns.extend(importlib.import_module(name.strip()).websocket_urlpatterns)
    return patterns


async def unknown_websocket(scope: dict, receive: Any, send: Any) -> None:
    """Refuse a websocket handshake to a path no app serves: HTTP 404 where the server offers
    the ASGI ``websocket.http.response`` extension (uvicorn does), else a close before the
    accept (the server answers 403). Without it Channels' router raised "No route found" and
    the server answered 500 with a traceback in the error log, for any probe of ``/ws/...``."""
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    if "websocket.http.response" in scope.get("extensions", {}):
        await send(
            {
                "type": "websocket.http.response.start",
                "status": 404,
                "headers": [(b"content-type", b"text/plain; charset=utf-8")],
            }
        )
        await send({"type": "websocket.http.response.body", "body": b"Not Found"})
        return
    await send({"type": "websocket.close", "code": 1000})


application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": SameOriginValidator(
            auth_stack(
                URLRouter(
                    [
                        *collect_websocket_urlpatterns(),
                        *extra_websocket_urlpatterns(),
                        re_path(r"", unknown_websocket),
                    ]
                )
            )
        ),
    }
)

# Garbage collection tuned for latency: a full (generation 2) collection walks every live object
# (the cached engine states of every table) and paused a server with 100 tables for 70-180 ms,
# several times a minute -- most of the load test's p99. The objects made while starting are
# frozen out of the collector, and a full collection waits for 10,000 younger ones instead of
# 10 (cyclic garbage rarely gets that old; reference counting frees the rest at once).
from matches import schedule  # noqa: E402

# Deadline tasks are published from a background thread, off the threads that apply actions.
schedule.schedule_in_background()
# The worker's clocks see when no ASGI process was alive (fair clocks across outages).
schedule.keep_web_alive()

gc.freeze()
gc.set_threshold(700, 10, 10_000)
