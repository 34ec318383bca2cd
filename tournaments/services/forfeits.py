"""Forfeits: a live game whose players have neither connected nor acted some minutes after
the round started (no-shows), and the games of an entry that has withdrawn (第二十四条二),
are forfeited — a live one through the match's event log, so its result is collected like any
other and the ladder follows once."""

from __future__ import annotations

import logging
from collections.abc import Collection
from datetime import datetime, timedelta
from typing import Any

from django.utils.translation import gettext as _

from matches.messages import MatchError
from matches.models import Actor, Match, MatchStatus
from matches.services import play as match_play
from matches.services import tables as match_tables
from tournaments.models import (
    EntryStatus,
    Game,
    GameSource,
    GameStatus,
    Round,
    Tournament,
)
from tournaments.notifications import notify_users
from tournaments.selectors import game_users
from tournaments.services.results import collect_live, finish_game, finish_seats
from tournaments.services.withdrawals import forfeit_note, withdrawal_result

log = logging.getLogger(__name__)


def _absent_seats(game: Game, now: datetime) -> list[int]:
    """Seats of a live game whose player has neither connected nor acted."""
    match = Match.objects.filter(table_id=game.table_id).first()
    if match is None or match.status != MatchStatus.PLAYING:
        return []
    acted = set(match.events.filter(actor="player").values_list("seat", flat=True))
    present = set(match.presences.values_list("seat", flat=True))
    return [i for i in range(len(match.seats)) if i not in acted and i not in present]


def forfeit_no_shows(tournament: Tournament, rnd: Round, now: datetime) -> int:
    """Forfeit the live games of playing round ``rnd`` that still have absent players
    ``no_show_minutes`` after it started, and tell their players; return how many."""
    if not tournament.no_show_minutes or not tournament.online or rnd.started_at is None:
        return 0
    if now < rnd.started_at + timedelta(minutes=tournament.no_show_minutes):
        return 0
    done = 0
    for game in rnd.games.filter(status=GameStatus.PLAYING, table__isnull=False):
        absent = _absent_seats(game, now)
        if not absent:
            continue
        match = Match.objects.get(table_id=game.table_id)
        if tournament.per_seat:
            # Red Two: each absent player loses; the others play no more and the most points
            # (0 each when nothing was played) decide among them
            if not _forfeit_match(match, absent[0]):
                continue
            game.refresh_from_db()
            collect_live(tournament, game, now, forfeits=absent)
        elif len({seat % 2 for seat in absent}) == 2:
            # Both sides lose. The live match still ends through its event log (a referee
            # forfeit), at a table made unrated first so the ladder does not count it.
            match_tables.take_table_off_the_ladder(game.table_id)
            _forfeit_match(match, absent[0])
            finish_game(game, 0, 0, None, GameSource.FORFEIT, now)
        else:
            if not _forfeit_match(match, absent[0]):
                continue
            game.refresh_from_db()
            collect_live(tournament, game, now)
        done += 1
        notify_users(
            tournament,
            [u for side in game_users(tournament, game) for u in side],
            lambda: (
                _("%(t)s round %(n)d: a no-show forfeited the game.")
                % {"t": tournament.name, "n": rnd.number}
            ),
            key=f"forfeit:{game.pk}",
        )
    return done


def _forfeit_match(match: Any, seat: int) -> bool:
    """End a live match by a forfeit against ``seat`` (through its event log); False if the
    match refused it (logged)."""
    try:
        match_play.submit_action(
            match.pk, {"sanction": "forfeit", "target": seat}, seat=None, actor=Actor.SYSTEM
        )
    except MatchError:
        log.exception("no-show forfeit of match %s refused", match.pk)
        return False
    return True


