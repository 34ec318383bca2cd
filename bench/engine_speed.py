"""Benchmark: ``python -m bench.engine_speed [--matches N] [--repeats R]`` prints one JSON object.

Keys (issue 2, item 10):

- ``lead_enum_ms`` / ``lead_enum_moves``: median time and number of card-level moves of
  ``ComboRules.legal_combos`` for the legal leads of the 27-card hand below (Guandan, level 5);
- ``guandan_deals_per_s`` / ``bao2_deals_per_s``: random-vs-random full matches (every seat a
  :class:`~engine.bots.RandomBot` acting on its observation), deals per second of process CPU
  time over the same seeded matches, fastest of ``--repeats`` runs (the machine is shared: wall
  time would measure the neighbours), observation building and full rules checking included;
- ``honger_deals_per_s`` / ``shuangkou2_deals_per_s``: the same, for the point-scored
  variants;
- ``guandan_light_deals_per_s``: the Guandan figure with the bots reading their light
  observation (``Match.play_view``), the path of ``play_random_match``'s default and of the
  side-by-side comparison with DanKS;
- ``peak_memory_mb``: peak resident memory of the process;
- ``match_json_bytes``: size of ``json.dumps(match.to_json())`` of the largest finished match
  played (``match_json_bytes_mean`` the mean), ``lead_abstract_ms`` / ``lead_abstract_moves``
  the bots' abstract-move generation on the same hand.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
from functools import partial
from typing import Any

from engine.bots import RandomBot
from engine.cards import parse_cards
from engine.match import Match
from engine.variants import VARIANT_NAMES, clear_combo_rules_cache, combo_rules, deal_rules

LEAD_HAND = (
    "H5 H5 S3 D3 C3 S4 H4 S6 D6 S7 C7 H7 S8 S9 H9 ST DT HQ CQ SK DK HK SA D2 C2 SB HR"
).split()


def lead_enumeration(runs: int = 200) -> dict[str, Any]:
    """Median time of the card-level and abstract lead enumerations of :data:`LEAD_HAND`."""
    rules = combo_rules("guandan", "5")
    hand = parse_cards(LEAD_HAND)
    times = []
    moves = rules.legal_combos(hand)
    for _ in range(runs):
        t = time.perf_counter()
        rules.legal_combos(hand)
        times.append(time.perf_counter() - t)
    out = {"lead_enum_ms": round(statistics.median(times) * 1e3, 3), "lead_enum_moves": len(moves)}
    abstract = getattr(rules, "abstract_moves", None)
    if abstract is not None:
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            n = len(abstract(hand))
            times.append(time.perf_counter() - t)
        out["lead_abstract_ms"] = round(statistics.median(times) * 1e3, 3)
        out["lead_abstract_moves"] = n
    return out


def play_random_match(
    variant: str, seed: int, max_deals: int = 500, *, full: bool = False
) -> Match:
    """A full match between seeded random bots, each choosing from its seat's light
    observation (:meth:`Match.play_view`, the bots' path), or from the full observation the
    platform sends when ``full``. The same seed plays the same match either way."""
    match = Match.new(variant, seed)
    seats = deal_rules(variant).seats
    bots = [RandomBot(f"{seed}/{s}") for s in range(seats)]
    legal = [partial(match.legal_actions, s) for s in range(seats)]
    view = match.observation if full else match.play_view
    while not match.over and match.deal_no < max_deals:
        seat = match.to_move()
        assert seat is not None
        match.apply(bots[seat].choose(view(seat), legal[seat]))
    return match


def deals_per_second(
    variant: str, matches: int, repeats: int, *, full: bool = True
) -> tuple[float, list[int]]:
    """Play the same ``matches`` seeded random-vs-random matches ``repeats`` times (bots
    reading the full observation, or their light one when not ``full``); deals per second of
    the fastest run (like ``timeit``: the machine is shared, the minimum is the figure least
    disturbed by other processes), and the JSON size of each finished match."""
    best = float("inf")
    deals = 0
    sizes: list[int] = []
    for _ in range(repeats):
        clear_combo_rules_cache()  # no memo carried over from the previous run of these seeds
        start = time.process_time()
        played = [play_random_match(variant, seed, full=full) for seed in range(matches)]
        best = min(best, time.process_time() - start)
        deals = sum(len(m.deals) + (0 if m.over else 1) for m in played)
        sizes = [len(json.dumps(m.to_json())) for m in played if m.over]
    return deals / best, sizes


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the JSON object."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20, help="seeded matches per variant")
    parser.add_argument("--repeats", type=int, default=3, help="runs; the fastest counts")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    out: dict[str, Any] = lead_enumeration()
    sizes: list[int] = []
    for variant in VARIANT_NAMES:
        rate, s = deals_per_second(variant, args.matches, args.repeats)
        out[f"{variant}_deals_per_s"] = round(rate, 1)
        if variant in ("guandan", "bao2"):
            sizes.extend(s)
    out["guandan_light_deals_per_s"] = round(
        deals_per_second("guandan", args.matches, args.repeats, full=False)[0], 1
    )
    usage = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out["peak_memory_mb"] = round(usage / 1024, 1)
    out["match_json_bytes"] = max(sizes) if sizes else None
    out["match_json_bytes_mean"] = round(statistics.mean(sizes)) if sizes else None
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
