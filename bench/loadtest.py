"""``python -m bench.loadtest --tables N --seconds S``: play N bot tables over real websockets
against a running server and print the figures (a benchmark, not a test).

Each table gets four people (bench users) whose websocket clients act with the heuristic bot
the moment their seat is to move (a closed loop, like fast players), or after thinking
``--think`` seconds. Printed: actions/s, p50 / p99 latency from sending an action to all four
seats receiving its update, updates sent (accepted actions x seats, from the database) and
received, and the same figures for the baseline: a bare Channels group broadcast
(``/ws/bench/<group>/``) through the same ASGI servers and Redis, four clients per group taking
turns, closed and (with ``--think``) thinking as the tables do, half before the tables and
half after (:func:`_measure`).

``--setup-only`` just creates the tables and prints their ids and session cookies as JSON (the
end-to-end tests use it).
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import random
import statistics
import time
from collections import Counter
from typing import Any

import django
import psutil
import uvloop
import websockets
from asgiref.sync import sync_to_async
from django.apps import apps

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
if not apps.ready:  # run as a script (``python -m bench.loadtest``), not inside Django
    django.setup()

from django.core.management.base import BaseCommand, CommandError, CommandParser  # noqa: E402

from bench.botclient import SeatClient  # noqa: E402
from bench.tables import make_tables  # noqa: E402
from games.variants import DEFAULT_GAME  # noqa: E402
from matches.messages import MatchError  # noqa: E402
from matches.models import Actor, Match  # noqa: E402
from matches.services import play  # noqa: E402


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    index = min(len(values) - 1, max(0, round(q * (len(values) - 1))))
    return values[index]


def _origin(ws_url: str) -> str:
    """The page origin a browser would send to the server at ``ws_url`` (its own host and
    port: the server accepts sockets from its own origin only)."""
    return "http" + ws_url[len("ws") :]


async def _quiet(count: Any, seconds: float = 5.0, limit: float = 60.0) -> None:
    """Wait until ``count()`` has not changed for ``seconds`` (at most ``limit``)."""
    last, since, started = count(), time.perf_counter(), time.perf_counter()
    while time.perf_counter() - started < limit:
        await asyncio.sleep(0.2)
        now = count()
        if now != last:
            last, since = now, time.perf_counter()
        elif time.perf_counter() - since >= seconds:
            return


def _end_tables(match_ids: list[int]) -> None:
    """End the bench matches (a referee forfeit), so auto-play does not go on loading the
    server after the run."""
    for match_id in match_ids:
        try:
            play.submit_action(
                match_id, {"sanction": "forfeit", "target": 0}, seat=None, actor=Actor.SYSTEM
            )
        except MatchError:  # already over
            pass


def _first_errors(clients: list[SeatClient], count: int = 3) -> list[str]:
    """A few of the clients' errors, one of each kind."""
    seen: dict[str, str] = {}
    for client in clients:
        for error in client.errors:
            seen.setdefault(error.split("(")[0], error[:300])
    return list(seen.values())[:count]


def _machine_cpu() -> tuple[float, float]:
    """``(busy, total)`` CPU seconds of the whole machine so far (idle and waiting for I/O are
    not busy)."""
    times = psutil.cpu_times()
    # Linux counts a guest's time in user and nice too
    total = sum(times) - getattr(times, "guest", 0.0) - getattr(times, "guest_nice", 0.0)
    return total - times.idle - getattr(times, "iowait", 0.0), total


def _tree_cpu(roots: list[int]) -> float:
    """CPU seconds so far (user + system, every thread) of the processes ``roots`` (separate
    trees) and all their descendants alive now; a process that is gone counts 0."""
    total = 0.0
    for pid in roots:
        try:
            root = psutil.Process(pid)
            tree = [root, *root.children(recursive=True)]
        except psutil.Error:
            continue
        for proc in tree:
            try:
                times = proc.cpu_times()
            except psutil.Error:  # ended meanwhile
                continue
            total += times.user + times.system
    return total


