"""Websocket routes of live play (collected by ``config.asgi``)."""

from django.conf import settings
from django.urls import path

from matches.consumers import BroadcastBenchConsumer, TableConsumer

websocket_urlpatterns = [
    path("ws/tables/<int:table_id>/", TableConsumer.as_asgi()),
]

if getattr(settings, "MATCHES_BENCH_WEBSOCKET", settings.DEBUG):
    websocket_urlpatterns.append(path("ws/bench/<slug:group>/", BroadcastBenchConsumer.as_asgi()))
