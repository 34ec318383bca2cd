"""No noisy neighbour, through the real stack (uvicorn, Redis, the worker): one member with many
sockets flooding ``hint`` is refused ``rate_limited`` (with each frame's id) and cannot slow
another table of the same server beyond a stated bound; frames over the byte limit, up to a
few MiB, get ``too_large`` and the connection goes on."""

import asyncio
import json
import os
import statistics
import sys

import pytest
import websockets

sys.path.insert(0, os.path.dirname(__file__))


from bench.botclient import SeatClient  # noqa: E402

pytestmark = pytest.mark.integration

#: Sockets of the one noisy member.
SOCKETS = 30
#: Seconds between two hints of one of those sockets: each within the per-connection limit
#: (50 a second), together 150 a second.
GAP = 0.2
FLOODER = os.path.join(os.path.dirname(__file__), "flooder.py")
#: Seconds each phase (quiet, then flooded) of the neighbour table is measured.
PHASE = 8.0


@pytest.fixture(scope="module")
def stack(shared_stack):
    # the run's one stack (tests/conftest.py): this module only adds tables and people to it
    return shared_stack


def p99(values):
    return statistics.quantiles(values, n=100)[98] if len(values) >= 20 else max(values)


def p90(values):
    return statistics.quantiles(values, n=10)[8]


def test_a_member_flooding_hints_does_not_slow_another_table(stack):
    noisy, neighbour = stack.setup_tables(2, no_clocks=True)
    to_move = stack.query(
        f"from matches.models import Match\nout = Match.objects.get(pk={noisy['match']}).to_move"
    )
    latencies, sent_at = [], {}

    def on_send(client, version, at):
        sent_at[(id(client), version)] = at

    def on_frame(client, frame, at):
        if frame["type"] == "update":
            start = sent_at.pop((id(client), frame["version"] - 1), None)
            if start is not None:  # the update of the client's own action
                latencies.append(at - start)

    url = f"{stack.ws}/ws/tables/{neighbour['table']}/"
    players = [
        SeatClient(url, cookie, stack.http, on_send=on_send, on_frame=on_frame, think=0.05)
        for cookie in neighbour["cookies"]
    ]

    async def scenario():
        tasks = [asyncio.create_task(c.run()) for c in players]
        await asyncio.sleep(3)  # attached and playing
        latencies.clear()
        await asyncio.sleep(PHASE)
        quiet = list(latencies)
        latencies.clear()
        noisy_url = f"{stack.ws}/ws/tables/{noisy['table']}/"
        flooder = await asyncio.create_subprocess_exec(
            sys.executable,
            FLOODER,
            *(noisy_url, noisy["cookies"][to_move], stack.http),
            *(str(SOCKETS), str(PHASE + 3), str(GAP)),
            stdout=asyncio.subprocess.PIPE,
        )
        await asyncio.sleep(3)  # its thirty sockets connected (a burst of its own) and flooding
        latencies.clear()
        output, _ = await flooder.communicate()
        flooded = list(latencies)
        for client in players:
            client.stop()
            if client.ws is not None:
                await client.ws.close()
        await asyncio.gather(*tasks, return_exceptions=True)
        return quiet, flooded, json.loads(output.decode().strip().splitlines()[-1])

    quiet, flooded, noise = asyncio.run(scenario())
    print(
        f"neighbour table p90 / p99 quiet {p90(quiet) * 1000:.0f} / {p99(quiet) * 1000:.0f} ms "
        f"(n={len(quiet)}), flooded {p90(flooded) * 1000:.0f} / {p99(flooded) * 1000:.0f} ms "
        f"(n={len(flooded)}); "
        f"noisy member: {noise}"
    )
    assert len(quiet) >= 20 and len(flooded) >= 20
    # the bound: the neighbour's p90 at most doubles, plus 100 ms for a machine shared with
    # other jobs (before the limits its p99 went up about twenty-fold). Not the p99: of some
    # 145 actions that is the second slowest, and one pause of the shared machine (seen once:
    # 257 ms, while the quiet half had one of 68 ms) decides it.
    assert p90(flooded) <= 2 * p90(quiet) + 0.1
    assert len(flooded) >= 0.5 * len(quiet)  # and it keeps most of its pace
    assert noise["limited"] and noise["limited_ids_known"]  # refused, each with its id
    # the member's hints are bounded across all their sockets (the per-user read limit)
    assert noise["answered"] <= 20 * (PHASE + 3 + 2)


def test_oversize_frames_get_too_large_with_their_id(stack):
    (table,) = stack.setup_tables(1, no_clocks=True)
    url = f"{stack.ws}/ws/tables/{table['table']}/"

    async def scenario():
        async with websockets.connect(
            url,
            additional_headers={"Cookie": table["cookies"][0], "Origin": stack.http},
            max_size=None,
        ) as ws:
            while json.loads(await ws.recv())["type"] != "snapshot":
                pass
            answers = []
            # 3,000 CJK characters: under 8 KiB in characters, 9,000 bytes of UTF-8
            for frame_id, pad in ((1, "牌" * 3000), (2, "x" * (3 * 1024 * 1024))):
                await ws.send(
                    json.dumps({"type": "hint", "id": frame_id, "pad": pad}, ensure_ascii=False)
                )
                answers.append(json.loads(await ws.recv()))
            await ws.send(json.dumps({"type": "ping", "id": 3}))
            answers.append(json.loads(await ws.recv()))
            return answers

    first, second, pong = asyncio.run(scenario())
    assert first["code"] == "too_large" and first["id"] == 1
    assert second["code"] == "too_large" and second["id"] == 2
    assert pong == {"type": "pong", "id": 3}
