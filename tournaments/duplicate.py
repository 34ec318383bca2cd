"""Duplicate events (复式赛, 第三十三条): the comparison of the pairs that held the same cards,
pure Python (no Django import).

Every table of a duplicate round is dealt from one seed (:mod:`tournaments.services.rounds`),
so at every table deal *k* gives seat *s* the same thirteen — Bao 2's and Guandan's engine
deals deal *k* from ``f"{seed}/{k}"``. A **direction** is a pair of partners' seats:
direction 0 is seats 0 and 2 (a game's side 1 in the pages, ``side0`` in the data), direction
1 is seats 1 and 3. Entries that sat in the same direction at different tables held the same
cards in every deal number both tables played, so they are compared with each other.

**A deal's result** (:func:`deal_worth`) is what the cards were made into, in levels, from the
engine's deal record: each direction's base rise (3 with 1st and 2nd, 2 with 1st and 3rd, 1
with 1st and last), its 保2 and 关2 levels (Bao 2), and the referee cards shown during the deal;
the result of direction 0 is its worth minus direction 1's, and direction 1's is the opposite.
What depends on the table's earlier deals and not on the cards is left out: the cap at the
last level (and Bao 2's excess taken off the other side), a failed attempt at the last level,
and the deal that wins the match (whose record moves no level).

**The comparison** (:func:`compare_round`) is by deal number: deal *k* is compared among the
tables that finished it, whatever else they did. Tables do not play the same number of deals
(a time limit, a match won at A, a forfeit): a deal played at one table only is compared with
nobody and scores nothing. Two things differ from one table to another even in the same deal
number and cannot be taken out without changing the games themselves: from the second deal on,
the tribute (进贡) that the previous deal's finish caused, and the level being played (the
level card, the wild card in Guandan). The dealt cards are the same; what the tables did in
the deals before changes a few of them and the level.

**Scoring: matchpoints**, as pairs' duplicate bridge scores a board: in each deal and direction
an entry gets 2 points for each other table's entry in the same direction it did better than,
1 for each it tied, 0 for each that did better; the top is ``2 × (tables − 1)``. An entry's
score (:func:`totals`) is its points over the tops of the deals it was compared in, as a
percentage (50 % is the field's average). Why matchpoints and not a difference from the
field's mean (as IMPs do): a deal's result is a few levels, so equal results are common and
matchpoints score them exactly; every deal weighs the same, whereas one Bao 2 deal with six 2s
closed (+9 levels) would outweigh many ordinary deals in a difference; and the two games'
scales (Bao 2 0–23, Guandan 2–A) need no conversion. The percentage makes entries that were
compared in different numbers of deals (a bye, a short match) comparable.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: The name of the duplicate score among a duplicate event's tie-breaks, ranked first
#: (:func:`tournaments.selectors.tiebreaks_of`).
TIEBREAK = "duplicate"

#: A deal's items that come from the cards (and the referee) rather than the table's position.
CARD_ITEMS = ("base", "bao2", "closed")


def deal_worth(record: Mapping[str, Any]) -> tuple[int, int]:
    """What one deal earned each direction, in levels, from the engine's deal record
    (``Match.deals[k]``: ``base``, ``bao2``, ``closed`` per team, and the ``breakdown``'s
    ``sanction`` items); see the module docstring for what is left out and why."""
    worth = [0, 0]
    for key in CARD_ITEMS:
        values = record.get(key) or (0, 0)
        for t in (0, 1):
            worth[t] += int(values[t])
    for t, items in enumerate((record.get("breakdown") or ([], []))[:2]):
        worth[t] += sum(int(i.get("levels", 0)) for i in items if i.get("reason") == "sanction")
    return worth[0], worth[1]


def deal_result(record: Mapping[str, Any]) -> int:
    """Direction 0's result of one deal: its worth minus direction 1's (:func:`deal_worth`)."""
    a, b = deal_worth(record)
    return a - b


@dataclass(frozen=True)
class TablePlay:
    """One table of a duplicate round: its number (the game's), the entries in each direction
    (0: seats 0 and 2, 1: seats 1 and 3) and direction 0's result in each deal it finished
    (``results[k]``: deal number ``k + 1``)."""

    table: int
    directions: tuple[tuple[int, ...], tuple[int, ...]]
    results: tuple[int, ...]


@dataclass(frozen=True)
class Score:
    """One entry (or the two of an individual event's side) in one deal and direction: its
    table, the result there (levels, its own direction's) and the matchpoints it scored out
    of ``top``."""

    table: int
    direction: int
    units: tuple[int, ...]
    result: int
    points: int
    top: int


@dataclass(frozen=True)
class DealComparison:
    """Deal number ``deal`` (from 1) compared among the ``tables`` that finished it: one
    :class:`Score` per table and direction, direction 0's first, each by table number."""

    deal: int
    tables: tuple[int, ...]
    top: int
    scores: tuple[Score, ...]


def matchpoints(mine: int, others: Iterable[int]) -> int:
    """2 for each of ``others`` that ``mine`` beats, 1 for each it ties."""
    return sum(2 if mine > other else 1 if mine == other else 0 for other in others)


def compare_round(tables: Sequence[TablePlay]) -> list[DealComparison]:
    """Every deal number that at least two of ``tables`` finished, compared among them (see
    the module docstring); deals finished at one table only are left out."""
    out: list[DealComparison] = []
    longest = max((len(t.results) for t in tables), default=0)
    for k in range(longest):
        field = sorted((t for t in tables if len(t.results) > k), key=lambda t: t.table)
        if len(field) < 2:
            continue
        top = 2 * (len(field) - 1)
        scores: list[Score] = []
        for direction in (0, 1):
            sign = 1 if direction == 0 else -1
            for t in field:
                mine = sign * t.results[k]
                others = [sign * o.results[k] for o in field if o is not t]
                scores.append(
                    Score(t.table, direction, t.directions[direction], mine,
                          matchpoints(mine, others), top)
                )  # fmt: skip
        out.append(DealComparison(k + 1, tuple(t.table for t in field), top, tuple(scores)))
    return out


@dataclass(frozen=True)
class Total:
    """An entry's matchpoints over the deals it was compared in, and their tops."""

    points: int = 0
    top: int = 0

    @property
    def percent(self) -> float:
        """The points as a percentage of the tops (2 decimals; 0 when never compared)."""
        return round(100 * self.points / self.top, 2) if self.top else 0.0


def totals(comparisons: Iterable[DealComparison]) -> dict[int, Total]:
    """Each entry's :class:`Total` over ``comparisons`` (of one round or of several)."""
    sums: dict[int, list[int]] = {}
    for comparison in comparisons:
        for score in comparison.scores:
            for unit in score.units:
                acc = sums.setdefault(unit, [0, 0])
                acc[0] += score.points
                acc[1] += score.top
    return {unit: Total(points, top) for unit, (points, top) in sums.items()}
