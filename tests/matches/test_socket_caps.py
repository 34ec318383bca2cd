"""Issue 40, item 9: one user holds at most ``MATCHES_SOCKETS_PER_USER`` table websockets at
once, counted across server processes in Redis (a crashed process's slots lapse); more are
closed with code 4409. A connection closed for flooding (4429) sends nothing after its close:
not the answers of the frames it had queued, not the match's broadcasts."""

import asyncio
import json
import os
import sys
import time

import pytest
import websockets
from asgiref.sync import async_to_sync
from matchkit import make_user
from test_consumers import connect, login, receive_type

from engine.match import Match as EngineMatch
from matches import consumers, limits, schedule
from matches.live import answers, intake
from matches.models import Match
from matches.services import tables

pytestmark = pytest.mark.integration


@pytest.fixture
def table(club, players, scheduled):
    table = tables.open_table(players[0], club, variant="bao2")
    for i in (1, 2, 3):
        tables.take_seat(players[i], table, i)
    table.refresh_from_db()
    return table


async def _open(comm):
    """Connect ``comm``: "served" (its snapshot came), or the code it was closed with."""
    connected, _ = await comm.connect()
    if not connected:
        return "refused"
    while True:
        output = await comm.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            return output.get("code"), output.get("reason")
        if json.loads(output["text"])["type"] == "snapshot":
            return "served"


def test_a_user_holds_at_most_the_default_cap(table, players, fresh_layer):
    """Twenty sockets of one user (the issue held a hundred): the default twelve are served,
    the rest closed with 4409 and a reason; another user is not affected."""
    assert consumers.TOO_MANY_SOCKETS == 4409
    from django.conf import settings

    cap = settings.MATCHES_SOCKETS_PER_USER
    assert cap == 12
    watcher = make_user("watcher")
    login(players[0], watcher)

    async def scenario():
        comms = [connect(table.pk, players[0]) for _ in range(20)]
        outcomes = [await _open(comm) for comm in comms]
        assert outcomes[:cap] == ["served"] * cap
        assert outcomes[cap:] == [(4409, "too_many_sockets")] * (20 - cap)
        other = connect(table.pk, watcher)
        assert await _open(other) == "served"
        for comm in [*comms, other]:
            await comm.disconnect()

    async_to_sync(scenario)()


def test_the_cap_counts_every_process_and_frees_closed_and_lapsed_slots(
    table, players, settings, fresh_layer
):
    settings.MATCHES_SOCKETS_PER_USER = 3
    login(players[0])
    redis = schedule._client()
    key = limits._sockets_key(players[0].pk)

    async def scenario():
        first = [connect(table.pk, players[0]) for _ in range(3)]
        assert [await _open(c) for c in first] == ["served"] * 3
        assert redis.zcard(key) == 3
        extra = connect(table.pk, players[0])
        assert await _open(extra) == (4409, "too_many_sockets")
        await extra.disconnect()
        # a closed socket frees its slot
        await first[0].disconnect()
        assert redis.zcard(key) == 2
        again = connect(table.pk, players[0])
        assert await _open(again) == "served"
        await again.disconnect()
        # a socket held by another server process counts...
        redis.zadd(key, {"another-process!conn": time.time() + limits.SLOT_TTL})
        refused = connect(table.pk, players[0])
        assert await _open(refused) == (4409, "too_many_sockets")
        await refused.disconnect()
        # ...until its slot lapses (that process crashed and renews it no more)
        redis.zadd(key, {"another-process!conn": time.time() - 1})
        served = connect(table.pk, players[0])
        assert await _open(served) == "served"
        for comm in [*first[1:], served]:
            await comm.disconnect()
        assert redis.zcard(key) == 0

    async_to_sync(scenario)()


def test_live_slots_are_renewed(table, players, monkeypatch, fresh_layer):
    monkeypatch.setattr(limits, "SLOT_RENEW", 0.2)
    monkeypatch.setattr(limits, "SLOT_TTL", 1)
    login(players[0])
    redis = schedule._client()
    key = limits._sockets_key(players[0].pk)

    async def scenario():
        comm = connect(table.pk, players[0])
        assert await _open(comm) == "served"
        first = redis.zrange(key, 0, -1, withscores=True)
        await asyncio.sleep(1.5)  # past the first slot's end: renewed meanwhile
        later = redis.zrange(key, 0, -1, withscores=True)
        assert len(first) == len(later) == 1 and later[0][1] > first[0][1] + 0.5
        assert later[0][1] > time.time()
        await comm.disconnect()

    async_to_sync(scenario)()


