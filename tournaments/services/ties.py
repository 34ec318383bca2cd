"""Knockout ties of several games (多局制淘汰赛, 第三十条): each tie of a single elimination
with ``Tournament.series`` is played game after game in its round, between the same two
entries (the same sides), until :func:`tournaments.series.series_state` decides it. The games
of a tie share its bracket slot; the round is done when every tie is decided
(:func:`tournaments.services.results.round_done`), and the next round pairs the ties'
winners (:func:`tournaments.services.rounds.planned_slots`).

:func:`play_on_ties` makes each undecided tie's next game once its last game has a result:
called by the schedule after it collects the round's results, and after an organiser enters
one. A game of an entry that has withdrawn is made decided, a forfeit
(:func:`~tournaments.services.withdrawals.decide_new_games`), so its tie goes on to the next
game at once; a live game opens its table with the round's seats, and its players are told
where it is (:func:`tournaments.notifications.notify_series_game`, once)."""

from __future__ import annotations

from datetime import datetime

from tournaments import notifications, selectors
from tournaments import series as tie_series
from tournaments.models import (
    Game,
    GameStatus,
    Round,
    RoundStatus,
    Tournament,
    TournamentFormat,
    TournamentStatus,
)
from tournaments.services.rounds import open_pending_tables
from tournaments.services.withdrawals import decide_new_games

#: The note on a tie's second and later games (:data:`tournaments.selectors.NOTE_TEXT`).
SERIES_GAME = "series_game"


def _reopen(tournament: Tournament, rnd: Round) -> bool:
    """A corrected result left a tie of the finished round ``rnd`` undecided (a best-of tie
    back to one win each, a sum now equal, a game that must have a winner corrected to equal
    levels without one: the organiser then names it): the round is played again — back to
    playing, a finished tournament back to running — so that the tie's next game is made at
    once in its own round, as after an entered result, and the schedule finishes the round
    again once it is decided (:func:`tournaments.services.schedule.advance` plays on every round
    being played, the earliest first). The later rounds already paired are re-bracketed by
    the caller (:func:`tournaments.services.results.rebracket`): the games the tie feeds
    wait without entries until it is decided, then are filled. Returns whether it
    reopened."""
    if tournament.status not in (
        TournamentStatus.RUNNING,
        TournamentStatus.PAUSED,
        TournamentStatus.FINISHED,
    ):
        return False
    games = list(rnd.games.select_related("round"))
    if not any(
        # its next game, or (a game corrected to a tie at the table) its winner named
        tie.sides[0] and not tie.state.decided
        for tie in selectors.ties_of(tournament, games)
    ):
        return False
    rnd.status = RoundStatus.PLAYING
    rnd.finished_at = None
    rnd.save(update_fields=["status", "finished_at"])
    if tournament.status == TournamentStatus.FINISHED:
        tournament.status = TournamentStatus.RUNNING
        tournament.finished_at = None
        tournament.save(update_fields=["status", "finished_at"])
    return True


def play_on_ties(tournament: Tournament, rnd: Round, now: datetime) -> int:
    """Make the next game of each undecided tie of ``rnd`` (a round being played of a single
    elimination played in series, or a round finished before a correction left a tie
    undecided: :func:`_reopen`, whether or not later rounds are paired) whose games so far
    all have their results; return how many were made. The caller holds the tournament's
    lock. Made again and again while games are decided at once (forfeits), never more than a
    tie can take (:data:`tournaments.series.MAX_GAMES`)."""
    if tournament.format != TournamentFormat.ELIMINATION or not tournament.series:
        return 0
    if rnd.status == RoundStatus.FINISHED and not _reopen(tournament, rnd):
        return 0
    if rnd.status != RoundStatus.PLAYING:
        return 0
    made = 0
    for _attempt in range(tie_series.MAX_GAMES):
        games = list(rnd.games.select_related("round"))
        number = max((g.number for g in games), default=0)
        new = []
        for tie in selectors.ties_of(tournament, games):
            state = tie.state
            if state.decided or state.next_game not in ("game", "decider"):
                continue
            if len(tie.games) >= tie_series.MAX_GAMES:
                continue  # a bound: a tie never has more games than the longest series
            number += 1
            new.append(
                Game(
                    round=rnd,
                    number=number,
                    side0=list(tie.sides[0]),
                    side1=list(tie.sides[1]),
                    slot=tie.slot,
                    third_place=tie.third_place,
                    notes=[
                        {
                            "code": SERIES_GAME,
                            "units": [],
                            "detail": {
                                "game": len(tie.games) + 1,
                                "decider": state.next_game == "decider",
                            },
                        }
                    ],
                    status=GameStatus.PENDING if tournament.online else GameStatus.PLAYING,
                )
            )
        if not new:
            break
        decide_new_games(tournament, new, now)  # a withdrawn entry's: a forfeit (第二十四条二)
        Game.objects.bulk_create(new)
        made += len(new)
        if tournament.online:
            open_pending_tables(tournament, rnd)
        # its players are told where the next game is (a forfeit made at once: nobody)
        numbers = [g.number for g in new if g.status != GameStatus.FINISHED]
        for game in rnd.games.select_related("round").filter(number__in=numbers):
            notifications.notify_series_game(tournament, game)
    return made
