"""``python manage.py loadtest --tables N --seconds S``: play N bot tables over real websockets
against a running server and print the figures (a benchmark, not a test).

Each table gets four people (bench users) whose websocket clients act with the heuristic bot
the moment their seat is to move (a closed loop, like fast players). Printed: actions/s, p50 /
p99 latency from sending an action to all four seats receiving its update, updates sent
(accepted actions x seats, from the database) and received, and the same figures for the
baseline: a bare Channels group broadcast (``/ws/bench/<group>/``) through the same ASGI server
and Redis, four clients per group taking turns.

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

import psutil
import websockets
from asgiref.sync import sync_to_async
from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.variants import DEFAULT_GAME
from matches.bench import make_tables
from matches.botclient import SeatClient
from matches.messages import MatchError
from matches.models import Actor, Match
from matches.services import play


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
    kind of process named in ``kinds`` (kind: root pids, their descendants included)."""

    def __init__(self, kinds: dict[str, list[int]]) -> None:
        self.kinds = kinds
        self.started = time.perf_counter()
        self.process = time.process_time()
        self.busy, self.total = _machine_cpu()
        self._kinds_started = {kind: _tree_cpu(pids) for kind, pids in kinds.items()}
        self.by_kind: dict[str, float] = {}  # CPU seconds of each kind while measuring

    def stop(self) -> None:
        """Close the measured window."""
        busy, total = _machine_cpu()
        self.elapsed = time.perf_counter() - self.started
        self.process = time.process_time() - self.process
        self.busy, self.total = busy - self.busy, total - self.total
        self.by_kind = {
            kind: _tree_cpu(pids) - self._kinds_started[kind] for kind, pids in self.kinds.items()
        }

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


async def _run_tables(
    urls: list[str],
    tables: list[dict[str, Any]],
    seconds: float,
    versions_now: Any,
    think: float = 0.0,
    cpu_kinds: dict[str, list[int]] | None = None,
) -> dict[str, Any]:
    books: list[_Table] = []
    clients: list[SeatClient] = []
    state: dict[str, Any] = {"counting": False, "connect_s": 0.0}

    for info in tables:
        book = _Table(info["seats"])
        books.append(book)

        def on_frame(client: SeatClient, frame: dict, at: float, book: _Table = book) -> None:
            if frame.get("type") == "update" and client.you is not None:
                book.on_update(frame["you"], frame["version"], at, state["counting"])
            elif frame.get("type") in ("snapshot", "events") and frame.get("you") is not None:
                seat = frame["you"]
                book.synced[seat] = max(book.synced[seat], frame["version"])

        def on_send(client: SeatClient, version: int, at: float, book: _Table = book) -> None:
            book.on_send(version, at)

        for cookie in info["cookies"]:
            url = urls[len(clients) % len(urls)]
            clients.append(
                SeatClient(
                    f"{url}/ws/tables/{info['table']}/",
                    cookie,
                    _origin(url),
                    on_frame=on_frame,
                    on_send=on_send,
                    think=think,
                )
            )
    tasks = []
    for k, client in enumerate(clients):  # in batches: a burst of handshakes overflows the backlog
        tasks.append(asyncio.create_task(client.run()))
        if k % 40 == 39:
            await asyncio.sleep(0.25)
    # measure the steady state: every socket connected and attached, then a few seconds more
    connecting = time.perf_counter()
    while time.perf_counter() - connecting < 120 and any(c.version < 0 for c in clients):
        await asyncio.sleep(0.2)
    state["connect_s"] = time.perf_counter() - connecting
    await asyncio.sleep(5.0)
    state["counting"] = True
    lags: list[float] = []
    stop_lag = asyncio.Event()
    lag_task = asyncio.create_task(_loop_lag(lags, stop_lag))
    resyncs = sum(c.resyncs for c in clients)
    cpu = _CpuShare(cpu_kinds or {})
    started = time.perf_counter()
    await asyncio.sleep(seconds)
    state["counting"] = False
    elapsed = time.perf_counter() - started
    cpu.stop()
    resyncs = sum(c.resyncs for c in clients) - resyncs
    stop_lag.set()
    await lag_task
    for client in clients:
        client.act = False
    await _quiet(lambda: sum(b.updates for b in books))  # drain the updates in flight
    final = await sync_to_async(versions_now)()  # what the server accepted, then drain again
    await _quiet(lambda: sum(b.updates for b in books))
    for client in clients:
        client.stop()
        if client.ws is not None:
            await client.ws.close()
    ended = await asyncio.gather(*tasks, return_exceptions=True)
    for client, outcome in zip(clients, ended, strict=True):
        if isinstance(outcome, BaseException):  # a client that crashed: count what stopped it
            client.errors.append("crashed: " + repr(outcome))
    await sync_to_async(_end_tables)(list(final))
    latencies = [x for b in books for x in b.latencies]
    return {
        # every action accepted and delivered while measuring (the bots' too)
        "actions_per_s": sum(b.measured for b in books) / elapsed,
        "latencies": latencies,
        "books": books,
        "clients": clients,
        "final": final,
        "lags": lags,
        "connect_s": state["connect_s"],
        "resyncs": resyncs,
        "actions": sum(b.measured for b in books),
        "cpu": cpu,
    }


