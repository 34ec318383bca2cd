"""Rounds: their pairing (through the pure :mod:`tournaments.pairing`, from the records that
:mod:`tournaments.selectors` reads), an organiser's edits, and starting a round (its live tables
open with the seats assigned). How many rounds there are and when is read in
:mod:`tournaments.selectors`.

The calls into the live tables (``matches.services.tables.open_table`` / ``take_seat``) are all in
:func:`_open_tables`."""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs import permissions as club_permissions
from clubs import selectors as club_selectors
from clubs.models import User
from games.variants import game as game_facts
from matches.messages import MatchError
from matches.models import Table
from matches.services import tables as match_tables
from tournaments import brackets, comparisons, notifications, pairing, selectors, standings
from tournaments import series as tie_series
from tournaments.models import (
    ACTIVE_STATUSES,
    KNOCKOUT_FORMATS,
    Entry,
    EntryStatus,
    Game,
    GameStatus,
    Round,
    RoundStatus,
    Tournament,
    TournamentFormat,
    TournamentStatus,
    UnitKind,
)
from tournaments.services.cuts import make_cut
from tournaments.services.errors import TournamentError
from tournaments.services.setup import managed
from tournaments.services.withdrawals import decide_new_games


def _history(tournament: Tournament, before: int) -> tuple[pairing.History, list[Game]]:
    games = list(
        Game.objects.filter(round__tournament=tournament, round__number__lt=before).order_by(
            "round__number", "number"
        )
    )
    team = {}
    if tournament.unit_kind == UnitKind.INDIVIDUAL:
        team = {e.pk: e.team for e in tournament.entries.all() if e.team}
    else:
        team = _club_teams(tournament)
    history = pairing.History(team=team)
    for game in games:
        pure = pairing.Game((tuple(game.side0), tuple(game.side1)))
        if tournament.per_seat:
            history.add_table(pure)
        else:
            history.add(pure)
    return history, games


def _club_teams(tournament: Tournament) -> dict[int, str]:
    """Each entry of a club team (a team event, :attr:`Entry.club_team`) → its team's name:
    the pairing keeps teammates apart while it can (:mod:`tournaments.pairing`)."""
    if not tournament.team_size:
        return {}
    return {
        pk: name
        for pk, name in tournament.entries.filter(club_team__isnull=False).values_list(
            "pk", "club_team__name"
        )
    }


#: The most entries a double elimination takes (its losers' bracket keeps rematches out of
#: its first half up to this size: :mod:`tournaments.brackets`).
DOUBLE_ELIMINATION_MAX = 64


def planned_games(
    tournament: Tournament, number: int, now: datetime | None = None
) -> list[pairing.Game]:
    """The pure pairing of round ``number`` at ``now`` (see :mod:`tournaments.pairing`)."""
    return [game for _slot, game in planned_slots(tournament, number, now)]


def _double_elimination(
    tournament: Tournament, number: int, games: list[Game], now: datetime | None
) -> list[tuple[int, pairing.Game]]:
    """Round ``number`` of a double elimination (:mod:`tournaments.brackets`), each game with
    its bracket slot, from the seeds and the winners of the games before it."""
    order = selectors.tournament_order(tournament, now)
    if number == 1 and len(order) > DOUBLE_ELIMINATION_MAX:
        raise TournamentError(
            "too_many",
            _("A double elimination takes at most %(n)d entries.") % {"n": DOUBLE_ELIMINATION_MAX},
        )
    if len(order) < 2:
        return []
    winners = {}
    for game in games:
        won = selectors.winner_entry(game)
        if won is not None:
            winners[game.slot] = won
    try:
        return [(slot.id, game) for slot, game in brackets.round_games(order, number, winners)]
    except ValueError:
        raise TournamentError(
            "undecided", _("A game of the previous round has no winner yet.")
        ) from None


def planned_slots(
    tournament: Tournament, number: int, now: datetime | None = None
) -> list[tuple[int, pairing.Game]]:
    """:func:`planned_games` with each game's bracket slot (its index in the round, but in a
    double elimination the id of its bracket game)."""
    history, games = _history(tournament, number)
    if tournament.format == TournamentFormat.DOUBLE_ELIMINATION:
        return _double_elimination(tournament, number, games, now)
    return list(enumerate(_planned(tournament, number, now, history, games)))