class _CpuShare:
    """What the load client itself took of the machine while measuring: its CPU seconds
    (every thread of this process) against all the machine's busy CPU seconds (the servers,
    PostgreSQL, Redis, the worker and anything else running); and the CPU seconds of each
    kind of process named in ``kinds`` (kind: root pids, their descendants included). The
    measured windows (:meth:`start` to :meth:`stop`) add up."""

    def __init__(self, kinds: dict[str, list[int]]) -> None:
        self.kinds = kinds
        self.elapsed = self.process = self.busy = self.total = 0.0
        self.by_kind: dict[str, float] = dict.fromkeys(kinds, 0.0)  # CPU seconds while measuring
        self._marks: tuple[float, float, float, float, dict[str, float]] | None = None

    def _read(self) -> tuple[float, float, float, float, dict[str, float]]:
        busy, total = _machine_cpu()
        kinds = {kind: _tree_cpu(pids) for kind, pids in self.kinds.items()}
        return time.perf_counter(), time.process_time(), busy, total, kinds

    def start(self) -> None:
        """Open a measured window."""
        self._marks = self._read()

    def stop(self) -> None:
        """Close the measured window opened by :meth:`start` and add it up."""
        assert self._marks is not None
        (t0, p0, b0, n0, k0), (t1, p1, b1, n1, k1) = self._marks, self._read()
        self.elapsed += t1 - t0
        self.process += p1 - p0
        self.busy += b1 - b0
        self.total += n1 - n0
        for kind in self.kinds:
            self.by_kind[kind] += k1[kind] - k0[kind]
        self._marks = None

    @property
    def share(self) -> float:
        """The client's share of the machine's busy CPU (0-1)."""
        return self.process / self.busy if self.busy else float("nan")

    @property
    def machine_busy(self) -> float:
        """How busy the whole machine was (0-1 of all its cores)."""
        return self.busy / self.total if self.total else float("nan")


async def _loop_lag(lags: list[float], stop: asyncio.Event, every: float = 0.01) -> None:
    """Record how late the load client's own event loop wakes up (its share of the latency)."""
    while not stop.is_set():
        started = time.perf_counter()
        await asyncio.sleep(every)
        lags.append(time.perf_counter() - started - every)


class _Table:
    """Latency bookkeeping of one table: when each version's action was sent and when each
    person's seat (``seats``; the bots' are the worker's) received the update."""

    def __init__(self, seats: list[int]) -> None:
        self.seats = len(seats)
        self.sent: dict[int, float] = {}
        self.received: dict[int, list[float]] = {}
        self.latencies: list[float] = []
        self.updates = 0
        self.versions: dict[int, set[int]] = {seat: set() for seat in seats}
        #: per seat, the highest version a snapshot or a resync's events brought (a seat that
        #: connects after its table's first action gets that action in its snapshot)
        self.synced: dict[int, int] = dict.fromkeys(seats, -1)
        #: the versions some seat received, and how many of them while measuring
        self.seen: set[int] = set()
        self.measured = 0

    def on_send(self, version: int, at: float) -> None:
        self.sent[version] = at

    def on_update(self, seat: int, version: int, at: float, counting: bool) -> None:
        if version in self.versions[seat]:
            return
        self.versions[seat].add(version)
        self.updates += 1
        if version not in self.seen:
            self.seen.add(version)
            self.measured += counting
        times = self.received.setdefault(version, [])
        times.append(at)
        if len(times) == self.seats:
            del self.received[version]
            sent = self.sent.pop(version - 1, None)
            if sent is not None and counting:
                self.latencies.append(max(times) - sent)


