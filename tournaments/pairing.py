"""Tournament pairings (编排), pure Python: no Django import.

A *unit* is whatever plays one side of a game: a fixed partnership (pair) in the four-player
games, a single player in two-player Shuangkou. Units are identified by ints.

* :func:`swiss_round` pairs units by score groups with a minimum-weight perfect matching
  (networkx): the cost of a game puts, in strict order of importance, a repeated bye, a
  rematch, two units of one team (``History.team``: a team event's pairs of one club team)
  meeting, the score gap between the two units and the distance of their ranks (Monrad: 1 v 2,
  3 v 4 within a score group). Each cost level outweighs every sum of the levels below it, so
  the pairing has the fewest repeated byes, then the fewest rematches possible, then the
  fewest teammates meeting, then the smallest score gaps.
* :func:`snake_first_round` pairs a Swiss event's first round by serpentine seeding
  (蛇形排列, 第二十八条一): 1 v n, 2 v n−1, …, then moves a teammate clash to the nearest
  table where a swap removes it.
* :func:`round_robin` schedules every round with the circle method (teammates' games in the
  first rounds, :func:`teammates_first`), once or twice (a double round robin's second cycle
  with the sides swapped, :func:`play_cycles`); :func:`serpentine_groups`
  spreads units over the groups of a group round robin (分组循环赛, 第二十七条一) and
  :func:`group_round_robin` schedules each group's round robin in parallel.
* :func:`elimination_first_round` / :func:`elimination_next_round` run a single-elimination
  bracket with standard seeding (1 v 16, 8 v 9, ...), byes to the top seeds and an optional
  third-place game.
* :func:`individual_round` seats single players at four-player tables for an *individual*
  event (个人赛): partners rotate every round. First the players form partnerships (cost: a
  repeated partner, then two members of the same team as partners, then the score gap), then
  partnerships meet at tables (cost: opponents met before, then the score gap).
* :func:`table_round` seats single players at four-player tables where nobody has a fixed
  partner (Nanping Red Two, whose partnerships change every deal): players who shared a table
  before avoid sharing one again, then the score gap.

Every pairing that had to break a preference carries a :class:`Note` saying which and why
(``rematch``, ``repeat_bye``, ``bye_above_lowest``, ``score_gap``, ``repeat_partner``,
``same_team``, ``teammates``, ``repeat_opponent``, ``repeat_tablemate``); :func:`explain_games` recomputes them for a pairing edited by hand.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import networkx as nx

#: Node standing for "no opponent" when the number of units is odd.
BYE = "bye"

# Cost levels (each outweighs any sum of the ones below for up to 1000 units).
W_RANK = 1
W_SCORE = 10**7
W_TEAMMATE = 10**15
W_REMATCH = 10**18
W_BYE = 10**24


@dataclass(frozen=True)
class Note:
    """A broken preference of one game: ``code`` and the units concerned, with numbers
    (``detail``: e.g. ``{"times": 2}`` for a rematch, ``{"scores": [4, 2]}``)."""

    code: str
    units: tuple[int, ...]
    detail: Mapping[str, object] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        """JSON-ready form."""
        return {"code": self.code, "units": list(self.units), "detail": dict(self.detail)}


@dataclass(frozen=True)
class Game:
    """One game of a round: ``sides`` are tuples of unit ids (one unit per side for pairs and
    singles, two partners per side in individual events); a bye has an empty second side."""

    sides: tuple[tuple[int, ...], tuple[int, ...]]
    notes: tuple[Note, ...] = ()

    @property
    def is_bye(self) -> bool:
        """True when the first side plays nobody this round."""
        return not self.sides[1]

    @property
    def units(self) -> tuple[int, ...]:
        """Every unit of the game."""
        return self.sides[0] + self.sides[1]


@dataclass
class History:
    """What happened before this round: who met whom, byes, partners and teams.

    ``met[(a, b)]`` (a < b) counts games of a against b; ``partnered[(a, b)]`` counts games of a
    with b as partners (individual events); ``byes[u]`` counts byes; ``team[u]`` is a team
    label (individual events: members of one team avoid being partners; pairs or players of
    a team event: units of one team avoid meeting)."""

    met: Counter = field(default_factory=Counter)
    partnered: Counter = field(default_factory=Counter)
    byes: Counter = field(default_factory=Counter)
    team: dict[int, str] = field(default_factory=dict)

    def add(self, game: Game) -> None:
        """Count a played game (or bye) into the history."""
        a, b = game.sides
        if not b:
            for unit in a:
                self.byes[unit] += 1
            return
        for x in a:
            for y in b:
                self.met[_key(x, y)] += 1
        for side in (a, b):
            for i, x in enumerate(side):
                for y in side[i + 1 :]:
                    self.partnered[_key(x, y)] += 1

    def add_table(self, game: Game) -> None:
        """Count a played game (or bye) of a game without fixed partners (:func:`table_round`):
        every two players at the table met, whichever sides the seats were on."""
        if not game.sides[1]:
            self.add(game)
            return
        units = game.units
        for i, x in enumerate(units):
            for y in units[i + 1 :]:
                self.met[_key(x, y)] += 1


def _key(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def _teammates(history: History, a: object, b: object) -> bool:
    """Whether units ``a`` and ``b`` are of one team (a label both have)."""
    label = history.team.get(a)  # type: ignore[call-overload]
    return bool(label) and label == history.team.get(b)  # type: ignore[call-overload]


def _scaled(score: float) -> int:
    return round(score * 2)


def _order(units: Sequence[int], scores: Mapping[int, float]) -> list[int]:
    """Units by score (highest first), keeping the given order (the seeding) among equals."""
    position = {u: i for i, u in enumerate(units)}
    return sorted(units, key=lambda u: (-scores.get(u, 0), position[u]))


def _matching(nodes: Sequence[object], cost: dict[tuple[object, object], int]) -> list[tuple]:
    """A minimum-cost perfect matching of ``nodes`` (an even number) on a complete graph."""
    graph = nx.Graph()
    graph.add_nodes_from(nodes)
    top = max(cost.values(), default=0) + 1
    for (a, b), c in cost.items():
        graph.add_edge(a, b, weight=top - c)
    matched = nx.max_weight_matching(graph, maxcardinality=True)
    if len(matched) * 2 != len(nodes):  # cannot happen on a complete graph
        raise ValueError("no perfect matching")
    return [tuple(edge) for edge in matched]


def swiss_round(units: Sequence[int], scores: Mapping[int, float], history: History) -> list[Game]:
    """Pair ``units`` (in seeding order) for one Swiss round (瑞士制).

    Returns the games, highest scores first, and at most one bye (odd number of units), which
    goes to the lowest-ranked unit among those with the fewest byes. Raises ``ValueError`` for
    duplicate units.
    """
    if len(set(units)) != len(units):
        raise ValueError("a unit appears twice")
    if not units:
        return []
    ranked = _order(units, scores)
    rank = {u: i for i, u in enumerate(ranked)}
    nodes: list[object] = list(ranked)
    if len(nodes) % 2:
        nodes.append(BYE)
    cost: dict[tuple[object, object], int] = {}
    low = min(_scaled(scores.get(u, 0)) for u in ranked)
    for i, a in enumerate(nodes):
        for b in nodes[i + 1 :]:
            if b == BYE:
                unit = a
                cost[(a, b)] = (
                    W_BYE * history.byes[unit]
                    + W_SCORE * (_scaled(scores.get(unit, 0)) - low) ** 2
                    + W_RANK * (len(ranked) - 1 - rank[unit])
                )
                continue
            gap = _scaled(scores.get(a, 0)) - _scaled(scores.get(b, 0))
            cost[(a, b)] = (
                W_REMATCH * history.met[_key(a, b)]
                + W_TEAMMATE * _teammates(history, a, b)
                + W_SCORE * gap * gap
                + W_RANK * abs(rank[a] - rank[b])
            )
    games = []
    for a, b in _matching(nodes, cost):
        if a == BYE or b == BYE:
            unit = b if a == BYE else a
            games.append(Game(((unit,), ())))
        else:
            first, second = (a, b) if rank[a] < rank[b] else (b, a)
            games.append(Game(((first,), (second,))))
    games.sort(key=lambda g: (g.is_bye, min(rank[u] for u in g.units)))
    return explain_games(games, scores, history)


def snake_first_round(units: Sequence[int], team: Mapping[int, str] | None = None) -> list[Game]:
    """The first round of a Swiss event by serpentine seeding (蛇形排列, 第二十八条一): the
    units in seeding order (strongest first) are laid along the tables and back, so table
    ``k`` holds the ``k``-th and the ``k``-th from last: 1 v n, 2 v n−1, … (n v n/2+1 at the
    last table). The strongest meet the weakest, and units close in strength meet only once
    the scores have told them apart. With an odd number the last seed has the bye (the
    lowest-ranked, as :func:`swiss_round` gives it).

    ``team`` (unit → team label, a team event): a table whose two units are of one team swaps
    its lower seed with the lower seed of the nearest table (below first, then above) where
    the swap leaves neither table with teammates — the serpentine order kept everywhere else.
    A clash no swap removes stays. Raises ``ValueError`` for duplicates."""
    if len(set(units)) != len(units):
        raise ValueError("a unit appears twice")
    playing = list(units)
    games: list[Game] = []
    bye = playing.pop() if len(playing) % 2 else None
    n = len(playing)
    tables = [[playing[k], playing[n - 1 - k]] for k in range(n // 2)]
    labels = dict(team or {})

    def clash(x: int, y: int) -> bool:
        return bool(labels.get(x)) and labels.get(x) == labels.get(y)

    for k, table in enumerate(tables):
        if not clash(*table):
            continue
        for distance in range(1, len(tables)):
            done = False
            for other in (k + distance, k - distance):
                if not 0 <= other < len(tables):
                    continue
                mate = tables[other]
                if not clash(table[0], mate[1]) and not clash(mate[0], table[1]):
                    table[1], mate[1] = mate[1], table[1]
                    done = True
                    break
            if done:
                break
    for first, second in tables:
        games.append(Game(((first,), (second,))))
    if bye is not None:
        games.append(Game(((bye,), ())))
    return games


def explain_games(
    games: Sequence[Game],
    scores: Mapping[int, float],
    history: History,
    tables: bool = False,
    meetings: int = 1,
) -> list[Game]:
    """The same games with their notes recomputed: every broken preference of each game
    (``tables``: games without fixed partners, :func:`table_round`). ``meetings``: how often
    two units are meant to meet (a double round robin: 2), so only a meeting beyond that is a
    rematch."""
    out = []
    everyone = [u for game in games for u in game.units]
    lowest = min((scores.get(u, 0) for u in everyone), default=0)
    for game in games:
        notes: list[Note] = []
        a, b = game.sides
        if not b:
            for unit in a:
                if history.byes[unit]:
                    notes.append(Note("repeat_bye", (unit,), {"times": history.byes[unit] + 1}))
                if scores.get(unit, 0) > lowest:
                    notes.append(Note("bye_above_lowest", (unit,), {"score": scores.get(unit, 0)}))
            out.append(Game(game.sides, tuple(notes)))
            continue
        if tables:
            units = game.units
            for i, x in enumerate(units):
                for y in units[i + 1 :]:
                    if history.met[_key(x, y)]:
                        times = history.met[_key(x, y)] + 1
                        notes.append(Note("repeat_tablemate", (x, y), {"times": times}))
            high = max(scores.get(u, 0) for u in units)
            low = min(scores.get(u, 0) for u in units)
            if high != low:
                notes.append(Note("score_gap", units, {"scores": [high, low]}))
            out.append(Game(game.sides, tuple(notes)))
            continue
        for side in (a, b):
            for i, x in enumerate(side):
                for y in side[i + 1 :]:
                    times = history.partnered[_key(x, y)]
                    if times:
                        notes.append(Note("repeat_partner", (x, y), {"times": times + 1}))
                    if history.team.get(x) and history.team.get(x) == history.team.get(y):
                        notes.append(Note("same_team", (x, y), {"team": history.team[x]}))
        for x in a:
            for y in b:
                times = history.met[_key(x, y)]
                if times >= max(1, meetings):
                    code = "rematch" if len(a) == 1 and len(b) == 1 else "repeat_opponent"
                    notes.append(Note(code, (x, y), {"times": times + 1}))
                if len(a) == 1 and len(b) == 1 and _teammates(history, x, y):
                    notes.append(Note("teammates", (x, y), {"team": history.team[x]}))
        side_scores = [sum(scores.get(u, 0) for u in side) / len(side) for side in (a, b)]
        if side_scores[0] != side_scores[1]:
            notes.append(Note("score_gap", game.units, {"scores": side_scores}))
        out.append(Game(game.sides, tuple(notes)))
    return out


def table_round(
    players: Sequence[int], scores: Mapping[int, float], history: History
) -> list[Game]:
    """Seat single players at four-player tables for one round of a game without fixed
    partners (Nanping Red Two): ``history.met`` counts every two players who shared a table
    (:meth:`History.add_table`). The cost of a table is, in strict order, the times two of its
    players shared a table before, then the score gaps among them. A first seating is
    :func:`individual_round`'s with each earlier table-mate counted as a partner too; swapping
    two players of different tables then goes on while it lowers the total cost (at most
    :data:`SWAP_PASSES` passes). Byes as in :func:`individual_round`. The notes are
    ``repeat_tablemate`` and ``score_gap`` (and the byes')."""
    seating = History(met=history.met, partnered=history.met, byes=history.byes)
    first = individual_round(players, scores, seating)
    tables = [list(g.units) for g in first if not g.is_bye]
    byes = [g for g in first if g.is_bye]

    def cost(table: Sequence[int]) -> int:
        total = 0
        for i, x in enumerate(table):
            for y in table[i + 1 :]:
                gap = _scaled(scores.get(x, 0)) - _scaled(scores.get(y, 0))
                total += W_REMATCH * history.met[_key(x, y)] + W_SCORE * gap * gap
        return total

    costs = [cost(t) for t in tables]
    for _pass in range(SWAP_PASSES):
        improved = False
        for i in range(len(tables)):
            for j in range(i + 1, len(tables)):
                for a in range(4):
                    for b in range(4):
                        ti, tj = tables[i][:], tables[j][:]
                        ti[a], tj[b] = tj[b], ti[a]
                        ci, cj = cost(ti), cost(tj)
                        if ci + cj < costs[i] + costs[j]:
                            tables[i], tables[j], costs[i], costs[j] = ti, tj, ci, cj
                            improved = True
        if not improved:
            break
    rank = {u: i for i, u in enumerate(_order(players, scores))}
    games = []
    for table in tables:
        table.sort(key=rank.__getitem__)
        games.append(Game(((table[0], table[3]), (table[1], table[2]))))
    games.sort(key=lambda g: min(rank[u] for u in g.units))
    return explain_games(games + byes, scores, history, tables=True)


#: Most passes of :func:`table_round`'s swaps over every two tables.
SWAP_PASSES = 20


# --------------------------------------------------------------------------- round robin
#: The most cycles of a round robin: single (1) or double (2) (第二十七条二、三).
MAX_CYCLES = 2


def round_robin(
    units: Sequence[int], team: Mapping[int, str] | None = None, cycles: int = 1
) -> list[list[Game]]:
    """Every round of a round robin (循环赛) by the circle method: each unit meets each other
    unit exactly once a cycle; with an odd number, each unit has exactly one bye a cycle. With
    ``team`` (unit → team label, a team event) the rounds of a cycle are put in
    :func:`teammates_first` order. ``cycles`` 2 is a double round robin (双循环赛, 第二十七条三):
    :func:`play_cycles`. Raises ``ValueError`` for duplicates or cycles other than 1 or 2."""
    if len(set(units)) != len(units):
        raise ValueError("a unit appears twice")
    _check_cycles(cycles)
    slots: list[int | None] = list(units)
    if len(slots) % 2:
        slots.append(None)
    n = len(slots)
    rounds = []
    for r in range(n - 1):
        games = []
        for i in range(n // 2):
            a, b = slots[i], slots[n - 1 - i]
            if i == 0 and r % 2:
                a, b = b, a  # the fixed unit alternates sides
            if a is None or b is None:
                unit = b if a is None else a
                games.append(Game(((unit,), ())))  # type: ignore[arg-type]
            else:
                games.append(Game(((a,), (b,))))
        games.sort(key=lambda g: g.is_bye)
        rounds.append(games)
        slots = [slots[0], slots[-1], *slots[1:-1]]
    return play_cycles(teammates_first(rounds, team) if team else rounds, cycles)


def _check_cycles(cycles: int) -> None:
    if isinstance(cycles, bool) or not isinstance(cycles, int) or not 1 <= cycles <= MAX_CYCLES:
        raise ValueError("a round robin is played once or twice")


def play_cycles(rounds: Sequence[list[Game]], cycles: int) -> list[list[Game]]:
    """The rounds of one cycle of a round robin played ``cycles`` times (1 or 2): the second
    cycle (双循环赛, 第二十七条三: "参赛者之间循环比赛两次") plays the first cycle's rounds again
    in the same order, numbered on after them, with every game's sides swapped — the side that
    sat 0 (seats 0 and 2) sits 1 — so over the two meetings each unit sits on each side once;
    the byes are the first cycle's. The same order keeps what ordered the first cycle (the
    teammates' games first, :func:`teammates_first`) and puts a whole cycle between a pair's
    two meetings."""
    _check_cycles(cycles)
    first = [list(games) for games in rounds]
    if cycles == 1:
        return first
    second = [
        [game if game.is_bye else Game((game.sides[1], game.sides[0])) for game in games]
        for games in first
    ]
    return first + second


def teammates_first(rounds: Sequence[list[Game]], team: Mapping[int, str]) -> list[list[Game]]:
    """The rounds of a round robin reordered so that those with the most games between two
    units of one team come first (stable: the circle's order among equals). In a round robin
    teammates must meet; they meet while the standings are still open rather than in the last
    rounds, when a game between teammates could decide places — the practice of events that
    draw players of one federation or club against each other early."""

    def clashes(games: list[Game]) -> int:
        return sum(
            1
            for g in games
            if not g.is_bye
            and team.get(g.sides[0][0])
            and team.get(g.sides[0][0]) == team.get(g.sides[1][0])
        )

    return sorted(rounds, key=lambda games: -clashes(games))


def serpentine_groups(
    units: Sequence[int], groups: int, team: Mapping[int, str] | None = None
) -> list[list[int]]:
    """``units`` in seeding order spread over ``groups`` groups by serpentine seeding (蛇形排列,
    第二十七条一 "应根据参赛者级别或比赛成绩安排各组种子"): seed 1 to group A, 2 to B, …, then
    back — with two groups A holds seeds 1, 4, 5, 8, … and B 2, 3, 6, 7, … — so every group
    gets one of the strongest and one of the weakest, and the sizes differ by at most one.
    Each group keeps its units in seeding order. ``team`` (unit → team label, a team event):
    within one lap of the serpentine (units of one strength tier), a unit whose group already
    holds a teammate swaps groups with another unit of the lap when that puts neither beside a
    teammate — teammates in different groups while the tiers allow it, and never more of them
    together than the plain serpentine has (the swaps are chosen lap by lap: where an early
    swap costs a later lap more, the plain spread is kept). Raises ``ValueError`` for
    duplicates or fewer than one group."""
    if groups < 1:
        raise ValueError("at least one group")
    if len(set(units)) != len(units):
        raise ValueError("a unit appears twice")
    labels = dict(team or {})

    def mates(unit: int, group: list[int]) -> int:
        label = labels.get(unit)
        return sum(1 for other in group if label and labels.get(other) == label)

    def spread(swap: bool) -> list[list[int]]:
        out: list[list[int]] = [[] for _ in range(groups)]
        for start in range(0, len(units), groups):
            lap = start // groups
            placed: dict[int, int] = {}  # group index -> unit of this lap
            for place, unit in enumerate(units[start : start + groups]):
                placed[place if lap % 2 == 0 else groups - 1 - place] = unit
            for g in sorted(placed) if swap else ():
                if not mates(placed[g], out[g]):
                    continue
                for h in sorted(placed):
                    if h == g:
                        continue
                    a, b = placed[g], placed[h]
                    if not mates(a, out[h]) and not mates(b, out[g]):
                        placed[g], placed[h] = b, a
                        break
            for g, unit in placed.items():
                out[g].append(unit)
        position = {u: i for i, u in enumerate(units)}
        return [sorted(group, key=position.__getitem__) for group in out]

    def together(result: list[list[int]]) -> int:
        return sum(mates(unit, group[:i]) for group in result for i, unit in enumerate(group))

    plain = spread(swap=False)
    if not labels:
        return plain
    swapped = spread(swap=True)
    return swapped if together(swapped) <= together(plain) else plain


def group_round_robin(
    units: Sequence[int], groups: int, team: Mapping[int, str] | None = None, cycles: int = 1
) -> list[list[Game]]:
    """Every round of a group round robin: the units spread by :func:`serpentine_groups`,
    each group a :func:`round_robin` of its own, round *r* of every group paired in round *r*
    (the groups' games in group order, the byes last). A group smaller by one has its last
    round off when the others need one more. Units of different groups never meet. ``team``
    (a team event): teammates spread over the groups while the tiers allow it
    (:func:`serpentine_groups`), and each group's teammates meet in its first rounds
    (:func:`round_robin`). ``cycles`` 2 (a double round robin in every group): the whole
    first cycle again, sides swapped (:func:`play_cycles`), so every group starts its second
    cycle in the same round, the one after the largest group's first cycle."""
    _check_cycles(cycles)
    schedules = [round_robin(group, team) for group in serpentine_groups(units, groups, team)]
    rounds = []
    for r in range(max((len(s) for s in schedules), default=0)):
        games = [game for schedule in schedules if r < len(schedule) for game in schedule[r]]
        games.sort(key=lambda g: g.is_bye)
        rounds.append(games)
    return play_cycles(rounds, cycles)


def round_robin_rounds(size: int, cycles: int = 1) -> int:
    """How many rounds :func:`round_robin` of ``size`` units played ``cycles`` times takes: a
    cycle is ``size - 1`` rounds (even) or ``size`` (odd: a bye each round; one unit: a round
    of its bye), none for no unit."""
    _check_cycles(cycles)
    return cycles * max(0, size - 1 if size % 2 == 0 else size)


def group_seeds(groups: Sequence[Sequence[int]], per_group: int) -> list[int]:
    """The seeding order of a stage after a group round robin: the top ``per_group`` of each
    group (each group in its ranking order), all the group winners first (A1, B1, …), then
    all the seconds (A2, B2, …), and so on. A knockout placing these seeds serpentine
    (:func:`bracket_order`) gives the group winners the top seeds, so they meet no winner in
    the first round; with the top two of two, four or eight groups no first-round game is
    between two of one group (two groups: A1 v B2 and B1 v A2)."""
    out = []
    for place in range(per_group):
        out.extend(group[place] for group in groups if place < len(group))
    return out


# --------------------------------------------------------------------------- elimination
def bracket_order(size: int) -> list[int]:
    """Seed numbers (1-based) in bracket order for a bracket of ``size`` (a power of two):
    ``[1, 8, 4, 5, 2, 7, 3, 6]`` for 8, so seeds 1 and 2 can only meet in the final."""
    if size < 1 or size & (size - 1):
        raise ValueError("bracket size must be a power of two")
    order = [1]
    while len(order) < size:
        total = len(order) * 2 + 1
        order = [x for seed in order for x in (seed, total - seed)]
    return order


def elimination_first_round(seeds: Sequence[int]) -> list[Game]:
    """First round of a single-elimination bracket (淘汰赛) for units in seeding order.

    The bracket is the next power of two; the missing places are byes, which go to the top
    seeds. Games are in bracket order: the winners of games ``2k`` and ``2k + 1`` meet next.
    """
    if len(set(seeds)) != len(seeds):
        raise ValueError("a unit appears twice")
    if len(seeds) < 2:
        raise ValueError("an elimination needs two units")
    size = 1
    while size < len(seeds):
        size *= 2
    order = bracket_order(size)
    games = []
    for i in range(0, size, 2):
        a, b = order[i], order[i + 1]
        ua = seeds[a - 1] if a <= len(seeds) else None
        ub = seeds[b - 1] if b <= len(seeds) else None
        if ua is None:
            ua, ub = ub, None
        games.append(Game(((ua,), (ub,) if ub is not None else ())))  # type: ignore[arg-type]
    return games


def elimination_next_round(
    winners: Sequence[int], losers: Sequence[int | None] = (), third_place: bool = False
) -> list[Game]:
    """The next elimination round: winners of games ``2k`` and ``2k + 1`` of the previous
    round (in bracket order) meet. When the round is the final and ``third_place`` is set, the
    two losers of the semi-finals play for third place (the game after the final)."""
    if len(winners) < 2 or len(winners) % 2:
        raise ValueError("an elimination round needs an even number of winners")
    games = [Game(((winners[i],), (winners[i + 1],))) for i in range(0, len(winners), 2)]
    real_losers = [u for u in losers if u is not None]
    if len(winners) == 2 and third_place and len(real_losers) == 2:
        games.append(Game(((real_losers[0],), (real_losers[1],))))
    return games


def elimination_rounds(count: int) -> int:
    """How many rounds a single elimination of ``count`` units takes."""
    rounds, size = 0, 1
    while size < count:
        size *= 2
        rounds += 1
    return rounds


# --------------------------------------------------------------------------- individual
W_TEAM = 10**14
W_PARTNER = 10**18
W_OPPONENT = 10**13


def individual_round(
    players: Sequence[int], scores: Mapping[int, float], history: History
) -> list[Game]:
    """Seat single players at four-player tables for one round of an individual event.

    When the number of players is not a multiple of four, the remaining 1 to 3 players have a
    bye (each a game with an empty second side): the lowest-ranked among those with the fewest
    byes. Partnerships are then a minimum-cost perfect matching (a repeated partner costs most,
    then two members of one team as partners, then the score gap), and the partnerships meet
    at tables by a second matching (opponents met before, then the score gap).
    """
    if len(set(players)) != len(players):
        raise ValueError("a player appears twice")
    ranked = _order(players, scores)
    rank = {u: i for i, u in enumerate(ranked)}
    sitting_out = len(ranked) % 4
    if len(ranked) < 4:
        sitting_out = len(ranked)
    byes = sorted(ranked, key=lambda u: (history.byes[u], -rank[u]))[:sitting_out]
    playing = [u for u in ranked if u not in byes]
    cost: dict[tuple[object, object], int] = {}
    for i, a in enumerate(playing):
        for b in playing[i + 1 :]:
            gap = _scaled(scores.get(a, 0)) - _scaled(scores.get(b, 0))
            same = bool(history.team.get(a)) and history.team.get(a) == history.team.get(b)
            cost[(a, b)] = (
                W_PARTNER * history.partnered[_key(a, b)]
                + W_TEAM * same
                + W_SCORE * gap * gap
                + W_RANK * abs(rank[a] - rank[b])
            )
    pairs = [tuple(sorted(edge, key=rank.__getitem__)) for edge in _matching(playing, cost)]
    pairs.sort(key=lambda p: rank[p[0]])
    table_cost: dict[tuple[object, object], int] = {}
    for i, p in enumerate(pairs):
        for q in pairs[i + 1 :]:
            met = sum(history.met[_key(x, y)] for x in p for y in q)
            gap = sum(_scaled(scores.get(u, 0)) for u in p) - sum(
                _scaled(scores.get(u, 0)) for u in q
            )
            table_cost[(p, q)] = (
                W_OPPONENT * met + W_SCORE * gap * gap + W_RANK * abs(rank[p[0]] - rank[q[0]])
            )
    games = []
    for p, q in _matching(pairs, table_cost):
        first, second = (p, q) if rank[p[0]] < rank[q[0]] else (q, p)
        games.append(Game((first, second)))
    games.sort(key=lambda g: min(rank[u] for u in g.units))
    games.extend(Game(((u,), ())) for u in byes)
    return explain_games(games, scores, history)
