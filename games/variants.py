"""What the platform needs to know of each game, in one table read from the engine.

Every app asks :func:`game` instead of comparing variant names: how many seats a table has,
whether a match is won by levels (Bao 2, Guandan) or scored by points (Red Two, Shuangkou),
whether partners sit fixed by seat or change every deal (Red Two), which side sizes a rated
result may have, and which options a score sheet records. Tabbycat keeps its per-format
classes in one table in the same way (``DRAW_MANAGER_CLASSES``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db import models
from django.utils.translation import gettext_lazy as _

from engine.variants import deal_rules


class Variant(models.TextChoices):
    """The games of the platform (the engine's variant ids)."""

    BAO2 = "bao2", _("Bao 2")
    GUANDAN = "guandan", _("Guandan")
    HONGER = "honger", _("Nanping Red Two")
    SHUANGKOU2 = "shuangkou2", _("Two-player Shuangkou")


@dataclass(frozen=True)
class Game:
    """The platform's facts of one game.

    ``levels``: a match is won by climbing levels and has a winner (else it is scored by
    points, per seat). ``fixed_sides``: partners are fixed by seat for the whole match (else,
    as in Red Two, whoever holds the ♥2s is a partner, deal by deal). ``side_sizes``: the
    sizes a rated result's two sides may have. ``sheet_options``: the match options a score
    sheet records. ``established_k``: the established K a new ladder starts with
    (``ladder.ratings``: 8 divided by the game's mean margin factor, so that K·M is about 8).
    """

    variant: str
    seats: int
    levels: bool
    fixed_sides: bool
    side_sizes: frozenset[tuple[int, int]]
    sheet_options: frozenset[str]
    established_k: float

    @property
    def label(self) -> str:
        """The game's translated name."""
        return str(Variant(self.variant).label)

    @property
    def options(self) -> frozenset[str]:
        """The names of the engine options the game takes (its deal rules' defaults)."""
        return frozenset(deal_rules(self.variant).defaults)

    @property
    def pairs(self) -> bool:
        """Whether the game is played by two teams of two (else one player per side)."""
        return self.seats == 4 and self.fixed_sides

    def seat_sides(self, seat_users: Sequence[int]) -> list[list[int]]:
        """The two sides of a fixed-sides game given its seats' players: seats 0, 2 against
        1, 3 at four seats, seat 0 against seat 1 at two. Raises ``ValueError`` for a game
        whose sides change every deal."""
        if not self.fixed_sides:
            raise ValueError(f"{self.variant}: sides are not fixed by seat")
        return [list(seat_users[0::2]), list(seat_users[1::2])]

    def team_of(self, seat: int) -> int | None:
        """The side of a seat in a fixed-sides game (seat % 2), ``None`` when sides change."""
        return seat % 2 if self.fixed_sides else None


def _game(variant: Variant, **facts: object) -> Game:
    return Game(variant=variant.value, seats=deal_rules(variant.value).seats, **facts)


#: Every game, by variant id, in the order of :class:`Variant`.
GAMES: dict[str, Game] = {
    game.variant: game
    for game in (
        _game(
            Variant.BAO2,
            levels=True,
            fixed_sides=True,
            side_sizes=frozenset({(2, 2)}),
            sheet_options=frozenset({"colour_twos", "time_limit_minutes"}),
            established_k=3.0,
        ),
        _game(
            Variant.GUANDAN,
            levels=True,
            fixed_sides=True,
            side_sizes=frozenset({(2, 2)}),
            sheet_options=frozenset({"time_limit_minutes"}),
            established_k=5.0,
        ),
        _game(
            Variant.HONGER,
            levels=False,
            fixed_sides=False,
            # partners as revealed at the end: two against two, or the solo player alone
            side_sizes=frozenset({(2, 2), (1, 3), (3, 1)}),
            sheet_options=frozenset({"time_limit_minutes", "deals"}),
            established_k=3.0,
        ),
        _game(
            Variant.SHUANGKOU2,
            levels=False,
            fixed_sides=True,
            side_sizes=frozenset({(1, 1)}),
            sheet_options=frozenset({"time_limit_minutes", "deals"}),
            established_k=2.0,
        ),
    )
}


#: The games scored by levels (:attr:`Game.levels`), for callers that test a variant id in a
#: collection; new code asks ``game(variant).levels``.
LEVEL_VARIANTS: tuple[str, ...] = tuple(v for v, g in GAMES.items() if g.levels)


class UnknownGame(ValueError):
    """The variant id names no game of the platform."""


def game(variant: str) -> Game:
    """The facts of ``variant``; raises :class:`UnknownGame` for an unknown id."""
    try:
        return GAMES[variant]
    except (KeyError, TypeError):
        raise UnknownGame(variant) from None


def is_game(variant: object) -> bool:
    """Whether ``variant`` is the id of a game of the platform."""
    return isinstance(variant, str) and variant in GAMES
