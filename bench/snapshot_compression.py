"""What the snapshot column's compression costs PostgreSQL: every action rewrites the match's
whole snapshot, which PostgreSQL compresses once it passes about 2 KB. For snapshots of a
match after 60, 300 and 1,000 random actions it updates and reads 200 rows of a scratch table
1,000 times each, with the column compressed by pglz (PostgreSQL's default) and by LZ4
(migration 0007), and prints PostgreSQL's CPU per statement (its backend process, from
``/proc``), min / median / max of 5 runs, and the bytes one stored snapshot takes. A
benchmark, not a test.

    python tests/throwaway.py -- .venv/bin/python bench/snapshot_compression.py
"""

import os
import statistics
import sys
from pathlib import Path

import django
import orjson
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from engine.bots import RandomBot  # noqa: E402
from engine.match import Match  # noqa: E402
from matches.store import snapshot_of  # noqa: E402

RUNS, STATEMENTS, ROWS = 5, 1000, 200


def snapshot_after(actions: int) -> str:
    """The stored snapshot (:func:`matches.store.snapshot_of`) of a seeded Bao 2 match after
    ``actions`` random actions, as JSON text."""
    match, bot = Match.new("bao2", 7, {}), RandomBot(1)
    for _ in range(actions):
        if match.over:
            break
        seat = match.to_move()
        match.apply(bot.choose(match.observation(seat), match.legal_actions(seat)))
    return orjson.dumps(snapshot_of(match)).decode()


def backend_cpu(pid: int) -> float:
    """CPU seconds (user + system) of the PostgreSQL backend process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def spread(values: list[float]) -> str:
    """``min / median / max`` of ``values``, whole numbers."""
    return f"{min(values):.0f} / {statistics.median(values):.0f} / {max(values):.0f}"


def main() -> None:
    """Measure both compressions and print the figures (see the module)."""
    url = os.environ["DATABASE_URL"].replace("postgres://", "postgresql://", 1)
    print(f"PostgreSQL CPU per statement in µs, min / median / max of {RUNS} x {STATEMENTS}")
    for actions in (60, 300, 1000):
        text = snapshot_after(actions)
        print(f"snapshot after {actions} actions: {len(text)} bytes")
        for method in ("pglz", "lz4"):
            with psycopg.connect(url, autocommit=True) as conn:
                row = conn.execute("SELECT pg_backend_pid()").fetchone()
                assert row is not None
                pid = row[0]
                conn.execute("DROP TABLE IF EXISTS bench_snapshot")
                conn.execute("CREATE TABLE bench_snapshot (id int PRIMARY KEY, v int, s jsonb)")
                conn.execute(f"ALTER TABLE bench_snapshot ALTER COLUMN s SET COMPRESSION {method}")
                conn.execute(
                    "INSERT INTO bench_snapshot SELECT g, 0, %s::jsonb FROM generate_series(1, %s) g",
                    [text, ROWS],
                )
                writes, reads = [], []
                for _ in range(RUNS):
                    start = backend_cpu(pid)
                    for k in range(STATEMENTS):
                        conn.execute(
                            "UPDATE bench_snapshot SET v = v + 1, s = %s::jsonb WHERE id = %s",
                            [text, k % ROWS + 1],
                            prepare=True,
                        )
                    writes.append((backend_cpu(pid) - start) * 1e6 / STATEMENTS)
                    start = backend_cpu(pid)
                    for k in range(STATEMENTS):
                        conn.execute(
                            "SELECT s FROM bench_snapshot WHERE id = %s",
                            [k % ROWS + 1],
                            prepare=True,
                        ).fetchone()
                    reads.append((backend_cpu(pid) - start) * 1e6 / STATEMENTS)
                size = conn.execute("SELECT max(pg_column_size(s)) FROM bench_snapshot").fetchone()
                assert size is not None
                conn.execute("DROP TABLE bench_snapshot")
            print(
                f"  {method:5s} update {spread(writes)}   read {spread(reads)}"
                f"   stored {size[0]} bytes"
            )


if __name__ == "__main__":
    main()