class _Tables:
    """The bot tables' clients: four people a table, a table's seats on consecutive servers
    (as a proxy spreading connections would)."""

    def __init__(self, urls: list[str], tables: list[dict[str, Any]], think: float) -> None:
        self.books: list[_Table] = []
        self.clients: list[SeatClient] = []
        self.counting = False
        self.connect_s = 0.0
        self.tasks: list[asyncio.Task] = []
        for info in tables:
            book = _Table(info["seats"])
            self.books.append(book)

            def on_frame(client: SeatClient, frame: dict, at: float, book: _Table = book) -> None:
                if frame.get("type") == "update" and client.you is not None:
                    book.on_update(frame["you"], frame["version"], at, self.counting)
                elif frame.get("type") in ("snapshot", "events") and frame.get("you") is not None:
                    seat = frame["you"]
                    book.synced[seat] = max(book.synced[seat], frame["version"])

            def on_send(client: SeatClient, version: int, at: float, book: _Table = book) -> None:
                book.on_send(version, at)

            for cookie in info["cookies"]:
                url = urls[len(self.clients) % len(urls)]
                self.clients.append(
                    SeatClient(
                        f"{url}/ws/tables/{info['table']}/",
                        cookie,
                        _origin(url),
                        on_frame=on_frame,
                        on_send=on_send,
                        think=think,
                    )
                )

    @property
    def actions(self) -> int:
        """Actions accepted and delivered while measuring (the worker's bots' too)."""
        return sum(b.measured for b in self.books)

    @property
    def resyncs(self) -> int:
        """Catch-ups of all the clients so far."""
        return sum(c.resyncs for c in self.clients)

    async def connect(self) -> None:
        """Open every socket (in batches: a burst of handshakes overflows the backlog) and
        wait until all are attached, and a few seconds more: the steady state."""
        for k, client in enumerate(self.clients):
            self.tasks.append(asyncio.create_task(client.run()))
            if k % 40 == 39:
                await asyncio.sleep(0.25)
        connecting = time.perf_counter()
        while time.perf_counter() - connecting < 120 and any(c.version < 0 for c in self.clients):
            await asyncio.sleep(0.2)
        self.connect_s = time.perf_counter() - connecting
        await asyncio.sleep(5.0)

    async def finish(self, versions_now: Any) -> dict[int, int]:
        """Drain the updates in flight, close every socket and end the matches; return the
        matches' final versions (what the server accepted)."""
        for client in self.clients:
            client.act = False
        await _quiet(lambda: sum(b.updates for b in self.books))
        final = await sync_to_async(versions_now)()
        await _quiet(lambda: sum(b.updates for b in self.books))
        for client in self.clients:
            client.stop()
            if client.ws is not None:
                await client.ws.close()
        ended = await asyncio.gather(*self.tasks, return_exceptions=True)
        for client, outcome in zip(self.clients, ended, strict=True):
            if isinstance(outcome, BaseException):  # a client that crashed: count what stopped it
                client.errors.append("crashed: " + repr(outcome))
        await sync_to_async(_end_tables)(list(final))
        return final


