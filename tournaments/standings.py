"""Tournament standings (名次) with configurable tie-breaks, pure Python: no Django import.

The input is one :class:`Record` per unit and game: its opponents, the two sides' scores
(levels or points) and the outcome. :func:`standings` orders the units by the tie-breaks in
the order given and returns each unit's numbers behind its place:

* ``match_points`` (积分): win / draw / loss points (a bye scores as a win by default);
* ``level_diff`` (级差 / 分差): the unit's scores minus its opponents' scores over its games
  (Nanping Red Two: the player's point totals, :func:`records_of_table`);
* ``buchholz`` (对手分): the sum of the final match points of every opponent met;
* ``sonneborn_berger`` (SB 分): the match points of each opponent beaten, plus half of
  each opponent drawn;
* ``head_to_head`` (胜负关系): match points scored in games among the units still tied on
  the tie-breaks before it (computed inside each tied group only);
* ``wins`` (胜场): the games the unit won (a forfeit won counts, a bye does not: a bye is
  not a game);
* ``grade_points`` (级分): the national rules' 级分 of the unit's games (:attr:`Record.grade`,
  from :mod:`tournaments.scoring`: the 26-point table for Guandan, the level difference on
  Bao 2's own scale);
* ``head_to_head_grades`` (相互间级分): 级分 scored in games among the units still tied on the
  tie-breaks before it (第二十七条四.3);
* ``opponent_grades`` (对手级分): the sum of the final 级分 of every opponent met
  (第二十七条四.4, the rules' 对手分).

:data:`NATIONAL_TIEBREAKS` is the order of 第二十七、二十八条 (场分, 级分, 级分 between the tied,
opponents' 级分; then a shared place).

Units equal on every tie-break share a place.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

TIEBREAKS = (
    "match_points",
    "level_diff",
    "buchholz",
    "sonneborn_berger",
    "head_to_head",
    "wins",
    "grade_points",
    "head_to_head_grades",
    "opponent_grades",
)
DEFAULT_TIEBREAKS = ("match_points", "buchholz", "sonneborn_berger", "level_diff")
#: The ranking of the national rules (第二十七条四、第二十八条二): 场分, then 级分, then the 级分
#: of the games among the tied, then the opponents' 级分 (对手分); units still equal share.
NATIONAL_TIEBREAKS = ("match_points", "grade_points", "head_to_head_grades", "opponent_grades")


@dataclass(frozen=True)
class Points:
    """Match points for a win, a draw, a loss and a bye."""

    win: float = 2
    draw: float = 1
    loss: float = 0
    bye: float = 2


@dataclass(frozen=True)
class Record:
    """One game of one unit: ``opponents`` (empty for a bye), its score and the opponents'
    score; ``outcome`` is ``win``, ``draw``, ``loss`` or ``bye``; ``grade``: the unit's 级分 of
    the game in a national-rules event (:mod:`tournaments.scoring`; 0 elsewhere)."""

    unit: int
    opponents: tuple[int, ...]
    score_for: int
    score_against: int
    outcome: str
    grade: float = 0


@dataclass
class Row:
    """One line of the standings: place (shared by units equal on every tie-break), games,
    wins, draws, losses, byes and the value of each tie-break."""

    unit: int
    place: int = 0
    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    byes: int = 0
    values: dict[str, float] = field(default_factory=dict)


def outcome_of(score_for: int, score_against: int) -> str:
    """``win``, ``draw`` or ``loss`` from the two scores."""
    if score_for > score_against:
        return "win"
    return "draw" if score_for == score_against else "loss"


def records_of_game(
    sides: Sequence[Sequence[int]],
    scores: tuple[int, int] | None,
    winner: int | None = None,
    grades: tuple[float, float] | None = None,
) -> list[Record]:
    """The records of one finished game (``scores`` of side 0 and 1; a bye has one side).

    ``winner`` overrides the outcome the scores give (a forfeit, or a knockout decided on a
    tie), so scores may be equal with a winner. ``grades``: each side's 级分 (a bye: its one
    side's)."""
    if len(sides) < 2 or not sides[1]:
        bye_grade = grades[0] if grades else 0
        return [Record(u, (), 0, 0, "bye", bye_grade) for u in sides[0]]
    if scores is None:
        return []
    out = []
    for i, side in enumerate(sides[:2]):
        mine, theirs = scores[i], scores[1 - i]
        if winner is None:
            outcome = outcome_of(mine, theirs)
        else:
            outcome = "win" if winner == i else "loss"
        grade = grades[i] if grades else 0
        for unit in side:
            out.append(Record(unit, tuple(sides[1 - i]), mine, theirs, outcome, grade))
    return out


def records_of_table(
    seats: Sequence[int], totals: Sequence[int], forfeited: Iterable[int] = ()
) -> list[Record]:
    """The records of one finished game without fixed partners (Nanping Red Two): ``seats``
    are the units at the table and ``totals`` their match points; the player with the most
    points wins, players tied for the most draw, the others lose (the rules' "the player with
    the most points wins, ties are draws"). Seats in ``forfeited`` (indices into ``seats``)
    lose, and the win goes among the others. Every player's opponents are the other three;
    ``score_for`` is the player's total and ``score_against`` 0 (the points are paid between
    the players, so a total is already the difference)."""
    lost = set(forfeited)
    playing = [i for i in range(len(seats)) if i not in lost]
    top = max((totals[i] for i in playing), default=None)
    leaders = [i for i in playing if totals[i] == top]
    out = []
    for i, unit in enumerate(seats):
        if i in leaders:
            outcome = "win" if len(leaders) == 1 else "draw"
        else:
            outcome = "loss"
        others = tuple(u for j, u in enumerate(seats) if j != i)
        out.append(Record(unit, others, int(totals[i]), 0, outcome))
    return out


