"""Fingerprints of what the engine shows and stores, to check that a speed-up changed nothing.

``python -m bench.engine_hashes [--matches N]`` prints one JSON object of SHA-256 prefixes:

- per variant (``guandan``, ``bao2``, ``honger``, ``shuangkou2``): ``N`` seeded matches of
  random bots (at most 6 deals each; every other one with ``show_history``, one with a deal
  limit and ``play_on_tie``; card-count asks, referee sanctions and a time-up thrown in at
  seeded moments), hashing at every step each seat's and a spectator's observation, each
  seat's light view (``Match.play_view``) and legal actions (with any refusal met), then the
  stored match (``to_json``), its full state (``state_json``) and the final observations;
- ``<variant>_light``: the stored form of ``bench.engine_speed.play_random_match`` on the
  light and on the full observation path for the same seeds (must be equal: one hash);
- ``heuristic_<variant>``: matches of the heuristic bot (普通) at every seat, each action and
  observation hashed; ``search_guandan`` / ``search_bao2``: a few decisions of the search bot
  with a fixed number of playouts (deterministic);
- ``bots_source``: the hash of the bot modules the engine does not own (heuristic, search,
  memory, policy, points), so that a changed bot is not mistaken for a changed engine.

Run it before and after a change of the engine: every value must stay the same.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

from bench.engine_speed import play_random_match
from engine.actions import Refusal
from engine.bots import HeuristicBot, RandomBot, SearchBot
from engine.match import Match
from engine.variants import VARIANT_NAMES, deal_rules

BOT_FILES = ("heuristic.py", "search.py", "memory.py", "policy.py", "points.py")


def _update(h: Any, value: Any) -> None:
    h.update(json.dumps(value, default=repr).encode())
    h.update(b"\n")


def random_match(variant: str, seed: int, options: dict[str, Any], h: Any) -> None:
    """One random match with asks, sanctions and time-up, every view hashed into ``h``."""
    m = Match.new(variant, seed, options)
    seats = deal_rules(variant).seats
    bots = [RandomBot(f"{seed}/{s}") for s in range(seats)]
    rng = random.Random(seed)
    step = 0
    while not m.over and m.deal_no < 6:
        for v in [None, *range(seats)]:
            _update(h, m.observation(v))
            if v is not None:
                _update(h, m.play_view(v))
                _update(h, [a.to_json() for a in m.legal_actions(v)])
        r = rng.random()
        if r < 0.03 and m.deal.phase == "play":
            for target in range(seats):
                if 7 <= m.deal.sizes[target] <= 10:
                    m.apply({"seat": (target + 1) % seats, "ask": target})
                    break
        elif r < 0.035 and m.deal.phase == "play":
            sanction = rng.choice(["suspend_follow", "revoke_initiative", "yellow"])
            try:
                m.apply({"sanction": sanction, "target": rng.randrange(seats)})
            except Refusal as e:
                _update(h, e.to_json())
        elif r < 0.04:
            # a refused action: the refusal and an unchanged state
            seat = m.to_move()
            if seat is not None:
                try:
                    m.apply({"seat": (seat + 1) % seats, "pass": True})
                except Refusal as e:
                    _update(h, e.to_json())
        if step == 250 and seed % 4 == 2:
            m.apply({"time_up": True})
        seat = m.to_move()
        if seat is None:
            break
        m.apply(bots[seat].choose(m.observation(seat), m.legal_actions(seat)))
        step += 1
    _update(h, m.to_json())
    _update(h, m.state_json())
    for v in [None, *range(seats)]:
        _update(h, m.observation(v))


def bot_match(variant: str, seed: int, make: Any, h: Any, max_deals: int, max_steps: int) -> None:
    """A match of ``make(seat)`` bots, each action and the acting seat's observation hashed."""
    m = Match.new(variant, seed)
    seats = deal_rules(variant).seats
    bots = [make(s) for s in range(seats)]
    steps = 0
    while not m.over and m.deal_no < max_deals and steps < max_steps:
        seat = m.to_move()
        assert seat is not None
        obs = m.observation(seat)
        _update(h, obs)
        act = bots[seat].choose(obs, lambda s=seat: m.legal_actions(s))
        _update(h, act.to_json())
        m.apply(act)
        steps += 1
    _update(h, m.to_json())


def fingerprints(matches: int) -> dict[str, str]:
    """The JSON object the script prints (see the module docstring)."""
    out: dict[str, str] = {}
    for variant in VARIANT_NAMES:
        h = hashlib.sha256()
        for seed in range(matches):
            opts: dict[str, Any] = {"show_history": seed % 2 == 1}
            if seed == 3 and variant in ("guandan", "bao2"):
                opts["deals"] = 2
                opts["play_on_tie"] = True
            random_match(variant, 500 + seed, opts, h)
        out[variant] = h.hexdigest()[:16]
        light = hashlib.sha256()
        full = hashlib.sha256()
        for seed in range(matches // 4):
            _update(light, play_random_match(variant, 1000 + seed, max_deals=8).to_json())
            _update(full, play_random_match(variant, 1000 + seed, max_deals=8, full=True).to_json())
        out[f"{variant}_light"] = light.hexdigest()[:16]
        if full.hexdigest() != light.hexdigest():
            out[f"{variant}_light"] += " != full " + full.hexdigest()[:16]
    for variant in VARIANT_NAMES:
        h = hashlib.sha256()
        for seed in range(2):
            bot_match(variant, 700 + seed, lambda s: HeuristicBot(), h, 4, 2000)
        out[f"heuristic_{variant}"] = h.hexdigest()[:16]
    for variant in ("guandan", "bao2"):
        h = hashlib.sha256()
        bot_match(
            variant, 800, lambda s: SearchBot(f"800/{s}", playouts=16), h, max_deals=1, max_steps=60
        )
        out[f"search_{variant}"] = h.hexdigest()[:16]
    src = hashlib.sha256()
    bots_dir = Path(__file__).resolve().parent.parent / "engine" / "bots"
    for name in BOT_FILES:
        src.update((bots_dir / name).read_bytes())
    out["bots_source"] = src.hexdigest()[:16]
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the fingerprints."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=16, help="seeded matches per variant")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    print(json.dumps(fingerprints(args.matches), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