def forfeit_withdrawn(
    tournament: Tournament, rnd: Round, now: datetime, only: Collection[int] | None = None
) -> int:
    """Forfeit every game of ``rnd`` without a result in which a withdrawn entry (of ``only``,
    when given) plays, to the other side (第二十四条二: the round's game "按弃权处理，判其对手获胜";
    a knockout's opponent goes through): a live match through its event log, then its result
    collected; a game not being played is stored as a forfeit at once (levels: the winner at
    the top, 18:0 级分 under national scoring; points: 0:0). When both sides have withdrawn,
    both lose — but a knockout game needs a winner, so side 0 goes through (to be forfeited
    in its turn). Each game gets a ``withdrawal_forfeit`` note and its other players a notice.
    A game with a result is left as it is, so forfeiting again changes nothing. Returns how
    many games were forfeited."""
    withdrawn = set(
        tournament.entries.filter(status=EntryStatus.WITHDRAWN).values_list("pk", flat=True)
    )
    if only is not None:
        withdrawn &= set(only)
    done = 0
    games = rnd.games.select_for_update().exclude(status__in=[GameStatus.FINISHED, GameStatus.BYE])
    for game in games.select_related("round").order_by("number"):
        out = [e for e in game.side0 + game.side1 if e in withdrawn]
        if not out:
            continue
        _forfeit_withdrawn_game(tournament, game, set(out), now)
        game.refresh_from_db()
        names = dict(tournament.entries.filter(pk__in=out).values_list("pk", "name"))
        note = forfeit_note(game, out, names)
        gone = names_text(note)
        game.notes = [*game.notes, note]
        game.save(update_fields=["notes"])
        done += 1
        staying = [
            u
            for i, side in enumerate(game.sides)
            if not set(side) & set(out)
            for u in game_users(tournament, game)[i]
        ]
        notify_users(
            tournament,
            staying,
            lambda name=gone: (
                _("%(t)s round %(n)d: %(name)s has withdrawn and forfeits the game.")
                % {"t": tournament.name, "n": rnd.number, "name": name}
            ),
            key=f"withdrawal-forfeit:{game.pk}",
        )
    return done


def _forfeit_withdrawn_game(
    tournament: Tournament, game: Game, out: set[int], now: datetime
) -> None:
    """Forfeit ``game`` against its withdrawn entries ``out`` (see :func:`forfeit_withdrawn`)."""
    match = None
    if game.table_id is not None:
        match = Match.objects.filter(table_id=game.table_id).first()
    if tournament.per_seat:
        seats = [i for i, e in enumerate(game.seat_entries) if e in out]
        if match is not None and _ended_live(match, seats[0]):
            game.refresh_from_db()
            collect_live(tournament, game, now, forfeits=seats)
            return
        finish_seats(game, [0] * len(game.seat_entries), seats, GameSource.FORFEIT, now)
        return
    result = withdrawal_result(tournament, game, out)
    if result.winner is None:
        # both sides lose: the live match ends unrated (nobody won it), the game is 0:0
        if game.table_id is not None:
            match_tables.take_table_off_the_ladder(game.table_id)
        if match is not None and match.status == MatchStatus.PLAYING:
            _forfeit_match(match, 0)
        finish_game(game, 0, 0, None, GameSource.FORFEIT, now)
        return
    # the losing side sits at the seats of its parity (0 and 2, or 1 and 3)
    if match is not None and _ended_live(match, 1 - result.winner):
        game.refresh_from_db()
        if collect_live(tournament, game, now) or game.status == GameStatus.FINISHED:
            return
    if match is not None and match.status != MatchStatus.FINISHED:
        match_tables.take_table_off_the_ladder(game.table_id)  # the forfeit was refused
    score0, score1 = result.scores
    finish_game(game, score0, score1, result.winner, GameSource.FORFEIT, now, stop_levels=(0, 0))


def _ended_live(match: Any, seat: int) -> bool:
    """End a live match still being played by a forfeit against ``seat``; True when the
    match has finished (by this forfeit or before it), so its result is the game's."""
    match.refresh_from_db(fields=["status"])
    if match.status == MatchStatus.PLAYING:
        _forfeit_match(match, seat)
        match.refresh_from_db(fields=["status"])
    return match.status == MatchStatus.FINISHED


def names_text(note: dict[str, Any]) -> str:
    """The withdrawn entries' names a ``withdrawal_forfeit`` note carries."""
    return str((note.get("detail") or {}).get("name", ""))
