"""Rounds: how many there are and when, their pairing (through the pure
:mod:`tournaments.pairing`, from the records of :mod:`tournaments.standings`), an
organiser's edits, and starting a round (its live tables open with the seats assigned).

The calls into the live tables (``matches.services.tables.open_table`` / ``take_seat``) are all in
:func:`_open_tables`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs import permissions as club_permissions
from clubs import selectors as club_selectors
from clubs.models import User
from games.variants import game as game_facts
from matches.messages import MatchError
from matches.services import tables as match_tables
from tournaments import notifications, pairing, standings
from tournaments.models import (
    ACCEPTED_STATUSES,
    ACTIVE_STATUSES,
    Entry,
    EntryStatus,
    Game,
    GameSource,
    GameStatus,
    Round,
    RoundStatus,
    Tournament,
    TournamentFormat,
    TournamentStatus,
    UnitKind,
)
from tournaments.services.errors import TournamentError
from tournaments.services.setup import managed
from tournaments.windows import checkin_open


def total_rounds(tournament: Tournament) -> int:
    """How many rounds the tournament has (Swiss: as planned; round robin and elimination:
    from the entries of round 1, or the active entries before it)."""
    if tournament.format == TournamentFormat.SWISS:
        return tournament.rounds_planned
    order = tournament_order(tournament)
    if tournament.format == TournamentFormat.ROUND_ROBIN:
        n = len(order)
        return max(0, n - 1 if n % 2 == 0 else n)
    return pairing.elimination_rounds(len(order)) if len(order) >= 2 else 0


def tournament_order(tournament: Tournament, now: datetime | None = None) -> list[int]:
    """Entry ids in seeding order: those of round 1 once it exists, else the active ones
    (at ``now``: see :func:`checkin_applies`)."""
    first = tournament.rounds.filter(number=1).first()
    if first is not None:
        games = list(first.games.order_by("number"))
        if tournament.format == TournamentFormat.ELIMINATION:
            return [e for g in sorted(games, key=lambda g: g.slot) for e in g.side0 + g.side1]
        ids = {e for g in games for e in g.side0 + g.side1}
        return [e.pk for e in tournament.entries.order_by("seed", "id") if e.pk in ids]
    return [e.pk for e in _active_entries(tournament, first_round=True, now=now)]


def round_time(tournament: Tournament, number: int) -> datetime:
    """When round ``number`` is scheduled: the start, then every ``round_minutes``."""
    return tournament.starts_at + timedelta(minutes=tournament.round_minutes * (number - 1))


def checkin_applies(tournament: Tournament, now: datetime | None = None) -> bool:
    """Whether round 1 paired at ``now`` takes only checked-in entries: check-in is required
    and has opened. Before it opened nobody could check in, so nobody is left out then."""
    return tournament.checkin_required and checkin_open(tournament, now or timezone.now())


def not_checked_in(tournament: Tournament, now: datetime | None = None) -> list[Entry]:
    """The entries that pairing round 1 at ``now`` would withdraw for not checking in."""
    if tournament.rounds.exists() or not checkin_applies(tournament, now):
        return []
    return list(
        tournament.entries.filter(status=EntryStatus.REGISTERED)
        .select_related("player1", "player2")
        .order_by("seed", "id")
    )


def _active_entries(
    tournament: Tournament, first_round: bool, now: datetime | None = None
) -> list[Entry]:
    # a pending pair (its partner has not accepted) is not paired
    entries = tournament.entries.filter(status__in=ACCEPTED_STATUSES).order_by("seed", "id")
    if first_round and checkin_applies(tournament, now):
        entries = entries.filter(status=EntryStatus.CHECKED_IN)
    return list(entries)


def records_of(games: Sequence[Game]) -> list[standings.Record]:
    """Standings records of finished games and byes (a double forfeit: both sides lose; a
    Red Two game: each player on their own total, :func:`tournaments.standings.records_of_table`)."""
    out: list[standings.Record] = []
    for game in games:
        if game.status == GameStatus.BYE:
            out += standings.records_of_game([game.side0, []], None)
        elif game.status == GameStatus.FINISHED and game.seat_scores:
            out += table_records(game).values()
        elif game.status == GameStatus.FINISHED and game.score0 is not None:
            if game.source == GameSource.FORFEIT and game.winner is None:
                for i, side in enumerate(game.sides):
                    for unit in side:
                        out.append(standings.Record(unit, tuple(game.sides[1 - i]), 0, 0, "loss"))
                continue
            out += standings.records_of_game(game.sides, (game.score0, game.score1), game.winner)
    return out


def table_records(game: Game) -> dict[int, standings.Record]:
    """A Red Two game's standings record of each entry
    (:func:`tournaments.standings.records_of_table`), or {} while it has no result."""
    if game.status != GameStatus.FINISHED or not game.seat_scores:
        return {}
    records = standings.records_of_table(game.seat_entries, game.seat_scores, game.seat_forfeits)
    return {r.unit: r for r in records}


def points_of(tournament: Tournament) -> standings.Points:
    """The tournament's match points (a bye counts as a win)."""
    return standings.Points(
        win=tournament.points_win,
        draw=tournament.points_draw,
        loss=0,
        bye=tournament.points_win,
    )