class _Broadcast:
    """The baseline: a bare Channels group broadcast (``/ws/bench/<group>/``) through the same
    servers and Redis, four sockets a group taking turns (each message of a group about the
    size of a table's update goes to all four; the next seat answers it), thinking
    ``think`` seconds before answering as the tables' clients do."""

    def __init__(self, urls: list[str], groups: int) -> None:
        self.urls = urls
        self.groups = [f"g{g}-{int(time.time() * 1000) % 10**8}" for g in range(groups)]
        self.think = 0.0
        self.running = False
        self.counting = False
        self.actions = self.sent = self.received = 0
        self.latencies: list[float] = []
        self.sockets: dict[str, list[Any]] = {g: [None] * 4 for g in self.groups}
        self.sent_at: dict[str, dict[int, float]] = {g: {} for g in self.groups}
        self.receipts: dict[str, dict[int, int]] = {g: {} for g in self.groups}
        #: per group, the version its next seat is to answer (while paused, or thinking)
        self.owed: dict[str, int] = {}
        self.tasks: list[asyncio.Task] = []
        self.errors: list[str] = []
        self.payload = "x" * 1500

    async def connect(self) -> None:
        """Open the groups' sockets and wait until all are open (at most a minute)."""
        for g, group in enumerate(self.groups):
            for seat in range(4):
                url = self.urls[(g * 4 + seat) % len(self.urls)]
                self.tasks.append(asyncio.create_task(self._member(group, seat, url)))
            if g % 10 == 9:
                await asyncio.sleep(0.25)
        deadline = time.perf_counter() + 60
        while time.perf_counter() < deadline and any(None in s for s in self.sockets.values()):
            await asyncio.sleep(0.2)
        for group in self.groups:
            self.owed[group] = 0  # seat 0 starts each group with version 1

    async def _connect(self, group: str, url: str) -> Any:
        for attempt in range(6):  # the server may still be busy with the tables' handshakes
            try:
                return await websockets.connect(
                    f"{url}/ws/bench/{group}/",
                    additional_headers={"Origin": _origin(url)},
                    ping_interval=None,
                )
            except (OSError, websockets.InvalidMessage, websockets.InvalidStatus):
                if attempt == 5:
                    raise
                await asyncio.sleep(1 + attempt)

    async def _member(self, group: str, seat: int, url: str) -> None:
        async with await self._connect(group, url) as ws:
            self.sockets[group][seat] = ws
            async for text in ws:
                version = json.loads(text)["v"]
                now = time.perf_counter()
                self.received += 1
                counts = self.receipts[group]
                counts[version] = counts.get(version, 0) + 1
                if counts[version] == 4:
                    del counts[version]
                    start = self.sent_at[group].pop(version, None)
                    if start is not None and self.counting:
                        self.latencies.append(now - start)
                if version % 4 == seat:
                    self.owed[group] = version
                    if self.running:
                        await self._answer(group, version)

    async def _answer(self, group: str, version: int) -> None:
        if self.think:  # as the tables' clients think (the frames wait meanwhile)
            await asyncio.sleep(self.think * random.uniform(0.5, 1.5))
        if not self.running or self.owed.get(group) != version:
            return  # paused meanwhile: answered on resume
        del self.owed[group]
        ws = self.sockets[group][version % 4]
        nxt = version + 1
        self.sent_at[group][nxt] = time.perf_counter()
        self.actions += self.counting
        self.sent += 4
        try:
            await ws.send(json.dumps({"v": nxt, "pad": self.payload}))
        except websockets.ConnectionClosed as error:  # counted; the group stops there
            self.errors.append(repr(error))

    def pause(self) -> None:
        """Stop answering (the messages in flight still arrive)."""
        self.running = False

    async def resume(self, think: float) -> None:
        """Answer again, thinking ``think`` seconds first (0: at once)."""
        self.think, self.running = think, True
        owed = [(g, v) for g, v in self.owed.items() if self.sockets[g][v % 4] is not None]
        await asyncio.gather(*(self._answer(g, v) for g, v in owed))

    async def finish(self) -> list[str]:
        """Drain what is in flight and close every socket; return the sockets' errors."""
        self.pause()
        await _quiet(lambda: self.received)
        errors = self.errors + [
            repr(t.exception()) for t in self.tasks if t.done() and t.exception()
        ]
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        return errors


class _Window:
    """The figures of one kind of load over its measured windows: actions, seconds, CPU, and
    (the tables') catch-ups."""

    def __init__(self, cpu_kinds: dict[str, list[int]]) -> None:
        self.cpu = _CpuShare(cpu_kinds)
        self.actions = 0
        self.resyncs = 0
        self.latencies: list[float] = []  # the bare broadcast's (the tables' are in their books)

    @property
    def actions_per_s(self) -> float:
        return self.actions / self.cpu.elapsed if self.cpu.elapsed else 0.0


#: Seconds the bare broadcast runs before it is measured, and stops before the next load.
WARM_UP = 1.0
SETTLE = 1.0


async def _bare_half(
    bare: _Broadcast, windows: dict[str, _Window], seconds: float, think: float
) -> None:
    """Measure the bare broadcast closed and (``think``: if the tables think) thinking as the
    tables do, ``seconds`` each, into their windows."""
    for load in windows:
        if load == "tables":
            continue
        window = windows[load]
        bare.latencies = window.latencies
        resumed = asyncio.create_task(bare.resume(think if load == "bare_thinking" else 0.0))
        await asyncio.sleep(WARM_UP)
        bare.counting, actions = True, bare.actions
        window.cpu.start()
        await asyncio.sleep(seconds)
        window.cpu.stop()
        bare.counting = False
        window.actions += bare.actions - actions
        bare.pause()
        await resumed
        await asyncio.sleep(SETTLE)


