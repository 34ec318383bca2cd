"""A player's statistics page with 10,000 matches behind it: ``python -m bench.records_page``.

Fills the database it is given (a throwaway one: ``python tests/throwaway.py -- python -m
bench.records_page``; without ``DATABASE_URL`` the embedded SQLite in ``var/``) with one
player's ``--matches`` (10,000) finished matches over two years, in three clubs, of the four
games, rated and casual, with 60 other people as partners and opponents. Each match is read
into facts by the engine (a pool of engine-made matches, read once each) and recorded through
:func:`records.services.store_facts`, the writer the task uses (the event logs themselves are
not stored: the page never reads them). Then times whole requests through Django's test
client — the page for this month, this season and all time, the API, the club page with its
honours — and prints one JSON object: per kind min/median/max in milliseconds and the number
of SQL queries per request (which must not grow with the matches), the cost of recording one
match, the command and the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Sequence
from datetime import timedelta
from typing import Any


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("API_THROTTLE_ANON", "1000000/min")
    os.environ.setdefault("API_THROTTLE_USER", "1000000/min")
    import django

    django.setup()


def _pool(seed: int) -> list[Any]:
    """Facts of a few engine-made matches of each game (heuristic bots; level games cut short by
    the clock after 2 to 4 deals, point games of 2 to 4 deals)."""
    from engine.bots import make_bot
    from engine.facts import match_facts
    from engine.match import Match

    rng = random.Random(seed)
    out = []
    for variant in ("bao2", "guandan", "honger", "shuangkou2"):
        for k in range(6):
            deals = rng.randint(2, 4)
            options = {"deals": deals} if variant in ("honger", "shuangkou2") else None
            match = Match.new(variant, f"bench-{k}", options)
            bots = [make_bot("heuristic") for _ in range(match.rules.seats)]
            while not match.over:
                if match.deal_no == deals - 1 and match.deal.log and not match.time_up:
                    match.apply({"time_up": True})
                seat = match.to_move()
                assert seat is not None  # the match is not over
                match.apply(
                    bots[seat].choose(
                        match.observation(seat), lambda s=seat, m=match: m.legal_actions(s)
                    )
                )
            out.append(match_facts(variant, f"bench-{k}", options, match.log))
    return out


def populate(matches: int, seed: int) -> int:
    """Record ``matches`` matches of the benchmark player (reused if already there); return
    the player's id."""
    from django.utils import timezone

    from clubs.models import Club, Membership, Role, User
    from records import honours, services
    from records.models import PlayerMatch, Tally

    player, _ = User.objects.get_or_create(
        username="bench-records", defaults={"display_name": "老王"}
    )
    done = PlayerMatch.objects.filter(user=player).count()
    if done >= matches:
        return player.pk
    others = [
        User.objects.get_or_create(
            username=f"bench-records-{i}", defaults={"display_name": f"牌友{i}"}
        )[0]
        for i in range(60)
    ]
    clubs = [
        Club.objects.get_or_create(slug=f"bench-records-{c}", defaults={"name": f"Bench {c}"})[0]
        for c in range(3)
    ]
    for club in clubs:
        for user in [player, *others]:
            Membership.objects.get_or_create(club=club, user=user, defaults={"role": Role.MEMBER})
    pool = _pool(seed)
    rng = random.Random(seed)
    now = timezone.now()
    for n in range(done, matches):
        facts = rng.choice(pool)
        seats = len(facts.seats)
        people = [player, *rng.sample(others, seats - 1)]
        rng.shuffle(people)
        ended = now - timedelta(minutes=rng.randint(0, 2 * 365 * 24 * 60))
        services.store_facts(
            "live",
            f"bench-{n}",
            facts,
            [u.pk for u in people],
            club_id=rng.choice(clubs).pk,
            rated=rng.random() < 0.6,
            ended_at=ended,
            honours_now=False,
        )
    # the honours once per club and period at the end (a task computes them after each match)
    keys = set(Tally.objects.filter(period__startswith="m").values_list("period", flat=True))
    keys |= set(Tally.objects.filter(period__startswith="s").values_list("period", flat=True))
    for club in clubs:
        for key in keys:
            honours.compute(club.pk, key)
    return player.pk


def _time(client: Any, url: str, requests: int) -> dict[str, object]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for _ in range(3):  # warm-up: connections, template caches
        client.get(url)
    timings, queries = [], set()
    for _ in range(requests):
        with CaptureQueriesContext(connection) as captured:
            started = time.perf_counter()
            response = client.get(url)
            timings.append((time.perf_counter() - started) * 1000)
        if response.status_code != 200:
            raise RuntimeError(f"{url} answered {response.status_code}")
        queries.add(len(captured))
    return {
        "min_ms": round(min(timings), 2),
        "median_ms": round(statistics.median(timings), 2),
        "max_ms": round(max(timings), 2),
        "queries": sorted(queries),
    }


def main(argv: Sequence[str] | None = None) -> None:
    """Populate, measure, print one JSON object."""
    parser = argparse.ArgumentParser(prog="python -m bench.records_page")
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--seed", type=int, default=46)
    args = parser.parse_args(argv)
    _setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.utils import timezone

    from clubs.models import Club, User
    from records import services
    from records.models import PlayerMatch, Tally

    settings.DEBUG = False
    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    player_id = populate(args.matches, args.seed)
    populate_s = time.perf_counter() - started
    player = User.objects.get(pk=player_id)
    client = Client()
    client.force_login(player)
    figures: dict[str, object] = {}
    base = f"/records/players/{player_id}/"
    for period in ("month", "season", "all"):
        figures[f"page_{period}"] = _time(client, f"{base}?period={period}", args.requests)
    figures["api_all"] = _time(
        client, f"/api/v1/players/{player_id}/statistics/?period=all", args.requests
    )
    club = Club.objects.get(slug="bench-records-0")
    figures["club_page"] = _time(client, f"/clubs/{club.slug}/", args.requests)
    # the cost of recording one more match (the task's writer, honours included)
    pool = _pool(args.seed)[:4]
    others = list(User.objects.filter(username__startswith="bench-records-")[:3])
    costs = []
    for k in range(20):
        facts = pool[0]
        started = time.perf_counter()
        services.store_facts(
            "live",
            f"x{time.time_ns() % 10**12}-{k}",
            facts,
            [player_id, *[u.pk for u in others]],
            club_id=club.pk,
            rated=True,
            ended_at=timezone.now(),
        )
        costs.append((time.perf_counter() - started) * 1000)
    figures["record_one_match_ms"] = {
        "min": round(min(costs), 2),
        "median": round(statistics.median(costs), 2),
        "max": round(max(costs), 2),
    }
    figures["matches"] = PlayerMatch.objects.filter(user_id=player_id).count()
    figures["tallies_of_player"] = Tally.objects.filter(user_id=player_id).count()
    figures["populate_s"] = round(populate_s, 1)
    figures["database"] = connection.vendor
    figures["command"] = "python -m bench.records_page " + " ".join(
        sys.argv[1:] if argv is None else argv
    )
    figures["load_average_1m"] = round(os.getloadavg()[0], 2)
    figures["cpus"] = os.cpu_count()
    json.dump(figures, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