def _planned(
    tournament: Tournament,
    number: int,
    now: datetime | None,
    history: pairing.History,
    games: list[Game],
) -> list[pairing.Game]:
    scale = selectors.scale_of(tournament)
    records = selectors.records_of(games, scale)
    points = standings.match_points(records, selectors.points_of(tournament))
    fmt = tournament.format
    if fmt == TournamentFormat.ROUND_ROBIN:
        order = selectors.tournament_order(tournament, now)
        # one group: every entry; more (分组循环赛): each group's round robin, in parallel;
        # a double round robin (双循环赛) plays it all again, sides swapped
        cycles = tournament.round_robin_cycles
        schedule = pairing.group_round_robin(
            order, len(selectors.groups_of(tournament, order)), history.team, cycles
        )
        if number > len(schedule):
            return []
        active = {e.pk for e in selectors.active_entries(tournament, first_round=False)}
        # 第二十四条二.1: an entry that withdrew after half its games keeps its place in the
        # schedule, and each of its games is a forfeit (create_round); one under half is gone
        withdrawn = selectors.withdrawals(tournament)
        stands = {pk for pk, w in withdrawn.items() if w.rule == "stands"}
        active |= stands
        out = []
        for game in schedule[number - 1]:
            units = [u for u in game.units if u in active]
            if len(units) == 2:
                out.append(game)
            elif len(units) == 1 and units[0] not in stands:  # a withdrawn entry has no bye
                out.append(pairing.Game(((units[0],), ())))
        return pairing.explain_games(out, points, history, meetings=cycles)
    if fmt == TournamentFormat.ELIMINATION:
        if number == 1:
            return pairing.elimination_first_round(selectors.tournament_order(tournament, now))
        # each tie of the round before, one game or a series (第三十条): its winner goes on
        previous = [
            tie
            for tie in selectors.ties_of(tournament, games)
            if tie.round == number - 1 and not tie.third_place
        ]
        winners, losers = [], []
        for tie in previous:
            w = tie.winner_entry
            if w is None:
                raise TournamentError(
                    "undecided", _("A game of the previous round has no winner yet.")
                )
            winners.append(w)
            losers.append(tie.loser_entry)
        if len(winners) < 2:
            return []
        return pairing.elimination_next_round(winners, losers, tournament.third_place)
    units = [e.pk for e in selectors.active_entries(tournament, first_round=number == 1, now=now)]
    if number > 1:
        # late entries that never checked in still play once registered
        units = [e.pk for e in selectors.active_entries(tournament, first_round=False)]
    if scale is not None:
        # 第二十八条: equal 场分 are ordered by 级分 (the pairing keeps this order among equals)
        grades: dict[int, float] = {}
        for record in records:
            grades[record.unit] = grades.get(record.unit, 0) + record.grade
        units.sort(key=lambda u: -grades.get(u, 0))
    if tournament.per_seat:
        return pairing.table_round(units, points, history)
    if tournament.unit_kind == UnitKind.INDIVIDUAL:
        return pairing.individual_round(units, points, history)
    if number == 1 and not games:
        # 第二十八条一: the first round by serpentine seeding from the seeding order
        return pairing.explain_games(
            pairing.snake_first_round(units, history.team), points, history
        )
    if tournament.duplicate:
        # 复式赛: paired by the duplicate score that ranks them, not by match points
        return pairing.swiss_round(
            *duplicate_pairing_order(units, points, comparisons.scores(tournament, number - 1)),
            history,
        )
    return pairing.swiss_round(units, points, history)


#: The duplicate score a unit not compared yet pairs at: the field's average (a percentage).
NOT_COMPARED = 50.0


def duplicate_pairing_order(
    units: list[int], points: dict[int, float], scores: dict[int, float]
) -> tuple[list[int], dict[int, float]]:
    """The Swiss pairing of a duplicate event (复式赛): the ``units`` (in seeding order, or
    by 级分 under the national rules) ordered by match points among equal duplicate scores,
    and the scores the pairing brings together — each unit's duplicate score
    (:func:`tournaments.comparisons.scores`; 50, the field's average, for a unit not compared
    yet, e.g. after a bye), as the standings rank them first. Pure."""
    ordered = sorted(units, key=lambda u: -points.get(u, 0))  # stable: the order given
    return ordered, {u: scores.get(u, NOT_COMPARED) for u in ordered}


