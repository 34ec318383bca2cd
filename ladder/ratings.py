"""Rating maths for the ladders: Elo on team averages with a margin-of-victory factor.

Pure Python, no Django import: the ladder services call :func:`rate_match` and store what
it returns. The model (issue 5):

* Every player has a rating per ladder, starting at :attr:`RatingParams.initial_rating` (1500).
* A match has exactly two **sides**. A side's rating is the mean of its players' ratings
  (teams of one in two-player games; in Nanping Red Two, 南平红二, the sides are the hidden
  partnerships as revealed at the end: two against two, or the solo player, 独打, alone
  against the other three).
* The expected score of a side is ``E = 1 / (1 + 10 ** ((R_other - R_own) / 400))``; a win
  scores ``S = 1``, a loss 0 and a draw 0.5.
* **Every** player of a side moves by ``K * M * (S - E)`` with the side's ``S`` and ``E``, so
  partners never exchange rating: two partners always move by the same amount in the same
  direction (only their ``K`` may differ).
* ``K`` is :attr:`RatingParams.k_provisional` (16) for a player's first
  :attr:`RatingParams.provisional_matches` (10; a club's admins change it on the web) rated
  matches in the ladder, then
  :attr:`RatingParams.k_established` (8; a new ladder takes its game's established K,
  ``games.variants.game(variant).established_k``).
* ``M`` is the margin-of-victory factor in FiveThirtyEight's form,
  ``ln(1 + margin) * 2.2 / (2.2 + 0.001 * dR)`` with ``margin`` the level or point margin and
  ``dR`` the winning side's rating minus the losing side's (before the match). A favourite's
  big win moves ratings less than an underdog's, which stops ratings of strong teams drifting
  upward because strong teams also win by more.

Two decisions the issue leaves open:

* **Draws.** The formula gives ``ln(1 + 0) = 0``, i.e. a draw would never move a rating, and
  "winner minus loser" is undefined. A draw therefore uses the fixed factor
  :attr:`RatingParams.draw_multiplier` (default 1.0, the plain Elo factor), so that a draw
  between unequal sides moves the favourite down and the underdog up by ``K * 1 * (0.5 - E)``.
* **Extreme gaps.** The denominator ``2.2 + 0.001 * dR`` reaches zero at ``dR = -2200``; ``dR``
  is clamped to ``[-MAX_RATING_GAP, MAX_RATING_GAP]`` (1000) before it is used, which changes
  nothing for any realistic pair of sides.

In a one-against-three deal the solo player and each of the three opponents all move by
``K * M * (S - E)``: the sum of changes is then not zero for a single match, but its expected
value is zero when ratings are right, so the rating pool does not drift.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

#: Largest rating gap (in points) that enters the margin factor; see the module docstring.
MAX_RATING_GAP = 1000.0
_LN10_OVER_400 = math.log(10.0) / 400.0


class RatingInputError(ValueError):
    """Raised for a match that cannot be rated; ``code`` is a short machine-readable reason.

    Codes: ``sides`` (not exactly two non-empty sides), ``duplicate_player`` (a player
    appears twice), ``bad_rating`` / ``bad_matches`` (not finite / negative count),
    ``bad_score`` (not a finite number).
    """

    def __init__(self, code: str, message: str) -> None:
        """Keep the reason ``code`` next to the human-readable ``message``."""
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class RatingParams:
    """The rating parameters of one ladder."""

    initial_rating: float = 1500.0
    k_provisional: float = 16.0
    k_established: float = 8.0
    provisional_matches: int = 10
    draw_multiplier: float = 1.0

    def k_factor(self, matches: int) -> float:
        """K for a player who has already played ``matches`` rated matches in the ladder."""
        return self.k_provisional if matches < self.provisional_matches else self.k_established

    def is_provisional(self, matches: int) -> bool:
        """Whether a rating backed by ``matches`` rated matches is still provisional ("?")."""
        return matches < self.provisional_matches


DEFAULT_PARAMS = RatingParams()

# The established K a new ladder of each game starts with (``games.variants``, whose
# ``established_k`` holds the values). The K of 8 moves an
# established player by ``8 * M * (S - E)``; with a margin factor ``M`` near 1 that is a step
# of 8 points per unit of surprise, which is what the accuracy targets of ``bench.ratings``
# need (Spearman >= 0.97, log-loss within 0.01 of the truth). The games' real margins make
# ``M`` much larger: the mean ``ln(1 + margin)`` of matches played to the end by the engine's
# bots (``python -m bench.ratings --margin-factors 400``, 1,200 matches per game) is 2.46 for
# Bao 2 (levels, up to 23), 1.58 for Guandan (levels), 2.49 for Nanping Red Two (the sides'
# points) and 3.49 for Shuangkou (points), so K 8 would step 13-28 points and leave ratings
# too noisy to rank players (Bao 2: Spearman 0.951). Each game's established K is therefore
# 8 divided by its mean factor, rounded, so that ``K * M`` is about 8 in every game. The
# provisional K stays 16 for every game, so new players still find their level quickly.


class PlayerState(NamedTuple):
    """A player's standing in a ladder just before a match: who, rating, rated matches so far."""

    player: Hashable
    rating: float
    matches: int


class RatingChange(NamedTuple):
    """How and why one player's rating moved in one match.

    ``after = before + k * multiplier * (score - expected)``; ``side`` is 0 or 1, ``score`` is
    1 / 0.5 / 0, ``expected`` the side's expected score before the match.
    """

    player: Hashable
    side: int
    before: float
    after: float
    expected: float
    score: float
    k: float
    multiplier: float

    @property
    def delta(self) -> float:
        """The change of rating, ``after - before``."""
        return self.after - self.before