def _history(tournament: Tournament, before: int) -> tuple[pairing.History, list[Game]]:
    games = list(
        Game.objects.filter(round__tournament=tournament, round__number__lt=before).order_by(
            "round__number", "number"
        )
    )
    team = {}
    if tournament.unit_kind == UnitKind.INDIVIDUAL:
        team = {e.pk: e.team for e in tournament.entries.all() if e.team}
    history = pairing.History(team=team)
    for game in games:
        pure = pairing.Game((tuple(game.side0), tuple(game.side1)))
        if tournament.per_seat:
            history.add_table(pure)
        else:
            history.add(pure)
    return history, games


def planned_games(
    tournament: Tournament, number: int, now: datetime | None = None
) -> list[pairing.Game]:
    """The pure pairing of round ``number`` at ``now`` (see :mod:`tournaments.pairing`)."""
    history, games = _history(tournament, number)
    points = standings.match_points(records_of(games), points_of(tournament))
    fmt = tournament.format
    if fmt == TournamentFormat.ROUND_ROBIN:
        order = tournament_order(tournament, now)
        schedule = pairing.round_robin(order)
        if number > len(schedule):
            return []
        active = {e.pk for e in _active_entries(tournament, first_round=False)}
        out = []
        for game in schedule[number - 1]:
            units = [u for u in game.units if u in active]
            if len(units) == 2:
                out.append(game)
            elif len(units) == 1:
                out.append(pairing.Game(((units[0],), ())))
        return pairing.explain_games(out, points, history)
    if fmt == TournamentFormat.ELIMINATION:
        if number == 1:
            return pairing.elimination_first_round(tournament_order(tournament, now))
        previous = [g for g in games if g.round.number == number - 1 and not g.third_place]
        previous.sort(key=lambda g: g.slot)
        winners, losers = [], []
        for game in previous:
            w = winner_entry(game)
            if w is None:
                raise TournamentError(
                    "undecided", _("A game of the previous round has no winner yet.")
                )
            winners.append(w)
            losers.append(_loser_entry(game))
        if len(winners) < 2:
            return []
        return pairing.elimination_next_round(winners, losers, tournament.third_place)
    units = [e.pk for e in _active_entries(tournament, first_round=number == 1, now=now)]
    if number > 1:
        # late entries that never checked in still play once registered
        units = [e.pk for e in _active_entries(tournament, first_round=False)]
    if tournament.per_seat:
        return pairing.table_round(units, points, history)
    if tournament.unit_kind == UnitKind.INDIVIDUAL:
        return pairing.individual_round(units, points, history)
    return pairing.swiss_round(units, points, history)


def winner_entry(game: Game) -> int | None:
    """The entry that won a two-entry game (a bye: its entry); None without a winner."""
    if game.status == GameStatus.BYE:
        return game.side0[0]
    if game.status != GameStatus.FINISHED or game.winner is None:
        return None
    return game.sides[game.winner][0]


def _loser_entry(game: Game) -> int | None:
    if game.status != GameStatus.FINISHED or game.winner is None:
        return None
    return game.sides[1 - game.winner][0]


