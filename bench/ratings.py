"""Benchmark of the rating maths: ``python -m bench.ratings`` prints one JSON object.

Simulation (all seeded, so a run is reproducible):

* ``--players`` (200) players get a hidden true skill drawn from a normal distribution,
  mean 1500, standard deviation ``--skill-sd`` (200 Elo points).
* ``--matches`` (20,000) partnership matches: four distinct players drawn at random, split
  at random into two sides of two (random partners every match).
* The winning side is drawn with the **true** probability the ratings assume: the Elo logistic
  ``1 / (1 + 10 ** ((T_other - T_own) / 400))`` on the mean true skill of each side.
* The margin is a Bao 2 level margin, an integer 1..23, ``m = round(exp(s * L) - 1)`` clamped
  to 1..23, with ``s = (2.2 + 0.001 * dT) / 2.2`` (``dT`` the winner's true side skill minus the
  loser's: stronger winners win by more, the form FiveThirtyEight's factor corrects for) and
  ``L = ln(1 + m0)``. The default ``--margin-model engine`` draws ``m0`` from
  :data:`ENGINE_MARGINS`, margins **measured** by playing Bao 2 matches to the end with the
  engine's bots (:func:`engine_margins`; ``--margins-from-engine N`` measures N matches per
  pairing afresh and uses them). Measured, 1,200 matches between evenly matched sides (400
  each of four heuristic bots, heuristic + random bot per side, four random bots), margins as
  the ladder rates them (:func:`ladder.ratings.decided_scores`):

  ===========  =====  ==============================================================
  margin       share  what it is
  ===========  =====  ==============================================================
  1            20.4%  23:23, won by passing 2A (rated as won by one level)
  4-12         13.7%  (4: 0.3%, 8: 1.6%, 12: 2.3%)
  13-22        33.1%  about 3.3% per level
  23           32.8%  23:0, the loser pushed back to level 0
  ===========  =====  ==============================================================

  mean 14.8 levels, mean ``ln(1 + m)`` 2.46 (so ``M`` ≈ 2.5). By pairing (mean margin, share
  won 23:23, share 23:0): four heuristic bots 16.1, 22%, 45%; heuristic + random per side
  15.3, 20%, 37%; four random bots 13.2, 19%, 17%. Uneven sides
  (heuristic + random against two random bots, or two heuristic against heuristic + random)
  win every match, 88-92% of them 23:0, which the gap scaling ``s`` only points towards (the
  bots give no intermediate skill gaps to fit it with; it stays the FiveThirtyEight form).
  Bao 2 margins are thus large and mostly set by the level rules (rises of 1-3 levels plus
  保2 bonuses, the excess taken off the other team), not the 3-5 levels first assumed: the
  earlier Gamma model stays as ``--margin-model proportional`` (``G ~ Gamma(--margin-shape 4,
  scale 0.4)`` in place of ``L``; mean margin 6) and ``flat`` (the same with ``s = 1``).
* Ratings start at 1500 with a new Bao 2 ladder's parameters: K 16 for 30 matches, then 3
  (:data:`BAO2_PARAMS`, Bao 2's ``established_k`` in ``games.variants``: the issue's 8 divided by Bao 2's mean margin factor;
  ``--k-established 8`` rates with the issue's K as it stands).

``--margin-factors N`` runs no simulation: it plays N matches per pairing of every rated game
with the engine's bots and prints, per game, the mean margin, the mean factor ``ln(1 + m)``
and the established K that makes ``K * M`` 8 (:func:`margin_factors`).

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
from typing import Any

from engine.bots import HeuristicBot, RandomBot
from engine.match import Match
from engine.variants import VARIANT_NAMES, rated_sides, variant_facts
from ladder.ratings import (
    DEFAULT_PARAMS,
    PlayerState,
    RatingParams,
    decided_scores,
    expected_score,
    rate_match,
)

MAX_LEVEL_MARGIN = 23
#: The parameters of a new Bao 2 ladder, which the simulation rates with by default. The
#: established K is ``games.variants``' (3), written out because this bench runs without
#: Django, which that module imports (a test keeps the two equal).
BAO2_PARAMS = RatingParams(k_established=3.0)
#: The game whose seeds carry no game prefix, so that the figures published for it reproduce.
UNPREFIXED_SEEDS = "bao2"
#: The games whose margin factors ``--margin-factors`` measures (the platform's four).
MEASURED_GAMES = VARIANT_NAMES

#: The pairings whose Bao 2 margins make the ``engine`` margin model: four heuristic players,
#: heuristic + random on each side, four random players (``h``/``r`` per seat 0..3; seats 0
#: and 2 are one team): evenly matched sides at three strengths of play.
ENGINE_PAIRINGS = ("hhhh", "hhrr", "rrrr")

#: Level margins the ladder sees (margin: matches) in 1,200 Bao 2 matches played to the end by
#: the engine's bots, 400 per pairing of :data:`ENGINE_PAIRINGS`
#: (``python -m bench.ratings --margins-from-engine 400`` measures them again).
ENGINE_MARGINS: dict[int, int] = {
    1: 245,
    4: 4,
    5: 8,
    6: 12,
    7: 16,
    8: 19,
    9: 25,
    10: 25,
    11: 28,
    12: 27,
    13: 35,
    14: 40,
    15: 28,
    16: 50,
    17: 43,
    18: 31,
    19: 47,
    20: 35,
    21: 41,
    22: 47,
    23: 394,
}


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


def _play_to_the_end(variant: str, kinds: str, match_seed: str) -> Any:
    """A match of ``variant`` played to its end by the engine's bots, ``kinds`` naming each
    seat's bot (``h`` heuristic, ``r`` random)."""
    match = Match.new(variant, match_seed)
    bots = [
        HeuristicBot() if kind == "h" else RandomBot(f"{match_seed}/{seat}")
        for seat, kind in enumerate(kinds)
    ]
    while not match.over:
        seat = match.to_move()
        assert seat is not None
        match.apply(
            bots[seat].choose(match.observation(seat), lambda s=seat, m=match: m.legal_actions(s))
        )
    return match


