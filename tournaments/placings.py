"""Final placings of a knockout (淘汰赛 名次), pure Python: no Django import.

A knockout ranks its entries by where they went out, not by their games' results:

* **Single elimination** (第二十六条一): the winner 1, the final's loser 2, the semi-finals'
  losers 3–4 (one band; 3 and 4 when the event plays a third-place game), the quarter-finals'
  losers 5–8, and so on; the first round's losers share the places left (with byes, fewer
  than half the bracket: 6 entries give 5–6). A tie of several games (第三十条) counts as
  one: its winner goes on, its loser is out.
* **Double elimination** (第二十六条二, 附录六; :mod:`tournaments.brackets`): an entry is out
  in the losers' bracket or in the final. The final's winner is 1, its loser 2, the losers'
  final's loser 3, then each stage of the losers' bracket, latest first, shares a band as
  wide as its games (a bye puts nobody out).

Entries not out yet are **in play**: their band is every place still open to them, from 1
(or 3 for the two playing for third place) down to the place they would have if they lost
their next game. In a double elimination that is 1 for an entry in the losers' bracket too:
it can still win it and then the final, one game whose winner is 1. Bands of the entries out never change as more results come in; once the
bracket is complete the bands partition 1 … n.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tournaments import brackets, pairing


@dataclass(frozen=True)
class Placing:
    """An entry's place band: ``first`` … ``last`` (equal for a single place); ``in_play``
    while it is still in the event (the band is then the places still open to it)."""

    first: int
    last: int
    in_play: bool = False

    @property
    def label(self) -> str:
        """The band as printed: ``3`` or ``3–4``."""
        return str(self.first) if self.first == self.last else f"{self.first}–{self.last}"


@dataclass(frozen=True)
class KnockoutTie:
    """One tie (one game or a series) of a single elimination: its ``round``, its two units
    (the second None for a bye), the unit going through (None until decided) and whether it
    is the third-place tie."""

    round: int
    units: tuple[int, int | None]
    winner: int | None
    third_place: bool = False


def single_elimination(
    count: int, ties: Sequence[KnockoutTie], third_place: bool = False
) -> dict[int, Placing]:
    """The placings of a single elimination of ``count`` units from its ``ties`` so far
    (``third_place``: the event plays a third-place game, played with four units or more).
    Every unit of a tie gets one; a unit still in is ``in_play``. Raises ``ValueError`` for
    fewer than two units."""
    if count < 2:
        raise ValueError("an elimination needs two units")
    total = pairing.elimination_rounds(count)

    def reached(r: int) -> int:  # units that play round r (after it: the next round's)
        if r > total:
            return 1
        return count if r == 1 else 2 ** (total - r + 1)

    plays_third = third_place and count >= 4 and total >= 2
    out: dict[int, Placing] = {}
    last_round: dict[int, tuple[int, bool]] = {}  # unit -> (latest round, won it or pending)
    third = next((t for t in ties if t.third_place), None)
    for tie in sorted(ties, key=lambda t: t.round):
        if tie.third_place:
            continue
        for unit in tie.units:
            if unit is not None:
                last_round[unit] = (tie.round, tie.winner == unit)
        if tie.winner is None or tie.units[1] is None:
            continue
        loser = tie.units[1] if tie.winner == tie.units[0] else tie.units[0]
        if loser is None:
            continue
        if tie.round == total:
            out[tie.winner] = Placing(1, 1)
            out[loser] = Placing(2, 2)
        elif plays_third and tie.round == total - 1:
            out[loser] = Placing(3, 4, in_play=True)
        else:
            out[loser] = Placing(reached(tie.round + 1) + 1, reached(tie.round))
    if plays_third and third is not None and third.winner is not None:
        for unit in third.units:
            if unit is not None:
                out[unit] = Placing(3, 3) if unit == third.winner else Placing(4, 4)
    for unit, (r, won) in last_round.items():
        if unit not in out:
            following = r + 1 if won else r
            out[unit] = Placing(1, reached(following), in_play=True)
    return out


def _structure(slots: Sequence[brackets.Slot], count: int) -> dict[int, str]:
    """Each slot's kind whatever the results: ``game``, ``bye`` or ``void`` (a side is
    nobody only where a seed is missing, and that carries on the same way every time)."""
    kind: dict[int, str] = {}
    for slot in slots:
        real = 0
        for source in slot.sources:
            if source.kind == "seed":
                real += source.ref <= count
            elif source.kind == "winner":
                real += kind[source.ref] != "void"
            else:
                real += kind[source.ref] == "game"
        kind[slot.id] = ("void", "bye", "game")[real]
    return kind


def double_elimination(seeds: Sequence[int], winners: Mapping[int, int]) -> dict[int, Placing]:
    """The placings of a double elimination of the units ``seeds`` (in seeding order) from
    the winner of each played slot (``winners``: slot id → unit;
    :func:`tournaments.brackets.resolve`). Raises ``ValueError`` for fewer than two units or
    a winner who did not play in its slot."""
    count = len(seeds)
    slots = brackets.double_elimination(count)
    kind = _structure(slots, count)
    known = brackets.resolve(slots, seeds, winners)
    # each band: the final's two, then the losers' stages, the latest first
    band: dict[tuple[str, int], tuple[int, int]] = {(brackets.FINAL, 1): (2, 2)}
    place = 3
    stages = sorted({s.stage for s in slots if s.bracket == brackets.LOSERS}, reverse=True)
    for stage in stages:
        games = sum(
            1
            for s in slots
            if s.bracket == brackets.LOSERS and s.stage == stage and kind[s.id] == "game"
        )
        if games:
            band[(brackets.LOSERS, stage)] = (place, place + games - 1)
            place += games
    feeds = {(src.kind, src.ref): slot.id for slot in slots for src in slot.sources}

    def worst(slot_id: int) -> int:
        """The place of a unit playing slot ``slot_id`` if it lost every game from there."""
        while True:
            slot = slots[slot_id]
            if kind[slot_id] == "bye":
                slot_id = feeds[("winner", slot_id)]
            elif slot.bracket == brackets.WINNERS:
                slot_id = feeds[("loser", slot_id)]
            else:
                return band[(slot.bracket, slot.stage)][1]

    out: dict[int, Placing] = {}
    where: dict[int, int] = {}  # unit -> the slot it plays next (or is playing)
    for found in known.values():  # in slot order
        slot = found.slot
        for unit in found.units:
            if unit is None:
                continue
            if not found.decided:
                where[unit] = slot.id
            elif unit == found.winner:
                where[unit] = feeds.get(("winner", slot.id), slot.id)
            else:
                where[unit] = feeds[("loser", slot.id)] if slot.bracket == brackets.WINNERS else -1
        if found.kind != "game" or found.loser is None:
            continue
        if slot.bracket == brackets.FINAL:
            out[found.winner] = Placing(1, 1)  # type: ignore[index]
            out[found.loser] = Placing(2, 2)
        elif slot.bracket == brackets.LOSERS:
            first, last = band[(brackets.LOSERS, slot.stage)]
            out[found.loser] = Placing(first, last)
    for unit, slot_id in where.items():
        if unit not in out and slot_id >= 0:
            out[unit] = Placing(1, worst(slot_id), in_play=True)
    return out


def ranked(placings: Mapping[int, Placing], order: Sequence[int]) -> list[int]:
    """The units of ``order`` (a ranking to keep among equals: the games' standings, or the
    seeding order) ranked by their placings: by the worst place open to each, an entry in
    play before one out with the same band, then the better band; units without a placing
    last, in their order."""
    index = {unit: i for i, unit in enumerate(order)}
    far = len(order) + 1

    def key(unit: int) -> tuple[int, int, int, int]:
        p = placings.get(unit)
        if p is None:
            return (far, 1, far, index[unit])
        return (p.last, 0 if p.in_play else 1, p.first, index[unit])

    return sorted(order, key=key)