def create_round(tournament: Tournament, number: int, now: datetime) -> Round:
    """Pair round ``number`` and store its games (the caller holds the tournament's lock).
    Round 1 of a tournament with check-in, once check-in has opened, withdraws the entries that
    did not check in and tells their players (a notice and an e-mail); before check-in opened,
    every registered entry is paired and nobody is withdrawn."""
    planned = planned_games(tournament, number, now)
    if not planned:
        raise TournamentError("nobody", _("There are not enough entries to pair a round."))
    if number == 1:
        # entries that did not check in are out (late entries come after)
        missing = not_checked_in(tournament, now)
        Entry.objects.filter(pk__in=[e.pk for e in missing]).update(
            status=EntryStatus.WITHDRAWN, withdrawn_at=now
        )
        notifications.notify_withdrawn(tournament, missing)
    rnd, _created = Round.objects.get_or_create(
        tournament=tournament,
        number=number,
        defaults={"scheduled_at": round_time(tournament, number)},
    )
    rnd.games.all().delete()
    finals = (
        tournament.format == TournamentFormat.ELIMINATION
        and number > 1
        and number == total_rounds(tournament)
    )
    games = []
    for i, g in enumerate(planned):
        third = finals and len(planned) == 2 and i == 1 and tournament.third_place
        games.append(
            Game(
                round=rnd,
                number=i + 1,
                side0=list(g.sides[0]),
                side1=list(g.sides[1]),
                notes=[n.to_json() for n in g.notes],
                slot=i,
                third_place=third,
                status=GameStatus.BYE if g.is_bye else GameStatus.PENDING,
                finished_at=now if g.is_bye else None,
            )
        )
    Game.objects.bulk_create(games)
    rnd.status = RoundStatus.PAIRED
    rnd.save(update_fields=["status"])
    return rnd


def _managed_active(user: User, tournament: Tournament) -> Tournament:
    """:func:`~tournaments.services.setup.managed`, for a tournament that is scheduled,
    running or paused."""
    tournament = managed(user, tournament)
    if tournament.status not in ACTIVE_STATUSES:
        raise TournamentError("bad_status", _("This tournament is not running."))
    return tournament


def _next_number(tournament: Tournament, last: Round | None) -> int:
    """The number of the round after ``last``; refused when every round has been played."""
    number = (last.number + 1) if last else 1
    if number > total_rounds(tournament):
        raise TournamentError("no_more_rounds", _("Every round has been played."))
    return number


def _confirm_withdrawals(tournament: Tournament, now: datetime, confirmed: bool) -> None:
    """Refuse to pair round 1 by hand while it would withdraw entries the organiser has not
    been shown (``confirmed``): the refusal names them."""
    missing = not_checked_in(tournament, now)
    if missing and not confirmed:
        raise TournamentError(
            "confirm_withdrawals",
            _("Not checked in, and withdrawn if you pair now: %(names)s. Confirm to go on.")
            % {"names": ", ".join(e.name for e in missing)},
        )


@transaction.atomic
def pair_next_round(
    user: User,
    tournament: Tournament,
    now: datetime | None = None,
    *,
    confirm_withdrawals: bool = False,
) -> Round:
    """Pair the next round now without starting it, so an organiser can edit the pairing.
    Round 1 that would withdraw entries not checked in is refused unless
    ``confirm_withdrawals`` (see :func:`not_checked_in`)."""
    tournament = _managed_active(user, tournament)
    now = now or timezone.now()
    last = tournament.rounds.order_by("-number").first()
    if last is None:
        _confirm_withdrawals(tournament, now, confirm_withdrawals)
    if last is not None and last.status == RoundStatus.PAIRED:
        return last
    if last is not None and last.status != RoundStatus.FINISHED:
        raise TournamentError("round_running", _("The current round has not finished."))
    return create_round(tournament, _next_number(tournament, last), now)


@transaction.atomic
def swap_entries(user: User, rnd: Round, first: int, second: int) -> Round:
    """Swap two entries' places in a paired round that has not started; the notes of the
    games are recomputed (so a broken preference the edit causes is explained too)."""
    tournament = managed(user, rnd.tournament)
    rnd = Round.objects.select_for_update().get(pk=rnd.pk)
    if rnd.status != RoundStatus.PAIRED:
        raise TournamentError(
            "round_started", _("A pairing can only be edited before its round starts.")
        )
    games = list(rnd.games.select_for_update().order_by("number"))
    places = {}
    for game in games:
        for side in (0, 1):
            for i, unit in enumerate(game.sides[side]):
                places[unit] = (game, side, i)
    if first not in places or second not in places or first == second:
        raise TournamentError("bad_swap", _("Choose two different entries of this round."))
    (ga, sa, ia), (gb, sb, ib) = places[first], places[second]
    side_a = ga.side0 if sa == 0 else ga.side1
    side_a[ia] = second
    side_b = gb.side0 if sb == 0 else gb.side1
    side_b[ib] = first
    history, past = _history(tournament, rnd.number)
    points = standings.match_points(records_of(past), points_of(tournament))
    explained = pairing.explain_games(
        [pairing.Game((tuple(g.side0), tuple(g.side1))) for g in games],
        points,
        history,
        tables=tournament.per_seat,
    )
    for game, ex in zip(games, explained, strict=True):
        game.notes = [n.to_json() for n in ex.notes] + [
            {"code": "edited", "units": [first, second], "detail": {}}
        ] * (game in (ga, gb))
        game.status = GameStatus.BYE if game.is_bye else GameStatus.PENDING
    Game.objects.bulk_update(games, ["side0", "side1", "notes", "status"])
    return rnd


