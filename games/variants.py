"""What the platform needs to know of each game, in one table read from the engine.

Every app asks :func:`game` instead of comparing variant names: how many seats a table has,
whether a match is won by levels (Bao 2, Guandan) or scored by points (Red Two, Shuangkou),
whether partners sit fixed by seat or change every deal (Red Two), which side sizes a rated
result may have, and which options a table or a score sheet takes. The engine's own facts
(:func:`engine.variants.variant_facts`) are the source; the platform adds its names and the
rating constant. Tabbycat keeps its per-format classes in one table in the same way
(``DRAW_MANAGER_CLASSES``).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from engine.variants import VARIANT_NAMES, deal_rules, variant_facts


class Variant(models.TextChoices):
    """The games of the platform (the engine's variant ids)."""

    BAO2 = "bao2", _("Bao 2")
    GUANDAN = "guandan", _("Guandan")
    HONGER = "honger", _("Nanping Red Two")
    SHUANGKOU2 = "shuangkou2", _("Two-player Shuangkou")


#: The game a new table, form or benchmark starts with when none is chosen: the platform's own.
DEFAULT_GAME: str = Variant.BAO2.value


@dataclass(frozen=True)
class Game:
    """The platform's facts of one game.

    ``levels``: a match is won by climbing levels and has a winner (else it is scored by
    points, per seat). ``fixed_sides``: partners are fixed by seat for the whole match (else,
    as in Red Two, whoever holds the ♥2s is a partner, deal by deal). ``side_sizes``: the
    sizes a rated result's two sides may have. ``options``: every engine option of a match
    with its default; ``sheet_options``: those a score sheet records. ``established_k``: the
    established K a new ladder starts with (``docs/ratings.md``: 8 divided by the game's mean
    margin factor, so that K·M is about 8 in every game).
    """

    variant: str
    seats: int
    levels: bool
    fixed_sides: bool
    side_sizes: frozenset[tuple[int, int]]
    options: frozenset[str]
    sheet_options: frozenset[str]
    max_level: int
    established_k: float

    @property
    def label(self) -> str:
        """The game's translated name."""
        return str(Variant(self.variant).label)

    @property
    def pairs(self) -> bool:
        """Whether the game is played by two teams of two (else one player per side)."""
        return self.seats == 4 and self.fixed_sides


#: The established K of each game's new ladders (measured by ``python -m bench.ratings
#: --margin-factors``).
_ESTABLISHED_K = {
    Variant.BAO2: 3.0,
    Variant.GUANDAN: 5.0,
    Variant.HONGER: 3.0,
    Variant.SHUANGKOU2: 2.0,
}


def _game(variant: str) -> Game:
    facts = variant_facts(variant)
    return Game(
        variant=variant,
        seats=facts.seats,
        levels=facts.levels,
        # a game whose rated sides may be one against three has no partners by seat
        fixed_sides=facts.side_sizes == {(facts.seats // 2, facts.seats // 2)},
        side_sizes=facts.side_sizes,
        options=frozenset(facts.options),
        sheet_options=facts.table_options,
        max_level=facts.max_level,
        established_k=_ESTABLISHED_K[Variant(variant)],
    )


#: Every game, by variant id, in the order of :class:`Variant`.
GAMES: dict[str, Game] = {variant.value: _game(variant.value) for variant in Variant}

assert set(GAMES) == set(VARIANT_NAMES), "the platform offers exactly the engine's games"


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


def level_names(variant: str) -> list[str]:
    """The name of every level index 0…max_level of a level game, as the table names them
    (the level card's rank, "10" for T; "(round n)" after it from the second time a match
    climbs through the ranks, as Bao 2's 3…A twice); empty for a game scored by points."""
    rules = deal_rules(variant)
    if not rules.max_level:
        return []
    rounds = rules.max_level >= len(rules.level_ranks)
    names = []
    for index in range(rules.max_level + 1):
        rank = rules.level_rank(index) or ""
        rank = "10" if rank == "T" else rank
        if rounds and index >= len(rules.level_ranks):
            rank = gettext("%(rank)s (round %(n)s)") % {
                "rank": rank,
                "n": index // len(rules.level_ranks) + 1,
            }
        names.append(rank)
    return names


def page_facts(variant: str) -> dict[str, object]:
    """What a page's script needs to know of ``variant``, as facts, so that no script branches
    on a game's name: ``seats``; ``levels`` (won by climbing levels, else scored by points);
    ``fixed_sides`` (partners by seat, else found deal by deal, as Red Two's); ``pairs``;
    ``max_level``; ``levels_per_round`` (the ranks of one climb when a match climbs through
    them more than once, as Bao 2's 3…A twice, else ``None``); ``deal_fields`` (what a deal
    played with real cards records on a score sheet, besides its scores: e.g. Bao 2's
    ``bao2``, ``immune``, ``twos_left``, ``stuck_end``); ``initiative`` (whether a seat's
    initiative decides what it may play, as Bao 2's 2s, so the table shows it). Raises
    :class:`UnknownGame`."""
    facts = game(variant)
    rules = deal_rules(variant)
    ranks = len(rules.level_ranks) if facts.levels else 0
    return {
        "variant": variant,
        "seats": facts.seats,
        "levels": facts.levels,
        "fixed_sides": facts.fixed_sides,
        "pairs": facts.pairs,
        "max_level": facts.max_level,
        "levels_per_round": ranks if ranks and facts.max_level >= ranks else None,
        "deal_fields": sorted(getattr(rules, "table_fields", ()) or ()),
        "initiative": bool(getattr(rules, "twos_need_initiative", False)),
    }
