"""Bots that act only on their own observation (and the legal actions the platform offers).

Every bot implements ``choose(observation, legal_actions) -> Action``. ``legal_actions`` may
be a list of :class:`~engine.actions.Action` or a zero-argument callable returning it (lazy).
They never see another hand: a bot's input is exactly what
:meth:`engine.match.Match.observation` gives its seat.

- :class:`RandomBot` (``random``, 入门 easy, seeded): a uniformly random abstract play (or pass).
- :class:`HeuristicBot` (``heuristic``, 普通 normal): one sensible fixed line.
- :class:`SearchBot` (``search``, 高手 strong): determinized Monte Carlo search over the
  hidden hands, time-bounded per decision (:mod:`engine.bots.search`).
- :class:`PointsHeuristicBot`: the heuristic of the point-scored games (Red Two, Shuangkou).

:func:`make_bot` builds a bot by kind; :func:`play_match` plays a match between bots.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from engine.bots.heuristic import HeuristicBot
from engine.bots.points import PointsHeuristicBot, known_partners
from engine.bots.random import RandomBot
from engine.bots.search import SearchBot
from engine.match import Match

__all__ = [
    "ARENA_KINDS",
    "BOT_KINDS",
    "HeuristicBot",
    "PointsHeuristicBot",
    "RandomBot",
    "SearchBot",
    "heuristic_vs_random",
    "known_partners",
    "make_bot",
    "play_match",
]

#: Bot kinds, weakest first: 入门 (easy), 普通 (normal), 高手 (strong).
BOT_KINDS = ("random", "heuristic", "search")
#: Kinds the arenas also accept: the bots as they were before the hand plan (issue 44), kept
#: to measure the planned ones against (``heuristic-v1``, ``search-v1``).
ARENA_KINDS = BOT_KINDS + ("heuristic-v1", "search-v1")
#: The longest a search bot thinks per decision, whatever the clock allows.
MAX_BUDGET_MS = 1000.0


def make_bot(kind: str, seed: int | str | None = None, budget_ms: float | None = None) -> Any:
    """A bot of ``kind`` (one of :data:`ARENA_KINDS`) seeded with ``seed``; a search bot thinks
    at most ``budget_ms`` (capped at :data:`MAX_BUDGET_MS`). ``ValueError`` for another kind."""
    if kind == "random":
        return RandomBot(seed)
    if kind in ("heuristic", "heuristic-v1"):
        return HeuristicBot(plan=kind == "heuristic")
    if kind in ("search", "search-v1"):
        budget = MAX_BUDGET_MS if budget_ms is None else min(MAX_BUDGET_MS, budget_ms)
        bot = SearchBot(seed, budget_ms=max(1.0, budget))
        if kind == "search-v1":
            bot.heuristic = HeuristicBot(plan=False)
        return bot
    raise ValueError(f"unknown bot kind: {kind!r}")


def play_match(variant: str, seed: int, bots: Sequence[Any], max_deals: int = 500) -> Match:
    """Play one match with ``bots[seat]`` choosing for each seat from its observation."""
    match = Match.new(variant, seed)
    while not match.over and match.deal_no < max_deals:
        seat = match.to_move()
        if seat is None:  # no seat to move: the match is over (or stuck), nothing to play
            break
        action = bots[seat].choose(match.observation(seat), lambda s=seat: match.legal_actions(s))
        match.apply(action)
    return match


def heuristic_vs_random(variant: str = "bao2", matches: int = 200) -> dict[str, Any]:
    """Seeded matches of a :class:`HeuristicBot` team against a :class:`RandomBot` team (the
    heuristic team alternates between team 0 and team 1): wins, losses, draws."""
    wins = losses = other = deals = 0
    for seed in range(matches):
        team = seed % 2
        bots = [HeuristicBot() if s % 2 == team else RandomBot(f"{seed}/{s}") for s in range(4)]
        match = play_match(variant, seed, bots)
        deals += len(match.deals)
        winner = match.winner
        if match.rules.scoring == "points":  # per-seat points: team totals
            score = match.score or []
            totals = [sum(score[s] for s in range(len(score)) if s % 2 == t) for t in (0, 1)]
            winner = None if totals[0] == totals[1] else int(totals[1] > totals[0])
        if winner == team:
            wins += 1
        elif winner == 1 - team:
            losses += 1
        else:
            other += 1
    return {
        "variant": variant,
        "matches": matches,
        "heuristic_wins": wins,
        "random_wins": losses,
        "unfinished_or_drawn": other,
        "win_rate": round(wins / matches, 3),
        "deals": deals,
    }


def main(argv: list[str] | None = None) -> int:
    """``python -m engine.bots [VARIANT] [MATCHES]``: print :func:`heuristic_vs_random`."""
    args = sys.argv[1:] if argv is None else argv
    variant = args[0] if args else "bao2"
    matches = int(args[1]) if len(args) > 1 else 200
    print(json.dumps(heuristic_vs_random(variant, matches)))
    return 0
