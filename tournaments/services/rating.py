"""How a rated tournament's games reach the club ladder: once per game, by the record of
what was played when there is one (a rated live match, a confirmed score sheet), else by the
organiser's result. Every hand-off goes through :func:`hand_to_ladder`.

The reads of matches' rows and the confirmed sheets are all here (writes go through
:func:`matches.services.tables.take_table_off_the_ladder`): :func:`_take_live_match_off_the_ladder`, :func:`organiser_rated_game`,
:func:`_link_confirmed_sheet`."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.utils import timezone

from games.variants import game as game_facts
from ladder import services as ladder_services
from ladder.errors import LadderError
from ladder.models import RatedResult
from matches.models import Match, MatchStatus
from matches.services import tables as match_tables
from sheets.selectors import confirmed_result, confirmed_results
from tournaments.models import Entry, Game, GameSource, GameStatus, Tournament
from tournaments.selectors import game_users, users_by_seat

log = logging.getLogger(__name__)


def hand_to_ladder(
    tournament: Tournament,
    source: str,
    source_id: object,
    *,
    sides: Sequence[Sequence[int]],
    scores: Sequence[int],
    winner: int | None,
    ended_at: datetime,
) -> None:
    """Hand the result of one of ``tournament``'s games to the club ladder
    (:func:`ladder.services.record_result`, idempotent on ``(source, source_id)``). The winner
    goes with the scores only in a game won by levels (Bao 2, Guandan: 23:23 with a winner is
    that side's win); in a points game equal points are a draw whoever is named. A refusal
    of the ladder is logged, never raised: the tournament's result stands either way."""
    try:
        ladder_services.record_result(
            source=source,
            source_id=str(source_id),
            variant=tournament.variant,
            sides=sides,
            scores=list(scores),
            ended_at=ended_at,
            club_id=tournament.club_id,
            winner=winner if game_facts(tournament.variant).levels else None,
        )
    except LadderError:
        log.exception("%s result %s could not be rated", source, source_id)


def link_sheet(game: Game, sheet_id: int) -> None:
    """Record that confirmed score sheet ``sheet_id`` is the game's (saved if it changed)."""
    if game.sheet_id != sheet_id:
        game.sheet_id = sheet_id
        game.save(update_fields=["sheet"])


def matching_sheet(
    tournament: Tournament, game: Game, entries: dict[int, Entry], results: Sequence[Any]
) -> tuple[Any, bool] | None:
    """The first confirmed sheet result (among ``results``) with the game's players on its
    two sides, and whether its sides are the game's the other way round."""
    seat_users = users_by_seat(tournament, game, entries)
    want = [set(seat_users[0::2]), set(seat_users[1::2])]
    for result in results:
        if result.sides is None or result.scores is None:
            continue
        got = [set(result.sides[0]), set(result.sides[1])]
        if got == want:
            return result, False
        if got == want[::-1]:
            return result, True
    return None


def rate_sheet(tournament: Tournament, result: Any) -> None:
    """A rated tournament's in-person result feeds the club ladder (idempotent: same source
    id as the score sheet's own recording). In Bao 2 and Guandan the sheet's winner goes with
    the levels, so a sheet won with level scores (23:23 after passing 2A) is rated a win."""
    hand_to_ladder(
        tournament,
        "sheet",
        result.sheet_id,
        sides=result.sides,
        scores=result.scores,
        winner=result.winner,
        ended_at=result.ended_at,
    )


def organiser_rated_game(sheet: Any) -> Game | None:
    """The game a confirmed score sheet records if an organiser's result already rated it.

    That is a finished game of a rated in-person tournament of the sheet's club and game,
    with the sheet's players on its two sides, whose result an organiser entered (and the
    ladder took, :func:`rate_organiser_result`) after the sheet was started, in a round that
    had started before it. The sheet is linked to the game, and the caller does not rate it
    again: a game counts once. None when there is no such game.
    """
    result = confirmed_result(sheet)
    if result is None or result.sides is None or result.scores is None:
        return None
    candidates = Game.objects.filter(
        round__tournament__club_id=sheet.club_id,
        round__tournament__variant=sheet.variant,
        round__tournament__online=False,
        round__tournament__rated=True,
        round__started_at__lte=sheet.started_at,
        source=GameSource.ADMIN,
        status=GameStatus.FINISHED,
        sheet__isnull=True,
        finished_at__gte=sheet.started_at,
    ).select_related("round__tournament")
    for game in candidates.order_by("-finished_at", "-id"):
        tournament = game.round.tournament
        entries = {e.pk: e for e in tournament.entries.filter(pk__in=game.side0 + game.side1)}
        if matching_sheet(tournament, game, entries, [result]) is None:
            continue
        if not _rated_already("admin", organiser_source_id(game)):
            continue
        link_sheet(game, sheet.pk)
        return game
    return None


def organiser_source_id(game: Game) -> str:
    """The ladder's source id of the organiser's result of ``game``: the game's id, with
    ``.<n>`` after it once re-bracketing has cleared a result of it ``n`` times (notes
    ``bracket_corrected`` marked ``cleared``: :func:`tournaments.services.results.rebracket`).
    The game as it was played before keeps its rating (it was played), and the game played
    again — often by other entries — is rated as the new game it is, once, instead of
    correcting the earlier one's."""
    cleared = sum(
        1
        for note in game.notes
        if note.get("code") == "bracket_corrected" and (note.get("detail") or {}).get("cleared")
    )
    return f"{game.pk}.{cleared}" if cleared else str(game.pk)


def _rated_already(source: str, source_id: object) -> bool:
    return RatedResult.objects.filter(source=source, source_id=str(source_id)).exists()


def rate_organiser_result(tournament: Tournament, game: Game, now: datetime) -> None:
    """Feed an organiser-entered result to the club ladder, keeping each game rated once.

    What a club would expect, decided here:

    * Only a **rated** tournament feeds the ladder (``Tournament.rated``, fixed once round 1
      is paired); an unrated one never does, whoever enters its results.
    * A game counts for the ladder **once**, by the record of what was played when there is
      one: a live match that finished and was rated, or a confirmed score sheet of the
      game's players (linked to the game and rated here if the tick has not yet collected
      it). The organiser's result then only changes the standings (and the bracket).
    * Otherwise the organiser's result is the game's rating (source ``admin``, source id the
      game's id): an in-person game scored without a sheet, a live match that broke off, a
      walkover. A live match still being played is taken off the ladder first (its table
      becomes unrated, and its row's revision moves so a move being written at this instant
      re-reads the table), so it cannot be rated a second time when it ends.
    * A correction of a game the organiser's result rated corrects that rating: its ladders
      are rebuilt (:func:`ladder.services.correct_result`), so every rating after the game
      follows. A game rated from what was played (a live match, a confirmed sheet) keeps
      that rating: the record of play stands; standings and the bracket follow the
      correction either way.
    * Bao 2 and Guandan are scored in levels, so the organiser's winner goes with the levels:
      23:23 with a winner (it passed 2A first) is rated as that side's win. In Shuangkou the
      points decide; equal points are a draw for the ladder even when a winner is named
      (a knockout tie decided off the table is not a win on it).
    """
    if not tournament.rated or game.is_bye or game.score0 is None or game.score1 is None:
        return
    if _rated_already("admin", organiser_source_id(game)):
        try:
            ladder_services.correct_result(
                source="admin",
                source_id=organiser_source_id(game),
                scores=[game.score0, game.score1],
                winner=game.winner if game_facts(tournament.variant).levels else None,
            )
        except LadderError:
            log.exception("corrected result of game %s could not be rated", game.pk)
        return
    if game.table_id is not None and not _take_live_match_off_the_ladder(game):
        return
    if game.table_id is None:
        if game.sheet_id is not None and _rated_already("sheet", game.sheet_id):
            return
        if game.sheet_id is None and _link_confirmed_sheet(tournament, game):
            return
    hand_to_ladder(
        tournament,
        "admin",
        organiser_source_id(game),
        sides=game_users(tournament, game),
        scores=[game.score0, game.score1],
        winner=game.winner,
        ended_at=min(now, timezone.now()),
    )


def correct_played_rating(tournament: Tournament, game: Game) -> None:
    """After a corrected result (:func:`tournaments.services.results.correct_result`): a game
    the ladder rated from what was played — its finished live match, or the confirmed score
    sheet linked to it — has that rating corrected to the game's new scores, each side's
    scores to its own players (:func:`ladder.services.correct_result` rebuilds the ladder
    once; the same scores again change nothing): the decision overrides the record of play.
    An organiser-rated game was corrected by :func:`rate_organiser_result` already."""
    if not tournament.rated or game.score0 is None:
        return
    if game.table_id is not None:
        match_id = Match.objects.filter(table_id=game.table_id).values_list("pk", flat=True)
        source, source_id = "live", match_id.first()
    elif game.sheet_id is not None:
        source, source_id = "sheet", game.sheet_id
    else:
        return
    rated = RatedResult.objects.filter(source=source, source_id=str(source_id)).first()
    if source_id is None or rated is None:
        return
    scores = [game.score0, game.score1 or 0]
    winner = game.winner if game_facts(tournament.variant).levels else None
    rated0 = set(rated.players.filter(side=0).values_list("user_id", flat=True))
    users = game_users(tournament, game)
    if rated0 == set(users[1]):  # the record's sides are the game's the other way round
        scores.reverse()
        winner = None if winner is None else 1 - winner
    elif rated0 != set(users[0]):
        log.error("rated result %s has other players than game %s", rated.pk, game.pk)
        return
    try:
        ladder_services.correct_result(
            source=source, source_id=str(source_id), scores=scores, winner=winner
        )
    except LadderError:
        log.exception("corrected result of game %s could not be rated", game.pk)


def _take_live_match_off_the_ladder(game: Game) -> bool:
    """For a live game: False if its match has finished and was rated (the ladder has the
    game); else make sure the match never will be, and return True."""
    match = match_tables.take_table_off_the_ladder(game.table_id)
    if match is not None and match.status == MatchStatus.FINISHED:
        return not _rated_already("live", match.pk)
    return True


def _link_confirmed_sheet(tournament: Tournament, game: Game) -> bool:
    """For an in-person game: link the confirmed sheet of its players (since the round
    started), if any, and rate it as the tick would; True when one was found."""
    results = confirmed_results(tournament.club, tournament.variant, since=game.round.started_at)
    entries = {e.pk: e for e in tournament.entries.all()}
    found = matching_sheet(tournament, game, entries, results)
    if found is None:
        return False
    result, _flip = found
    link_sheet(game, result.sheet_id)
    rate_sheet(tournament, result)
    return True
