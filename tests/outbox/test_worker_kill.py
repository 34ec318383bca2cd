"""The outbox with real processes: Celery workers (4 threads, with beat running the sweep) on a
real Redis broker and a fresh database (SQLite file; PostgreSQL in the second ./test run),
sending to a real SMTP server.

The guarantee measured here: every message arrives; it arrives exactly once, except when the
worker dies after the SMTP server took the message and before ``status=sent`` is committed —
then it arrives again, with the same Message-ID (at-least-once, recognisable duplicates).
"""

from __future__ import annotations

import random
import time
from collections import Counter, defaultdict

import pytest
import smtp_server  # loaded by this folder's conftest
import worker_stack

pytestmark = pytest.mark.integration

ENQUEUE = """
from django.db import transaction
from outbox import services
out = []
for i in range({count}):
    with transaction.atomic():
        message = services.enqueue(
            key="{prefix}:" + str(i), to="{prefix}-" + str(i) + "@example.com",
            subject="{prefix} " + str(i), body="hello",
        )
    out.append([message.key, message.message_id])
"""

ROWS = """
from outbox.models import OutboxMessage
out = list(OutboxMessage.objects.filter(key__startswith="{prefix}:").values_list(
    "key", "status", "attempts", "message_id"))
"""


@pytest.fixture(scope="module")
def server():
    server = smtp_server.SmtpServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def stack(server):
    stack = worker_stack.WorkerStack(server.port).start()
    yield stack
    stack.stop()


def deliveries(server, prefix):
    """Message-IDs received per address of this test."""
    got = defaultdict(list)
    for r in server.received:
        if r.to.startswith(prefix + "-"):
            got[r.to].append(r.message_id)
    return got


def wait_all_sent(stack, prefix, count, timeout=180):
    deadline = time.monotonic() + timeout
    while True:
        rows = stack.python(ROWS.format(prefix=prefix))
        if len(rows) == count and all(status == "sent" for _k, status, _a, _m in rows):
            return rows
        if time.monotonic() > deadline:
            raise AssertionError(f"not all sent: {rows}\n{stack.log()[-3000:]}")
        time.sleep(1)


def test_concurrent_enqueues_and_deliveries_send_once(stack, server):
    """Eight transactions write the same key at once; eight workers deliver it at once."""
    server.slow("rcpt", 0.3)  # the senders overlap while the first one is in the SMTP session
    try:
        out = stack.python(
            """
import threading
from django.db import connections, transaction
from outbox import services
barrier = threading.Barrier(8)
ids, results = [], []
def write():
    try:
        barrier.wait()
        with transaction.atomic():
            ids.append(services.enqueue(key="race:1", to="race-1@example.com",
                                        subject="race", body="b").pk)
    finally:
        connections.close_all()
def deliver():
    try:
        barrier.wait()
        results.append(services.deliver(ids[0]))
    finally:
        connections.close_all()
for target in (write, deliver):
    threads = [threading.Thread(target=target) for _ in range(8)]
    for t in threads: t.start()
    for t in threads: t.join(120)
from outbox.models import OutboxMessage
out = [ids, sorted(results), OutboxMessage.objects.filter(key="race:1").count()]
"""
        )
    finally:
        server.slow("rcpt", 0)
    ids, results, rows = out
    assert len(ids) == 8 and len(set(ids)) == 1 and rows == 1
    assert results == ["sent"] + ["skipped"] * 7
    # the eight publishes of the one row (no worker ran yet) are harmless too: a worker skips them
    stack.start_worker()
    try:
        wait_all_sent(stack, "race", 1)
        time.sleep(2)
    finally:
        stack.kill_worker()
    assert {k: len(v) for k, v in deliveries(server, "race").items()} == {"race-1@example.com": 1}


