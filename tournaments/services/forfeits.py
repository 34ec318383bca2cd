"""Forfeits: a live game whose players have neither connected nor acted some minutes after
the round started (no-shows), and the games of an entry that has withdrawn (第二十四条二),
are forfeited — a live one through the match's event log, so its result is collected like any
other and the ladder follows once."""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.models import User
from games.variants import game as game_facts
from games.variants import level_names
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
from tournaments.services.errors import TournamentError
from tournaments.services.results import collect_live, finish_game, finish_seats, store_forfeit
from tournaments.services.setup import managed
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


#: The note a forfeit ruled by the organiser leaves on its game: the levels at the stop.
FORFEIT_STOP = "forfeit_stop"


def _level(value: Any, top: int) -> int | None:
    """A level index 0…``top`` from a form or JSON value, or None."""
    if isinstance(value, bool):
        return None
    try:
        level = int(str(value).strip())
    except ValueError:
        return None
    return level if 0 <= level <= top else None


@transaction.atomic
def rule_forfeit(
    user: User, game: Game, data: Mapping[str, Any], now: datetime | None = None
) -> Game:
    """An organiser rules that one side of a level game (Bao 2, Guandan) forfeits it
    (第十六条四: a game stopped by a ruling or a forfeit), giving the level each side had
    reached at the stop: ``data`` holds ``forfeiting`` (the side that forfeits, 0 or 1) and
    ``stop0`` / ``stop1`` (level indexes, 0 = the lowest level … the top). The other side wins
    2:0 场分 and 18:0 级分 — unless its 级分 at the stop (the 26-point table) already exceeds 18,
    when the game counts as it stood; Bao 2 keeps its own scale (its forfeit 23:0). The game is
    stored as every forfeit (the winner at the top level) and carries a ``forfeit_stop`` note
    with the levels at the stop. Every problem is refused at once, each naming its field
    (``fields``), and nothing changes then; a game not started or a bye is refused as a
    result would be."""
    tournament = managed(user, game.round.tournament)
    facts = game_facts(tournament.variant)
    if tournament.per_seat or not facts.levels:
        raise TournamentError(
            "no_levels",
            _(
                "A forfeit with the levels at the stop is for games played by levels "
                "(Bao 2, Guandan)."
            ),
        )
    top = facts.max_level
    names = level_names(tournament.variant)
    problems: dict[str, list[str]] = {}
    side = data.get("forfeiting")
    forfeiting = None if isinstance(side, bool) else {"0": 0, "1": 1}.get(str(side).strip())
    if forfeiting is None:
        problems["forfeiting"] = [_("Choose the side that forfeits.")]
    stops = []
    for field in ("stop0", "stop1"):
        level = _level(data.get(field, ""), top)
        if level is None:
            problems[field] = [
                _("Choose the level this side had reached, from %(low)s to %(high)s.")
                % {"low": names[0], "high": names[top]}
            ]
        stops.append(level)
    if problems or forfeiting is None or stops[0] is None or stops[1] is None:
        raise _refusal(problems, _side_names(tournament, game))
    stop = (stops[0], stops[1])
    game = store_forfeit(tournament, game, 1 - forfeiting, stop, now or timezone.now())
    entries = dict(
        tournament.entries.filter(pk__in=game.sides[forfeiting]).values_list("pk", "name")
    )
    note = {
        "code": FORFEIT_STOP,
        "units": list(game.sides[forfeiting]),
        "detail": {
            "side": forfeiting,
            "name": " / ".join(entries.get(pk, "") for pk in game.sides[forfeiting]),
            "levels": list(stop),
            "shown": f"{names[stop[0]]} : {names[stop[1]]}",
        },
    }
    game.notes = [n for n in game.notes if n.get("code") != FORFEIT_STOP] + [note]
    game.save(update_fields=["notes"])
    return game


def _side_names(tournament: Tournament, game: Game) -> list[str]:
    """Each side's entries by name ("王一 / 王二"), as the form labels them."""
    units = [pk for side in game.sides for pk in side]
    names = dict(tournament.entries.filter(pk__in=units).values_list("pk", "name"))
    return [" / ".join(names.get(pk, "") for pk in side) for side in game.sides]


def _refusal(problems: dict[str, list[str]], sides: list[str]) -> TournamentError:
    """Every problem at once, each line naming its field as the form labels it (the side that
    forfeits; each side's level at the stop, by the side's names); ``fields`` keeps them by
    field."""
    labels = {
        "forfeiting": _("Side that forfeits"),
        "stop0": _("%(side)s at the stop") % {"side": sides[0] or _("Side 1")},
        "stop1": _("%(side)s at the stop") % {"side": sides[1] or _("Side 2")},
    }
    lines = [
        _("%(field)s: %(message)s") % {"field": labels[field], "message": message}
        for field, messages in problems.items()
        for message in messages
    ]
    refusal = TournamentError("bad_forfeit", " ".join(lines))
    refusal.fields = problems  # type: ignore[attr-defined]
    return refusal