def rated_margin(variant: str, match: Any) -> int | None:
    """The margin the ladder rates a finished engine ``match`` with (as a live match is
    recorded): Bao 2 and Guandan the level margin of :func:`ladder.ratings.decided_scores` (a
    23:23 Bao 2 match won by passing 2A has margin 1), Shuangkou the point margin, Red Two the
    point margin between the sides the last deal revealed (None if no deal revealed them)."""
    assert match.score is not None
    picked = rated_sides(variant, match.score, match.deals)
    if picked is None:
        return None
    first, second = picked[1]
    if variant_facts(variant).levels:
        first, second = decided_scores((first, second), match.winner)
    return abs(first - second)


def engine_margins(
    matches_per_pairing: int, seed: str = "margins", variant: str = "bao2"
) -> dict[int, int]:
    """Play ``matches_per_pairing`` matches of ``variant`` for each of :data:`ENGINE_PAIRINGS`
    (their first two seats in a two-player game) to the end with the engine's bots and count
    the margins the ladder rates them with (:func:`rated_margin`). Returns
    ``{margin: matches}``."""
    counts: dict[int, int] = {}
    for kinds in ENGINE_PAIRINGS:
        for index in range(matches_per_pairing):
            match_seed = f"{seed}/{kinds}/{index}"
            if variant != UNPREFIXED_SEEDS:
                match_seed = f"{variant}/{match_seed}"
            margin = rated_margin(variant, _play_to_the_end(variant, kinds, match_seed))
            if margin is not None:
                counts[margin] = counts.get(margin, 0) + 1
    return dict(sorted(counts.items()))


def margin_factors(matches_per_pairing: int) -> dict[str, dict[str, float]]:
    """For every rated game, the margins of :func:`engine_margins` summarised: matches, mean
    margin, mean ``ln(1 + margin)`` (the margin factor ``M`` between even sides) and the
    established K that makes ``K * M`` 8 (rounded, as each game's ``established_k`` in ``games.variants``)."""
    figures = {}
    for variant in MEASURED_GAMES:
        margins = engine_margins(matches_per_pairing, variant=variant)
        total = sum(margins.values())
        factor = (  # a draw (margin 0) moves ratings with the draw factor instead
            sum((math.log1p(m) or DEFAULT_PARAMS.draw_multiplier) * n for m, n in margins.items())
            / total
        )
        figures[variant] = {
            "matches": total,
            "mean_margin": round(sum(m * n for m, n in margins.items()) / total, 2),
            "mean_factor": round(factor, 3),
            "k_for_8": round(DEFAULT_PARAMS.k_established / factor),
        }
    return figures


