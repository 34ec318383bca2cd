"""No noisy neighbour, through the real stack (uvicorn, Redis, the worker): one member with many
sockets flooding ``hint`` is refused ``rate_limited`` (with each frame's id) and cannot slow
another table of the same server beyond a stated bound; frames over the byte limit, up to a
few MiB, get ``too_large`` and the connection goes on.

The bound is measured on quiet and flooded windows taken in turn (quiet, flooded, quiet,
flooded...), so that a change of the machine's other load during the test weighs on both alike;
``./test`` runs it (marked ``timing``) alone, after the parallel runs."""

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
#: Quiet and flooded windows of the neighbour table, taken in turn: ROUNDS of each, WINDOW
#: seconds each.
ROUNDS = 3
WINDOW = 4.0
#: Seconds for the flooder's sockets to connect (a burst of its own) before a flooded window,
#: and for the server to finish its queued hints after one, before the next quiet window.
BURST = 3.0
SETTLE = 1.0


@pytest.fixture(scope="module")
def stack(shared_stack):
    # the run's one stack (tests/conftest.py): this module only adds tables and people to it
    return shared_stack


def p99(values):
    return statistics.quantiles(values, n=100)[98] if len(values) >= 20 else max(values)


def p90(values):
    if len(values) < 2:  # a window's own figure, printed only
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=10)[8]


@pytest.mark.timing
def test_a_member_flooding_hints_does_not_slow_another_table(stack):
    # a noisy member of a table of their own for each round: a member just turned away for
    # flooding is still turned away in the next round (their sockets count until they close)
    neighbour, *noisy_tables = stack.setup_tables(1 + ROUNDS, no_clocks=True)
    to_move = stack.query(
        "from matches.models import Match\n"
        f"out = [Match.objects.get(pk=t['match']).to_move for t in {noisy_tables!r}]"
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

    async def window():
        latencies.clear()
        await asyncio.sleep(WINDOW)
        return list(latencies)

    async def scenario():
        tasks = [asyncio.create_task(c.run()) for c in players]
        await asyncio.sleep(3)  # attached and playing
        rounds = []
        for noisy, seat in zip(noisy_tables, to_move, strict=True):
            await asyncio.sleep(SETTLE)
            quiet = await window()
            noisy_url = f"{stack.ws}/ws/tables/{noisy['table']}/"
            flooder = await asyncio.create_subprocess_exec(
                sys.executable,
                FLOODER,
                *(noisy_url, noisy["cookies"][seat], stack.http),
                *(str(SOCKETS), str(BURST + WINDOW), str(GAP)),
                stdout=asyncio.subprocess.PIPE,
            )
            await asyncio.sleep(BURST)  # its thirty sockets connected and flooding
            flooded = await window()
            output, _ = await flooder.communicate()
            rounds.append((quiet, flooded, json.loads(output.decode().strip().splitlines()[-1])))
        for client in players:
            client.stop()
            if client.ws is not None:
                await client.ws.close()
        await asyncio.gather(*tasks, return_exceptions=True)
        return rounds

    rounds = asyncio.run(scenario())
    for quiet, flooded, noise in rounds:
        print(
            f"round: neighbour p90 quiet {p90(quiet) * 1000:.0f} ms (n={len(quiet)}), "
            f"flooded {p90(flooded) * 1000:.0f} ms (n={len(flooded)}); noisy member: {noise}"
        )
    quiet = [latency for q, _, _ in rounds for latency in q]
    flooded = [latency for _, f, _ in rounds for latency in f]
    print(
        f"neighbour table p90 / p99 quiet {p90(quiet) * 1000:.0f} / {p99(quiet) * 1000:.0f} ms "
        f"(n={len(quiet)}), flooded {p90(flooded) * 1000:.0f} / {p99(flooded) * 1000:.0f} ms "
        f"(n={len(flooded)})"
    )
    assert len(quiet) >= 20 and len(flooded) >= 20
    # the bound, over the quiet and the flooded windows taken in turn: the neighbour's p90 at
    # most doubles, plus 100 ms for a machine shared with
    # other jobs (before the limits its p99 went up about twenty-fold). Not the p99: of some
    # 145 actions that is the second slowest, and one pause of the shared machine (seen once:
    # 257 ms, while the quiet half had one of 68 ms) decides it.
    assert p90(flooded) <= 2 * p90(quiet) + 0.1
    assert len(flooded) >= 0.5 * len(quiet)  # and it keeps most of its pace
    for _, _, noise in rounds:
        assert noise["limited"] and noise["limited_ids_known"]  # refused, each with its id
        # the member's hints are bounded across all their sockets (the per-user read limit)
        assert noise["answered"] <= 20 * (BURST + WINDOW + 2)


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
