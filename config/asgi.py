"""ASGI entry point: HTTP through Django, websockets through Channels.

Apps add websocket routes by defining ``websocket_urlpatterns`` in ``<app>/routing.py``;
they are collected here (``matches.routing`` for live play).
"""

import importlib
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402


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
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(collect_websocket_urlpatterns()))
        ),
    }
)