def create_round(
    tournament: Tournament, number: int, now: datetime, *, withdraw_missing: bool = True
) -> Round:
    """Pair round ``number`` and store its games (the caller holds the tournament's lock).
    Round 1 of a tournament with check-in, once check-in has opened, withdraws the entries that
    did not check in and tells their players (a notice and an e-mail); before check-in opened,
    every registered entry is paired and nobody is withdrawn (``withdraw_missing`` False: nobody
    either — round 1 paired again after a withdrawal keeps the late entries). A game of an
    entry that has withdrawn is created decided, a forfeit (:func:`~.withdrawals.decide_new_games`)."""
    make_cut(tournament, number)  # a low-position cut due before it (第二十九条), once
    slotted = planned_slots(tournament, number, now)
    planned = [game for _slot, game in slotted]
    if not planned:
        raise TournamentError("nobody", _("There are not enough entries to pair a round."))
    if number == 1 and withdraw_missing:
        # entries that did not check in are out (late entries come after)
        missing = selectors.not_checked_in(tournament, now)
        Entry.objects.filter(pk__in=[e.pk for e in missing]).update(
            status=EntryStatus.WITHDRAWN, withdrawn_at=now
        )
        notifications.notify_withdrawn(tournament, missing)
    rnd, _created = Round.objects.get_or_create(
        tournament=tournament,
        number=number,
        defaults={"scheduled_at": selectors.round_time(tournament, number)},
    )
    rnd.games.all().delete()
    finals = (
        tournament.format == TournamentFormat.ELIMINATION
        and number > 1
        and number == selectors.total_rounds(tournament)
    )
    games = []
    for i, (slot, g) in enumerate(slotted):
        third = finals and len(planned) == 2 and i == 1 and tournament.third_place
        games.append(
            Game(
                round=rnd,
                number=i + 1,
                side0=list(g.sides[0]),
                side1=list(g.sides[1]),
                notes=[n.to_json() for n in g.notes],
                slot=slot,
                third_place=third,
                status=GameStatus.BYE if g.is_bye else GameStatus.PENDING,
                finished_at=now if g.is_bye else None,
            )
        )
    decide_new_games(tournament, games, now)  # a withdrawn entry's: forfeits (第二十四条二)
    Game.objects.bulk_create(games)
    rnd.status = RoundStatus.PAIRED
    rnd.save(update_fields=["status"])
    return rnd


#: A round paired and not started, with the sides its pairing gave (:func:`paired_plan`).
PairedPlan = tuple[Round, list[tuple[tuple[int, ...], tuple[int, ...]]]]


def paired_plan(tournament: Tournament, after: int, now: datetime) -> PairedPlan | None:
    """The round after round ``after`` that is paired and has not started, with the sides
    its pairing would give from the results as they stand — read before a result of round
    ``after`` changes, for :func:`pair_again`. None in a knockout (its later games follow
    the bracket: :func:`tournaments.services.results.rebracket`) or when there is no such
    round."""
    if tournament.format in KNOCKOUT_FORMATS:
        return None
    rnd = (
        tournament.rounds.filter(number__gt=after, status=RoundStatus.PAIRED)
        .order_by("number")
        .first()
    )
    if rnd is None:
        return None
    return rnd, [g.sides for _slot, g in planned_slots(tournament, rnd.number, now)]


def pair_again(tournament: Tournament, plan: PairedPlan | None, now: datetime) -> Round | None:
    """After a result changed, pair the round of ``plan`` (paired, not started) again when
    the changed standings give it another pairing (第二十八条一: from round 2 on, high scores
    meet high scores): later pairings that have not started follow a correction. A pairing
    the results still give is kept as it stands, with any swap the organiser made; nobody has
    been told of a round before it starts (:func:`begin_round`), so nobody is told twice.
    Returns the round paired again, or None."""
    if plan is None:
        return None
    rnd, before = plan
    rnd.refresh_from_db(fields=["status"])
    if rnd.status != RoundStatus.PAIRED:
        return None
    if [g.sides for _slot, g in planned_slots(tournament, rnd.number, now)] == before:
        return None
    return create_round(tournament, rnd.number, now, withdraw_missing=False)


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
    if number > selectors.total_rounds(tournament):
        raise TournamentError("no_more_rounds", _("Every round has been played."))
    return number


