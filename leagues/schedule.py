"""A division's round robin schedule (循环赛), pure Python: no Django import.

Entries are ints. :func:`round_robin` draws every round by the circle method (Berger tables):
one entry stays fixed while the others turn around it, so each pair meets exactly once per
cycle. With an odd number of entries a phantom joins, and whoever meets it has the bye: each
entry has exactly one bye per cycle, and no two byes of an entry are closer than a cycle.
Home and away alternate (the fixed entry switches every round, the others by their place in
the circle), so over a single cycle each entry's home and away counts differ by at most one;
a double round robin plays the same cycle again with every pairing reversed, so each pair
meets twice, once at each home.

Swiss divisions are drawn round by round from the standings by the shared Swiss pairing
(``leagues.bridge.swiss_round``), not here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: Most entries in one division (bounds the work of a draw).
MAX_ENTRIES = 64


@dataclass(frozen=True)
class Pairing:
    """One fixture of a round: ``home`` against ``away`` (None: ``home`` has the bye)."""

    home: int
    away: int | None

    @property
    def is_bye(self) -> bool:
        """True when ``home`` plays nobody this round."""
        return self.away is None


def round_robin(entries: Sequence[int], cycles: int = 1) -> list[list[Pairing]]:
    """Every round of a round robin of ``entries`` played ``cycles`` times (1 or 2).

    Each round lists its fixtures, then its bye (if the number of entries is odd). Raises
    ``ValueError`` for a repeated entry, more than :data:`MAX_ENTRIES` entries or a cycle
    count other than 1 or 2. Fewer than two entries have no rounds.
    """
    if len(set(entries)) != len(entries):
        raise ValueError("an entry appears twice")
    if len(entries) > MAX_ENTRIES:
        raise ValueError("too many entries")
    if cycles not in (1, 2):
        raise ValueError("a round robin has one or two cycles")
    if len(entries) < 2:
        return []
    slots: list[int | None] = list(entries)
    if len(slots) % 2:
        slots.append(None)
    n = len(slots)
    fixed, ring = slots[-1], slots[:-1]
    first: list[list[Pairing]] = []
    for r in range(n - 1):
        games: list[tuple[int | None, int | None]] = []
        # the fixed slot meets the ring's current head, switching home and away every round
        head = ring[r % (n - 1)]
        games.append((head, fixed) if r % 2 == 0 else (fixed, head))
        for i in range(1, n // 2):
            a = ring[(r + i) % (n - 1)]
            b = ring[(r - i) % (n - 1)]
            games.append((a, b) if i % 2 else (b, a))
        first.append(_pairings(games))
    if cycles == 1:
        return first
    second = [
        _pairings([(p.away, p.home) for p in games if not p.is_bye] + _byes(games))
        for games in first
    ]
    return first + second


def _byes(games: list[Pairing]) -> list[tuple[int | None, int | None]]:
    return [(p.home, None) for p in games if p.is_bye]


def _pairings(games: Sequence[tuple[int | None, int | None]]) -> list[Pairing]:
    """Fixtures first, then the bye (the entry that met the phantom)."""
    out = [Pairing(a, b) for a, b in games if a is not None and b is not None]
    out += [Pairing(a if a is not None else b, None) for a, b in games if a is None or b is None]  # type: ignore[arg-type]
    return out


def rounds_needed(count: int, cycles: int = 1) -> int:
    """How many rounds a round robin of ``count`` entries takes."""
    if count < 2:
        return 0
    return (count if count % 2 else count - 1) * cycles


def promote_relegate(divisions: Sequence[Sequence[int]], up: int, down: int) -> list[list[int]]:
    """The next season's divisions from this season's final orders (top division first):
    the ``up`` best of every division but the top go up one, the ``down`` last of every
    division but the lowest go down one (never more than a division has: promotion first).

    Each new division lists, in seeding order, those relegated into it, those who stay and
    those promoted into it. Every entry appears exactly once.
    """
    if up < 0 or down < 0:
        raise ValueError("negative promotion or relegation")
    last = len(divisions) - 1
    rising: list[list[int]] = []
    falling: list[list[int]] = []
    staying: list[list[int]] = []
    for i, ranked in enumerate(divisions):
        ups = min(up, len(ranked)) if i > 0 else 0
        downs = min(down, len(ranked) - ups) if i < last else 0
        rising.append(list(ranked[:ups]))
        falling.append(list(ranked[len(ranked) - downs :]) if downs else [])
        staying.append(list(ranked[ups : len(ranked) - downs]))
    return [
        (falling[i - 1] if i > 0 else []) + staying[i] + (rising[i + 1] if i < last else [])
        for i in range(len(divisions))
    ]
