"""How long binding a batch write's parameters takes: psycopg's client-side binding (which parses
a statement of more than 50 parameters anew every time) against ``matches.store``'s own
(psycopg's quoting into the statement as written). A benchmark, not a test: it needs no
server, checks that both give the same statement, and prints min / median / max of seven runs
of 300 bindings each, for batches of 1, 4 and 8 writes.

    .venv/bin/python tests/bench_batch_bind.py
"""

import datetime
import os
import statistics
import sys
import time
from pathlib import Path

import django

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ["DATABASE_URL"] = "postgres://u:p@127.0.0.1:1/x"  # the vendor only: never connected
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from psycopg._queries import PostgresClientQuery  # noqa: E402
from psycopg.adapt import Transformer  # noqa: E402

from matches import store  # noqa: E402
from matches.models import MatchEvent  # noqa: E402

NAMES = ("version", "revision", "snapshot", "to_move", "deadline", "deadline_version")
NAMES += ("autoplay", "timeouts")
SNAPSHOT = {"variant": "bao2", "seed": 1, "options": {}, "actions": ["p0:3h4h"] * 200}


def writes(count: int) -> list[store.Write]:
    """``count`` writes of a typical action (a 200-action snapshot)."""
    now = datetime.datetime.now(datetime.UTC)
    out = []
    for k in range(count):
        fields = dict(zip(NAMES, (k + 1, k + 1, SNAPSHOT, 1, now, k + 1), strict=False))
        fields.update(autoplay=[""] * 4, timeouts=[0] * 4)
        event = MatchEvent(
            match_id=k + 1, seq=k + 1, seat=0, actor="player", action={"seat": 0}, created_at=now
        )
        out.append(store.Write(k + 1, k, k, fields, event))
    return out


def psycopg_binds(sql: str, params: list) -> bytes:
    query = PostgresClientQuery(Transformer())
    query.convert(sql, params)
    return query.query


def bound_here(sql: str, params: list) -> bytes:
    return store.bind(sql, params)


def main() -> None:
    """Print the figures of both ways for each batch size."""
    for count in (1, 4, 8):
        sql = store._write_sql(NAMES, count)
        params = store._write_params(NAMES, writes(count))
        assert psycopg_binds(sql, params) == bound_here(sql, params), "different statements"
        for bind in (psycopg_binds, bound_here):
            runs = []
            for _ in range(7):
                started = time.perf_counter()
                for _ in range(300):
                    bind(sql, params)
                runs.append((time.perf_counter() - started) / 300 * 1e6)
            print(
                f"{count} writes ({len(params)} parameters), {bind.__name__}: min {min(runs):.0f}"
                f" / median {statistics.median(runs):.0f} / max {max(runs):.0f} µs"
            )


if __name__ == "__main__":
    main()
