"""Leaderboard latency with 100,000 rated players: ``python -m bench.leaderboard``.

Needs ``DATABASE_URL`` pointing at a PostgreSQL database it may fill (a throwaway one, e.g.
``python tests/throwaway.py -- python -m bench.leaderboard``). It migrates the
database, creates one club ladder with ``--players`` (100,000) rated players (85% past the
provisional period, 80% active within the activity window, ratings ~ N(1500, 200)), runs
``VACUUM ANALYZE`` (as autovacuum would), then times whole requests through Django's test client (URL routing, middleware,
view, template or serializer, database) — the leaderboard page and the API:

* ``page_first``: page 1, ``page_random``: a random page of the ranked leaderboard,
* ``api_first`` / ``api_random``: the same through ``/api/v1/ladders/{id}/leaderboard/``,
* ``api_page_size_200``: random pages of 200 rows,
* ``search``: a name search (the rank of each hit is computed in the same query).

Prints one JSON object: per kind the p50/p95/max in milliseconds of the whole request, the p95
of the time spent in SQL (``db_p95_ms``), and the number of SQL queries per request (which
must not depend on the page size); also the machine's load average, since other processes
on a small machine move these figures a lot.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from datetime import timedelta


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    # One client sends thousands of requests: keep the throttles (and their Redis round trips)
    # but raise their limits so they never refuse. Both apply to an anonymous client (DRF's
    # user throttle falls back to the client address), so a second run within a minute of the
    # first would otherwise be refused by the user throttle's 1200/min.
    os.environ.setdefault("API_THROTTLE_ANON", "1000000/min")
    os.environ.setdefault("API_THROTTLE_USER", "1000000/min")
    import django

    django.setup()


def populate(players: int, seed: int) -> int:
    """Create (or reuse) the benchmark ladder with ``players`` rated players; return its id."""
    from django.contrib.auth.hashers import make_password
    from django.db import connection
    from django.utils import timezone

    from clubs.models import Club, User
    from games.variants import DEFAULT_GAME
    from ladder.models import Ladder, Rating

    club, _ = Club.objects.get_or_create(slug="bench-leaderboard", defaults={"name": "Bench"})
    ladder, _ = Ladder.objects.get_or_create(club=club, variant=DEFAULT_GAME)
    if Rating.objects.filter(ladder=ladder).count() == players:
        return ladder.pk
    Rating.objects.filter(ladder=ladder).delete()
    rng = random.Random(seed)
    now = timezone.now()
    password = make_password(None)
    batch = 10_000
    for start in range(0, players, batch):
        users = User.objects.bulk_create(
            [
                User(
                    username=f"bench{i:06d}",
                    display_name=f"棋手{i:06d}",
                    password=password,
                )
                for i in range(start, min(players, start + batch))
            ],
            batch_size=batch,
        )
        ratings = []
        for user in users:
            matches = rng.randint(30, 400) if rng.random() < 0.85 else rng.randint(1, 29)
            active = rng.random() < 0.8
            rating = rng.gauss(1500, 200)
            ratings.append(
                Rating(
                    ladder=ladder,
                    user=user,
                    rating=rating,
                    matches=matches,
                    wins=rng.randint(0, matches),
                    provisional=matches < ladder.provisional_matches,
                    last_played=now
                    - timedelta(
                        days=rng.randint(0, ladder.activity_weeks * 7 - 1)
                        if active
                        else rng.randint(ladder.activity_weeks * 7 + 1, 800)
                    ),
                    recent=[rating + rng.gauss(0, 20) for _ in range(10)],
                )
            )
        Rating.objects.bulk_create(ratings, batch_size=batch)
    with connection.cursor() as cursor:
        # What autovacuum does after a bulk load: statistics and the visibility map.
        cursor.execute("VACUUM ANALYZE")
    return ladder.pk


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def measure(ladder_id: int, requests: int, seed: int) -> dict[str, dict[str, float]]:
    """Time ``requests`` requests of each kind; return the figures per kind."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from ladder import selectors
    from ladder.models import Ladder

    ladder = Ladder.objects.get(pk=ladder_id)
    ranked = selectors.ranked_ratings(ladder).count()
    pages_50 = -(-ranked // 50)
    pages_200 = -(-ranked // 200)
    rng = random.Random(seed)
    client = Client()
    page_url = f"/ladder/{ladder_id}/"
    api_url = f"/api/v1/ladders/{ladder_id}/leaderboard/"
    kinds: dict[str, Callable[[], str]] = {
        "page_first": lambda: page_url,
        "page_random": lambda: f"{page_url}?page={rng.randint(1, pages_50)}",
        "api_first": lambda: api_url,
        "api_random": lambda: f"{api_url}?page={rng.randint(1, pages_50)}",
        "api_page_size_200": lambda: f"{api_url}?page_size=200&page={rng.randint(1, pages_200)}",
        "search": lambda: f"{page_url}?q=%E6%A3%8B%E6%89%8B{rng.randint(0, 99999):06d}",
    }
    figures: dict[str, dict[str, float]] = {}
    for kind, url_of in kinds.items():
        for _ in range(5):  # warm-up: connections, template and plan caches
            client.get(url_of())
        timings = []
        db_timings = []
        queries = set()
        for _ in range(requests):
            url = url_of()
            with CaptureQueriesContext(connection) as captured:
                started = time.perf_counter()
                response = client.get(url)
                timings.append((time.perf_counter() - started) * 1000)
            if response.status_code != 200:
                raise RuntimeError(f"{url} answered {response.status_code}")
            queries.add(len(captured))
            db_timings.append(sum(float(q["time"]) for q in captured.captured_queries) * 1000)
        figures[kind] = {
            "p50_ms": round(statistics.median(timings), 2),
            "p95_ms": round(_percentile(timings, 0.95), 2),
            "max_ms": round(max(timings), 2),
            "db_p95_ms": round(_percentile(db_timings, 0.95), 2),
            "queries": sorted(queries),
        }
    figures["ranked_players"] = ranked
    return figures


def main(argv: Sequence[str] | None = None) -> None:
    """Populate, measure, print one JSON object."""
    parser = argparse.ArgumentParser(prog="python -m bench.leaderboard")
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    if not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
        sys.exit("Set DATABASE_URL to a PostgreSQL database this benchmark may fill.")
    _setup()
    from django.conf import settings
    from django.core.management import call_command

    settings.DEBUG = False
    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    ladder_id = populate(args.players, args.seed)
    populated_s = time.perf_counter() - started
    figures = measure(ladder_id, args.requests, args.seed)
    figures["players"] = args.players
    figures["populate_s"] = round(populated_s, 1)
    figures["load_average_1m"] = round(os.getloadavg()[0], 2)
    figures["cpus"] = os.cpu_count()
    json.dump(figures, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