def _points(record: Record, points: Points) -> float:
    return {"win": points.win, "draw": points.draw, "loss": points.loss, "bye": points.bye}[
        record.outcome
    ]


def standings(
    units: Iterable[int],
    records: Iterable[Record],
    tiebreaks: Sequence[str] = DEFAULT_TIEBREAKS,
    points: Points = Points(),  # noqa: B008  (frozen, so sharing the default is harmless)
    measured: Mapping[str, Mapping[int, float]] | None = None,
) -> list[Row]:
    """The units in order with the numbers behind their places (see the module docstring).

    ``measured``: tie-breaks computed elsewhere, by name, usable in ``tiebreaks`` (a duplicate
    event's ``duplicate`` score, :mod:`tournaments.duplicate`); a unit without a value has 0.
    Raises ``ValueError`` for an unknown tie-break name. Units without any record are listed
    with zeros; records of units not in ``units`` are ignored.
    """
    measured = measured or {}
    unknown = [t for t in tiebreaks if t not in TIEBREAKS and t not in measured]
    if unknown:
        raise ValueError(f"unknown tie-break: {unknown[0]}")
    rows = {u: Row(u) for u in units}
    by_unit: dict[int, list[Record]] = defaultdict(list)
    for record in records:
        if record.unit in rows:
            by_unit[record.unit].append(record)
    mp: dict[int, float] = {}
    grades: dict[int, float] = {}
    for unit, row in rows.items():
        mine = by_unit[unit]
        row.played = sum(1 for r in mine if r.outcome != "bye")
        row.wins = sum(1 for r in mine if r.outcome == "win")
        row.draws = sum(1 for r in mine if r.outcome == "draw")
        row.losses = sum(1 for r in mine if r.outcome == "loss")
        row.byes = sum(1 for r in mine if r.outcome == "bye")
        mp[unit] = sum(_points(r, points) for r in mine)
        grades[unit] = sum(r.grade for r in mine)
    # only the tie-breaks asked for are computed (Buchholz and Sonneborn-Berger read every
    # opponent of every game: a league page asks for neither)
    measures: dict[str, Callable[[int], float]] = {
        "match_points": mp.__getitem__,
        "level_diff": lambda u: sum(r.score_for - r.score_against for r in by_unit[u]),
        "buchholz": lambda u: sum(mp.get(o, 0) for r in by_unit[u] for o in r.opponents),
        "sonneborn_berger": lambda u: sum(
            mp.get(o, 0) * {"win": 1.0, "draw": 0.5}.get(r.outcome, 0.0)
            for r in by_unit[u]
            for o in r.opponents
        ),
        "wins": lambda u: rows[u].wins,
        "grade_points": grades.__getitem__,
        "opponent_grades": lambda u: sum(
            _opponent_grades(o, grades, by_unit) for r in by_unit[u] for o in r.opponents
        ),
        **{name: _lookup(values) for name, values in measured.items()},
    }
    computed: dict[str, Mapping[int, float]] = {
        name: {u: measures[name](u) for u in rows} for name in tiebreaks if name in measures
    }

    def head_to_head(group: list[int]) -> dict[int, float]:
        members = set(group)
        return {
            u: sum(
                _points(r, points) / len(r.opponents)
                for r in by_unit[u]
                for o in r.opponents
                if o in members
            )
            for u in group
        }

    def head_to_head_grades(group: list[int]) -> dict[int, float]:
        members = set(group)
        return {
            u: sum(
                r.grade / len(r.opponents) for r in by_unit[u] for o in r.opponents if o in members
            )
            for u in group
        }

    def refine(group: list[int], remaining: Sequence[str]) -> list[list[int]]:
        if not remaining:
            return [group]
        name = remaining[0]
        if name == "head_to_head":
            values = head_to_head(group) if len(group) > 1 else {group[0]: 0.0}
        elif name == "head_to_head_grades":
            values = head_to_head_grades(group) if len(group) > 1 else {group[0]: 0.0}
        else:
            values = {u: computed[name][u] for u in group}
        for u in group:
            rows[u].values[name] = values[u]
        buckets: dict[float, list[int]] = defaultdict(list)
        for u in group:
            buckets[values[u]].append(u)
        out: list[list[int]] = []
        for value in sorted(buckets, reverse=True):
            out.extend(refine(buckets[value], remaining[1:]))
        return out

    groups = refine(sorted(rows), list(tiebreaks))
    ordered: list[Row] = []
    place = 1
    for group in groups:
        for unit in group:
            rows[unit].place = place
            ordered.append(rows[unit])
        place += len(group)
    return ordered


def _lookup(values: Mapping[int, float]) -> Callable[[int], float]:
    """A measured tie-break's value of a unit (0 without one)."""
    return lambda unit: values.get(unit, 0.0)


def _opponent_grades(
    opponent: int, grades: Mapping[int, float], by_unit: Mapping[int, list[Record]]
) -> float:
    """An opponent's total 级分 (also one not among the ranked units, from its records)."""
    if opponent in grades:
        return grades[opponent]
    return sum(r.grade for r in by_unit.get(opponent, ()))


def match_points(records: Iterable[Record], points: Points = Points()) -> dict[int, float]:  # noqa: B008
    """Match points of every unit that has a record (the score Swiss pairing uses)."""
    out: dict[int, float] = defaultdict(float)
    for record in records:
        out[record.unit] += _points(record, points)
    return dict(out)
