"""Season size benchmark: ``python -m bench.league_season`` (a script, not a timed test).

Generates and stores a team season of ``--divisions`` (20) × ``--teams`` (12) Bao 2 teams of
four players (a round robin: 11 rounds, 1,320 fixtures), plays half its rounds (stored
results), then times whole requests of the season's standings page (every division's
table) and of the season's standings through the API, through Django's test client: with
the standings unchanged since the last read (served from the cache) and with a result in
before every read (computed afresh). Prints one JSON object: the seconds to generate and
store the season, and per request kind min / median / p95 / max in milliseconds and the
number of SQL queries (which must not depend on the season's size).

The database is the configured one (``DATABASE_URL``); point it at a throwaway PostgreSQL
for the issue's figure: ``python tests/throwaway.py -- python -m bench.league_season``. It is
migrated first; the benchmark league is replaced on every run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from collections.abc import Callable
from datetime import date


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("API_THROTTLE_ANON", "1000000/min")
    os.environ.setdefault("API_THROTTLE_USER", "1000000/min")
    import django

    django.setup()


def generate(divisions: int, teams: int, seed: int) -> tuple[int, float]:
    """Store the benchmark season; returns its id and the seconds it took."""
    from django.contrib.auth.hashers import make_password
    from django.db import transaction

    from clubs.models import Club, Membership, Role, User
    from leagues.models import (
        Entry,
        Fixture,
        FixtureStatus,
        League,
        ResultSource,
        Team,
        TeamMember,
    )
    from leagues.services import setup, standings

    club, _ = Club.objects.get_or_create(slug="bench-league", defaults={"name": "Bench"})
    League.objects.filter(host=club).delete()
    Team.objects.filter(club=club).delete()
    owner, _ = User.objects.get_or_create(username="bench-league-owner")
    Membership.objects.get_or_create(club=club, user=owner, defaults={"role": Role.OWNER})
    need = divisions * teams * 4
    password = make_password(None)
    existing = list(User.objects.filter(username__startswith="bench-lg-").order_by("username"))
    if len(existing) < need:
        User.objects.bulk_create(
            User(username=f"bench-lg-{i:05d}", password=password)
            for i in range(len(existing), need)
        )
    players = list(User.objects.filter(username__startswith="bench-lg-").order_by("username"))
    Membership.objects.bulk_create(
        [Membership(club=club, user=u) for u in players[:need]], ignore_conflicts=True
    )
    start = time.perf_counter()
    with transaction.atomic():
        league = setup.create_league(owner, club, name="Bench league")
        season = setup.create_season(
            owner, league, name="Bench", variant="bao2", starts_on=date(2030, 1, 1)
        )
        levels = [season.divisions.get()]
        for level in range(2, divisions + 1):
            levels.append(setup.add_division(owner, season, f"D{level}"))
        # teams straight into the tables (the service enters one at a time, with its checks)
        n = 0
        for division in levels:
            for i in range(teams):
                roster = players[n : n + 4]
                n += 4
                team = Team.objects.create(
                    season=season, club=club, name=f"T{division.level}-{i}", captain=roster[0]
                )
                TeamMember.objects.bulk_create(
                    TeamMember(team=team, season=season, user=u) for u in roster
                )
                Entry.objects.create(
                    season=season,
                    division=division,
                    club=club,
                    name=team.name,
                    team=team,
                    seed=i + 1,
                )
        setup.start_season(owner, season)
        rng = random.Random(seed)
        played = []
        half = season.rounds.count() // 2
        for fixture in Fixture.objects.filter(round__season=season, round__number__lte=half):
            if fixture.away_id is None:
                continue
            fixture.home_score, fixture.away_score = rng.randint(10, 46), rng.randint(10, 46)
            fixture.winner = (
                None
                if fixture.home_score == fixture.away_score
                else int(fixture.away_score > fixture.home_score)
            )
            fixture.status = FixtureStatus.DONE
            fixture.source = ResultSource.PLAYED
            played.append(fixture)
        Fixture.objects.bulk_update(
            played, ["home_score", "away_score", "winner", "status", "source"], batch_size=500
        )
        standings.changed(season.pk)  # results written past the services
    return season.pk, time.perf_counter() - start


def _time(
    request: Callable[[], object], repeat: int, before: Callable[[], object] = lambda: None
) -> dict[str, float]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    times = []
    queries = 0
    request()  # warm caches (templates, URL resolver)
    for _ in range(repeat):
        before()  # untimed
        with CaptureQueriesContext(connection) as captured:
            start = time.perf_counter()
            response = request()
            times.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, response.status_code  # type: ignore[attr-defined]
        queries = len(captured)
    times.sort()
    return {
        "min_ms": round(times[0], 2),
        "median_ms": round(statistics.median(times), 2),
        "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2),
        "max_ms": round(times[-1], 2),
        "queries": queries,
    }


def main() -> None:
    """Generate the season, time the requests, print the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--divisions", type=int, default=20)
    parser.add_argument("--teams", type=int, default=12)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    _setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from leagues.services import standings

    call_command("migrate", verbosity=0)
    season_id, seconds = generate(args.divisions, args.teams, args.seed)
    client = Client()
    page = f"/leagues/seasons/{season_id}/"
    api = f"/api/v1/league-seasons/{season_id}/standings/"
    out = {
        "database": connection.vendor,
        "divisions": args.divisions,
        "teams_per_division": args.teams,
        "generate_and_store_s": round(seconds, 2),
        "load_average_before": os.getloadavg(),
        # standings unchanged since the last read: the cached standings
        "standings_page": _time(lambda: client.get(page), args.repeat),
        "standings_api": _time(lambda: client.get(api), args.repeat),
        # a result came in before every read: the standings computed and rendered afresh
        "standings_page_after_a_result": _time(
            lambda: client.get(page), args.repeat, lambda: standings.changed(season_id)
        ),
        "standings_api_after_a_result": _time(
            lambda: client.get(api), args.repeat, lambda: standings.changed(season_id)
        ),
        "load_average": os.getloadavg(),
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
