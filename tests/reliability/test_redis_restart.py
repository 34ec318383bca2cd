"""Redis restarted alone under the whole stack (issue 40, item 3): the ASGI server
(``python -m config.serve``), a Celery worker (threads pool) and Celery beat as separate real
processes, a real redis-server on a loopback TCP port with its append-only file, a fresh
database (SQLite file; PostgreSQL in the second ./test run) and a real SMTP server.

While bots play a table, a person's clock runs at another and results' e-mails are sent, Redis
is stopped (SIGTERM, as ``systemctl restart`` does) and started again on the same port with the
same data directory. No process of the stack is restarted, and without a supervisor none
could be: afterwards the worker, beat and the web server must be the same processes, the bots
must go on moving, the clock must fire, a websocket spectator must see the moves, and every
e-mail must arrive exactly once.

Before the fix in ``config.celery`` the worker logged "Unrecoverable error:
AttributeError("'NoneType' object has no attribute 'hostname'")" and exited at the restart.
The first test shows that cause in one process, in a second.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

import pytest
import smtp_server  # loaded by this folder's conftest
import worker_stack

from bench.botclient import SeatClient

pytestmark = pytest.mark.integration

HERE = Path(__file__).resolve().parent

#: Three bots and one person who never acts, with 1 s clocks (the person's seat is then
#: auto-played): a table only the worker moves. Then a table of four idle people whose first
#: clock runs out after the restart: its deadline task is held by the worker across it.
SETUP = """
from bench.tables import make_tables
bots = make_tables(1, prefix="bots", bots=3, spectators=1,
                   options={"first_action_seconds": 1, "action_seconds": 1})[0]
clock = make_tables(1, prefix="clock", options={"first_action_seconds": %(clock)d})[0]
out = {"bots": bots, "clock": clock}
"""

#: A result of four new players (each gets an e-mail once it is on the ladders).
RECORD = """
from datetime import timedelta
from django.utils import timezone
from clubs.models import Club, Membership, Role, User
from ladder import services
n = "%(name)s"
club = Club.objects.create(name=f"Restart club {n}", slug=f"restart-{n}")
four = [User.objects.create_user(username=f"r{n}-{i}", email=f"restart-{n}-{i}@example.com")
        for i in range(4)]
Membership.objects.bulk_create(Membership(club=club, user=u, role=Role.MEMBER) for u in four)
services.record_result(
    source="live", source_id=f"restart-{n}", variant="bao2",
    sides=[[four[0].pk, four[1].pk], [four[2].pk, four[3].pk]], scores=[23, 7],
    ended_at=timezone.now() - timedelta(minutes=1), club_id=club.pk,
)
out = None
"""

EVENTS = """
from matches.models import MatchEvent
out = {m: list(MatchEvent.objects.filter(match_id=m).order_by("seq").values_list("seq", "actor"))
       for m in %(matches)r}
"""

#: Seconds of the clock table's first clock: it runs out after Redis is back and the worker
#: has reconnected (Celery retries after 2 s, then 4 s), but well within the platform's
#: "late" threshold (MATCHES_LATE_SECONDS), past which a clock that ran out is re-armed.
CLOCK_SECONDS = 12

#: A Django process of the stack that runs the code it reads (one JSON string a line) and
#: answers with the JSON of what the code assigns to ``out``: one Django start-up for all the
#: test's requests. It publishes tasks (records results) before and after the restart, as
#: the web server does, with its own Redis connections.
SHELL = """
import json, sys, traceback
import django
django.setup()
for line in sys.stdin:
    scope = {}
    try:
        exec(json.loads(line), scope)
        answer = {"out": scope.get("out")}
    except Exception:
        answer = {"error": traceback.format_exc()}
    print(json.dumps(answer), flush=True)
