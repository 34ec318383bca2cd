"""Reads of the statistics and honours that pages and the API share, in a constant number of
queries whatever the number of matches behind them (the tallies are already summed).

Members-only clubs: a viewer sees a person's tallies of the clubs they may see
(:func:`clubs.permissions.visible_clubs_filter`); tallies of club-less tables (friends'
tables) only the person themself.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q, QuerySet

from clubs.models import Club, User
from clubs.permissions import visible_clubs_filter
from engine.facts import COMMON_FACTS, fact_names, game_fact_names
from games.variants import Variant, game
from records import honours as honour_defs
from records import periods
from records.labels import FACT_LABELS
from records.models import Honour, Tally, TallyKind

#: Partners and opponents shown per game (the most frequent first).
PEOPLE_SHOWN = 10


@dataclass
class PersonRow:
    """Matches with one partner or against one opponent: how often and how well."""

    user: User | None
    matches: int
    won: int
    drawn: int

    @property
    def win_share(self) -> float:
        """Won matches over matches (0 without a match)."""
        return self.won / self.matches if self.matches else 0.0


@dataclass
class GameStats:
    """One game's statistics of a person, rated or casual: the summed ``counters`` and the
    figures made from them."""

    variant: str
    rated: bool
    counters: dict[str, int]
    partners: list[PersonRow] = field(default_factory=list)
    opponents: list[PersonRow] = field(default_factory=list)

    def get(self, name: str) -> int:
        """A counter (0 if never reached)."""
        return int(self.counters.get(name, 0))

    @property
    def label(self) -> str:
        """The game's name."""
        return str(Variant(self.variant).label)

    @property
    def levels(self) -> bool:
        """Whether the game is scored in levels (else points)."""
        return game(self.variant).levels

    @property
    def win_share(self) -> float:
        """Matches won over matches played."""
        n = self.get("matches")
        return self.get("won") / n if n else 0.0

    @property
    def per_deal(self) -> float:
        """Net levels (level games) or points per deal."""
        deals = self.get("deals")
        if not deals:
            return 0.0
        if self.levels:
            return (self.get("levels_up") - self.get("levels_down")) / deals
        return self.get("points") / deals

    @property
    def places(self) -> list[tuple[str, float]]:
        """Each finishing place's name and share of the deals (as many places as seats)."""
        deals = self.get("deals")
        seats = game(self.variant).seats
        names = [f"place_{k}" for k in range(1, seats + 1)]
        if seats < 4:
            names[-1] = "place_4"  # the last place is 下游 in every game
        counts = [self.get(f"place_{k}") for k in range(1, seats + 1)]
        return [
            (str(FACT_LABELS[n]), c / deals if deals else 0.0)
            for n, c in zip(names, counts, strict=True)
        ]

    @property
    def seconds_per_decision(self) -> float | None:
        """Average thinking time of a timed decision in seconds (None without one)."""
        timed = self.get("timed_decisions")
        return self.get("think_ms") / timed / 1000 if timed else None

    @property
    def game_facts(self) -> list[tuple[str, str, int]]:
        """The game's own counters: ``(name, label, value)`` in the game's order."""
        return [(n, str(FACT_LABELS[n]), self.get(n)) for n in game_fact_names(self.variant)]

    def as_json(self) -> dict[str, Any]:
        """The API's form: every counter of the game (0 included), the figures, the people."""

        def people(rows: list[PersonRow]) -> list[dict[str, Any]]:
            return [
                {
                    "user": r.user.pk if r.user else None,
                    "name": r.user.name if r.user else None,
                    "matches": r.matches,
                    "won": r.won,
                    "drawn": r.drawn,
                }
                for r in rows
            ]

        return {
            "game": self.variant,
            "rated": self.rated,
            "counters": {n: self.get(n) for n in fact_names(self.variant)},
            "win_share": round(self.win_share, 4),
            "per_deal": round(self.per_deal, 4),
            "seconds_per_decision": (
                None if self.seconds_per_decision is None else round(self.seconds_per_decision, 2)
            ),
            "partners": people(self.partners),
            "opponents": people(self.opponents),
        }


def viewer_of(user: Any) -> User | None:
    """The signed-in person of a request (``request.user``), or None for a visitor."""
    return user if isinstance(user, User) and user.is_authenticated else None