async def _run_baseline(
    urls: list[str],
    groups: int,
    seconds: float,
    cpu_kinds: dict[str, list[int]] | None = None,
    think: float = 0.0,
) -> dict[str, Any]:
    latencies: list[float] = []
    state = {"counting": False, "actions": 0, "sent": 0, "received": 0}
    stop = asyncio.Event()
    payload = "x" * 1500  # about the size of a table update

    async def connect(group: str, seat: int) -> Any:
        url = urls[(groups_started[group] * 4 + seat) % len(urls)]
        for attempt in range(6):  # the server may still be busy with the last run's sockets
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

    async def member(group: str, seat: int, sockets: list, ready: asyncio.Event) -> None:
        async with await connect(group, seat) as ws:
            sockets[seat] = ws
            await ready.wait()
            sent_at: dict[int, float] = shared[group]
            async for text in ws:
                data = json.loads(text)
                version = data["v"]
                now = time.perf_counter()
                state["received"] += 1
                counts = receipts[group]
                counts[version] = counts.get(version, 0) + 1
                if counts[version] == 4:
                    del counts[version]
                    start = sent_at.pop(version, None)
                    if start is not None and state["counting"]:
                        latencies.append(now - start)
                if version % 4 == seat and not stop.is_set():
                    if think:  # as the tables' clients think (the frames wait meanwhile)
                        await asyncio.sleep(think * random.uniform(0.5, 1.5))
                        if stop.is_set():
                            continue
                    nxt = version + 1
                    sent_at[nxt] = time.perf_counter()
                    if state["counting"]:
                        state["actions"] += 1
                    state["sent"] += 4
                    await ws.send(json.dumps({"v": nxt, "pad": payload}))

    shared: dict[str, dict[int, float]] = {}
    groups_started: dict[str, int] = {}
    receipts: dict[str, dict[int, int]] = {}
    tasks = []
    starters = []
    for g in range(groups):
        group = f"g{g}-{int(time.time() * 1000) % 10**8}"
        shared[group] = {}
        receipts[group] = {}
        groups_started[group] = g
        sockets: list = [None] * 4
        ready = asyncio.Event()
        for seat in range(4):
            tasks.append(asyncio.create_task(member(group, seat, sockets, ready)))
        starters.append((group, sockets, ready))
        if g % 10 == 9:
            await asyncio.sleep(0.25)
    deadline = time.perf_counter() + 60
    while any(None in sockets for _, sockets, _ in starters) and time.perf_counter() < deadline:
        await asyncio.sleep(0.2)
    for group, sockets, ready in starters:
        ready.set()
        if sockets[0] is not None:
            shared[group][1] = time.perf_counter()
            state["sent"] += 4
            await sockets[0].send(json.dumps({"v": 1, "pad": payload}))
    await asyncio.sleep(1.0)
    state["counting"] = True
    cpu = _CpuShare(cpu_kinds or {})
    started = time.perf_counter()
    await asyncio.sleep(seconds)
    state["counting"] = False
    elapsed = time.perf_counter() - started
    cpu.stop()
    stop.set()
    await _quiet(lambda: state["received"])
    errors = [repr(t.exception()) for t in tasks if t.done() and t.exception() is not None]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {
        "errors": errors,
        "actions_per_s": state["actions"] / elapsed,
        "latencies": latencies,
        "sent": state["sent"],
        "received": state["received"],
        "actions": state["actions"],
        "cpu": cpu,
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
        # the client is the measuring instrument: its own garbage collector's full passes over
        # 800 clients' bookkeeping paused it for tens of milliseconds (as the server's did)
        gc.collect()
        gc.freeze()
        gc.set_threshold(700, 10, 10_000)
        result = asyncio.run(
            _run_tables(
                ws_urls, tables, options["seconds"], versions_now, options["think"], cpu_kinds
            )
        )
        final = result["final"]
        sent = sum((final[t["match"]] - before[t["match"]]) * len(t["cookies"]) for t in tables)
        received = synced = 0
        missing: list[tuple[int, int, int]] = []  # (match, seat, version) never received
        for t, book in zip(tables, result["books"], strict=True):
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
        lat = result["latencies"]
        clients = result["clients"]
        cpu = result["cpu"]
        figures: dict[str, Any] = {
            "load_1min": os.getloadavg()[0],
            "failed_connects": sum(1 for c in clients if c.connects == 0),
            "retries": sum(c.retries for c in clients),
            "actions_per_s": result["actions_per_s"],
            "p50_ms": _percentile(lat, 0.5) * 1e3,
            "p99_ms": _percentile(lat, 0.99) * 1e3,
            "lost": len(missing),
            "resyncs": result["resyncs"],
            "resync_share": result["resyncs"] / max(1, result["actions"]),
            "client_cpu_share": cpu.share,
            "machine_busy": cpu.machine_busy,
        }
        actions = max(1, result["actions"])
        figures["cpu_ms_client"] = cpu.process / actions * 1e3
        for kind, seconds in cpu.by_kind.items():
            figures[f"cpu_ms_{kind}"] = seconds / actions * 1e3
        closes = Counter()
        for c in clients:
            closes.update(c.closes)
        # a table's seats go to consecutive servers (as a proxy spreading connections would)
        per_server = Counter(c.url.split("/ws/")[0] for c in clients)
        self.stdout.write(
            f"bot tables (think {options['think']:g} s): "
            f"{len(tables)} tables, {len(clients)} sockets "
            f"({figures['failed_connects']} failed to connect, {figures['retries']} handshakes "
            f"retried; all attached {result['connect_s']:.1f} s after the last was opened), "
            f"{options['seconds']:.0f} s, load average {figures['load_1min']:.2f}\n"
            f"  sockets per server {dict(per_server)}\n"
            f"  actions/s {result['actions_per_s']:.1f}  "
            f"p50 {figures['p50_ms']:.1f} ms  p99 {figures['p99_ms']:.1f} ms  (n={len(lat)})\n"
            f"  updates sent {sent}  received {received} live + {synced} in a snapshot or "
            f"resync  lost {len(missing)}\n"
            f"  load client's event loop late by p50 {_percentile(result['lags'], 0.5) * 1e3:.1f}"
            f" ms  p99 {_percentile(result['lags'], 0.99) * 1e3:.1f} ms; its CPU "
            f"{cpu.process / cpu.elapsed:.0%} of a core, {cpu.share:.0%} of the machine's busy "
            f"CPU (machine {cpu.machine_busy:.0%} busy)\n"
            f"  reconnects {sum(max(0, c.connects - 1) for c in clients)}  "
            f"close codes {dict(closes)}  resyncs while measuring {result['resyncs']} "
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
        if not options["no_baseline"]:
            time.sleep(10)  # let the server finish closing the tables' sockets
            base = asyncio.run(_run_baseline(ws_urls, len(tables), options["seconds"], cpu_kinds))
            blat = base["latencies"]
            self.stdout.write(
                f"baseline (bare group broadcast): {len(tables)} groups x 4 sockets\n"
                f"  actions/s {base['actions_per_s']:.1f}  "
                f"p50 {_percentile(blat, 0.5) * 1e3:.1f} ms  "
                f"p99 {_percentile(blat, 0.99) * 1e3:.1f} ms  (n={len(blat)})\n"
                f"  deliveries sent {base['sent']}  received {base['received']}  "
                f"lost {base['sent'] - base['received']}"
            )
            bcpu, rounds = base["cpu"], max(1, base["actions"])
            figures["baseline_client_cpu_share"] = bcpu.share
            figures["baseline_machine_busy"] = bcpu.machine_busy
            figures["baseline_cpu_ms_client"] = bcpu.process / rounds * 1e3
            for kind, seconds in bcpu.by_kind.items():
                figures[f"baseline_cpu_ms_{kind}"] = seconds / rounds * 1e3
            self.stdout.write(
                f"  load client's CPU {bcpu.share:.0%} of the machine's busy CPU (machine "
                f"{bcpu.machine_busy:.0%} busy); CPU per round: client "
                f"{figures['baseline_cpu_ms_client']:.2f} ms"
                + "".join(f", {k} {figures[f'baseline_cpu_ms_{k}']:.2f} ms" for k in bcpu.by_kind)
            )
            if base["errors"]:
                self.stdout.write(f"  {len(base['errors'])} sockets failed: {base['errors'][:3]}")
            figures["baseline_actions_per_s"] = base["actions_per_s"]
            if base["actions_per_s"]:
                figures["ratio"] = result["actions_per_s"] / base["actions_per_s"]
                self.stdout.write(f"throughput vs baseline: {figures['ratio']:.2f}")
            if options["think"]:
                # Thinking tables act at most once per think time and latency: like for like,
                # the bare broadcast's clients think the same time.
                time.sleep(10)
                think = options["think"]
                base = asyncio.run(
                    _run_baseline(ws_urls, len(tables), options["seconds"], cpu_kinds, think)
                )
                blat = base["latencies"]
                figures["baseline_thinking_actions_per_s"] = base["actions_per_s"]
                self.stdout.write(
                    f"baseline thinking {think:g} s like the tables: "
                    f"actions/s {base['actions_per_s']:.1f}  "
                    f"p50 {_percentile(blat, 0.5) * 1e3:.1f} ms  "
                    f"p99 {_percentile(blat, 0.99) * 1e3:.1f} ms  "
                    f"lost {base['sent'] - base['received']}"
                )
                if base["actions_per_s"]:
                    figures["ratio_thinking"] = result["actions_per_s"] / base["actions_per_s"]
                    self.stdout.write(
                        f"throughput vs thinking baseline: {figures['ratio_thinking']:.2f}"
                    )
        if lat:
            self.stdout.write(f"latency mean {statistics.mean(lat) * 1e3:.1f} ms")
        # one line for scripts (tests/e2e/stack.py --runs): every figure above, by name
        self.stdout.write("figures " + json.dumps(figures))
