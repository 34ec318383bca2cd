"""A match's result as its event holds it now, over the match as it was played.

A tournament game or a league fixture table keeps the result that counts in its event. For
a game played at a live table or on a score sheet it is first taken from the match; an
organiser (``tournaments.services.results.set_result``, ``leagues.services.play.
correct_table``) or an appeals committee (``officials`` through ``tournaments.services.
results.correct_result``) may correct it afterwards, and the corrected result is then the
match's result (the ladder is corrected to it too). The statistics follow it:

- the **deal facts stay**: the deals were played as the event log or the sheet says (deals,
  deals won, places, 保2, 关2, 双上, tributes, decisions, bombs, points of a points game);
- the **match outcome follows** the corrected result: won, drawn or lost by the corrected
  winner (or the higher score), and in a level game (Bao 2, Guandan) the team's net levels:
  the difference between the corrected level and the level played to is added to the levels
  gained (or lost), so that net levels end where the corrected result says.

A result that equals the played one (the usual case: the event took it from the match)
changes nothing. A Red Two tournament's per-player result of a live match is not read here
(its seats are scored one by one; only the match's own totals count).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import NamedTuple

from engine.facts import MatchFacts, SeatFacts
from engine.variants import deal_rules
from leagues.models import FixtureTable
from tournaments.models import Entry, Game, GameStatus


class EventResult(NamedTuple):
    """A result an event holds: ``side_of`` (user id → side 0 or 1), the two sides'
    ``scores`` and the ``winner`` side (None: a draw)."""

    side_of: dict[int, int]
    scores: tuple[int, int]
    winner: int | None


def _game_result(game: Game | None) -> EventResult | None:
    if game is None or game.score0 is None or game.score1 is None:
        return None
    entries = {e.pk: e.user_ids for e in Entry.objects.filter(pk__in=[*game.side0, *game.side1])}
    side_of = {
        u: side for side, ids in enumerate(game.sides) for e in ids for u in entries.get(e, [])
    }
    return EventResult(side_of, (game.score0, game.score1), game.winner)


def _table_result(table: FixtureTable | None) -> EventResult | None:
    if table is None or table.home_score is None or table.away_score is None:
        return None
    home = table.home_side
    scores = [0, 0]
    scores[home], scores[1 - home] = table.home_score, table.away_score
    winner = None if table.winner is None else (home if table.winner == 0 else 1 - home)
    side_of = {u: s % 2 for s, u in enumerate(table.seat_users or []) if u is not None}
    return EventResult(side_of, (scores[0], scores[1]), winner)


def event_result(*, table_id: int | None = None, sheet_id: int | None = None) -> EventResult | None:
    """The result a tournament game or league fixture table holds for the match played at
    live table ``table_id`` or on score sheet ``sheet_id`` (one of them), or None when no
    event holds one (a friendly match, a game without a result, a per-player Red Two game)."""
    games = Game.objects.filter(status=GameStatus.FINISHED)
    tables = FixtureTable.objects.filter(done=True)
    if table_id is not None:
        games, tables = games.filter(table_id=table_id), tables.filter(table_ref=table_id)
    elif sheet_id is not None:
        games, tables = games.filter(sheet_id=sheet_id), tables.filter(sheet_ref=sheet_id)
    else:
        return None
    return _game_result(games.first()) or _table_result(tables.first())


def overlay(
    facts: MatchFacts,
    users: Sequence[int | None],
    played: Sequence[int] | None,
    result: EventResult | None,
) -> MatchFacts:
    """``facts`` of a match played by ``users`` (per seat) whose sides (seats 0 and 2 against
    1 and 3) reached ``played`` (the match's own final scores), with each seat's outcome and,
    in a level game, its net levels following the event's ``result`` (the module's rule).
    Unchanged when there is no result, the game has no fixed pairs, or a player of the match
    is not on a side of the result (not the same four)."""
    if result is None or len(facts.seats) != 4 or any(s.partner is None for s in facts.seats):
        return facts
    sides = [result.side_of.get(u) if u is not None else None for u in users]
    if any(s is None for s in sides) or sides[0] != sides[2] or sides[1] != sides[3]:
        return facts
    if sides[0] == sides[1]:
        return facts
    levels = deal_rules(facts.variant).scoring == "levels"
    winner = result.winner
    if winner is None and result.scores[0] != result.scores[1]:
        winner = 0 if result.scores[0] > result.scores[1] else 1
    seats: list[SeatFacts] = []
    for seat in facts.seats:
        side = sides[seat.seat]
        assert side is not None
        outcome = "drawn" if winner is None else ("won" if side == winner else "lost")
        counters = dict(seat.counters)
        counters[seat.outcome] = counters.get(seat.outcome, 0) - 1
        counters[outcome] = counters.get(outcome, 0) + 1
        if levels and played is not None and len(played) == 2:
            change = int(result.scores[side]) - int(played[seat.seat % 2])
            if change:
                key = "levels_up" if change > 0 else "levels_down"
                counters[key] = counters.get(key, 0) + abs(change)
        seats.append(
            replace(seat, outcome=outcome, counters={k: v for k, v in counters.items() if v})
        )
    return replace(facts, seats=seats)
