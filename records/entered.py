"""Results an organiser entered without a live match or a score sheet, read into facts.

A tournament game whose result an organiser entered (``GameSource.ADMIN``) with neither a live
table nor a score sheet, and a league fixture's table an organiser gave a result to with
neither (``leagues.services.play.correct_table``), know only who sat where, the two sides'
scores and the winner. So they count for: the match played, won, drawn or lost; in a level
game (Bao 2, Guandan) the levels the side reached from its start (``levels_up``); in a game
scored per player (a Red Two tournament) each player's points. Nothing of the deals (no
deals, places, 保2, tributes, decisions): where the platform saw no deal, it counts none.
A correction of such a result is followed (:func:`records.services.follow`): the facts of the
result recorded leave the tallies and those of the corrected one enter them, once; a result
cleared since (a knockout re-bracketed) leaves the statistics.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import NamedTuple

from engine.facts import MatchFacts, SeatFacts
from engine.variants import deal_rules
from leagues.models import FixtureTable
from tournaments.models import Entry, Game, GameSource, GameStatus

#: The prefix of a recorded entered result's ``source_id``: a tournament game, a league table.
TOURNAMENT, LEAGUE = "t", "l"


class Entered(NamedTuple):
    """An entered result ready to record: its ``source_id``, facts, user per seat, club,
    rated, and when it ended."""

    source_id: str
    facts: MatchFacts
    users: list[int | None]
    club_id: int | None
    rated: bool
    ended_at: datetime | None


def result_facts(
    variant: str,
    side_scores: Sequence[int | None],
    winner: int | None,
    seat_points: Sequence[int] | None = None,
) -> MatchFacts:
    """The facts of a four-seat result known only by its sides (seats 0 and 2 against 1 and
    3): ``side_scores`` (levels reached in a level game; a points game's side totals say
    nothing of a player's share and are not counted), ``winner`` (0, 1, None a draw); or,
    in a game scored per player, ``seat_points`` (the only highest wins, a shared highest
    draws) and no fixed partner."""
    levels = deal_rules(variant).scoring == "levels"
    seats = []
    for s in range(4):
        counters = {"matches": 1}
        if seat_points is not None:
            top = max(seat_points)
            best = [k for k in range(4) if seat_points[k] == top]
            outcome = "lost" if s not in best else ("won" if len(best) == 1 else "drawn")
            counters["points"] = int(seat_points[s])
            partner = None
        else:
            outcome = "drawn" if winner is None else ("won" if s % 2 == winner else "lost")
            score = side_scores[s % 2] or 0
            if levels and score > 0:
                counters["levels_up"] = int(score)
            partner = (s + 2) % 4
        counters[outcome] = 1
        opponents = [o for o in range(4) if o != s and o != partner]
        seats.append(
            SeatFacts(s, outcome, partner, opponents, {k: v for k, v in counters.items() if v})
        )
    return MatchFacts(variant, True, 0, seats)


def _tournament_users(game: Game) -> list[int | None] | None:
    ids = list(game.side0) + list(game.side1)
    entries = {e.pk: e.user_ids for e in Entry.objects.filter(pk__in=ids)}
    sides = [[u for e in side for u in entries.get(e, [])] for side in (game.side0, game.side1)]
    if len(sides[0]) != 2 or len(sides[1]) != 2:
        return None  # not four players at one table
    return [sides[0][0], sides[1][0], sides[0][1], sides[1][1]]


def tournament_result(game_id: int) -> Entered | None:
    """Tournament game ``game_id``'s entered result, or None if it is not one (played live,
    on a sheet, a forfeit, a bye, no result) or not four known players."""
    game = (
        Game.objects.select_related("round__tournament")
        .filter(pk=game_id, source=GameSource.ADMIN, status=GameStatus.FINISHED)
        .filter(table__isnull=True, sheet__isnull=True)
        .first()
    )
    if game is None:
        return None
    tournament = game.round.tournament
    if tournament.per_seat:
        users = [
            (Entry.objects.filter(pk=e).values_list("player1_id", flat=True).first())
            for e in game.seat_entries
        ]
        points = list(game.seat_scores or [])
        if len(users) != 4 or len(points) != 4:
            return None
        facts = result_facts(tournament.variant, [None, None], None, points)
    else:
        found = _tournament_users(game)
        if found is None:
            return None
        users = found
        facts = result_facts(tournament.variant, [game.score0, game.score1], game.winner)
    return Entered(
        f"{TOURNAMENT}{game.pk}",
        facts,
        users,
        tournament.club_id,
        tournament.rated,
        game.finished_at,
    )


def league_result(table_id: int) -> Entered | None:
    """League fixture table ``table_id``'s result an organiser entered (done, with neither a
    live table nor a score sheet), or None; its scores are the home side's view."""
    table = (
        FixtureTable.objects.select_related("fixture__round__season__league")
        .filter(pk=table_id, done=True, table_ref__isnull=True, sheet_ref__isnull=True)
        .first()
    )
    if table is None or len(table.seat_users or []) != 4:
        return None
    season = table.fixture.round.season
    home = table.home_side
    scores = [0, 0]
    scores[home], scores[1 - home] = table.home_score or 0, table.away_score or 0
    winner = None if table.winner is None else (home if table.winner == 0 else 1 - home)
    return Entered(
        f"{LEAGUE}{table.pk}",
        result_facts(season.variant, scores, winner),
        list(table.seat_users),
        season.league.host_id,
        season.rated,
        table.fixture.finished_at,
    )
