"""Entry conditions of a tournament open to several clubs, pure Python: no Django import.

A tournament may ask of every player who enters (:func:`problems`): a rating at least
``min_rating`` and at most ``max_rating`` on the platform ladder of its game (the one scale
every club's rated matches feed) and at least ``min_rated_matches`` rated matches on it. A player
without a rating there has none: a minimum rating or a number of matches refuses them, a
maximum alone does not (a newcomer is below any ceiling).

A tournament may cap its entries (:func:`has_place`; in a team event the cap counts teams):
an entry over the cap waits, and :func:`next_up` says who moves up when a place is freed.

The service (:mod:`tournaments.services.eligibility`) reads the ratings and turns each
:class:`Problem` into a sentence naming the setting.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Conditions:
    """What a tournament asks of each player (None / 0: nothing)."""

    min_rating: int | None = None
    max_rating: int | None = None
    min_rated_matches: int = 0


@dataclass(frozen=True)
class Player:
    """One player as the conditions see them: their rating on the ladder (None: unrated) and
    the rated matches they played on it."""

    name: str
    rating: float | None
    matches: int = 0


@dataclass(frozen=True)
class Problem:
    """A condition a player does not meet: ``field`` is the setting (``min_rating``,
    ``max_rating``, ``min_rated_matches``), ``value`` the player's (None: unrated) and
    ``bound`` the setting's."""

    field: str
    player: str
    value: float | None
    bound: int


def problems(conditions: Conditions, players: Iterable[Player]) -> list[Problem]:
    """Every condition every player fails, players in the order given and for each player
    the settings in the order minimum rating, maximum rating, rated matches; empty when all
    may enter. A rating is compared as it is (1499.6 is below 1500)."""
    out: list[Problem] = []
    for player in players:
        low, high = conditions.min_rating, conditions.max_rating
        if low is not None and (player.rating is None or player.rating < low):
            out.append(Problem("min_rating", player.name, player.rating, low))
        if high is not None and player.rating is not None and player.rating > high:
            out.append(Problem("max_rating", player.name, player.rating, high))
        if player.matches < conditions.min_rated_matches:
            out.append(
                Problem(
                    "min_rated_matches", player.name, player.matches, conditions.min_rated_matches
                )
            )
    return out


def has_place(cap: int, taken: int) -> bool:
    """Whether one more entry (or team) takes part: no cap (0), or fewer than ``cap`` take
    part."""
    return cap == 0 or taken < cap


@dataclass(frozen=True)
class Waiting:
    """A waiting entry (or team): its key, when it entered and its id (the tie-break)."""

    key: int
    entered_at: datetime
    order: int


def next_up(waiting: Sequence[Waiting], free: int) -> list[int]:
    """The keys of the waiting entries (or teams) that move up into ``free`` places: the
    earliest entered first, equal times by id."""
    if free <= 0:
        return []
    ranked = sorted(waiting, key=lambda w: (w.entered_at, w.order))
    return [w.key for w in ranked[:free]]
