"""Websocket routes of live play (collected by ``config.asgi``)."""

from django.urls import path

from matches.consumers import TableConsumer

websocket_urlpatterns = [
    path("ws/tables/<int:table_id>/", TableConsumer.as_asgi()),
]