def _confirm_withdrawals(tournament: Tournament, now: datetime, confirmed: bool) -> None:
    """Refuse to pair round 1 by hand while it would withdraw entries the organiser has not
    been shown (``confirmed``): the refusal names them."""
    missing = selectors.not_checked_in(tournament, now)
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
    # a game already decided (forfeited by a withdrawal) keeps its entries and result
    games = list(
        rnd.games.select_for_update().exclude(status=GameStatus.FINISHED).order_by("number")
    )
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
    points = standings.match_points(selectors.records_of(past), selectors.points_of(tournament))
    explained = pairing.explain_games(
        [pairing.Game((tuple(g.side0), tuple(g.side1))) for g in games],
        points,
        history,
        tables=tournament.per_seat,
        meetings=tournament.round_robin_cycles,
    )
    for game, ex in zip(games, explained, strict=True):
        game.notes = [n.to_json() for n in ex.notes] + [
            {"code": "edited", "units": [first, second], "detail": {}}
        ] * (game in (ga, gb))
        game.status = GameStatus.BYE if game.is_bye else GameStatus.PENDING
    Game.objects.bulk_update(games, ["side0", "side1", "notes", "status"])
    return rnd


def table_options(tournament: Tournament, game: Game | None = None) -> dict[str, Any]:
    """The engine options of the tournament's tables (of ``game``'s): its match options, and
    in a knockout of a level game ``play_on_tie`` (第十四条三: a knockout match must have a
    winner, so equal levels at the time or deal limit play on, one deal at a time) — in a tie
    of several games (第三十条) only for the games that must have a winner: every game of a
    best-of tie, the deciding game after a tied sum, not the games added up
    (:func:`tournaments.series.must_have_winner`)."""
    options = dict(tournament.match_options or {})
    if tournament.format in KNOCKOUT_FORMATS and game_facts(tournament.variant).levels:
        index = 0
        if game is not None and tournament.series:
            index = Game.objects.filter(
                round_id=game.round_id,
                slot=game.slot,
                third_place=game.third_place,
                number__lt=game.number,
            ).count()
        if tie_series.must_have_winner(tournament.series or tie_series.SINGLE, index):
            options["play_on_tie"] = True
    return options


def _open_tables(tournament: Tournament, rnd: Round) -> None:
    """Open the round's live tables, each with its players seated. In a duplicate event
    (复式赛) every table is dealt from one seed of the round and they share one deal group
    (:func:`tournaments.comparisons.deal_group`), so seat *s* holds the same cards in deal *k*
    at every table and no table shows another anything while one of them plays
    (:mod:`matches.services.access`)."""
    entries = {e.pk: e for e in tournament.entries.select_related("player1", "player2")}
    users = {}
    opener = tournament.created_by
    if opener is None or not club_permissions.is_club_admin(opener, tournament.club):
        opener = club_selectors.club_owner(tournament.club)
    seed, group = "", ""
    if tournament.duplicate:
        seed, group = secrets.token_hex(8), comparisons.deal_group(rnd)
    for game in rnd.games.filter(status=GameStatus.PENDING).order_by("number"):
        if not game.side0 or not game.side1:
            continue  # a knockout game waiting for the tie before it (results.rebracket)
        seat_ids = selectors.users_by_seat(tournament, game, entries)
        for uid in seat_ids:
            if uid not in users:
                users[uid] = User.objects.get(pk=uid)
        try:
            table = match_tables.open_table(
                opener,
                tournament.club,
                variant=tournament.variant,
                options=table_options(tournament, game),
                clocks=True,
                time_limit_seconds=tournament.time_limit_minutes * 60,
                rated=tournament.rated,
                competition=True,
                sit=False,
                deal_group=group,
            )
            if seed:
                _seat_duplicate(tournament, table, [users[uid] for uid in seat_ids], seed)
            else:
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


def open_pending_tables(tournament: Tournament, rnd: Round) -> None:
    """Open the live tables of the games of ``rnd`` (being played) that have none yet: a
    series' next game (:mod:`tournaments.services.ties`)."""
    _open_tables(tournament, rnd)


def _seat_duplicate(tournament: Tournament, table: Table, players: list[User], seed: str) -> None:
    """Seat a duplicate round's ``players`` (members of the club, as :func:`take_seat` asks)
    and start the match from the round's ``seed``. Raises :class:`MatchError`."""
    for user in players:
        if club_selectors.membership_of(user, tournament.club) is None:
            raise MatchError("not_member")
    match_tables.seat_players(table, players, seed=seed)


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
    if tournament.rounds.filter(number__lt=last.number, status=RoundStatus.PLAYING).exists():
        # a correction reopened a knockout tie of an earlier round: it is decided first
        raise TournamentError("undecided", _("A game of the previous round has no winner yet."))
    return begin_round(tournament, last, now)
