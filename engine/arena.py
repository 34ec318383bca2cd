"""Bot against bot, full matches with mirrored seeds: ``python -m engine.arena``.

::

    python -m engine.arena --variant bao2 --a search --b heuristic --matches 40 \\
        [--budget-ms 200 | --playouts 60] [--seed 1] [--jobs 2] [--max-deals 500]

Each deal set (a match seed: the seed deals every deal of the match) is played twice, with the
teams swapped: bot A on the even seats (team 0) and then on the odd seats (team 1), so the luck
of the cards cancels out. Prints one JSON object: A's wins, draws and losses, its score
(wins + draws / 2) with a 95 % Wilson interval, the mean margin (A's levels minus B's, or its
side's points minus the other's), deals played, and the process time per decision of each bot
(min / median / max ms), with the total CPU seconds.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from engine.bots import ARENA_KINDS, SearchBot, make_bot
from engine.match import Match

__all__ = ["mirrored_schedule", "play_one", "summarize", "wilson", "main"]


def mirrored_schedule(matches: int, seed: int) -> list[tuple[int, int]]:
    """The ``(match seed, team of bot A)`` of ``matches`` matches (rounded up to even): each
    seed twice in a row, A on team 0 and then on team 1."""
    pairs = (matches + 1) // 2
    return [(seed * 100_000 + p, team) for p in range(pairs) for team in (0, 1)]


def _sides_score(match: Match) -> list[int]:
    """Score of team 0 and team 1 (levels, or the sums of the seats' points)."""
    score = match.score or [0, 0]
    if match.rules.scoring == "points":
        return [sum(score[s] for s in range(len(score)) if s % 2 == t) for t in (0, 1)]
    return list(match.levels)


def play_one(
    variant: str,
    seed: int,
    a_team: int,
    a: str,
    b: str,
    budget_ms: float | None = None,
    playouts: int | None = None,
    max_deals: int = 500,
) -> dict[str, Any]:
    """One full match, bot kind ``a`` on the seats of team ``a_team`` and ``b`` on the others:
    A's outcome (``1`` win, ``0.5`` draw, ``0`` loss), margin, deals, decision times (ms)."""
    match = Match.new(variant, seed)
    n = match.rules.seats
    bots = []
    for s in range(n):
        kind = a if s % 2 == a_team else b
        bot = make_bot(kind, f"{seed}/{s}", budget_ms)
        if isinstance(bot, SearchBot) and playouts is not None:
            bot.playouts = playouts
        bots.append(bot)
    times: dict[str, list[float]] = {"a": [], "b": []}
    while not match.over and match.deal_no < max_deals:
        seat = match.to_move()
        assert seat is not None
        obs = match.observation(seat)
        t0 = time.process_time()
        action = bots[seat].choose(obs, lambda s=seat: match.legal_actions(s))
        times["a" if seat % 2 == a_team else "b"].append((time.process_time() - t0) * 1000)
        match.apply(action)
    sides = _sides_score(match)
    margin = sides[a_team] - sides[1 - a_team]
    winner = match.winner
    if match.rules.scoring == "points" or not match.over:
        winner = None if sides[0] == sides[1] else int(sides[1] > sides[0])
    outcome = 0.5 if winner is None else float(winner == a_team)
    return {
        "seed": seed,
        "a_team": a_team,
        "outcome": outcome,
        "margin": margin,
        "deals": len(match.deals),
        "times": times,
    }


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``score`` over ``n`` trials."""
    if n == 0:
        return (0.0, 1.0)
    centre = (score + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (round(centre - half, 3), round(centre + half, 3))


def _ms(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    return {
        "min": round(min(values), 2),
        "median": round(statistics.median(values), 2),
        "max": round(max(values), 2),
        "mean": round(statistics.fmean(values), 2),
    }


def summarize(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Wins, draws, losses of bot A, its score with a 95 % interval, the mean margin and the
    decision times, from :func:`play_one` results."""
    n = len(results)
    wins = sum(1 for r in results if r["outcome"] == 1)
    draws = sum(1 for r in results if r["outcome"] == 0.5)
    score = (wins + draws / 2) / n if n else 0.0
    margins = [r["margin"] for r in results]
    return {
        "matches": n,
        "a_wins": wins,
        "draws": draws,
        "a_losses": n - wins - draws,
        "a_score": round(score, 3),
        "ci95": wilson(score, n),
        "mean_margin": round(statistics.fmean(margins), 2) if margins else 0.0,
        "margin_sd": round(statistics.stdev(margins), 2) if n > 1 else 0.0,
        "deals": sum(r["deals"] for r in results),
        "ms_per_decision_a": _ms([t for r in results for t in r["times"]["a"]]),
        "ms_per_decision_b": _ms([t for r in results for t in r["times"]["b"]]),
    }


def _play(args: tuple[Any, ...]) -> dict[str, Any]:
    return play_one(*args)


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, play the mirrored matches (in ``--jobs`` processes), print JSON."""
    p = argparse.ArgumentParser(prog="python -m engine.arena", description=__doc__)
    p.add_argument("--variant", default="bao2")
    p.add_argument("--a", default="search", choices=ARENA_KINDS)
    p.add_argument("--b", default="heuristic", choices=ARENA_KINDS)
    p.add_argument("--matches", type=int, default=20)
    p.add_argument("--budget-ms", type=float, default=None)
    p.add_argument("--playouts", type=int, default=None, help="per decision (deterministic)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--max-deals", type=int, default=500)
    p.add_argument("--progress", action="store_true", help="each match on stderr as it ends")
    ns = p.parse_args(sys.argv[1:] if argv is None else argv)
    if not 1 <= ns.matches <= 10_000 or not 1 <= ns.jobs <= 64:
        p.error("--matches must be 1..10000 and --jobs 1..64")
    work = [
        (ns.variant, seed, team, ns.a, ns.b, ns.budget_ms, ns.playouts, ns.max_deals)
        for seed, team in mirrored_schedule(ns.matches, ns.seed)
    ]
    cpu0 = time.process_time()
    wall0 = time.perf_counter()
    results = []
    pool = ProcessPoolExecutor(ns.jobs) if ns.jobs > 1 else None
    for r in pool.map(_play, work) if pool else map(_play, work):
        results.append(r)
        if ns.progress:  # one line per match, so a long run can be read before its end
            line = {k: v for k, v in r.items() if k != "times"}
            line["a_ms"] = _ms(r["times"]["a"])
            print(json.dumps(line), file=sys.stderr, flush=True)
    if pool:
        pool.shutdown()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = {"variant": ns.variant, "a": ns.a, "b": ns.b, "budget_ms": ns.budget_ms}
    out["playouts"] = ns.playouts
    out.update(summarize(results))
    out["cpu_s"] = round(time.process_time() - cpu0 + children.ru_utime + children.ru_stime, 1)
    out["wall_s"] = round(time.perf_counter() - wall0, 1)
    out["pairs"] = [
        [results[i]["outcome"], results[i + 1]["outcome"]] for i in range(0, len(results) - 1, 2)
    ]
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
