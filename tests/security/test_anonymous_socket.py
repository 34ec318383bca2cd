"""An unauthenticated websocket never joins a table without spectators (issue 20, item 2).

Through the real ASGI application (origin check, session auth, Redis channel layer). The anonymous
user's pk is None, which matched the bot and empty seats (``user_id IS NULL``) and let it in.
"""

import json

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.test import Client
from matchkit import make_user

from clubs import services as club_services
from config.asgi import application
from matches.models import Match
from matches.services import tables

pytestmark = pytest.mark.integration


@pytest.fixture
def table_with_bots(transactional_db, no_deadline_tasks):
    """A playing table without spectators: one person (seat 0) and three bots."""
    opener = make_user("opener")
    club = club_services.create_club(opener, name="Nanping Bao 2")
    table = tables.open_table(opener, club, variant="bao2", spectators_allowed=False)
    for seat in (1, 2, 3):
        tables.add_bot(opener, table, seat, "heuristic")
    assert Match.objects.filter(table=table).exists()
    return table, opener


def socket(table_id, cookie=""):
    headers = [(b"origin", b"http://testserver")]
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    return WebsocketCommunicator(application, f"/ws/tables/{table_id}/", headers=headers)


async def first_frames(comm, timeout=3):
    """Every frame until the socket is closed or quiet for ``timeout`` seconds (at least the
    suite's patient wait: the close is expected)."""
    frames = []
    while True:
        try:
            output = await comm.receive_output(timeout=timeout)
        except TimeoutError:
            return frames
        frames.append(output)
        if output["type"] == "websocket.close":
            return frames


def test_anonymous_socket_refused_on_a_table_without_spectators(table_with_bots):
    table, opener = table_with_bots
    client = Client()
    client.force_login(opener)
    opener_cookie = f"sessionid={client.cookies['sessionid'].value}"
    outsider = make_user("outsider")
    client = Client()
    client.force_login(outsider)
    outsider_cookie = f"sessionid={client.cookies['sessionid'].value}"

    async def scenario():
        results = {}
        for name, cookie in (("anonymous", ""), ("outsider", outsider_cookie)):
            comm = socket(table.pk, cookie)
            connected, _ = await comm.connect()
            assert connected
            frames = await first_frames(comm)
            texts = [json.loads(f["text"]) for f in frames if f.get("text")]
            results[name] = (texts, frames[-1]["type"] if frames else None)
        seated = socket(table.pk, opener_cookie)
        await seated.connect()
        results["opener"] = json.loads((await seated.receive_output(timeout=5))["text"])
        await seated.disconnect()
        return results

    results = async_to_sync(scenario)()
    for name in ("anonymous", "outsider"):
        texts, last = results[name]
        assert [t["code"] for t in texts] == ["no_spectators"], name
        assert last == "websocket.close", name
        assert not any(t.get("type") in ("snapshot", "events", "update") for t in texts)
    assert results["opener"]["type"] == "snapshot" and results["opener"]["you"] == 0