def expected_score(own: float, other: float) -> float:
    """Expected score of a side rated ``own`` against a side rated ``other`` (Elo logistic)."""
    return 1.0 / (1.0 + math.exp((other - own) * _LN10_OVER_400))


def margin_multiplier(margin: float, winner_minus_loser: float) -> float:
    """FiveThirtyEight's margin factor ``ln(1+margin) * 2.2 / (2.2 + 0.001 * dR)``.

    ``margin`` is the (positive) level or point margin of the winning side and
    ``winner_minus_loser`` its rating minus the losing side's, clamped to
    ``±MAX_RATING_GAP``. A draw has no margin factor: see :attr:`RatingParams.draw_multiplier`.
    """
    gap = min(max(winner_minus_loser, -MAX_RATING_GAP), MAX_RATING_GAP)
    return math.log1p(margin) * 2.2 / (2.2 + 0.001 * gap)


def decided_scores(scores: Sequence[int], winner: int | None) -> tuple[int, int]:
    """The two scores a finished match is rated with, given the side that won it (or None).

    The ratings read the outcome from the scores (equal scores are a draw). A level game can
    be won with level scores: in Bao 2 and Guandan both teams may stand at the top level when
    the winner passes it (about one engine-played Bao 2 match in five ends 23:23). Such a match
    is rated as the win it was, by the smallest margin: the winner one level ahead. Otherwise
    the scores stand. Raises :class:`RatingInputError` (``bad_score``) if ``winner`` is not 0,
    1 or None, or is the side with the lower score.
    """
    first, second = int(scores[0]), int(scores[1])
    if winner is None:
        return first, second
    if winner not in (0, 1) or isinstance(winner, bool):
        raise RatingInputError("bad_score", f"the winner must be side 0 or 1, not {winner!r}")
    own, other = (first, second) if winner == 0 else (second, first)
    if own < other:
        raise RatingInputError("bad_score", "the winner cannot have the lower score")
    if own == other:
        return (first + 1, second) if winner == 0 else (first, second + 1)
    return first, second


def _check_score(score: float) -> float:
    if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
        raise RatingInputError("bad_score", f"a score must be a finite number, not {score!r}")
    return float(score)


def rate_match(
    sides: Sequence[Sequence[PlayerState]],
    scores: Sequence[float],
    params: RatingParams = DEFAULT_PARAMS,
) -> list[RatingChange]:
    """Rate one finished match and return one :class:`RatingChange` per player.

    ``sides`` holds exactly two non-empty sides (any sizes: 1v1, 2v2, 1v3); ``scores`` the two
    sides' final scores (levels or points; only their difference matters). The higher score
    wins, with ``margin = |scores[0] - scores[1]|``; equal scores are a draw. The changes are
    listed side 0 first, in the given order. Raises :class:`RatingInputError` (and computes
    nothing) for malformed input.
    """
    if len(sides) != 2 or len(scores) != 2 or not sides[0] or not sides[1]:
        raise RatingInputError("sides", "a rated match needs exactly two non-empty sides")
    score_a = _check_score(scores[0])
    score_b = _check_score(scores[1])
    side_a, side_b = sides
    seen: set[Hashable] = set()
    total_a = 0.0
    total_b = 0.0
    for side_index, side in enumerate(sides):
        for state in side:
            if state.player in seen:
                raise RatingInputError(
                    "duplicate_player", f"player {state.player!r} appears twice in the match"
                )
            seen.add(state.player)
            rating = state.rating
            if isinstance(rating, bool) or not isinstance(rating, int | float):
                raise RatingInputError("bad_rating", f"rating {rating!r} is not a number")
            if not math.isfinite(rating):
                raise RatingInputError("bad_rating", f"rating {rating!r} is not finite")
            matches = state.matches
            if isinstance(matches, bool) or not isinstance(matches, int) or matches < 0:
                raise RatingInputError("bad_matches", f"match count {matches!r} is invalid")
            if side_index == 0:
                total_a += rating
            else:
                total_b += rating
    team_a = total_a / len(side_a)
    team_b = total_b / len(side_b)
    expected_a = 1.0 / (1.0 + math.exp((team_b - team_a) * _LN10_OVER_400))
    expected_b = 1.0 - expected_a
    if score_a > score_b:
        result_a = 1.0
        multiplier = margin_multiplier(score_a - score_b, team_a - team_b)
    elif score_b > score_a:
        result_a = 0.0
        multiplier = margin_multiplier(score_b - score_a, team_b - team_a)
    else:
        result_a = 0.5
        multiplier = params.draw_multiplier
    result_b = 1.0 - result_a
    surprise_a = multiplier * (result_a - expected_a)
    surprise_b = multiplier * (result_b - expected_b)
    changes = []
    append = changes.append
    for state in side_a:
        k = params.k_factor(state.matches)
        rating = state.rating
        append(
            RatingChange(
                state.player,
                0,
                rating,
                rating + k * surprise_a,
                expected_a,
                result_a,
                k,
                multiplier,
            )
        )
    for state in side_b:
        k = params.k_factor(state.matches)
        rating = state.rating
        append(
            RatingChange(
                state.player,
                1,
                rating,
                rating + k * surprise_b,
                expected_b,
                result_b,
                k,
                multiplier,
            )
        )
    return changes
