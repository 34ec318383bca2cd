"""Team standings of a team event, pure Python: no Django import.

A team is a club's named team of pairs (or players), each an entry of the tournament,
paired and ranked as any entry. The team's standing adds up its entries' results
(:func:`team_standings`):

* **national scoring** (第十三条): the sum of its entries' 场分, then the sum of their 级分;
* **club scoring**: the sum of its entries' match points, then the sum of their level (or
  point) differences.

Why a sum of the tables rather than a team match scored 2/1/0: the entries of a team play
different opponents in a Swiss or round-robin event, so no team meets another as a whole and
there is no team match to score; the national rules score every game in 场分 and 级分 and
leave a team's total to the event's regulations (竞赛规程). Summing keeps every table worth
the same, whichever team it is played against, and uses the same numbers as the entries'
standings. Teams equal on both share a place. A game between two entries of the same team
counts for both (the team's total gets both sides of it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from tournaments.standings import Points, Record


@dataclass
class TeamRow:
    """One team's line: its place (shared by equal teams), its entries' games, wins, draws
    and losses, the sum of their match points (场分) and the second number — the sum of their
    级分 (national scoring) or of their level differences (club scoring)."""

    team: int
    units: tuple[int, ...]
    place: int = 0
    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    match_points: float = 0
    second: float = 0
    by_unit: dict[int, tuple[float, float]] = field(default_factory=dict)


def team_standings(
    teams: Mapping[int, Sequence[int]],
    records: Iterable[Record],
    points: Points,
    national: bool,
) -> list[TeamRow]:
    """The teams in order (``teams``: each team's entries, those counted in the standings),
    ranked by the sum of their entries' match points, then the sum of their 级分
    (``national``) or level differences; each row keeps each entry's two numbers in
    ``by_unit``. Records of entries in no team are ignored."""
    team_of = {unit: team for team, units in teams.items() for unit in units}
    rows = {team: TeamRow(team, tuple(units)) for team, units in teams.items()}
    per_unit: dict[int, list[float]] = {unit: [0.0, 0.0] for unit in team_of}
    value = {"win": points.win, "draw": points.draw, "loss": points.loss, "bye": points.bye}
    for record in records:
        team = team_of.get(record.unit)
        if team is None:
            continue
        row = rows[team]
        if record.outcome != "bye":
            row.played += 1
        row.wins += record.outcome == "win"
        row.draws += record.outcome == "draw"
        row.losses += record.outcome == "loss"
        second = record.grade if national else record.score_for - record.score_against
        per_unit[record.unit][0] += value[record.outcome]
        per_unit[record.unit][1] += second
    for unit, (mp, second) in per_unit.items():
        row = rows[team_of[unit]]
        row.match_points += mp
        row.second += second
        row.by_unit[unit] = (mp, second)
    ordered = sorted(rows.values(), key=lambda r: (-r.match_points, -r.second, r.team))
    place = 0
    previous: tuple[float, float] | None = None
    for index, row in enumerate(ordered, start=1):
        key = (row.match_points, row.second)
        if key != previous:
            place, previous = index, key
        row.place = place
    return ordered
