"""Websocket routes of live play (collected by ``config.asgi``).

``/ws/bench/<group>/`` (the load test's bare broadcast baseline) is served only with DEBUG on
or ``MATCHES_BENCH_WEBSOCKET=1`` in the server's environment.
"""

import os

from django.conf import settings
from django.urls import path

from matches.consumers import BroadcastBenchConsumer, TableConsumer

websocket_urlpatterns = [
    path("ws/tables/<int:table_id>/", TableConsumer.as_asgi()),
]

if settings.DEBUG or os.environ.get("MATCHES_BENCH_WEBSOCKET") == "1":
    websocket_urlpatterns.append(path("ws/bench/<slug:group>/", BroadcastBenchConsumer.as_asgi()))
