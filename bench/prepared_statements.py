"""What preparing live play's statements on the server saves: the read and the batch write of
``matches.store`` for 1 and 8 matches, bound on the client by Django's cursor (what every query
did before) against prepared once per connection (``store._fetch_prepared``). Prints, for
each, PostgreSQL's CPU per statement (its backend process, from ``/proc``) and the wall time,
min / median / max of 5 runs of 1000 statements. A benchmark, not a test. The write runs at a
version the row has left, so after the first run it changes nothing: what it measures is
parsing, planning and finding the rows, the same each time.

    python tests/throwaway.py -- .venv/bin/python bench/prepared_statements.py
"""

import os
import re
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import django

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from bench.tables import make_tables  # noqa: E402
from matches import store  # noqa: E402
from matches.services import play  # noqa: E402

RUNS, STATEMENTS = 5, 1000


def backend_cpu(pid: int) -> float:
    """CPU seconds (user + system) of the PostgreSQL backend process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(pid: int, run: Callable[[], object]) -> tuple[list[float], list[float]]:
    """PostgreSQL's CPU and the wall time per statement (µs) of ``run``, for each run."""
    cpu, wall = [], []
    for _ in range(RUNS):
        c0, t0 = backend_cpu(pid), time.perf_counter()
        for _ in range(STATEMENTS):
            run()
        wall.append((time.perf_counter() - t0) / STATEMENTS * 1e6)
        cpu.append((backend_cpu(pid) - c0) / STATEMENTS * 1e6)
    return cpu, wall


def spread(values: list[float]) -> str:
    """``min / median / max`` of ``values``, whole numbers."""
    return f"{min(values):.0f} / {statistics.median(values):.0f} / {max(values):.0f}"


def client_bound(sql: str, params: list) -> None:
    """``sql`` (``%s`` placeholders) run through Django's cursor, bound on the client."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        cursor.fetchall()


def main() -> None:
    """Set up 8 tables, then time each statement both ways."""
    if connection.vendor != "postgresql":
        sys.exit("needs PostgreSQL: run it under tests/throwaway.py")
    call_command("migrate", verbosity=0)
    ids = [t["match"] for t in make_tables(8, prefix="prep")]
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    read_sql, _, _ = store._read_plan()
    read_in = read_sql.replace("= ANY($1::bigint[])", "IN ")
    print(f"{RUNS} runs of {STATEMENTS} statements; µs per statement, min / median / max")
    for count in (1, 8):
        some = ids[:count]
        writes = []
        for match in store.read_many(some).values():
            engine = store.engine_of(match)
            seat = engine.to_move()
            change = play._prepare(
                match, engine.legal_actions(seat)[0], seat=seat, actor="player", user=None,
                expected=match.version,
            )  # fmt: skip
            writes.append(play._write_of(change))
        store.write_many(writes)  # from now on at a version the rows have left
        names = tuple(writes[0].fields)
        write_sql = store._write_sql(names, count)
        write_params = store._write_params(names, writes)
        array = ["{" + ",".join(map(str, some)) + "}"]
        in_list = f"{read_in}({', '.join(['%s'] * count)})"
        client_write = re.sub(r"\$\d+", "%s", write_sql)
        prepared = partial(store._fetch_prepared, connection)
        ways: dict[str, Callable[[], object]] = {
            "read, bound on the client": partial(client_bound, in_list, some),
            "read, prepared": partial(prepared, read_sql, array),
            "write, bound on the client": partial(client_bound, client_write, write_params),
            "write, prepared": partial(prepared, write_sql, write_params),
        }
        for name, run in ways.items():
            cpu, wall = measure(pid, run)
            print(
                f"{count} match(es), {name:27s} PostgreSQL CPU {spread(cpu)}  wall {spread(wall)}"
            )
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_prepared_statements")
        print("statements prepared on this connection:", cursor.fetchone()[0])


if __name__ == "__main__":
    main()
