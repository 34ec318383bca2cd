"""ASGI entry point: HTTP through Django, websockets through Channels.

Apps add websocket routes by defining ``websocket_urlpatterns`` in ``<app>/routing.py``;
they are collected here (``matches.routing`` for live play).
"""

import gc
import importlib
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

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


application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": SameOriginValidator(auth_stack(URLRouter(collect_websocket_urlpatterns()))),
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