def test_broker_down_at_enqueue_does_not_fail_the_writer_and_the_sweep_sends(stack, server):
    stack.redis.stop()
    try:
        written = stack.python(ENQUEUE.format(prefix="nobroker", count=5))
    finally:
        stack.redis.start()
    assert len(written) == 5
    assert {s for _k, s, _a, _m in stack.python(ROWS.format(prefix="nobroker"))} == {"pending"}
    stack.start_worker()
    try:
        wait_all_sent(stack, "nobroker", 5)
    finally:
        stack.kill_worker()
    got = deliveries(server, "nobroker")
    assert sorted(len(v) for v in got.values()) == [1] * 5
    assert {v[0] for v in got.values()} == {m for _k, m in written}


def test_sigkilled_workers_lose_nothing_and_resend_only_what_the_server_took(stack, server):
    """Rounds of: hold every SMTP session at a stage, SIGKILL the worker there, start a new one.
    Held before the server took the message: it is sent once. Held after (the worker never
    heard the 250): it is sent again, with the same Message-ID, and nothing else is doubled."""
    count = 40
    written = dict(stack.python(ENQUEUE.format(prefix="kill", count=count)))
    server.refuse(2)  # and two refusals: the retries run through the real broker's countdown
    held_after_accept = Counter()
    stages = ["rcpt", "data", "rcpt", "data"]
    for stage in stages:
        server.hold(stage)
        stack.start_worker()
        holding = server.wait_holding(4, timeout=60)
        time.sleep(0.5)  # the other threads reach the hold too, or have nothing to claim
        assert holding >= 1, stack.log()[-3000:]
        if stage == "data":
            held_after_accept.update(server.recorder.held)
        stack.kill_worker()
        server.release()
    stack.start_worker()
    try:
        rows = wait_all_sent(stack, "kill", count)
    finally:
        stack.kill_worker()
    got = deliveries(server, "kill")
    assert len(got) == count  # every message arrived
    by_key = {k: m for k, _s, _a, m in rows}
    for address, message_ids in got.items():
        key = "kill:" + address.split("-")[1].split("@")[0]
        # every copy is the message written in the transaction: the same Message-ID
        assert set(message_ids) == {written[key]} == {by_key[key]}
        # one delivery, plus one per time the server took it from a worker that then died
        assert len(message_ids) == 1 + held_after_accept[written[key]], (address, message_ids)
    assert server.recorder.refused == 2
    assert sum(held_after_accept.values()) >= 2  # the rounds did kill workers after the accept
    attempts = {k: a for k, _s, a, _m in rows}
    assert max(attempts.values()) >= 2


def test_random_sigkills_measure_the_duplicate_window(stack, server):
    """Workers SIGKILLed at random moments while sending (each SMTP session takes ~0.2 s):
    every message arrives; a duplicate is possible only in the window between the server's
    acceptance and the commit, and is recognisable by its Message-ID. Prints the measurement."""
    count, kills = 100, 5
    written = dict(stack.python(ENQUEUE.format(prefix="random", count=count)))
    interrupted_before = server.interrupted()
    server.slow("rcpt", 0.2)
    rng = random.Random(20)
    try:
        for _ in range(kills):
            before = len(server.received)
            stack.start_worker()
            deadline = time.monotonic() + 60
            while len(server.received) < before + 2 and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(rng.uniform(0, 0.3))
            # On a loaded machine the random moment can fall between two sessions: the kill
            # is made to land while one is in flight, which is what this test measures.
            assert server.wait_in_rcpt(), stack.log()[-3000:]
            stack.kill_worker()
        stack.start_worker()
        try:
            wait_all_sent(stack, "random", count)
        finally:
            stack.kill_worker()
    finally:
        server.slow("rcpt", 0)
    got = deliveries(server, "random")
    assert len(got) == count
    duplicates = 0
    for address, message_ids in got.items():
        key = "random:" + address.split("-")[1].split("@")[0]
        assert set(message_ids) == {written[key]}
        duplicates += len(message_ids) - 1
    interrupted = server.interrupted() - interrupted_before
    print(
        f"\noutbox: {kills} SIGKILLs while sending {count} messages interrupted {interrupted} "
        f"SMTP sessions in flight; {duplicates} duplicates (same Message-ID)"
    )
    assert interrupted >= kills  # the kills did land in the middle of sends
    assert duplicates <= kills * 4  # at most the sends in flight at each kill