def _visible(viewer: User | None, person: User) -> Q:
    """The tallies of ``person`` that ``viewer`` may see."""
    clubs = Q(club__isnull=False) & visible_clubs_filter(viewer, "club")
    if viewer is not None and viewer.is_authenticated and viewer.pk == person.pk:
        return clubs | Q(club__isnull=True)
    return clubs


def player_statistics(viewer: User | None, person: User, period: str) -> list[GameStats]:
    """``person``'s statistics over ``period`` (a key of :mod:`records.periods`) that
    ``viewer`` may see: one :class:`GameStats` per game and rated/casual, rated first, games
    in the table's order; partners and opponents the most frequent first. Two queries."""
    rows = (
        Tally.objects.filter(_visible(viewer, person), user=person, period=period)
        .select_related("other")
        .only("variant", "rated", "kind", "counters", "other")
    )
    totals: dict[tuple[str, bool], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    people: dict[tuple[str, bool, str], dict[int, PersonRow]] = defaultdict(dict)
    for tally in rows:
        key = (tally.variant, tally.rated)
        if tally.kind == TallyKind.TOTAL:
            sums = totals[key]
            for name, value in tally.counters.items():
                sums[name] += value
            continue
        if tally.other_id is None:
            continue  # matches without a fixed partner: in the totals already
        row = people[(*key, tally.kind)].setdefault(tally.other_id, PersonRow(tally.other, 0, 0, 0))
        row.matches += tally.counters.get("matches", 0)
        row.won += tally.counters.get("won", 0)
        row.drawn += tally.counters.get("drawn", 0)
    order = [v.value for v in Variant]
    out = []
    for (variant, rated), sums in sorted(
        totals.items(), key=lambda item: (not item[0][1], order.index(item[0][0]))
    ):
        stats = GameStats(variant, rated, dict(sums))

        def top(kind: str, v: str = variant, r: bool = rated) -> list[PersonRow]:
            found = people.get((v, r, kind), {}).values()
            return sorted(found, key=lambda p: (-p.matches, -p.won, p.user.pk if p.user else 0))[
                :PEOPLE_SHOWN
            ]

        stats.partners = top(TallyKind.PARTNER)
        stats.opponents = top(TallyKind.OPPONENT)
        out.append(stats)
    return out


@dataclass
class HonourView:
    """An honour as pages show it: its kind (title, explanation), club, period and holders."""

    honour: Honour
    kind: honour_defs.HonourKind

    @property
    def period_label(self) -> str:
        """The period in the reader's language."""
        return periods.label(self.honour.period)

    @property
    def figure(self) -> str:
        """The figure that won it, written by its unit."""
        value = self.honour.value
        if self.kind.unit == "share":
            return f"{value:g}%"
        if self.kind.unit == "rating":
            return f"+{value:g}"
        return f"{value:g}"


def _views(rows: QuerySet[Honour]) -> list[HonourView]:
    out = []
    for honour in rows:
        kind = honour_defs.explained(honour.code)
        if kind is not None:
            out.append(HonourView(honour, kind))
    return out


def club_honours(club: Club, now: Any = None) -> dict[str, list[HonourView]]:
    """The club's honours of this month and this season (``{"month": […], "season": […]}``,
    in the order of :data:`records.honours.HONOURS`). One query; the caller checks that the
    viewer may see the club."""
    keys = {"month": periods.current("month", now), "season": periods.current("season", now)}
    rows = Honour.objects.filter(club=club, period__in=keys.values()).select_related(
        "user", "partner"
    )
    order = [h.code for h in honour_defs.HONOURS]
    views = sorted(_views(rows), key=lambda v: order.index(v.kind.code))
    return {name: [v for v in views if v.honour.period == key] for name, key in keys.items()}


def player_honours(viewer: User | None, person: User, limit: int = 20) -> list[HonourView]:
    """The honours ``person`` holds (alone or in a partnership) in clubs ``viewer`` may see,
    the latest periods first. One query."""
    rows = (
        Honour.objects.filter(visible_clubs_filter(viewer, "club"))
        .filter(Q(user=person) | Q(partner=person))
        .select_related("club", "user", "partner")
        .order_by("-period", "club_id", "code")[:limit]
    )
    return _views(rows)


__all__ = ["COMMON_FACTS", "GameStats", "player_honours", "player_statistics", "club_honours"]
