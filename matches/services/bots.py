"""The bots that act at live tables: which bot plays a seat, and the bots a worker keeps.

A search bot (高手) remembers the deal as a player does: the hand it began play with and every
play it saw, from its own observations (:class:`engine.bots.SearchBot`). Built afresh for every
action it would know only its hand and the current trick, so each worker process keeps the
search bot of a (match, seat, deal) between that seat's actions (:func:`choose`), at most
:data:`KEPT_BOTS` of them, the least recently used dropped first. A kept bot is used again only
if it took every decision of its seat in the deal so far; otherwise (the worker restarted,
another worker process acted, the person played in between) a fresh bot rebuilds what it can
from the observation, as every bot did before. Nothing a bot keeps comes from outside its own
observations.

Auto-play (托管, :func:`autoplay_bot`) plays the search bot within a bound per move
(``MATCHES_AUTOPLAY_BOT_MS`` of the worker's process time, and at most a quarter of the
seat's clock) while a person at the table is playing; at a table where nobody plays (every
seat a bot or on auto-play) it plays the heuristic, which acts at once, so an absent table
costs the worker next to nothing.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from django.conf import settings

from engine.actions import Action
from engine.bots import MAX_BUDGET_MS, SearchBot, make_bot
from engine.match import Match as EngineMatch

#: The most search bots one worker process keeps (a few kilobytes each).
KEPT_BOTS = 512

#: (match id, seat, deal number) -> (bot kind, the seat's actions in the deal once the bot's
#: choice is applied, the bot); least recently used first.
_kept: OrderedDict[tuple[int, int, int], tuple[str, int, Any]] = OrderedDict()
_lock = threading.Lock()


def own_actions(engine: EngineMatch, seat: int) -> int:
    """How many actions ``seat`` took in the deal in progress (its own actions only)."""
    return sum(1 for action in engine.deal.log if action.seat == seat)


def choose(
    engine: EngineMatch,
    seat: int,
    kind: str,
    seed: str,
    budget_ms: float,
    match_id: int | None = None,
) -> Action:
    """The action a bot of ``kind`` takes for ``seat`` from that seat's observation, thinking
    at most ``budget_ms`` (capped at :data:`engine.bots.MAX_BUDGET_MS`). With ``match_id`` a
    search bot is the one kept for this match, seat and deal when it took every decision of
    the seat in the deal so far, and is kept for the next one."""
    key = None if match_id is None or kind != "search" else (match_id, seat, engine.deal_no)
    count = own_actions(engine, seat) if key is not None else 0
    bot = None
    if key is not None:
        with _lock:  # taken out while in use: a concurrent call builds its own
            entry = _kept.pop(key, None)
        if entry is not None and entry[0] == kind and entry[1] == count:
            bot = entry[2]
            bot.budget_ms = max(1.0, min(MAX_BUDGET_MS, budget_ms))
    if bot is None:
        bot = make_bot(kind, seed, budget_ms)
    action = bot.choose(engine.observation(seat), lambda: engine.legal_actions(seat))
    if key is not None and isinstance(bot, SearchBot):
        with _lock:
            _kept[key] = (kind, count + 1, bot)
            _kept.pop((match_id, seat, engine.deal_no - 1), None)  # type: ignore[arg-type]
            while len(_kept) > KEPT_BOTS:
                _kept.popitem(last=False)
    return action


def forget() -> None:
    """Drop every kept bot (what a worker restart does)."""
    with _lock:
        _kept.clear()


def kept() -> int:
    """How many bots this process keeps."""
    return len(_kept)


def autoplay_bot(
    seats: Sequence[dict[str, Any]], autoplay: Sequence[str], clock_seconds: float
) -> tuple[str, float]:
    """The bot kind and thinking budget (ms) of a seat on auto-play at a table with these
    ``seats`` and ``autoplay`` flags and this clock: the search bot within
    ``MATCHES_AUTOPLAY_BOT_MS`` and a quarter of the clock while some person at the table is
    playing (not a bot, not on auto-play), else the heuristic."""
    budget = min(float(settings.MATCHES_AUTOPLAY_BOT_MS), clock_seconds * 250)
    someone = any(
        not info.get("bot") and not (autoplay[s] if s < len(autoplay) else "")
        for s, info in enumerate(seats)
    )
    if someone and budget >= 1:
        return "search", budget
    return "heuristic", 0.0
