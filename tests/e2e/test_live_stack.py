"""End-to-end: the real ASGI server (daphne), a real Celery worker with beat, a Redis server,
and websocket clients playing as browsers do (matches.botclient)."""

import asyncio
import os
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from hidden import check_frames  # noqa: E402
from stack import Stack  # noqa: E402

from matches.botclient import SeatClient  # noqa: E402

pytest.importorskip("websockets")

CHECK_MATCH = """
from matches.models import Match
from matches.store import replay_events
from engine.match import Match as EngineMatch
m = Match.objects.get(pk={match})
events = list(m.events.order_by("seq").values("seq", "seat", "actor", "action"))
replayed = replay_events(m)
stored = EngineMatch.from_json(m.snapshot)
out = {{
    "status": m.status, "version": m.version, "result": m.result, "autoplay": m.autoplay,
    "seed": m.seed, "options": m.options, "variant": m.variant,
    "seqs_ok": [e["seq"] for e in events] == list(range(1, m.version + 1)),
    "replay_ok": replayed.state_json() == stored.state_json(),
    "events": events,
}}
"""


@pytest.fixture(scope="module")
def stack():
    stack = Stack(bot_delay=0.0, sweep_seconds=1.0).start()
    yield stack
    stack.stop()


def clients_for(stack, table, record=False, idle_seats=(), spectators=True):
    url = f"{stack.ws}/ws/tables/{table['table']}/"
    clients = [
        SeatClient(url, cookie, stack.http, act=seat not in idle_seats, record=record)
        for seat, cookie in enumerate(table["cookies"])
    ]
    if spectators:
        clients += [SeatClient(url, c, stack.http, record=record) for c in table["spectators"]]
    return clients


async def play(clients, timeout):
    tasks = [asyncio.create_task(c.run()) for c in clients]
    try:
        deadline = time.monotonic() + timeout
        while not all(c.over for c in clients):
            if time.monotonic() > deadline:
                states = [(c.you, c.version, c.connects, c.errors[-1:]) for c in clients]
                raise AssertionError(f"the match did not end in time: {states}")
            await asyncio.sleep(0.1)
    finally:
        for client in clients:
            client.stop()
            if client.ws is not None:
                await client.ws.close()
        await asyncio.gather(*tasks, return_exceptions=True)


def check_match(stack, match_id):
    data = stack.query(CHECK_MATCH.format(match=match_id))
    assert data["seqs_ok"], "event seqs are not 1..version"
    assert data["replay_ok"], "replaying the event log does not rebuild the snapshot"
    return data


def assert_versions_complete(client, final):
    """After its first frame, a client saw every version once (updates or resent events)."""
    seen = []
    first = None
    for frame in client.frames:
        if frame["type"] == "snapshot" and first is None:
            first = frame["version"]
        elif frame["type"] == "update":
            seen.append(frame["version"])
        elif frame["type"] == "events":
            seen.extend(e["seq"] for e in frame["events"])
    assert first is not None
    # (an update may also repeat the version of the first snapshot: it raced the connect)
    assert sorted({v for v in seen if v > first}) == list(range(first + 1, final + 1))


def test_four_bots_play_a_bao2_match_to_its_end(stack):
    # A match to 2A takes over 1,000 actions (about a minute here); the match time limit ends
    # this one after the deal in progress, through the same code path.
    (table,) = stack.setup_tables(1, spectators=1, time_limit=int(os.environ.get("E2E_LIMIT", "5")))
    clients = clients_for(stack, table, record=True)
    asyncio.run(play(clients, timeout=400))
    data = check_match(stack, table["match"])
    assert data["status"] == "finished" and data["result"]["over"]
    assert data["result"]["reason"] in ("last_level", "time")
    assert {e["actor"] for e in data["events"] if e["seat"] is not None} == {"player"}
    for client in clients:
        assert client.over and client.version == data["version"]
        assert_versions_complete(client, data["version"])
        assert not [r for r in client.refusals if r["code"] != "stale"]
    frames = {c.you: c.frames for c in clients}
    actions = [e["action"] for e in data["events"]]
    assert check_frames(data["variant"], data["seed"], data["options"], actions, frames) > 0


def test_a_seat_timing_out_every_action_is_auto_played_to_the_end(stack):
    # A Bao 2 match can end at 2A within its first deal, in a few seconds of auto-play; a 2 s
    # limit passes before seat 2's two 1 s clocks have run out, so time_up is always entered.
    (table,) = stack.setup_tables(
        1, options={"first_action_seconds": 1, "action_seconds": 1}, time_limit=2
    )
    clients = clients_for(stack, table, idle_seats=(2,), spectators=False)
    asyncio.run(play(clients, timeout=200))
    data = check_match(stack, table["match"])
    # auto-play is fast: the deal in progress when the limit passes may also pass 2A
    assert data["status"] == "finished" and data["result"]["reason"] in ("time", "last_level")
    by_seat2 = [e["actor"] for e in data["events"] if e["seat"] == 2]
    assert by_seat2[:2] == ["clock", "clock"]
    assert set(by_seat2[2:]) == {"auto"} and len(by_seat2) > 2
    assert data["autoplay"][2] == "timeout"
    # the other seats' clients play (on a loaded machine a 1 s clock may rarely beat them)
    others = [e["actor"] for e in data["events"] if e["seat"] not in (2, None)]
    assert set(others) <= {"player", "clock", "auto"}
    assert others.count("player") >= 0.9 * len(others)
    assert [e["action"] for e in data["events"] if e["seat"] is None] == [{"time_up": True}]


def test_crash_of_server_and_worker_mid_match(stack):
    (table,) = stack.setup_tables(1, time_limit=12, spectators=1)
    clients = clients_for(stack, table, record=True)

    async def scenario():
        tasks = [asyncio.create_task(c.run()) for c in clients]
        deadline = time.monotonic() + 60
        while min(c.version for c in clients) < 40:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        stack.kill("asgi")
        stack.kill("worker")
        before = max(c.version for c in clients)
        await asyncio.sleep(1.0)
        stack.start_asgi()
        stack.start_worker()
        try:
            await asyncio.wait_for(asyncio.gather(*tasks), 300)
        finally:
            for c in clients:
                c.stop()
            await asyncio.gather(*tasks, return_exceptions=True)
        return before

    before = asyncio.run(scenario())
    data = check_match(stack, table["match"])
    assert data["status"] == "finished" and data["version"] > before
    for client in clients:
        assert client.connects >= 2
        assert client.over and client.version == data["version"]
        assert_versions_complete(client, data["version"])
    frames = {c.you: c.frames for c in clients}
    actions = [e["action"] for e in data["events"]]
    check_frames(data["variant"], data["seed"], data["options"], actions, frames)


def test_hidden_information_over_many_bot_matches(stack):
    tables = stack.setup_tables(6, time_limit=2, spectators=1)
    clients = []
    for table in tables:
        clients.append(clients_for(stack, table, record=True))
    asyncio.run(play([c for group in clients for c in group], timeout=300))
    checked = 0
    for table, group in zip(tables, clients, strict=True):
        data = check_match(stack, table["match"])
        assert data["status"] == "finished"
        frames = {c.you: c.frames for c in group}
        actions = [e["action"] for e in data["events"]]
        checked += check_frames(data["variant"], data["seed"], data["options"], actions, frames)
    assert checked > 6 * 5 * 50