def test_nothing_is_sent_after_a_flood_close(table, players, monkeypatch, settings, fresh_layer):
    """A socket sends hints faster than allowed: sixteen wait in its queue (the server is
    slow), the rest are refused, and past the flood limit it is closed (4429). After the close
    frame nothing follows: not the queued hints' answers, not the update of a move made at
    its table."""
    settings.MATCHES_WS_READ_RATE = 10**6
    settings.MATCHES_WS_USER_RATE = 10**6
    slow = answers.check

    def slow_check(viewer, data):
        time.sleep(0.1)  # a busy server: the queued frames are still waiting at the close
        return slow(viewer, data)

    monkeypatch.setattr(answers, "check", slow_check)
    match = Match.objects.get(table=table)
    engine = EngineMatch.from_json(match.snapshot)
    mover = engine.to_move()
    flooder = (mover + 1) % 4
    legal = engine.legal_actions(mover)[0].to_json()
    login(*players)

    async def scenario():
        noisy = connect(table.pk, players[flooder])
        actor = connect(table.pk, players[mover])
        assert await _open(noisy) == "served"
        assert await _open(actor) == "served"
        for n in range(int(intake.RATE * 2 + intake.FLOOD) + 20):
            await noisy.send_to(text_data=json.dumps({"type": "hint", "id": n}))
        outputs = []
        while True:
            output = await noisy.receive_output(timeout=10)
            outputs.append(output)
            if output["type"] == "websocket.close":
                break
        assert output["code"] == 4429
        answers = [json.loads(o["text"]) for o in outputs[:-1]]
        assert any(a.get("code") == "rate_limited" for a in answers)
        # a move at the table: broadcast to the match's group, the closed socket included
        await actor.send_to(
            text_data=json.dumps({"type": "action", "id": "go", "seq": 0, "action": legal})
        )
        assert (await receive_type(actor, "ack"))["version"] == 1
        assert await noisy.receive_nothing(timeout=2.5), await noisy.receive_output()
        await noisy.disconnect()
        await actor.disconnect()

    async_to_sync(scenario)()


# --------------------------------------------------------------------------- two real servers


def test_the_cap_holds_across_two_server_processes(shared_stack):
    """Two uvicorn processes sharing one Redis (the run's shared stack's server and a second
    one started beside it for this test): a user's sockets, opened alternately on each, are
    served up to the cap in all (each process alone holds half of it), the next ones are
    closed 4409 by whichever process gets them; a socket closed on one process frees a slot
    for the other. Then one socket floods and is closed 4429: neither server logs a send
    after a close or an exception (while this test ran)."""
    e2e = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "e2e")
    sys.path.insert(0, e2e)
    from stack import free_port

    stack = shared_stack
    first_log = stack.logs["asgi"]
    already = first_log.stat().st_size  # what the shared server logged before this test
    try:
        second = stack.start_asgi("asgi2", free_port())
        table = stack.setup_tables(1, no_clocks=True)[0]
        cookie = table["cookies"][0]
        origins = [stack.http, second]

        async def open_socket(k):
            origin = origins[k % 2]
            url = origin.replace("http://", "ws://") + f"/ws/tables/{table['table']}/"
            ws = await websockets.connect(
                url, additional_headers={"Cookie": cookie, "Origin": origin}, max_size=None
            )
            try:
                while True:
                    frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
                    if frame["type"] == "snapshot":
                        return ws, "served"
            except websockets.ConnectionClosed as closed:
                return ws, (closed.rcvd.code, closed.rcvd.reason)

        async def scenario():
            sockets = [await open_socket(k) for k in range(14)]
            outcomes = [outcome for _, outcome in sockets]
            assert outcomes == ["served"] * 12 + [(4409, "too_many_sockets")] * 2, outcomes
            await sockets[0][0].close()  # on the first server
            await asyncio.sleep(0.5)
            ws, outcome = await open_socket(1)  # on the second
            assert outcome == "served"
            # a flood on one socket: closed 4429, nothing sent after the close
            for n in range(int(intake.RATE * 2 + intake.FLOOD) + 50):
                try:
                    await ws.send(json.dumps({"type": "hint", "id": n}))
                except websockets.ConnectionClosed:
                    break
            codes = []
            try:
                async for _ in ws:
                    pass
            except websockets.ConnectionClosed:
                pass
            codes.append(ws.close_code)
            assert codes == [4429], codes
            for other, _ in sockets[1:]:
                await other.close()

        asyncio.run(scenario())
        time.sleep(0.5)
        with open(first_log, "rb") as log:
            log.seek(already)
            logs = [log.read().decode(errors="replace")]
        logs.append(stack.logs["asgi2"].read_text(errors="replace"))
    finally:
        if "asgi2" in stack.procs:
            stack.kill("asgi2")  # the shared stack goes on with its one server
    for log in logs:
        assert "after sending 'websocket.close'" not in log, log
        assert "Exception in ASGI application" not in log, log
