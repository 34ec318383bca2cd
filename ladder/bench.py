"""Benchmark of the rating maths: ``python -m ladder.bench`` prints one JSON object.

Simulation (all seeded, so a run is reproducible):

* ``--players`` (200) players get a hidden true skill drawn from a normal distribution,
  mean 1500, standard deviation ``--skill-sd`` (200 Elo points).
* ``--matches`` (20,000) partnership matches: four distinct players drawn at random, split
  at random into two sides of two (random partners every match).
* The winning side is drawn with the **true** probability the ratings assume: the Elo logistic
  ``1 / (1 + 10 ** ((T_other - T_own) / 400))`` on the mean true skill of each side.
* The margin is a Bao 2 level margin, an integer 1..23: ``m = round(exp(L) - 1)`` clamped to
  1..23 with ``L = s * G``, ``G ~ Gamma(shape 4, scale 0.4)`` (typical margin 3-5 levels,
  occasionally a 23:0 rout; ``--margin-shape 6`` for margins of 8-12 levels) and ``s = (2.2 + 0.001 * dT) / 2.2``, ``dT`` the winner's true
  side skill minus the loser's. That is the margin model FiveThirtyEight's factor corrects
  for (stronger winners win by more, in proportion to ``2.2 + 0.001 * dT``); with
  ``--margin-model flat`` the margin ignores skill (``s = 1``), which the factor then
  over-corrects, compressing the ratings slightly.
* Ratings start at 1500 with the ladder defaults (K 16 for 30 matches, then 8).

Figures: ``spearman`` between final ratings and true skills; ``log_loss`` of the pre-match
predicted probabilities (from the ratings at the time) on the last 20% of matches, next to
``oracle_log_loss`` of the true probabilities on the same matches; ``updates_per_s``: player
rating updates per second through :func:`ladder.ratings.rate_match` (four per match), timed on
a second pass over the same matches that does only the rating work (no random draws).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Sequence

from ladder.ratings import (
    DEFAULT_PARAMS,
    PlayerState,
    RatingParams,
    expected_score,
    rate_match,
)

MAX_LEVEL_MARGIN = 23


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Spearman rank correlation of two equally long sequences (average ranks for ties)."""

    def ranks(values: Sequence[float]) -> list[float]:
        order = sorted(range(len(values)), key=values.__getitem__)
        result = [0.0] * len(values)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
                j += 1
            for k in range(i, j + 1):
                result[order[k]] = (i + j) / 2.0
            i = j + 1
        return result

    rx, ry = ranks(xs), ranks(ys)
    n = len(xs)
    mx, my = sum(rx) / n, sum(ry) / n
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    vx = sum((a - mx) ** 2 for a in rx)
    vy = sum((b - my) ** 2 for b in ry)
    return cov / math.sqrt(vx * vy)


def log_loss(probabilities: Sequence[float], outcomes: Sequence[int]) -> float:
    """Mean negative log-likelihood of binary ``outcomes`` under ``probabilities``."""
    total = 0.0
    for p, y in zip(probabilities, outcomes, strict=True):
        total -= math.log(p if y else 1.0 - p)
    return total / len(outcomes)