async def _measure(
    urls: list[str],
    tables: list[dict[str, Any]],
    seconds: float,
    versions_now: Any,
    *,
    think: float = 0.0,
    baseline: bool = True,
    cpu_kinds: dict[str, list[int]] | None = None,
) -> dict[str, Any]:
    """Measure the bare broadcast for half of ``seconds``, play and measure the tables for
    ``seconds``, then the bare broadcast's other half: its figures are the mean of before and
    after, so that the machine's speed drifting during the run weighs on both alike (one
    baseline after the tables had its ratio swing by a quarter between runs). The tables play
    in one stretch: paused between slices, a table's clock would still run, and its deadline
    tasks, due 20 s after its last action, piled into its own next slice."""
    cpu_kinds = cpu_kinds or {}
    loads = ["tables"] + (["bare"] + (["bare_thinking"] if think else []) if baseline else [])
    windows = {load: _Window(cpu_kinds) for load in loads}
    bare = None
    if baseline:
        bare = _Broadcast(urls, len(tables))
        await bare.connect()
        await _bare_half(bare, windows, seconds / 2, think)
    played = _Tables(urls, tables, think)
    await played.connect()
    lags: list[float] = []
    stop_lag = asyncio.Event()
    lag_task = asyncio.create_task(_loop_lag(lags, stop_lag))
    window = windows["tables"]
    played.counting, resyncs = True, played.resyncs
    window.cpu.start()
    await asyncio.sleep(seconds)
    window.cpu.stop()
    played.counting = False
    window.actions, window.resyncs = played.actions, played.resyncs - resyncs
    stop_lag.set()
    await lag_task
    final = await played.finish(versions_now)
    errors: list[str] = []
    if bare is not None:
        await asyncio.sleep(5.0)  # the servers close the tables' sockets meanwhile
        await _bare_half(bare, windows, seconds / 2, think)
        errors = await bare.finish()
    return {
        "played": played,
        "bare": bare,
        "bare_errors": errors,
        "windows": windows,
        "final": final,
        "lags": lags,
    }