"""


class Stack(worker_stack.WorkerStack):
    """The outbox tests' stack (Redis on loopback TCP with its append-only file, a fresh
    database) with the web server, a worker and beat as three separate process groups, as the
    production units run them."""

    def __init__(self, smtp_port: int) -> None:
        super().__init__(smtp_port)
        self.env["DJANGO_SETTINGS_MODULE"] = "redis_restart_settings"
        self.env["PYTHONPATH"] = os.pathsep.join([str(HERE), self.env["PYTHONPATH"]])
        self.env["ASGI_PROCESSES"] = "1"
        self.env["MATCHES_BOT_DELAY_SECONDS"] = "0.3"
        self.env["CHANNEL_LAYER"] = os.environ.get("CHANNEL_LAYER", "pubsub")
        self.port = smtp_server.free_port()
        self.procs: dict[str, subprocess.Popen] = {}
        self.shell: subprocess.Popen | None = None

    def run(self, code: str) -> object:
        """Run ``code`` in the stack's Django shell process; return what it assigns to ``out``."""
        assert self.shell is not None
        self.shell.stdin.write(json.dumps(code) + "\n")
        self.shell.stdin.flush()
        answer = json.loads(self.shell.stdout.readline() or '{"error": "the shell died"}')
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return answer["out"]

    def spawn(self, name: str, argv: list[str]) -> None:
        log = open(self.tmp / f"{name}.log", "ab")
        self.procs[name] = subprocess.Popen(
            argv, cwd=worker_stack.ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        log.close()

    def start_services(self) -> None:
        """Start the web server, a worker, beat and the Django shell (:data:`SHELL`); wait
        until the web server answers."""
        bin_ = worker_stack.BIN
        self.shell = subprocess.Popen(
            [str(bin_ / "python"), "-c", SHELL], cwd=worker_stack.ROOT, env=self.env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.spawn("web", [str(bin_ / "python"), "-m", "config.serve", "127.0.0.1", str(self.port)])
        self.spawn("worker", [
            str(bin_ / "celery"), "-A", "config", "worker", "--pool", "threads",
            "--concurrency", "4", "--loglevel", "INFO", "--hostname", f"restart-{self.port}@%h",
        ])  # fmt: skip
        self.spawn("beat", [
            str(bin_ / "celery"), "-A", "config", "beat", "--loglevel", "INFO",
            "--schedule", str(self.tmp / "beat-schedule"),
        ])  # fmt: skip
        deadline = time.monotonic() + 60
        while self.health() is None:
            assert time.monotonic() < deadline, self.logs()
            time.sleep(0.2)

    def health(self) -> dict | None:
        """``/healthz`` of the web server, or None when it does not answer."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as error:
            return json.loads(error.read())
        except OSError:
            return None

    def logs(self) -> str:
        return "\n".join(
            f"--- {name}.log\n" + (self.tmp / f"{name}.log").read_text(errors="replace")[-2500:]
            for name in self.procs
        )

    def stop(self) -> None:
        if self.shell is not None:
            self.shell.stdin.close()
            self.shell.wait(timeout=30)
        for process in self.procs.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.procs.values():
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        super().stop()


@pytest.fixture
def stack(server):
    stack = Stack(server.port).start()
    yield stack
    stack.stop()


def emails(server) -> Counter:
    return Counter(r.message_id for r in server.received if r.to.startswith("restart-"))


async def wait_until(condition, seconds: float, message) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, message()
        await asyncio.sleep(0.1)


def test_the_stack_rides_out_a_redis_restart_without_any_process_restarted(stack, server):
    stack.start_services()
    pids = {name: process.pid for name, process in stack.procs.items()}
    tables = stack.run(SETUP % {"clock": CLOCK_SECONDS})
    bots, clock = tables["bots"]["match"], tables["clock"]["match"]
    url = f"ws://127.0.0.1:{stack.port}/ws/tables/{tables['bots']['table']}/"
    spectator = SeatClient(url, tables["bots"]["spectators"][0], f"http://127.0.0.1:{stack.port}")

    def events() -> dict[int, list[tuple[int, str]]]:
        found = stack.run(EVENTS % {"matches": [bots, clock]})
        return {int(m): [tuple(e) for e in rows] for m, rows in found.items()}

    async def scenario() -> tuple[int, int, float]:
        watching = asyncio.create_task(spectator.run())
        try:
            await asyncio.to_thread(stack.run, RECORD % {"name": "before"})
            await wait_until(lambda: len(emails(server)) >= 4 and spectator.version >= 5, 60,
                             lambda: (spectator.version, emails(server), stack.logs()))  # fmt: skip
            # the moment of the restart: another result's e-mails are being sent
            await asyncio.to_thread(stack.run, RECORD % {"name": "during"})
            seen_before = spectator.version
            stack.redis.process.send_signal(signal.SIGTERM)  # writes its append-only file
            stack.redis.process.wait()
            stack.redis.process = None
            down_at = time.monotonic()
            await asyncio.sleep(2)
            stack.redis.start()  # the same directory: same port, password and data
            await asyncio.to_thread(stack.run, RECORD % {"name": "after"})
            # the bots move again and the spectator, on the same web server, sees them
            await wait_until(lambda: spectator.version >= seen_before + 10, 40,
                             lambda: (seen_before, spectator.version, stack.logs()))  # fmt: skip
            await wait_until(lambda: len(emails(server)) >= 12, 40,
                             lambda: (emails(server), stack.logs()))  # fmt: skip
            return seen_before, spectator.connects, down_at
        finally:
            spectator.stop()
            if spectator.ws is not None:
                await spectator.ws.close()
            await asyncio.gather(watching, return_exceptions=True)

    seen_before, connects, down_at = asyncio.run(scenario())
    # the clock table's first clock ran out after the restart and was applied
    deadline = time.monotonic() + 30
    while not (found := events())[clock]:
        assert time.monotonic() < deadline, stack.logs()
        time.sleep(1)
    assert found[clock][0] == (1, "clock"), found[clock]
    assert time.monotonic() - down_at < 60
    after = [actor for seq, actor in found[bots] if seq > seen_before]
    assert after.count("bot") >= 5 and set(after) <= {"bot", "auto", "clock"}, after
    time.sleep(1.5)  # anything sent twice would arrive now
    received = emails(server)
    assert len(received) == 12 and set(received.values()) == {1}, received

    # no process was restarted: the same web server, worker and beat, all alive and well
    assert {name: p.pid for name, p in stack.procs.items() if p.poll() is None} == pids, (
        stack.logs()
    )
    assert stack.health() == {"status": "ok"}
    worker_log = (stack.tmp / "worker.log").read_text()
    assert "Connection to broker lost" in worker_log  # it did see the restart
    assert "Unrecoverable error" not in worker_log
    assert connects >= 1


def test_a_redis_channel_whose_connection_broke_closes_twice_as_celery_does(tmp_path):
    """What a worker's broker connection goes through when Redis stops while the worker holds
    an unacknowledged message and waits for the next one (BRPOP sent), with a second channel
    (Celery's broadcast one) open: Celery 5.7's consumer ``collect()``s the connection, then
    ``close()``s it. No error but a connection error may come out, and the channel must end
    closed. kombu 5.7.0 alone: the first close stops at the dead reply, closing the broadcast
    channel fails (Redis is down) before the default one is closed, ``collect()`` detaches the
    transport, and ``close()`` closes the default channel again: AttributeError 'hostname'."""
    from kombu import Consumer, Exchange, Queue

    from config.celery import app
    from config.embedded_redis import EmbeddedRedis

    server = EmbeddedRedis(tmp_path).start()
    try:
        connection = app.connection_for_read(server.url)
        channel = connection.default_channel
        queue = Queue("probe", Exchange("probe", type="direct"), routing_key="probe")
        connection.Producer().publish(
            {"n": 1}, exchange=queue.exchange, routing_key="probe", declare=[queue]
        )
        held = []
        Consumer(channel, [queue], callbacks=[lambda body, m: held.append(m)]).consume()
        broadcast = Queue("probe.b", Exchange("probe.fanout", type="fanout"), auto_delete=True)
        Consumer(connection.channel(), [broadcast], callbacks=[lambda body, m: None]).consume()
        deadline = time.monotonic() + 10
        # until the message is delivered (not acknowledged) and the next BRPOP is sent (its
        # reply pending); the broadcast channel's subscription is an event too
        while not (held and channel._in_poll):
            assert time.monotonic() < deadline
            try:
                connection.drain_events(timeout=0.05)
            except TimeoutError:
                pass
        assert len(held) == 1 and channel.qos._delivered
        server.stop()  # Redis goes away

        try:
            connection.collect(socket_timeout=5)
        except connection.connection_errors:
            pass
        try:
            connection.close()
        except connection.connection_errors:
            pass
        assert channel.closed
    finally:
        server.stop()