def simulate(
    players: int = 200,
    matches: int = 20_000,
    skill_sd: float = 200.0,
    margin_model: str = "proportional",
    seed: int = 20261130,
    params: RatingParams = DEFAULT_PARAMS,
    margin_shape: float = 4.0,
) -> dict[str, float]:
    """Run the simulation described in the module docstring; return the figures."""
    rng = random.Random(seed)
    skills = [rng.gauss(1500.0, skill_sd) for _ in range(players)]
    fixtures: list[tuple[tuple[int, int], tuple[int, int], tuple[int, int], float]] = []
    for _ in range(matches):
        a, b, c, d = rng.sample(range(players), 4)
        true_a = (skills[a] + skills[b]) / 2.0
        true_b = (skills[c] + skills[d]) / 2.0
        p_a = expected_score(true_a, true_b)
        a_wins = rng.random() < p_a
        gap = (true_a - true_b) if a_wins else (true_b - true_a)
        scale = (2.2 + 0.001 * gap) / 2.2 if margin_model == "proportional" else 1.0
        margin = round(math.exp(scale * rng.gammavariate(margin_shape, 0.4)) - 1.0)
        margin = min(max(margin, 1), MAX_LEVEL_MARGIN)
        scores = (margin, 0) if a_wins else (0, margin)
        fixtures.append(((a, b), (c, d), scores, p_a))

    ratings = [params.initial_rating] * players
    counts = [0] * players
    test_from = int(matches * 0.8)
    predicted: list[float] = []
    oracle: list[float] = []
    outcomes: list[int] = []
    for index, (side_a, side_b, scores, p_a) in enumerate(fixtures):
        if index >= test_from:
            team_a = (ratings[side_a[0]] + ratings[side_a[1]]) / 2.0
            team_b = (ratings[side_b[0]] + ratings[side_b[1]]) / 2.0
            predicted.append(expected_score(team_a, team_b))
            oracle.append(p_a)
            outcomes.append(1 if scores[0] > scores[1] else 0)
        changes = rate_match(
            (
                [PlayerState(p, ratings[p], counts[p]) for p in side_a],
                [PlayerState(p, ratings[p], counts[p]) for p in side_b],
            ),
            scores,
            params,
        )
        for change in changes:
            ratings[change.player] = change.after
            counts[change.player] += 1

    # Timed pass: the same matches, rating work only.
    ratings_t = [params.initial_rating] * players
    counts_t = [0] * players
    updates = 0
    started = time.perf_counter()
    for side_a, side_b, scores, _ in fixtures:
        changes = rate_match(
            (
                [PlayerState(p, ratings_t[p], counts_t[p]) for p in side_a],
                [PlayerState(p, ratings_t[p], counts_t[p]) for p in side_b],
            ),
            scores,
            params,
        )
        for change in changes:
            ratings_t[change.player] = change.after
            counts_t[change.player] += 1
        updates += len(changes)
    elapsed = time.perf_counter() - started
    if ratings_t != ratings:  # the timed pass must be the same computation
        raise AssertionError("timed pass diverged from the simulation")

    # Ratings and skills are both on the Elo scale; compare after removing the mean offset.
    offset = sum(ratings) / players - sum(skills) / players
    rms = math.sqrt(
        sum((r - offset - t) ** 2 for r, t in zip(ratings, skills, strict=True)) / players
    )
    return {
        "spearman": round(spearman(ratings, skills), 4),
        "log_loss": round(log_loss(predicted, outcomes), 4),
        "oracle_log_loss": round(log_loss(oracle, outcomes), 4),
        "updates_per_s": round(updates / elapsed),
        "matches_per_s": round(len(fixtures) / elapsed),
        "rating_rms_error": round(rms, 1),
        "margin_shape": margin_shape,
        "mean_margin": round(sum(abs(f[2][0] - f[2][1]) for f in fixtures) / len(fixtures), 2),
        "k_provisional": params.k_provisional,
        "k_established": params.k_established,
        "players": players,
        "matches": matches,
        "skill_sd": skill_sd,
        "margin_model": margin_model,
        "seed": seed,
    }


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the command line, run the simulation, print one JSON object."""
    parser = argparse.ArgumentParser(prog="python -m ladder.bench", description=__doc__)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--matches", type=int, default=20_000)
    parser.add_argument("--skill-sd", type=float, default=200.0)
    parser.add_argument("--margin-model", choices=("proportional", "flat"), default="proportional")
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument(
        "--margin-shape",
        type=float,
        default=4.0,
        help="shape of the Gamma(shape, 0.4) log-margin: 4 gives margins of 3-5 levels, "
        "6 gives 8-12 (closer to Bao 2 routs)",
    )
    parser.add_argument("--k-provisional", type=float, default=DEFAULT_PARAMS.k_provisional)
    parser.add_argument("--k-established", type=float, default=DEFAULT_PARAMS.k_established)
    args = parser.parse_args(argv)
    params = RatingParams(k_provisional=args.k_provisional, k_established=args.k_established)
    figures = simulate(
        args.players,
        args.matches,
        args.skill_sd,
        args.margin_model,
        args.seed,
        params,
        args.margin_shape,
    )
    json.dump(figures, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