class Command(BaseCommand):
    """Load test of live play against a running server (see the module docstring)."""

    help = "Play N bot tables over real websockets against a running server; print figures."

    def add_arguments(self, parser: CommandParser) -> None:
        """Options: tables, seconds, server URL, variant, setup only, baseline."""
        parser.add_argument("--tables", type=int, default=10)
        parser.add_argument("--seconds", type=float, default=20.0)
        parser.add_argument(
            "--url",
            action="append",
            help="server URL (default http://127.0.0.1:8000); give it once per ASGI process "
            "to spread the sockets over them as a proxy would",
        )
        parser.add_argument("--variant", default=DEFAULT_GAME)
        parser.add_argument("--options", default="{}", help="engine options as JSON")
        parser.add_argument("--no-clocks", action="store_true")
        parser.add_argument(
            "--time-limit",
            type=int,
            default=None,
            help="match time limit in seconds (0: none; default: the run's length plus 120 s, so "
            "the tables end instead of being auto-played on after the run)",
        )
        parser.add_argument("--spectators", type=int, default=0)
        parser.add_argument(
            "--bots",
            type=int,
            default=0,
            help="seats of each table played by the worker's heuristic bots (the stack's "
            "MATCHES_BOT_DELAY_SECONDS after the last action), the others by the load client",
        )
        parser.add_argument("--prefix", default="bench")
        parser.add_argument("--setup-only", action="store_true")
        parser.add_argument("--no-baseline", action="store_true")
        parser.add_argument(
            "--think",
            type=float,
            default=0.0,
            help="mean seconds each bot thinks before acting (uniformly 0.5-1.5 times that)",
        )
        parser.add_argument(
            "--cpu",
            action="append",
            default=[],
            metavar="KIND=PID[,PID...]",
            help="report the CPU of these processes and their descendants per action while "
            "measuring, as KIND (e.g. asgi=4711,4712); once per kind",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        """Set up the tables, play them, then the baseline; print the figures."""
        try:
            engine_options = json.loads(options["options"])
        except ValueError as error:
            raise CommandError(f"--options is not JSON: {error}") from None
        if options["time_limit"] is None:
            options["time_limit"] = 0 if options["setup_only"] else int(options["seconds"]) + 120
        tables = make_tables(
            options["tables"],
            variant=options["variant"],
            options=engine_options,
            clocks=not options["no_clocks"],
            time_limit_seconds=options["time_limit"],
            spectators=options["spectators"],
            prefix=options["prefix"],
            bots=options["bots"],
        )
        if options["setup_only"]:
            self.stdout.write(json.dumps(tables))
            return
        try:
            cpu_kinds = {
                kind: [int(pid) for pid in pids.split(",")]
                for kind, pids in (item.split("=", 1) for item in options["cpu"])
            }
        except ValueError:
            raise CommandError("--cpu takes KIND=PID[,PID...]") from None
        https = [u.rstrip("/") for u in options["url"] or ["http://127.0.0.1:8000"]]
        ws_urls = ["ws" + u[len("http") :] for u in https]
        match_ids = [t["match"] for t in tables]

        def versions_now() -> dict[int, int]:
            return dict(Match.objects.filter(pk__in=match_ids).values_list("pk", "version"))

        before = versions_now()
        # the client is the measuring instrument, and runs for minutes: its garbage collector's
        # full passes over 800 clients' bookkeeping paused it for tens of milliseconds, and its
        # young passes over each parsed frame were an eighth of its CPU, taken from the servers
        # it shares the cores with; what it parses is freed by reference counting
        gc.disable()
        # on the servers' event loop (uvloop): the client shares the machine's cores with them
        result = uvloop.run(
            _measure(
                ws_urls,
                tables,
                options["seconds"],
                versions_now,
                think=options["think"],
                baseline=not options["no_baseline"],
                cpu_kinds=cpu_kinds,
            )
        )
        final, played, windows = result["final"], result["played"], result["windows"]
        sent = sum((final[t["match"]] - before[t["match"]]) * len(t["cookies"]) for t in tables)
        received = synced = 0
        missing: list[tuple[int, int, int]] = []  # (match, seat, version) never received
        for t, book in zip(tables, played.books, strict=True):
            expected = range(before[t["match"]] + 1, final[t["match"]] + 1)
            for seat, seen in book.versions.items():
                received += sum(1 for v in seen if v in expected)
                for v in expected:
                    if v in seen:
                        continue
                    if v <= book.synced[seat]:
                        synced += 1
                    else:
                        missing.append((t["match"], seat, v))
        lat = [x for b in played.books for x in b.latencies]
        clients = played.clients
        window = windows["tables"]
        cpu = window.cpu
        figures: dict[str, Any] = {
            "load_1min": os.getloadavg()[0],
            "failed_connects": sum(1 for c in clients if c.connects == 0),
            "retries": sum(c.retries for c in clients),
            "actions_per_s": window.actions_per_s,
            "measured_s": cpu.elapsed,
            "p50_ms": _percentile(lat, 0.5) * 1e3,
            "p99_ms": _percentile(lat, 0.99) * 1e3,
            "lost": len(missing),
            "resyncs": window.resyncs,
            "resync_share": window.resyncs / max(1, window.actions),
            "client_cpu_share": cpu.share,
            "machine_busy": cpu.machine_busy,
        }
        actions = max(1, window.actions)
        figures["cpu_ms_client"] = cpu.process / actions * 1e3
        for kind, seconds in cpu.by_kind.items():
            figures[f"cpu_ms_{kind}"] = seconds / actions * 1e3
        closes = Counter()
        for c in clients:
            closes.update(c.closes)
        per_server = Counter(c.url.split("/ws/")[0] for c in clients)
        lags = result["lags"]
        self.stdout.write(
            f"bot tables (think {options['think']:g} s): "
            f"{len(tables)} tables, {len(clients)} sockets "
            f"({figures['failed_connects']} failed to connect, {figures['retries']} handshakes "
            f"retried; all attached {played.connect_s:.1f} s after the last was opened), "
            f"{cpu.elapsed:.0f} s measured, load average {figures['load_1min']:.2f}\n"
            f"  sockets per server {dict(per_server)}\n"
            f"  actions/s {window.actions_per_s:.1f}  "
            f"p50 {figures['p50_ms']:.1f} ms  p99 {figures['p99_ms']:.1f} ms  (n={len(lat)})\n"
            f"  updates sent {sent}  received {received} live + {synced} in a snapshot or "
            f"resync  lost {len(missing)}\n"
            f"  load client's event loop late by p50 {_percentile(lags, 0.5) * 1e3:.1f}"
            f" ms  p99 {_percentile(lags, 0.99) * 1e3:.1f} ms; its CPU "
            f"{cpu.process / cpu.elapsed:.0%} of a core, {cpu.share:.0%} of the machine's busy "
            f"CPU (machine {cpu.machine_busy:.0%} busy)\n"
            f"  reconnects {sum(max(0, c.connects - 1) for c in clients)}  "
            f"close codes {dict(closes)}  resyncs while measuring {window.resyncs} "
            f"({figures['resync_share']:.2%} of actions)  refusals "
            f"{dict(Counter(r.get('code') for c in clients for r in c.refusals))}"
        )
        self.stdout.write(
            f"  CPU per action: client {figures['cpu_ms_client']:.2f} ms"
            + "".join(f", {k} {figures[f'cpu_ms_{k}']:.2f} ms" for k in cpu.by_kind)
        )
        if missing:
            self.stdout.write(f"  missing (match, seat, version): {missing[:10]}")
        errors = Counter(e.split("(")[0] for c in clients for e in c.errors)
        if errors:
            self.stdout.write(f"  client errors: {dict(errors)}  e.g. {_first_errors(clients)}")
        bare = result["bare"]
        for load, name in (("bare", "baseline"), ("bare_thinking", "baseline_thinking")):
            if load not in windows:
                continue
            base = windows[load]
            blat, bcpu, rounds = base.latencies, base.cpu, max(1, base.actions)
            figures[f"{name}_actions_per_s"] = base.actions_per_s
            figures[f"{name}_measured_s"] = bcpu.elapsed
            figures[f"{name}_p99_ms"] = _percentile(blat, 0.99) * 1e3
            figures[f"{name}_client_cpu_share"] = bcpu.share
            figures[f"{name}_machine_busy"] = bcpu.machine_busy
            figures[f"{name}_cpu_ms_client"] = bcpu.process / rounds * 1e3
            for kind, seconds in bcpu.by_kind.items():
                figures[f"{name}_cpu_ms_{kind}"] = seconds / rounds * 1e3
            thinking = f", thinking {options['think']:g} s" if load == "bare_thinking" else ""
            self.stdout.write(
                f"{name.replace('_', ' ')} (bare group broadcast{thinking}): "
                f"{len(tables)} groups x 4 sockets\n"
                f"  actions/s {base.actions_per_s:.1f}  "
                f"p50 {_percentile(blat, 0.5) * 1e3:.1f} ms  "
                f"p99 {figures[f'{name}_p99_ms']:.1f} ms  (n={len(blat)})\n"
                f"  load client's CPU {bcpu.share:.0%} of the machine's busy CPU (machine "
                f"{bcpu.machine_busy:.0%} busy); CPU per round: client "
                f"{figures[f'{name}_cpu_ms_client']:.2f} ms"
                + "".join(f", {k} {figures[f'{name}_cpu_ms_{k}']:.2f} ms" for k in bcpu.by_kind)
            )
            if base.actions_per_s:
                ratio = "ratio" if load == "bare" else "ratio_thinking"
                figures[ratio] = window.actions_per_s / base.actions_per_s
                self.stdout.write(f"throughput vs {name.replace('_', ' ')}: {figures[ratio]:.2f}")
        if bare is not None:
            self.stdout.write(
                f"baseline deliveries sent {bare.sent}  received {bare.received}  "
                f"lost {bare.sent - bare.received}"
            )
            figures["baseline_lost"] = bare.sent - bare.received
            if result["bare_errors"]:
                errors = result["bare_errors"]
                self.stdout.write(f"  {len(errors)} sockets failed: {errors[:3]}")
        if lat:
            self.stdout.write(f"latency mean {statistics.mean(lat) * 1e3:.1f} ms")
        # one line for scripts (tests/e2e/stack.py --runs): every figure above, by name
        self.stdout.write("figures " + json.dumps(figures))


def main(argv: list[str]) -> None:
    """Run the load test with command-line arguments ``argv`` (see the module)."""
    Command().run_from_argv(["python -m bench.loadtest", "loadtest", *argv])


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
