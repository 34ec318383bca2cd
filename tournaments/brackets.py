"""Double-elimination brackets (双败淘汰赛, 第二十六条二 and 附录六), pure Python: no Django.

A bracket is a fixed list of :class:`Slot` s — its games — built from the number of units
alone (:func:`double_elimination`); who plays in a slot is read from the seeds and the
winners of the slots before it (:func:`resolve`), so a corrected result re-reads everything
after it.

* **Winners' bracket** (胜区): a single elimination of the units in seeding order, seeded
  with :func:`tournaments.pairing.bracket_order` (1 v 16, 8 v 9, …: the serpentine seeding of
  第二十六条一; byes to the top seeds when the units are not a power of two).
* **Losers' bracket** (负区): its stage 1 pairs the losers of the winners' first round
  (games 2p and 2p + 1, the neighbouring seed sections); from then on stages alternate: a
  *drop* stage in which the survivors meet the losers of the next winners' round, then a stage
  among the survivors only. Where a loser drops is :func:`drop_place` (reversed, then the
  halves swapped, alternately): nobody meets a unit a second time in the first half of the
  losers' bracket (its stages 1 … k − 1 of 2(k − 1), for 2^k places);
  ``tests/tournaments/test_brackets.py`` checks it over random brackets. Later rematches cannot
  all be avoided (with 8 units the losers' final may be one).
* **Final** (决赛): the winners' bracket's champion against the losers'. One game: how the
  final is decided is for the event's regulations (附录六's note); a unit is out after its
  second loss, or after losing the final.

A slot whose sides are both known is a game; one known side and one *nobody* (a bye of the
first round, carried on) is a bye, its unit going on; two nobodies is a void slot, skipped.
Slots are played in tournament rounds: a slot's round is one more than the latest round of
the slots that feed it (the winners' round ``r`` is round ``r``; 16 units take 8 rounds).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tournaments.pairing import Game, bracket_order

WINNERS, LOSERS, FINAL = "W", "L", "F"


@dataclass(frozen=True)
class Source:
    """Where a side of a slot comes from: ``seed`` (``ref`` is the seed number, from 1), or
    the ``winner`` / ``loser`` of slot ``ref``."""

    kind: str
    ref: int


@dataclass(frozen=True)
class Slot:
    """One game of the bracket: its id (its place in :func:`double_elimination`'s list),
    bracket (``W``, ``L``, ``F``), stage within the bracket (from 1), index within the stage
    (top to bottom), the tournament round it is played in, and its two sides' sources."""

    id: int
    bracket: str
    stage: int
    index: int
    round: int
    sources: tuple[Source, Source]


def _size(count: int) -> tuple[int, int]:
    if isinstance(count, bool) or not isinstance(count, int) or count < 2:
        raise ValueError("a double elimination needs two units")
    size, k = 1, 0
    while size < count:
        size *= 2
        k += 1
    return size, k


def drop_place(winners_round: int, stage_games: int, game: int) -> int:
    """The place in its losers' drop stage (of ``stage_games`` places) of the loser of game
    ``game`` of winners' round ``winners_round`` (2 or more): reversed after an even round
    (the top game's loser to the bottom place), the halves swapped after an odd one. The two
    alternate so that the units a dropping unit beat went into the other half of the place it
    drops to, at every scale, for as long as the bracket allows."""
    if stage_games < 2:
        return game
    if winners_round % 2 == 0:
        return stage_games - 1 - game
    return (game + stage_games // 2) % stage_games


def double_elimination(count: int) -> list[Slot]:
    """The slots of a double elimination of ``count`` units (2 or more): the winners'
    bracket round by round, the losers' bracket stage by stage, then the final. Raises
    ``ValueError`` for fewer than two units."""
    size, k = _size(count)
    order = bracket_order(size)
    slots: list[Slot] = []
    where: dict[tuple[str, int, int], int] = {}
    rounds: dict[int, int] = {}

    def add(bracket: str, stage: int, index: int, a: Source, b: Source) -> None:
        feeders = [s.ref for s in (a, b) if s.kind != "seed"]
        number = 1 + max((rounds[f] for f in feeders), default=0)
        slot = Slot(len(slots), bracket, stage, index, number, (a, b))
        where[(bracket, stage, index)] = slot.id
        rounds[slot.id] = number
        slots.append(slot)

    def w(bracket: str, stage: int, index: int) -> Source:
        return Source("winner", where[(bracket, stage, index)])

    def lost(bracket: str, stage: int, index: int) -> Source:
        return Source("loser", where[(bracket, stage, index)])

    for g in range(size // 2):
        add(WINNERS, 1, g, Source("seed", order[2 * g]), Source("seed", order[2 * g + 1]))
    for r in range(2, k + 1):
        for g in range(size // 2**r):
            add(WINNERS, r, g, w(WINNERS, r - 1, 2 * g), w(WINNERS, r - 1, 2 * g + 1))
    if k >= 2:
        for p in range(size // 4):
            add(LOSERS, 1, p, lost(WINNERS, 1, 2 * p), lost(WINNERS, 1, 2 * p + 1))
        for r in range(2, k + 1):
            drop, places = 2 * (r - 1), size // 2**r
            coming = {drop_place(r, places, g): g for g in range(places)}
            for q in range(places):
                add(LOSERS, drop, q, w(LOSERS, drop - 1, q), lost(WINNERS, r, coming[q]))
            if r < k:
                for p in range(places // 2):
                    add(LOSERS, drop + 1, p, w(LOSERS, drop, 2 * p), w(LOSERS, drop, 2 * p + 1))
        champion_of_losers = w(LOSERS, 2 * (k - 1), 0)
    else:
        champion_of_losers = lost(WINNERS, 1, 0)
    add(FINAL, 1, 0, w(WINNERS, k, 0), champion_of_losers)
    return slots


#: A side not decided yet (its feeding game has no winner).
PENDING = object()


@dataclass(frozen=True)
class Resolved:
    """A slot read from the results so far: its two units (None: nobody), whether it is a
    game, a bye or void, and its winner and loser (None: nobody, or not decided yet)."""

    slot: Slot
    units: tuple[int | None, int | None]
    kind: str
    winner: int | None
    loser: int | None

    @property
    def decided(self) -> bool:
        """True once the slot has an outcome (a bye or a void always has)."""
        return self.kind != "game" or self.winner is not None


def resolve(
    slots: Sequence[Slot], seeds: Sequence[int], winners: Mapping[int, int]
) -> dict[int, Resolved]:
    """Every slot whose sides are known, from the units in seeding order (``seeds``) and
    the winning unit of each played slot (``winners``: slot id → unit). A slot with a side
    still waiting on an undecided game is left out. Raises ``ValueError`` for a winner who
    did not play in its slot."""
    out: dict[int, Resolved] = {}
    for slot in slots:  # feeders always come first
        units: list[int | None] = []
        for source in slot.sources:
            if source.kind == "seed":
                units.append(seeds[source.ref - 1] if source.ref <= len(seeds) else None)
                continue
            feeder = out.get(source.ref)
            if feeder is None or not feeder.decided:
                units.append(PENDING)  # type: ignore[arg-type]
                continue
            units.append(feeder.winner if source.kind == "winner" else feeder.loser)
        if any(u is PENDING for u in units):
            continue
        a, b = units
        real = [u for u in units if u is not None]
        if len(real) == 2:
            won = winners.get(slot.id)
            if won is not None and won not in real:
                raise ValueError(f"the winner of slot {slot.id} did not play in it")
            lost = None if won is None else (b if won == a else a)
            out[slot.id] = Resolved(slot, (a, b), "game", won, lost)
        elif len(real) == 1:
            out[slot.id] = Resolved(slot, (a, b), "bye", real[0], None)
        else:
            out[slot.id] = Resolved(slot, (a, b), "void", None, None)
    return out


def rounds_of(count: int) -> int:
    """How many tournament rounds a double elimination of ``count`` units takes."""
    return max(s.round for s in double_elimination(count))


def round_games(
    seeds: Sequence[int], number: int, winners: Mapping[int, int]
) -> list[tuple[Slot, Game]]:
    """The games (and byes) of tournament round ``number``, each with its slot, in slot
    order; void slots are left out. Raises ``ValueError`` when a game of an earlier round
    that feeds this one has no winner yet."""
    slots = double_elimination(len(seeds))
    known = resolve(slots, seeds, winners)
    out = []
    for slot in slots:
        if slot.round != number:
            continue
        found = known.get(slot.id)
        if found is None:
            raise ValueError("a game of an earlier round has no winner yet")
        a, b = found.units
        if found.kind == "game":
            out.append((slot, Game(((a,), (b,)))))  # type: ignore[arg-type]
        elif found.kind == "bye":
            out.append((slot, Game(((found.winner,), ()))))  # type: ignore[arg-type]
    return out
