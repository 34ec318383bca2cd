"""Reads of a duplicate event (复式赛, 第三十三条): each round's deals compared among the tables
that played them (:mod:`tournaments.duplicate`, pure), from the live matches' deal records,
and each entry's score over the rounds for the standings.

A round's comparison is shown only once every table of its deal group has finished: before
that even a result would tell the players still at a table something about their cards (the
same rule as the tables' replays: :func:`matches.services.access.siblings_playing`). For the
same reason the games' own results of such a round are withheld from the pages, the API and
the standings until then (:func:`withheld`, :func:`sealed_rounds`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.cache import cache

from engine.actions import Refusal
from engine.match import Match as EngineMatch
from games.variants import game as game_facts
from matches.models import Match, MatchStatus, Table
from matches.services import access
from tournaments import duplicate
from tournaments.models import Game, GameStatus, Round, RoundStatus, Tournament

#: How long a finished match's deal results stay cached (they never change once it ends).
CACHE_SECONDS = 7 * 24 * 3600


def plays_duplicate(variant: str) -> bool:
    """Whether a duplicate event may be played in ``variant``: a four-seat game scored in
    levels by fixed sides, whose engine deals every deal from the match's seed (Bao 2 and
    Guandan)."""
    facts = game_facts(variant)
    return facts.levels and facts.fixed_sides and facts.seats == 4


def deal_group(rnd: Round) -> str:
    """The deal group (``matches.models.Table.deal_group``, at most 64 characters) of a
    duplicate round's live tables: one per round, so they are siblings."""
    return f"tournament-{rnd.tournament_id}-round-{rnd.number}"


def _results_of(match: Match) -> tuple[int, ...] | None:
    """Direction 0's result in each deal ``match`` finished (:func:`duplicate.deal_result`),
    read from its stored actions; cached for a finished match. None if they cannot be read."""
    key = f"duplicate:{match.pk}:{match.version}"
    if match.status == MatchStatus.FINISHED:
        cached = cache.get(key)
        if cached is not None:
            return tuple(cached)
    try:
        deals = EngineMatch.from_json(match.snapshot).deals
    except (Refusal, KeyError, ValueError, TypeError):  # a corrupt record compares nothing
        return None
    results = tuple(duplicate.deal_result(d) for d in deals)
    if match.status == MatchStatus.FINISHED:
        cache.set(key, list(results), CACHE_SECONDS)
    return results


def _group_playing(group: str) -> bool:
    return Table.objects.filter(deal_group=group).exclude(status__in=access.DONE).exists()


def withheld(game: Game) -> bool:
    """Whether ``game``, finished, belongs to a duplicate round a table of which still plays:
    its result is not shown yet (nor counted in the standings: :func:`sealed_rounds`)."""
    if game.status != GameStatus.FINISHED or game.table_id is None:
        return False
    return _group_playing(deal_group(game.round))


def sealed_rounds(tournament: Tournament) -> set[int]:
    """The numbers of a duplicate event's rounds a table of which still plays (one query):
    their games' results are withheld (:func:`withheld`)."""
    if not tournament.duplicate:
        return set()
    prefix = f"tournament-{tournament.pk}-round-"
    groups = (
        Table.objects.filter(deal_group__startswith=prefix)
        .exclude(status__in=access.DONE)
        .values_list("deal_group", flat=True)
        .distinct()
    )
    return {int(g[len(prefix) :]) for g in groups if g[len(prefix) :].isdigit()}


def round_sealed(rnd: Round) -> bool:
    """Whether a table of the round's deal group still plays (then nothing of its deals is
    shown), or the round has not started."""
    if rnd.status not in (RoundStatus.PLAYING, RoundStatus.FINISHED):
        return True
    return _group_playing(deal_group(rnd))


def round_tables(rnd: Round) -> list[duplicate.TablePlay]:
    """The round's tables that played (their live match started), each with its entries by
    direction and its deals' results (a bye, a result entered by hand or a forfeit before any
    deal has none and is not compared)."""
    games = list(
        rnd.games.filter(table__deal_group=deal_group(rnd))
        .exclude(status=GameStatus.BYE)
        .order_by("number")
    )
    matches = {
        m.table_id: m for m in Match.objects.filter(table_id__in=[g.table_id for g in games])
    }
    out = []
    for game in games:
        match = matches.get(game.table_id) if game.table_id is not None else None
        if match is None:
            continue
        results = _results_of(match)
        if results is None:
            continue
        out.append(
            duplicate.TablePlay(game.number, (tuple(game.side0), tuple(game.side1)), results)
        )
    return out


def round_comparison(rnd: Round) -> list[duplicate.DealComparison] | None:
    """Each deal of a duplicate round compared (:func:`tournaments.duplicate.compare_round`);
    None while a table of the round still plays (:func:`round_sealed`) or for a round of an
    event that is not a duplicate."""
    if not rnd.tournament.duplicate or round_sealed(rnd):
        return None
    return duplicate.compare_round(round_tables(rnd))


def scores(tournament: Tournament, through_round: int | None = None) -> dict[int, float]:
    """Each entry's duplicate score (:attr:`tournaments.duplicate.Total.percent`) over the
    rounds whose comparison is open (up to ``through_round``); empty for an event that is not
    a duplicate."""
    if not tournament.duplicate:
        return {}
    comparisons: list[duplicate.DealComparison] = []
    rounds = tournament.rounds.order_by("number")
    if through_round is not None:
        rounds = rounds.filter(number__lte=through_round)
    for rnd in rounds:
        found = round_comparison(rnd)
        if found:
            comparisons += found
    return {unit: total.percent for unit, total in duplicate.totals(comparisons).items()}


@dataclass(frozen=True)
class ShownDeal:
    """A deal's comparison as the page and the API show it: each direction's rows."""

    deal: int
    top: int
    tables: int
    directions: list[list[dict[str, Any]]]


def round_view(rnd: Round, names: dict[int, str]) -> list[ShownDeal] | None:
    """:func:`round_comparison` with the entries' names, per deal and direction: rows of
    ``{"table", "entries": [{"entry", "name"}], "result", "points", "top"}``; None while
    sealed."""
    found = round_comparison(rnd)
    if found is None:
        return None
    out = []
    for comparison in found:
        directions: list[list[dict[str, Any]]] = [[], []]
        for score in comparison.scores:
            directions[score.direction].append(
                {
                    "table": score.table,
                    "entries": [{"entry": u, "name": names.get(u, "")} for u in score.units],
                    "result": score.result,
                    "points": score.points,
                    "top": score.top,
                }
            )
        out.append(ShownDeal(comparison.deal, comparison.top, len(comparison.tables), directions))
    return out


def view_json(shown: list[ShownDeal] | None) -> dict[str, Any]:
    """:func:`round_view` as the API answers it: ``open`` (false while a table plays) and
    ``deals``."""
    return {
        "open": shown is not None,
        "deals": [
            {"deal": d.deal, "top": d.top, "tables": d.tables, "directions": d.directions}
            for d in shown or []
        ],
    }
