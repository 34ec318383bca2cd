"""Withdrawals after the start (第二十四条二): which rule a round robin's withdrawal takes
(:func:`round_robin_rule`: half of its games), and the games decided by a withdrawal when they
are paired — a round robin's game against an entry that withdrew after half its games, a
knockout game of an entry that withdrew while still in the bracket. Like a bye, such a game is created with its result —
a forfeit to the other side (:func:`tournaments.scoring.withdrawal_forfeit`) — so no table
opens for it. Used by :func:`tournaments.services.rounds.create_round` (which the result
services import, so this module imports none of them)."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from games.variants import game as game_facts
from tournaments import scoring, selectors
from tournaments.models import (
    KNOCKOUT_FORMATS,
    Game,
    GameSource,
    GameStatus,
    Tournament,
    WithdrawalRule,
)


def round_robin_rule(tournament: Tournament, entry: int, played: int) -> str:
    """第二十四条二.1 for a round-robin ``entry`` that withdraws having ``played`` games with a
    result against an opponent: "凡已赛对手不足半数者" — under half of the games it was to play
    (each opponent of its own group once a cycle: a double round robin counts both meetings
    with each) annuls its results (:attr:`~tournaments.models.WithdrawalRule.ANNULLED`), half
    or more and they stand (``STANDS``)."""
    everyone = selectors.tournament_order(tournament)
    group = next((g for g in selectors.groups_of(tournament) if entry in g), everyone)
    games = (len(group) - 1) * tournament.round_robin_cycles  # its own group's, each cycle
    return WithdrawalRule.ANNULLED if played * 2 < games else WithdrawalRule.STANDS


def withdrawal_result(tournament: Tournament, game: Game, out: Collection[int]) -> scoring.Forfeit:
    """The forfeit result of ``game`` against its entries in ``out`` (entries that have
    withdrawn): see :func:`tournaments.scoring.withdrawal_forfeit`."""
    facts = game_facts(tournament.variant)
    gone = set(out)
    return scoring.withdrawal_forfeit(
        (bool(set(game.side0) & gone), bool(set(game.side1) & gone)),
        knockout=tournament.format in KNOCKOUT_FORMATS,
        top=facts.max_level if facts.levels else None,
        scale=selectors.scale_of(tournament),
    )


def forfeit_note(game: Game, out: Collection[int], names: dict[int, str]) -> dict[str, object]:
    """The ``withdrawal_forfeit`` note of a game forfeited because of ``out``'s withdrawal."""
    units = [e for e in game.side0 + game.side1 if e in set(out)]
    return {
        "code": selectors.WITHDRAWAL_FORFEIT,
        "units": units,
        "detail": {"name": " / ".join(names.get(e, "") for e in units)},
    }


def decide_new_games(tournament: Tournament, games: list[Game], now: datetime) -> int:
    """Give each new (unsaved) two-sided game of a withdrawn entry its forfeit result and a
    note, before it is stored; return how many. Games of Red Two tables (no fixed sides) are
    left as they are: withdrawn players are never paired there."""
    if tournament.per_seat:
        return 0
    withdrawn = set(tournament.entries.filter(status="withdrawn").values_list("pk", flat=True))
    names = dict(tournament.entries.values_list("pk", "name"))
    done = 0
    for game in games:
        out = withdrawn & set(game.side0 + game.side1)
        if game.is_bye or not out:
            continue
        result = withdrawal_result(tournament, game, out)
        game.score0, game.score1 = result.scores
        game.winner = result.winner
        game.grade0, game.grade1 = result.grades if result.grades else (None, None)
        game.source = GameSource.FORFEIT
        game.status = GameStatus.FINISHED
        game.finished_at = now
        game.notes = [*game.notes, forfeit_note(game, out, names)]
        done += 1
    return done