def simulate(
    players: int = 200,
    matches: int = 20_000,
    skill_sd: float = 200.0,
    margin_model: str = "engine",
    seed: int = 20261130,
    params: RatingParams = BAO2_PARAMS,
    margin_shape: float = 4.0,
    margins: dict[int, int] | None = None,
) -> dict[str, float]:
    """Run the simulation described in the module docstring; return the figures.

    ``margins`` is the measured margin distribution of the ``engine`` model (default
    :data:`ENGINE_MARGINS`).
    """
    rng = random.Random(seed)
    skills = [rng.gauss(1500.0, skill_sd) for _ in range(players)]
    measured = margins or ENGINE_MARGINS
    values = list(measured)
    weights = [measured[v] for v in values]
    fixtures: list[tuple[tuple[int, int], tuple[int, int], tuple[int, int], float]] = []
    for _ in range(matches):
        a, b, c, d = rng.sample(range(players), 4)
        true_a = (skills[a] + skills[b]) / 2.0
        true_b = (skills[c] + skills[d]) / 2.0
        p_a = expected_score(true_a, true_b)
        a_wins = rng.random() < p_a
        gap = (true_a - true_b) if a_wins else (true_b - true_a)
        scale = (2.2 + 0.001 * gap) / 2.2 if margin_model != "flat" else 1.0
        if margin_model == "engine":
            log_margin = math.log1p(rng.choices(values, weights)[0])
        else:
            log_margin = rng.gammavariate(margin_shape, 0.4)
        margin = round(math.exp(scale * log_margin) - 1.0)
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
        "margin_shape": margin_shape if margin_model != "engine" else None,
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
    parser = argparse.ArgumentParser(prog="python -m bench.ratings", description=__doc__)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--matches", type=int, default=20_000)
    parser.add_argument("--skill-sd", type=float, default=200.0)
    parser.add_argument(
        "--margin-model", choices=("engine", "proportional", "flat"), default="engine"
    )
    parser.add_argument(
        "--margins-from-engine",
        type=int,
        default=0,
        metavar="N",
        help="play N Bao 2 matches per bot pairing now and use their margins (engine model); "
        "the distribution is printed as margin_distribution",
    )
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument(
        "--margin-shape",
        type=float,
        default=4.0,
        help="shape of the Gamma(shape, 0.4) log-margin: 4 gives margins of 3-5 levels, "
        "6 gives 8-12 (closer to Bao 2 routs)",
    )
    parser.add_argument("--k-provisional", type=float, default=DEFAULT_PARAMS.k_provisional)
    parser.add_argument("--k-established", type=float, default=BAO2_PARAMS.k_established)
    parser.add_argument(
        "--margin-factors",
        type=int,
        default=0,
        metavar="N",
        help="instead of the simulation: play N matches per bot pairing of every game and "
        "print each game's mean margin factor and the established K it calls for",
    )
    args = parser.parse_args(argv)
    if args.margin_factors > 0:
        json.dump(margin_factors(args.margin_factors), sys.stdout)
        sys.stdout.write("\n")
        return
    params = RatingParams(k_provisional=args.k_provisional, k_established=args.k_established)
    margins = engine_margins(args.margins_from_engine) if args.margins_from_engine > 0 else None
    figures = simulate(
        args.players,
        args.matches,
        args.skill_sd,
        args.margin_model,
        args.seed,
        params,
        args.margin_shape,
        margins,
    )
    if margins is not None:
        total = sum(margins.values())
        figures["margin_distribution"] = margins  # type: ignore[assignment]
        figures["engine_matches"] = total
        figures["engine_mean_margin"] = round(sum(m * n for m, n in margins.items()) / total, 2)
    json.dump(figures, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
