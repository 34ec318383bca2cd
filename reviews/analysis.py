"""The review of a finished match by the strong bot, from one seat's own view (pure Python).

No Django here: the input is a :class:`SeatView`, which holds what one seat was shown at each
of its decisions (its observation, its legal actions) and what it did; it cannot hold another
seat's hand (:meth:`SeatView.__post_init__` refuses an observation that is not this seat's own,
and an observation never carries another seat's cards). :func:`seat_view` builds it from a
match's action log by replaying the engine and keeping only ``Match.observation(seat)``.

For every decision of the seat's person in the play phase with a real choice,
:func:`review_seat`

1. asks the strong bot (:class:`engine.bots.SearchBot`, one bot per seat that sees the seat's
   decisions in order, so it remembers the deal as a bot at the table does) for its choice;
2. when the person chose otherwise, samples worlds consistent with the seat's observation and
   the bot's memory of the deal (``engine.bots.search.sample_hands``: the hidden hands dealt
   from the cards the seat has not seen, at the sizes it knows) and plays both moves out in the
   same worlds with the heuristic (``world_deal``, ``playout_score`` / ``playout_points``);
3. reports the paired difference (the person's move minus the bot's) as mean ± standard error:
   in the level games the team's levels gained minus the other team's, and apart from that the
   change in the chance that this deal wins the match; in the point games the seat's points.

Decisions outside the play of tricks (:data:`EXTRA_PHASES`: tribute, return, Bao 2's immune
window, Red Two's choice), which the search bot takes by its heuristic, are searched here
(:func:`compare_extra`): the heuristic's choice, the person's and the other legal moves
(:func:`extra_candidates`) taken in the same worlds, sampled from what the seat knew then
(``sample_hands``: the hands dealt whole, changed only by the tribute cards it saw or could
count), the deal played out; the bot's choice is the heuristic's unless another move is better
by :data:`CONFIDENCE` standard errors. A tribute with one card of the highest rank, or an
immune window without an immune bomb, is forced and not reviewed; Shuangkou has no such
decision.

Cost: each reviewed play decision spends at most ``Budget.search_ms`` of process time in the
search and ``Budget.eval_ms`` in the playouts, a decision outside play ``Budget.extra_ms`` in
its playouts (each stops at its budget plus one playout, or one world of its moves), scaled
down so that the match's decisions fit in ``Budget.match_seconds``; decisions after the
match's budget is spent are left unreviewed (``complete`` False).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.actions import Action
from engine.bots import HeuristicBot, SearchBot
from engine.bots.search import MATCH_WEIGHT, playout_points, playout_score, sample_hands, world_deal
from engine.cards import card_str
from engine.deal import Deal
from engine.match import Match
from engine.observation import deal_observation
from engine.variants import combo_rules, deal_rules

#: The games the strong bot searches (others are not reviewed).
REVIEWED_GAMES = frozenset(("bao2", "guandan", "honger", "shuangkou2"))
#: Keys an observation of one seat may never hold: another seat's cards.
FORBIDDEN_KEYS = frozenset(("hands", "deck", "seed"))
#: Decisions outside the play of tricks the review plays out itself (the search bot takes
#: them by its heuristic): Guandan's and Bao 2's tribute (进贡) and return (还贡), Bao 2's
#: immune window, Red Two's choice with both ♥2 (独打 / 投降 / 比炸弹).
EXTRA_PHASES = frozenset(("tribute", "return", "immune", "choose"))
#: The most moves compared at a return (Guandan allows any card back).
RETURN_CANDIDATES = 6
#: Standard errors by which another move must beat the heuristic's to be the bot's choice
#: at a decision outside play (as :attr:`engine.bots.SearchBot.confidence`).
CONFIDENCE = 1.5


@dataclass(frozen=True)
class Budget:
    """Process time a review may spend: per decision on the bot's search (``search_ms``) and on
    the playouts of the two moves (``eval_ms``); per decision outside play (tribute, return,
    the immune window, Red Two's choice: at most one a deal) on the playouts of its moves
    (``extra_ms``); and per match (``match_seconds``). With ``worlds`` set, a fixed number of
    worlds per decision and a fixed number of bot playouts (``bot_playouts``) instead of time
    (deterministic: tests)."""

    search_ms: float = 40.0
    eval_ms: float = 60.0
    extra_ms: float = 400.0
    match_seconds: float = 120.0
    max_worlds: int = 48
    worlds: int | None = None
    bot_playouts: int | None = None


@dataclass(frozen=True)
class Decision:
    """One decision of the seat: the ``step`` (1-based index in the match's action log) it
    answered, the observation it acted on, its legal actions, what it did and whether the
    seat's person did it (not auto-play, the clock or a bot)."""

    step: int
    observation: dict[str, Any]
    legal: tuple[Action, ...]
    played: Action
    by_person: bool


@dataclass(frozen=True)
class SeatView:
    """What one seat knew at each of its decisions, and nothing else: its own observations.
    Refuses an observation of another seat or one holding a key of :data:`FORBIDDEN_KEYS`."""

    variant: str
    seat: int
    options: dict[str, Any]
    decisions: tuple[Decision, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        for d in self.decisions:
            obs = d.observation
            if obs.get("seat") != self.seat or FORBIDDEN_KEYS & obs.keys():
                raise ValueError("a seat view holds only the seat's own observations")
            if d.played.seat != self.seat or any(a.seat != self.seat for a in d.legal):
                raise ValueError("a seat view holds only the seat's own actions")


def seat_view(
    variant: str,
    seed: int | str,
    options: dict[str, Any] | None,
    actions: Sequence[Any],
    seat: int,
    by_person: Sequence[bool] | None = None,
) -> SeatView:
    """Replay the match (``actions``: the log, JSON or :class:`Action`) and keep, at each of
    ``seat``'s decisions, only that seat's observation, legal actions and action.
    ``by_person[i]``: whether action ``i`` was the seat's person's own (default: all)."""
    match = Match.new(variant, seed, options)
    decisions: list[Decision] = []
    for i, raw in enumerate(actions):
        act = Action.from_json(raw) if not isinstance(raw, Action) else raw
        if act.seat == seat and match.to_move() == seat:
            obs = match.observation(seat)
            legal = tuple(match.legal_actions(seat))
            applied = match.apply(act)
            person = True if by_person is None else bool(by_person[i])
            decisions.append(Decision(i + 1, obs, legal, applied, person))
        else:
            match.apply(act)
    return SeatView(variant, seat, dict(match.options), tuple(decisions))


def _key(action: Action) -> tuple[str, tuple[int, ...], str | None]:
    """Two actions are the same decision if they play (pay, return) the same cards, or both
    pass, or choose the same in Red Two."""
    return action.kind, tuple(sorted(action.cards or ())), action.choice


def _forced(legal: Iterable[Action]) -> bool:
    return len({_key(a) for a in legal}) <= 1


def describe(action: Action, obs: dict[str, Any]) -> dict[str, Any]:
    """An action as the review stores it: ``kind``, the cards (notation), a play's combo
    ``type`` and ``key`` (rank) read by the variant's rules at the deal's level, and Red Two's
    ``choice``."""
    out: dict[str, Any] = {"kind": action.kind, "cards": [card_str(c) for c in action.cards or ()]}
    if action.kind == "choose":
        out["choice"] = action.choice
    if action.kind == "play":
        rules = combo_rules(obs["variant"], obs.get("level"))
        combo = rules.read_as(action.cards, action.type or "")
        out["type"] = combo.type if combo is not None else action.type
        out["key"] = combo.key if combo is not None else None
    return out


def _stats(values: Sequence[float]) -> tuple[float, float]:
    """Mean and standard error of the mean."""
    n = len(values)
    if n == 0:
        return 0.0, 0.0
    mean = sum(values) / n
    if n < 2:
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, (var / n) ** 0.5


def compare(
    obs: dict[str, Any],
    memory: Any,
    options: dict[str, Any],
    mine: Action,
    bots: Action,
    rng: random.Random,
    eval_ms: float,
    max_worlds: int,
    worlds: int | None = None,
    heuristic: Any = None,
) -> dict[str, Any]:
    """Play ``mine`` and ``bots`` out in the same sampled worlds (consistent with ``obs`` and
    the seat's ``memory`` of the deal); the paired differences (mine minus the bot's) as mean
    and standard error: ``levels`` and ``win`` (the change in the chance that this deal wins
    the match) in the level games, ``points`` in the point games; and ``worlds``. The playouts
    are played by ``heuristic`` (a fresh :class:`~engine.bots.HeuristicBot` by default: one per
    caller, as a worker's threads each review a match)."""
    heur = heuristic if heuristic is not None else HeuristicBot()
    rules = deal_rules(obs["variant"])
    options = {**rules.defaults, **options}
    points = rules.scoring == "points"
    score_of = playout_points if points else playout_score
    start = time.process_time()
    deadline = start + eval_ms / 1000
    d_levels: list[float] = []
    d_win: list[float] = []
    limit = worlds if worlds is not None else max_worlds
    while len(d_levels) < limit:
        hands = sample_hands(obs, memory, rng)
        pair = []
        for act in (mine, bots):
            deal = world_deal(obs, hands, options)
            if act.kind == "play":
                deal.apply_unchecked(act, deal.combos.read_as(act.cards, act.type or ""))
            else:
                deal.apply_unchecked(act, None)
            pair.append(score_of(deal, obs, options, heur))
        if points:
            d_levels.append(pair[0] - pair[1])
            d_win.append(0.0)
        else:
            # a level playout scores levels ± MATCH_WEIGHT when the deal ends the match: split
            wins = [round(s / MATCH_WEIGHT) for s in pair]
            d_levels.append((pair[0] - wins[0] * MATCH_WEIGHT) - (pair[1] - wins[1] * MATCH_WEIGHT))
            d_win.append(float(wins[0] == 1) - float(wins[1] == 1))
        if worlds is None and time.process_time() >= deadline and len(d_levels) >= 2:
            break
    mean, se = _stats(d_levels)
    win, win_se = _stats(d_win)
    out: dict[str, Any] = {"worlds": len(d_levels)}
    if points:
        out.update(points=round(mean, 3), points_se=round(se, 3))
    else:
        out.update(
            levels=round(mean, 3),
            levels_se=round(se, 3),
            win=round(win, 3),
            win_se=round(win_se, 3),
        )
    return out


def extra_candidates(
    obs: dict[str, Any], legal: Sequence[Action], played: Action, first: Action
) -> list[Action]:
    """The moves compared at a decision outside play: the heuristic's (``first``) and the
    person's first, then every other distinct legal action, except at a return with more
    than :data:`RETURN_CANDIDATES` of them: then the lowest card of each rank, low ranks
    first (a wild card never: giving one back is never the cheap return)."""
    out: list[Action] = []
    seen: set[Any] = set()
    for act in (first, played, *legal):
        if _key(act) not in seen:
            seen.add(_key(act))
            out.append(act)
    if obs.get("phase") != "return" or len(out) <= RETURN_CANDIDATES:
        return out
    rules = combo_rules(obs["variant"], obs.get("level"))
    value = getattr(rules, "value", None)
    wild = getattr(rules, "wild", -1)

    def rank(c: int) -> int:
        r = c % 13 if c < 52 else (13 if c == 52 else 14)
        return int(value[r]) if value else r

    picked = out[:2]
    ranks = {rank(a.card) for a in picked}
    for act in sorted(out[2:], key=lambda a: (rank(a.card), a.card)):
        if len(picked) >= RETURN_CANDIDATES:
            break
        if act.card != wild and rank(act.card) not in ranks:
            ranks.add(rank(act.card))
            picked.append(act)
    return picked


def play_extra(deal: Deal, act: Action, heur: Any) -> Deal:
    """Take ``act`` in a sampled world's deal (checked by the rules), then the other seats'
    tributes and returns still owed as the heuristic takes them (each from that seat's own
    observation of the world): the deal is then in play, over, or in the immune window,
    which the playouts go on from."""
    deal.apply(act)
    for _ in range(8):  # at most two tributes and two returns are left
        if deal.phase not in ("tribute", "return"):
            break
        seat = deal.to_move()
        assert seat is not None
        deal.apply(heur.choose(deal_observation(deal, seat), deal.legal_actions(seat)))
    return deal


def compare_extra(
    obs: dict[str, Any],
    memory: Any,
    options: dict[str, Any],
    moves: Sequence[Action],
    played: Action,
    rng: random.Random,
    eval_ms: float,
    max_worlds: int,
    worlds: int | None = None,
    heuristic: Any = None,
) -> dict[str, Any]:
    """A decision outside play searched by the review: every one of ``moves`` (the
    heuristic's first, :func:`extra_candidates`) is taken in the same sampled worlds (consistent
    with ``obs`` and the seat's ``memory``: :func:`~engine.bots.search.sample_hands`) and the
    deal played out by the heuristic (:func:`play_extra`, then ``playout_score`` /
    ``playout_points``). The bot's choice (``best``, an index in ``moves``) is the heuristic's
    unless another move scored better by :data:`CONFIDENCE` standard errors of the paired
    difference; with it, the paired differences ``played`` minus the bot's choice as in
    :func:`compare`, and ``worlds``."""
    heur = heuristic if heuristic is not None else HeuristicBot()
    rules = deal_rules(obs["variant"])
    options = {**rules.defaults, **options}
    points = rules.scoring == "points"
    score_of = playout_points if points else playout_score
    deadline = time.process_time() + eval_ms / 1000
    scores: list[list[float]] = [[] for _ in moves]
    limit = worlds if worlds is not None else max_worlds
    n = 0
    while n < limit:
        hands = sample_hands(obs, memory, rng)
        for i, act in enumerate(moves):
            deal = play_extra(world_deal(obs, hands, options), act, heur)
            scores[i].append(score_of(deal, obs, options, heur))
        n += 1
        if worlds is None and time.process_time() >= deadline and n >= 2:
            break
    best, best_mean = 0, 0.0
    for i in range(1, len(moves)):
        mean, se = _stats([a - b for a, b in zip(scores[i], scores[0], strict=True)])
        if mean > best_mean and (mean > CONFIDENCE * se or se == 0):
            best, best_mean = i, mean
    mine = next(i for i, a in enumerate(moves) if _key(a) == _key(played))
    out: dict[str, Any] = {"best": best, "worlds": n}
    pairs = list(zip(scores[mine], scores[best], strict=True))
    if points:
        mean, se = _stats([a - b for a, b in pairs])
        out.update(points=round(mean, 3), points_se=round(se, 3))
        return out
    d_levels, d_win = [], []
    for a, b in pairs:
        wins = (round(a / MATCH_WEIGHT), round(b / MATCH_WEIGHT))
        d_levels.append((a - wins[0] * MATCH_WEIGHT) - (b - wins[1] * MATCH_WEIGHT))
        d_win.append(float(wins[0] == 1) - float(wins[1] == 1))
    mean, se = _stats(d_levels)
    win, win_se = _stats(d_win)
    out.update(
        levels=round(mean, 3), levels_se=round(se, 3), win=round(win, 3), win_se=round(win_se, 3)
    )
    return out


def review_seat(
    view: SeatView,
    budget: Budget | None = None,
    seed: str = "review",
    tick: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """The review of one seat's decisions (see the module docstring), from ``view`` only;
    ``tick()`` is called before each decision (the caller's heartbeat).

    Returns ``{"seat", "decisions": [...], "complete", "cpu_ms"}``; each decision reviewed:
    ``step``, ``deal_no``, ``phase`` (``play``, or one of :data:`EXTRA_PHASES`), ``played``
    and ``best`` (:func:`describe`), ``same`` (the bot agrees), the differences of
    :func:`compare` / :func:`compare_extra` (zero when the same), ``ms``. Deterministic for a
    seed when ``budget.worlds`` and ``budget.bot_playouts`` are set."""
    budget = budget or Budget()
    start = time.process_time()
    wanted = [
        d
        for d in view.decisions
        if d.by_person
        and (d.observation.get("phase") == "play" or d.observation.get("phase") in EXTRA_PHASES)
        and not _forced(d.legal)
    ]
    extras = sum(1 for d in wanted if d.observation.get("phase") in EXTRA_PHASES)
    per = budget.search_ms + budget.eval_ms
    need = per * (len(wanted) - extras) + budget.extra_ms * extras
    scale = 1.0
    if wanted and need > budget.match_seconds * 1000:
        scale = budget.match_seconds * 1000 / need
    search_ms = max(1.0, budget.search_ms * scale)
    eval_ms = max(1.0, budget.eval_ms * scale)
    extra_ms = max(1.0, budget.extra_ms * scale)
    wanted_steps = {d.step for d in wanted}
    bot = SearchBot(f"{seed}/{view.seat}", budget_ms=search_ms, playouts=budget.bot_playouts)
    bot.options = view.options
    rng = random.Random(f"{seed}/{view.seat}/worlds")
    points = deal_rules(view.variant).scoring == "points"
    out: list[dict[str, Any]] = []
    complete = view.variant in REVIEWED_GAMES
    for d in view.decisions if complete else ():
        obs = d.observation
        spent = time.process_time() - start
        if d.step in wanted_steps and spent >= budget.match_seconds:
            complete = False
            break
        if tick is not None:
            tick()
        t0 = time.process_time()
        choice = bot.choose(obs, list(d.legal))  # every decision: the bot keeps its memory
        if d.step not in wanted_steps:
            continue
        phase = str(obs.get("phase"))
        item: dict[str, Any] = {"step": d.step, "deal_no": obs.get("deal_no", 0), "phase": phase}
        found: dict[str, Any] | None = None
        if phase in EXTRA_PHASES:  # the review searches these itself
            moves = extra_candidates(obs, d.legal, d.played, choice)
            found = compare_extra(
                obs,
                bot.memory,
                view.options,
                moves,
                d.played,
                rng,
                extra_ms,
                budget.max_worlds,
                budget.worlds,
                bot.heuristic,
            )
            choice = moves[found.pop("best")]
        item.update(
            played=describe(d.played, obs),
            best=describe(choice, obs),
            same=_key(choice) == _key(d.played),
        )
        if item["same"]:
            zero: dict[str, Any] = {"worlds": found["worlds"] if found else 0}
            if points:
                zero.update(points=0.0, points_se=0.0)
            else:
                zero.update(levels=0.0, levels_se=0.0, win=0.0, win_se=0.0)
            item.update(zero)
        elif found is not None:
            item.update(found)
        else:
            item.update(
                compare(
                    obs,
                    bot.memory,
                    view.options,
                    d.played,
                    choice,
                    rng,
                    eval_ms,
                    budget.max_worlds,
                    budget.worlds,
                    bot.heuristic,
                )
            )
        item["ms"] = round((time.process_time() - t0) * 1000, 1)
        out.append(item)
    return {
        "seat": view.seat,
        "decisions": out,
        "complete": complete,
        "cpu_ms": round((time.process_time() - start) * 1000, 1),
    }


def cost(item: dict[str, Any]) -> float:
    """How much a reviewed decision cost by the bot's measure (the bot's move minus the
    person's), in levels (a deal that wins the match counted as :data:`MATCH_WEIGHT` / 10
    levels, enough to rank it first) or points."""
    if "points" in item:
        return -float(item["points"])
    return -(float(item.get("levels", 0.0)) + float(item.get("win", 0.0)) * MATCH_WEIGHT / 10)


def cost_se(item: dict[str, Any]) -> float:
    """The standard error of :func:`cost`."""
    if "points" in item:
        return float(item["points_se"])
    return float(item.get("levels_se", 0.0)) + float(item.get("win_se", 0.0)) * MATCH_WEIGHT / 10


def costliest(decisions: Iterable[dict[str, Any]], n: int = 3) -> list[dict[str, Any]]:
    """The ``n`` decisions that cost most, among those where the bot chose otherwise and the
    cost is above its standard error (noise is not a mistake)."""
    worth = [d for d in decisions if not d.get("same") and cost(d) > 0 and cost(d) > cost_se(d)]
    return sorted(worth, key=lambda d: (-cost(d), d["step"]))[:n]
