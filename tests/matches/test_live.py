"""The contracts of live play's runtime (``matches/live/``) checked without a socket: version
ordering, the batching's order of updates and answers, the thread pools made on first use and
chosen by settings. The real-socket tests of the same guarantees are in test_consumers.py,
test_socket_caps.py and test_consumer_fuzz.py."""

import asyncio
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from django.test import override_settings

from matches import broadcast
from matches.live import batching, threads
from matches.live.ordering import VersionOrder
from matches.messages import MatchError
from matches.services import play

ROOT = Path(__file__).resolve().parents[2]


def test_updates_go_out_in_version_order_and_the_old_ones_are_dropped():
    order = VersionOrder()
    assert order.incoming("update", 1, "u1") == []  # nothing sent yet: held
    assert order.state_sent(1) == []  # the snapshot of version 1 covered it
    assert order.held == {}
    assert order.incoming("update", 3, "u3") == []  # 2 is missing: held
    assert order.incoming("table", 3, "t3") == []
    assert order.waiting
    assert order.incoming("update", 2, "u2") == ["u2", "u3", "t3"]
    assert not order.waiting
    assert order.incoming("update", 2, "u2 again") == []  # sent already
    assert order.incoming("table", 3, "t3 again") == ["t3 again"]  # of the version sent last
    assert order.incoming("table", 2, "t2") == []  # older than what was sent
    assert order.incoming("snapshot", 9, "s9") == ["s9"]  # a newer snapshot at once
    assert order.incoming("phrase", None, "p") == ["p"]  # no version: at once


def test_a_gap_filled_from_the_database_drops_what_it_covered():
    order = VersionOrder()
    order.state_sent(4)
    order.incoming("update", 6, "u6")
    order.incoming("update", 8, "u8")
    assert order.state_sent(6) == []  # the events up to 6: u6 dropped, u8 still waits for 7
    assert list(order.held) == [8]
    assert order.incoming("update", 7, "u7") == ["u7", "u8"]


def test_a_batch_publishes_its_updates_before_it_answers(monkeypatch):
    """The ack of an action never reaches its player before the action's update was
    published; a refusal is answered in the connection's language; every action is answered."""
    happened = []
    frames = [("match.1", {"type": "match.frame", "version": 1})]

    def submit_actions(requests):
        outcomes = [
            play.Accepted(1, None) if r.seat == 0 else MatchError("not_your_turn") for r in requests
        ]
        return play.Submitted(outcomes, frames)

    async def publish_now(published):
        await asyncio.sleep(0.05)
        happened.append(("published", published))

    async def run(pool, func, *args):  # the thread itself is not what is tested here
        assert pool == threads.ACTIONS
        return func(*args)

    monkeypatch.setattr(play, "submit_actions", submit_actions)
    monkeypatch.setattr(broadcast, "publish_now", publish_now)
    monkeypatch.setattr(threads, "run", run)

    async def scenario():
        async def answer(request, frame_id, language):
            result = await batching.submit(request, frame_id, language)
            happened.append(("answered", result))

        queue = batching._queues.pop(asyncio.get_running_loop(), None)
        assert queue is None
        with override_settings(MATCHES_THREADS=1):
            await asyncio.gather(
                answer(play.ActionRequest(1, {}, 0), 7, "en"),
                answer(play.ActionRequest(1, {}, 1), "b", "zh-hans"),
            )

    asyncio.run(scenario())
    # one thread: the second action waited for the first batch; each batch published first
    assert [kind for kind, _ in happened] == ["published", "answered"] * 2
    assert happened[0] == ("published", frames)
    ack, refused = happened[1][1], happened[3][1]
    assert ack == {"type": "ack", "id": 7, "version": 1}
    assert refused["type"] == "refused" and refused["id"] == "b"
    assert refused["code"] == "not_your_turn" and refused["message"] != "not_your_turn"


def test_the_pools_are_made_on_first_use_and_chosen_by_settings(monkeypatch):
    monkeypatch.setattr(threads, "_pools", {})
    with override_settings(MATCHES_BOOKKEEPING_THREAD=False):
        assert threads._pool(threads.BOOKKEEPING) is None  # Django's own thread
    monkeypatch.setattr(threads, "_pools", {})
    with override_settings(MATCHES_BOOKKEEPING_THREAD=True, MATCHES_THREADS=3):
        assert isinstance(threads._pool(threads.BOOKKEEPING), ThreadPoolExecutor)
        actions = threads._pool(threads.ACTIONS)
        assert actions._max_workers == 3 and threads._pool(threads.ACTIONS) is actions
    for pool in threads._pools.values():
        pool.shutdown()


def test_importing_the_consumer_makes_no_thread():
    script = (
        "import django, threading; django.setup(); import matches.routing; "
        "from matches.live import threads; "
        "print(threads._pools, sorted(t.name for t in threading.enumerate() "
        "if t.name.startswith('matches')))"
    )
    env = {"DJANGO_SETTINGS_MODULE": "config.settings", "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "{} []"