def users_by_seat(tournament: Tournament, game: Game, entries: dict[int, Entry]) -> list[int]:
    """The user id of each seat: side 0 at seats 0 and 2, side 1 at seats 1 and 3."""
    if game_facts(tournament.variant).seats == 2:
        return [entries[game.side0[0]].player1_id, entries[game.side1[0]].player1_id]
    if tournament.unit_kind == UnitKind.INDIVIDUAL:
        return [entries[e].player1_id for e in game.seat_entries]
    ea, eb = entries[game.side0[0]], entries[game.side1[0]]
    return [ea.player1_id, eb.player1_id, ea.player2_id, eb.player2_id]


def game_users(tournament: Tournament, game: Game) -> list[list[int]]:
    """The user ids of the game's two sides (every player of each side's entries)."""
    entries = {e.pk: e for e in tournament.entries.filter(pk__in=game.side0 + game.side1)}
    return [[u for e in side for u in entries[e].user_ids] for side in game.sides]


def _open_tables(tournament: Tournament, rnd: Round) -> None:
    entries = {e.pk: e for e in tournament.entries.select_related("player1", "player2")}
    users = {}
    opener = tournament.created_by
    if opener is None or not club_permissions.is_club_admin(opener, tournament.club):
        opener = club_selectors.club_owner(tournament.club)
    for game in rnd.games.filter(status=GameStatus.PENDING).order_by("number"):
        seat_ids = users_by_seat(tournament, game, entries)
        for uid in seat_ids:
            if uid not in users:
                users[uid] = User.objects.get(pk=uid)
        try:
            table = match_tables.open_table(
                opener,
                tournament.club,
                variant=tournament.variant,
                options=dict(tournament.match_options or {}),
                clocks=True,
                time_limit_seconds=tournament.time_limit_minutes * 60,
                rated=tournament.rated,
                competition=True,
                sit=False,
            )
            for index, uid in enumerate(seat_ids):
                match_tables.take_seat(users[uid], table, index)
        except MatchError as error:
            # e.g. a player left the club: nothing of the round is kept (one transaction)
            raise TournamentError(
                "table_failed",
                _("The table of game %(n)d could not be opened: %(reason)s")
                % {"n": game.number, "reason": error.message},
            ) from None
        game.table = table
        game.status = GameStatus.PLAYING
        game.save(update_fields=["table", "status"])


def begin_round(tournament: Tournament, rnd: Round, now: datetime) -> Round:
    """Start paired round ``rnd`` at ``now`` (the caller holds the tournament's lock): open
    its live tables with the seats assigned (online) or mark its games as being played;
    its players are notified in the same transaction (notices, and e-mails through the outbox)."""
    if tournament.online:
        _open_tables(tournament, rnd)
    else:
        rnd.games.filter(status=GameStatus.PENDING).update(status=GameStatus.PLAYING)
    rnd.status = RoundStatus.PLAYING
    rnd.started_at = now
    rnd.save(update_fields=["status", "started_at"])
    if tournament.status == TournamentStatus.SCHEDULED:
        tournament.status = TournamentStatus.RUNNING
        tournament.save(update_fields=["status"])
    notifications.notify_round(rnd)
    return rnd


@transaction.atomic
def start_round(
    user: User,
    tournament: Tournament,
    now: datetime | None = None,
    *,
    confirm_withdrawals: bool = False,
) -> Round:
    """Start the next round by hand now (pairing it first if needed; round 1 as
    :func:`pair_next_round` does)."""
    tournament = _managed_active(user, tournament)
    now = now or timezone.now()
    last = tournament.rounds.order_by("-number").first()
    if last is None:
        _confirm_withdrawals(tournament, now, confirm_withdrawals)
    if last is None or last.status == RoundStatus.FINISHED:
        last = create_round(tournament, _next_number(tournament, last), now)
    elif last.status != RoundStatus.PAIRED:
        raise TournamentError("round_running", _("The current round has not finished."))
    return begin_round(tournament, last, now)
