"""No-show forfeits: a live game whose players have neither connected nor acted some minutes
after the round started is forfeited through the match's event log."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.utils.translation import gettext as _

from matches.messages import MatchError
from matches.models import Actor, Match, MatchStatus
from matches.services import play as match_play
from matches.services import tables as match_tables
from tournaments.models import Game, GameSource, GameStatus, Round, Tournament
from tournaments.notifications import notify_users
from tournaments.selectors import game_users
from tournaments.services.results import collect_live, finish_game

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
