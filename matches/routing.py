"""Websocket routes of live play (collected by ``config.asgi``).

``/ws/bench/<group>/`` (the load test's bare broadcast baseline, :mod:`bench.broadcast_ws`,
which is not part of the installed packages) is served only with DEBUG on or
``MATCHES_BENCH_WEBSOCKET=1`` in the server's environment.
"""

import os

from django.conf import settings
from django.urls import path, re_path

from matches.consumers import TableConsumer

websocket_urlpatterns = [
    # at most 18 digits: any id a table can have (64-bit keys), none the database cannot
    # compare (a longer one overflowed SQLite's integers); other paths get a 404
    re_path(r"^ws/tables/(?P<table_id>[0-9]{1,18})/$", TableConsumer.as_asgi()),
]

if settings.DEBUG or os.environ.get("MATCHES_BENCH_WEBSOCKET") == "1":
    try:
        from bench.broadcast_ws import BroadcastBenchConsumer
    except ImportError:  # an installed copy without the source tree's bench/ folder
        BroadcastBenchConsumer = None
    if BroadcastBenchConsumer is not None:
        websocket_urlpatterns.append(
            path("ws/bench/<slug:group>/", BroadcastBenchConsumer.as_asgi())
        )
