"""Benchmark: ``python -m bench.review_cost [--variant V] [--matches N] [--seed S]`` prints one
JSON object: the process time the strong bot's review (``reviews.analysis``) spends on whole
matches with the default budget (``reviews.services.budget``: 40 ms of search and 80 ms of
playouts per decision, 120 s per match).

Each match is played to its end by the heuristic, seat 0 choosing a random legal play in 30 %
of its play decisions (so the review has moves to compare), and every seat is reviewed as a
person's. Keys: ``decisions`` (reviewed) and ``decision_ms`` (min / median / max / mean of a
reviewed decision's process time), ``outside_play`` (the tribute, return, immune window and Red
Two choice decisions among them: how many, and min / median / max ms), ``match_s`` (process seconds per match: min / median / max),
``complete`` (matches reviewed whole within the budget), ``deals``, ``load`` (load averages
before and after) and the command.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time

from engine.bots import HeuristicBot, PointsHeuristicBot
from engine.match import Match
from reviews.analysis import Budget, review_seat, seat_view


def played(variant: str, seed: int) -> tuple[Match, list[dict]]:
    """A whole match by the heuristic, seat 0 erring at random (30 % of its plays)."""
    match = Match.new(variant, seed)
    bot = PointsHeuristicBot() if match.rules.scoring == "points" else HeuristicBot()
    rng = random.Random(seed)
    log = []
    while not match.over and match.deal_no < 500:
        seat = match.to_move()
        legal = match.legal_actions(seat)
        if seat == 0 and match.deal.phase == "play" and rng.random() < 0.3:
            act = rng.choice(legal)
        else:
            act = bot.choose(match.observation(seat), legal)
        log.append(match.apply(act).to_json())
    return match, log


def main(argv: list[str] | None = None) -> int:
    """Print the figures (see the module docstring)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--variant", default="guandan")
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    budget = Budget(search_ms=40.0, eval_ms=80.0, match_seconds=120.0)
    per_decision: list[float] = []
    outside_play: list[float] = []  # tribute, return, the immune window, Red Two's choice
    per_match: list[float] = []
    complete = deals = 0
    for k in range(args.matches):
        match, log = played(args.variant, args.seed + k)
        deals += len(match.deals)
        start = time.process_time()
        whole = True
        for seat in range(match.deal.n):
            left = budget.match_seconds - (time.process_time() - start)
            share = Budget(
                search_ms=40.0, eval_ms=80.0, match_seconds=max(0.0, left) / (match.deal.n - seat)
            )
            result = review_seat(seat_view(args.variant, args.seed + k, None, log, seat), share)
            per_decision.extend(d["ms"] for d in result["decisions"])
            outside_play.extend(
                d["ms"] for d in result["decisions"] if d.get("phase", "play") != "play"
            )
            whole = whole and result["complete"]
        per_match.append(time.process_time() - start)
        complete += whole
    out = {
        "command": "python -m bench.review_cost "
        + " ".join(sys.argv[1:] if argv is None else argv),
        "variant": args.variant,
        "matches": args.matches,
        "deals": deals,
        "decisions": len(per_decision),
        "decision_ms": {
            "min": round(min(per_decision), 1),
            "median": round(statistics.median(per_decision), 1),
            "max": round(max(per_decision), 1),
            "mean": round(statistics.fmean(per_decision), 1),
        },
        "outside_play": {
            "decisions": len(outside_play),
            "ms": [
                round(min(outside_play), 1),
                round(statistics.median(outside_play), 1),
                round(max(outside_play), 1),
            ]
            if outside_play
            else None,
        },
        "match_s": {
            "min": round(min(per_match), 1),
            "median": round(statistics.median(per_match), 1),
            "max": round(max(per_match), 1),
        },
        "complete": complete,
        "load": [round(x, 2) for x in load_before] + [round(x, 2) for x in os.getloadavg()],
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
