"""The whole stack SIGKILLed and started again (issue 20): the embedded Redis (its append-only
file), the ASGI server (``python -m config.serve``, as ``./run`` starts it) and a Celery worker
with beat, as real processes on a fresh database (SQLite file; PostgreSQL in the second ./test
run), emailing a real SMTP server.

Results are recorded (each goes on the platform ladder and its club's, and emails its four
players); once some emails arrived, every SMTP session is held before the server takes its
message and every process of the stack is SIGKILLed at once — no process finishes anything.
Started again, the stack must finish the work: every email arrives exactly once, every result
is on every ladder exactly once, and the worker and the web server are alive (a result
recorded afterwards is applied and emailed too).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.request
from collections import Counter
from pathlib import Path

import pytest
import smtp_server  # loaded by this folder's conftest
import worker_stack

from tests.reliability.test_result_worker_kill import STATE

pytestmark = pytest.mark.integration

HERE = Path(__file__).resolve().parent
COUNT = 12
#: Results recorded while every worker thread is held: not applied at the kill.
LATE = 4

RECORD = """
import random
from datetime import timedelta
from django.utils import timezone
from clubs.models import Club, Membership, Role, User
from ladder import services
rng = random.Random(%(seed)d)
out = []
for n in range(%(first)d, %(first)d + %(count)d):
    club = Club.objects.create(name=f"Stack club {n}", slug=f"stack-{n}")
    four = [User.objects.create_user(username=f"s{n}-{i}", email=f"stack-{n}-{i}@example.com")
            for i in range(4)]
    Membership.objects.bulk_create(Membership(club=club, user=u, role=Role.MEMBER) for u in four)
    result = services.record_result(  # commits, then publishes the apply task to the broker
        source="live", source_id=f"stack-{n}", variant="bao2",
        sides=[[four[0].pk, four[1].pk], [four[2].pk, four[3].pk]],
        scores=[23, rng.randint(2, 20)],
        ended_at=timezone.now() - timedelta(minutes=n), club_id=club.pk,
    )
    out.append(result.pk)
"""


class Stack(worker_stack.WorkerStack):
    """The outbox tests' stack (Redis with its append-only file, the database, a worker with
    beat) plus the web server."""

    def __init__(self, smtp_port: int) -> None:
        super().__init__(smtp_port)
        self.env["DJANGO_SETTINGS_MODULE"] = "reliability_worker_settings"
        self.env["PYTHONPATH"] = os.pathsep.join([str(HERE), self.env["PYTHONPATH"]])
        self.env["ASGI_PROCESSES"] = "1"
        self.web: subprocess.Popen | None = None
        self.port = smtp_server.free_port()

    def start_web(self) -> None:
        """``python -m config.serve`` on a free port, its own process group; wait until it
        answers."""
        log = open(self.tmp / "web.log", "ab")
        self.web = subprocess.Popen(
            [str(worker_stack.BIN / "python"), "-m", "config.serve", "127.0.0.1", str(self.port)],
            cwd=worker_stack.ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        deadline = time.monotonic() + 60
        while self.health() is None:
            assert time.monotonic() < deadline, (self.tmp / "web.log").read_text()[-3000:]
            time.sleep(0.2)

    def health(self) -> dict | None:
        """``/healthz`` of the web server, or None when it does not answer."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2) as r:
                return json.loads(r.read())
        except OSError:
            return None

    def sigkill_all(self) -> None:
        """SIGKILL every process of the stack at once: web, worker (with beat), Redis."""
        for process in (self.web, self.worker):
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.redis.process.kill()
        for process in (self.web, self.worker, self.redis.process):
            process.wait()
        self.web = self.worker = self.redis.process = None

    def stop(self) -> None:
        if self.web is not None:
            os.killpg(self.web.pid, signal.SIGKILL)
            self.web.wait()
        super().stop()


@pytest.fixture
def stack(server):
    stack = Stack(server.port).start()
    yield stack
    stack.stop()


def emails_to_stack_players(server) -> Counter:
    return Counter(r.message_id for r in server.received if r.to.startswith("stack-"))


def wait_for_emails(stack, server, count: int, seconds: float) -> None:
    """Wait until ``count`` different emails arrived (read here, not through the database:
    each look there starts a Django process)."""
    deadline = time.monotonic() + seconds
    while len(emails_to_stack_players(server)) < count:
        assert time.monotonic() < deadline, stack.log()[-3000:]
        time.sleep(0.1)


def test_the_whole_stack_sigkilled_and_restarted_finishes_its_work_once(stack, server):
    stack.start_web()
    stack.start_worker()
    # held before the server takes a message: nothing half-sent at the kill; set before the
    # results are recorded, as a fast worker sends all their emails before that returns
    server.hold("rcpt", after=8)
    result_ids = stack.python(RECORD % {"seed": 1, "first": 0, "count": COUNT})
    wait_for_emails(stack, server, 8, 60)
    assert server.wait_holding(4, timeout=90) == 4, stack.log()[-3000:]
    # every worker thread waits in SMTP: these results are only on the broker at the kill
    result_ids += stack.python(RECORD % {"seed": 2, "first": COUNT, "count": LATE})
    stack.sigkill_all()
    server.release()
    at_kill = stack.python(STATE)
    delivered = len(emails_to_stack_players(server))
    assert delivered < 4 * COUNT and at_kill["unclaimed"] >= LATE

    stack.redis.start()  # the same directory: the append-only file's data is back
    stack.start_web()
    stack.start_worker()
    wait_for_emails(stack, server, 4 * (COUNT + LATE), 90)
    # alive: a result recorded now is applied and emailed too
    result_ids += stack.python(RECORD % {"seed": 3, "first": COUNT + LATE, "count": 1})
    wait_for_emails(stack, server, 4 * (COUNT + LATE + 1), 60)
    time.sleep(1.5)  # anything sent twice would arrive now
    state = stack.python(STATE)
    assert stack.worker.poll() is None and stack.health() == {"status": "ok"}

    assert state["unclaimed"] == 0 and set(state["on"]) == {str(r) for r in result_ids}
    assert all(on == {"platform": 4, "club": 4} for on in state["on"].values()), state["on"]
    received = emails_to_stack_players(server)
    assert sorted(received.values()) == [1] * (4 * len(result_ids))
    assert received.keys() == {m for _k, status, m in state["rows"] if status == "sent"}
    assert len(state["rows"]) == 4 * len(result_ids)
