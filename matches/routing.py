"""Websocket routes of live play (collected by ``config.asgi``)."""

from django.urls import re_path

from matches.consumers import TableConsumer

websocket_urlpatterns = [
    # at most 18 digits: any id a table can have (64-bit keys), none the database cannot
    # compare (a longer one overflowed SQLite's integers); other paths get a 404
    re_path(r"^ws/tables/(?P<table_id>[0-9]{1,18})/$", TableConsumer.as_asgi()),
]
