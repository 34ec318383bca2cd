"""Pairing speed: ``python -m bench.pairing`` prints how long one Swiss round and one
individual-event round (rotating partners, and Red Two tables) take to pair for fields of
several sizes (pure code, no database)."""

from __future__ import annotations

import random
import time

from tournaments import pairing, standings


def _play(games: list[pairing.Game], rng: random.Random) -> list[standings.Record]:
    records: list[standings.Record] = []
    for game in games:
        scores = None if game.is_bye else (rng.randint(2, 14), rng.randint(2, 14))
        records += standings.records_of_game(game.sides, scores)
    return records


def bench(kind: str, size: int, rounds: int = 5, seed: int = 1) -> float:
    """Mean seconds to pair one round of ``kind`` (swiss / individual / tables: Red Two) with
    ``size`` units."""
    rng = random.Random(seed)
    units = list(range(size))
    history = pairing.History()
    records: list[standings.Record] = []
    spent = 0.0
    for _ in range(rounds):
        scores = standings.match_points(records)
        start = time.perf_counter()
        if kind == "swiss":
            games = pairing.swiss_round(units, scores, history)
        elif kind == "tables":
            games = pairing.table_round(units, scores, history)
        else:
            games = pairing.individual_round(units, scores, history)
        spent += time.perf_counter() - start
        if kind == "tables":
            for game in games:
                if game.is_bye:
                    records += standings.records_of_game(game.sides, None)
                else:
                    totals = [rng.randint(-20, 20) for _ in range(3)]
                    records += standings.records_of_table(game.units, [*totals, -sum(totals)])
                history.add_table(game)
            continue
        records += _play(games, rng)
        for game in games:
            history.add(game)
    return spent / rounds


def main() -> None:
    """Print the figures."""
    for kind, sizes in (
        ("swiss", (16, 64, 128, 256)),
        ("individual", (32, 64, 128, 256)),
        ("tables", (32, 64, 128, 256)),
    ):
        for size in sizes:
            print(f"{kind:10s} {size:4d} units: {bench(kind, size) * 1000:8.1f} ms per round")


if __name__ == "__main__":
    main()
