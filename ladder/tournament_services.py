"""The only place that changes tournaments: set-up, entries, rounds, results.

* Organisers (club owner / admins, :func:`can_manage`): :func:`create_tournament`,
  :func:`update_tournament`, :func:`publish` (opens registration by its window),
  :func:`cancel`, :func:`pause`, :func:`resume`, :func:`pair_next_round` (pair now, edit with
  :func:`swap_entries`, then start), :func:`start_round` (by hand), :func:`set_result`
  (enter or correct a result; in elimination the bracket after it follows; in a rated
  tournament it feeds the club ladder, once per game: see :func:`_rate_organiser_result`).
* Players (club members): :func:`register` (a pair registers both partners), :func:`check_in`,
  :func:`withdraw`.
* Scheduling (:func:`tick`, run by Celery beat with the current time): starts a tournament at
  its time, pairs and starts each round at its time (or as soon as the previous round has
  finished), opens the tables with the seats assigned (the match and its clocks start at once),
  notifies the players, collects the results of live matches and confirmed score sheets, and
  forfeits no-shows after the grace period.

Every refusal raises :class:`TournamentError` (a :class:`clubs.services.ClubError`, so the API
answers 400 / 403 / 404 with its code) having changed nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs import permissions as club_permissions
from clubs import selectors as club_selectors
from clubs.models import Club, User
from clubs.services import ClubError
from tournaments import pairing, standings
from ladder.models import Variant
from tournaments.models import (
    Entry,
    EntryStatus,
    Game,
    GameSource,
    GameStatus,
    Round,
    RoundStatus,
    Tournament,
    TournamentFormat,
    TournamentNotice,
    TournamentStatus,
    UnitKind,
)
from matches.scoresheet_services import LEVEL_VARIANTS

log = logging.getLogger(__name__)

#: Games the tournaments can be played in, and their seats.
VARIANT_SEATS = {"bao2": 4, "guandan": 4, "honger": 4, "shuangkou2": 2}


class TournamentError(ClubError):
    """A refused tournament action: ``code`` for programs, ``message`` for people."""


class NotAllowed(TournamentError):
    """The acting user lacks the role the action needs."""

    status = 403


def _refuse(code: str, message: str) -> TournamentError:
    return TournamentError(code, message)


def _not_allowed() -> NotAllowed:
    return NotAllowed("not_allowed", _("You are not allowed to do this."))


def can_manage(user: User | None, tournament: Tournament) -> bool:
    """Club owner and admins set up and run the club's tournaments."""
    return club_permissions.is_club_admin(user, tournament.club)


def can_view(user: User | None, tournament: Tournament) -> bool:
    """Everyone sees a published tournament; a draft only its organisers."""
    return tournament.status != TournamentStatus.DRAFT or can_manage(user, tournament)


# --------------------------------------------------------------------------- set-up
EDITABLE = {
    "name",
    "description",
    "variant",
    "format",
    "unit_kind",
    "rounds_planned",
    "third_place",
    "rated",
    "online",
    "match_options",
    "time_limit_minutes",
    "tiebreaks",
    "points_win",
    "points_draw",
    "registration_opens",
    "registration_closes",
    "checkin_required",
    "checkin_minutes",
    "late_until_round",
    "starts_at",
    "round_minutes",
    "start_when_ready",
    "no_show_minutes",
}
#: Fields that can no longer change once the first round was paired.
STRUCTURAL = {"variant", "format", "unit_kind", "online", "rated"}


def _check_fields(data: dict[str, Any], partial: Tournament | None) -> dict[str, Any]:
    unknown = set(data) - EDITABLE
    if unknown:
        raise _refuse("bad_field", _("Unknown field: %(f)s") % {"f": sorted(unknown)[0]})
    merged = {f: getattr(partial, f) for f in EDITABLE} if partial else {}
    merged.update(data)
    name = merged.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > 120:
        raise _refuse("bad_name", _("Give the tournament a name of 1 to 120 characters."))
    variant = merged.get("variant")
    if variant not in VARIANT_SEATS:
        raise _refuse(
            "bad_variant",
            _("Tournaments are played in Bao 2, Guandan, Nanping Red Two or Shuangkou."),
        )
    fmt = merged.get("format", TournamentFormat.SWISS)
    if fmt not in TournamentFormat.values:
        raise _refuse("bad_format", _("Choose Swiss, round robin or single elimination."))
    default_kind = UnitKind.PAIR if VARIANT_SEATS[variant] == 4 else UnitKind.SINGLE
    if variant == Variant.HONGER:
        default_kind = UnitKind.INDIVIDUAL
    kind = merged.get("unit_kind", default_kind)
    if kind not in UnitKind.values:
        raise _refuse("bad_unit_kind", _("Choose pairs, single players or an individual event."))
    if VARIANT_SEATS[variant] == 2 and kind != UnitKind.SINGLE:
        raise _refuse("bad_unit_kind", _("Two-player Shuangkou is played by single players."))
    if VARIANT_SEATS[variant] == 4 and kind == UnitKind.SINGLE:
        raise _refuse("bad_unit_kind", _("Four-player games are played by pairs or individually."))
    if variant == Variant.HONGER and kind != UnitKind.INDIVIDUAL:
        raise _refuse(
            "bad_unit_kind",
            _("Nanping Red Two is played as an individual event: partners change every deal."),
        )
    if kind == UnitKind.INDIVIDUAL and fmt != TournamentFormat.SWISS:
        raise _refuse("bad_format", _("Individual events are played in Swiss rounds."))
    merged["unit_kind"] = kind
    merged["format"] = fmt
    for field, low, high in (
        ("rounds_planned", 1, 30),
        ("time_limit_minutes", 0, 24 * 60),
        ("points_win", 0, 10),
        ("points_draw", 0, 10),
        ("checkin_minutes", 0, 24 * 60),
        ("late_until_round", 0, 30),
        ("round_minutes", 1, 7 * 24 * 60),
        ("no_show_minutes", 0, 24 * 60),
    ):
        if field in merged:
            value = merged[field]
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise _refuse(
                    "bad_number",
                    _("%(field)s must be a whole number from %(low)d to %(high)d.")
                    % {"field": field, "low": low, "high": high},
                )
    tiebreaks = merged.get("tiebreaks") or []
    if not isinstance(tiebreaks, list) or any(t not in standings.TIEBREAKS for t in tiebreaks):
        raise _refuse(
            "bad_tiebreaks",
            _("Tie-breaks are chosen from: %(names)s") % {"names": ", ".join(standings.TIEBREAKS)},
        )
    if len(set(tiebreaks)) != len(tiebreaks):
        raise _refuse("bad_tiebreaks", _("A tie-break is listed twice."))
    options = merged.get("match_options") or {}
    if not isinstance(options, dict):
        raise _refuse("bad_options", _("Match options must be an object."))
    merged["match_options"] = options
    merged["tiebreaks"] = tiebreaks
    from engine.match import Match as EngineMatch

    try:
        EngineMatch.new(variant, "options-check", options)
    except (ValueError, TypeError) as error:
        raise _refuse("bad_options", _("Invalid match options: %(e)s") % {"e": error}) from None
    for field in ("registration_opens", "registration_closes", "starts_at"):
        value = merged.get(field)
        if value is not None and (not isinstance(value, datetime) or timezone.is_naive(value)):
            raise _refuse("bad_time", _("Times must be given with a time zone."))
    if not isinstance(merged.get("starts_at"), datetime):
        raise _refuse("bad_time", _("Give the start time."))
    opens, closes = merged.get("registration_opens"), merged.get("registration_closes")
    if opens and closes and opens >= closes:
        raise _refuse("bad_time", _("Registration must open before it closes."))
    if closes and closes > merged["starts_at"] and not merged.get("late_until_round"):
        raise _refuse("bad_time", _("Registration closes at the latest when play starts."))
    for flag in ("third_place", "rated", "online", "checkin_required", "start_when_ready"):
        if flag in merged and not isinstance(merged[flag], bool):
            raise _refuse("bad_flag", _("%(field)s is yes or no.") % {"field": flag})
    description = merged.get("description", "")
    if not isinstance(description, str) or len(description) > 5000:
        raise _refuse("bad_description", _("The description is at most 5000 characters."))
    return {k: v for k, v in merged.items() if k in data or partial is None}


def create_tournament(user: User, club: Club, **fields: Any) -> Tournament:
    """Create a draft tournament in ``club`` (owner / admins only)."""
    if not club_permissions.is_club_admin(user, club):
        raise _not_allowed()
    clean = _check_fields(fields, None)
    return Tournament.objects.create(club=club, created_by=user, **clean)


@transaction.atomic
def update_tournament(user: User, tournament: Tournament, **fields: Any) -> Tournament:
    """Change a tournament's settings; the format, game and entry kind only before round 1."""
    tournament = _locked(tournament)
    if not can_manage(user, tournament):
        raise _not_allowed()
    if tournament.status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED):
        raise _refuse("closed", _("This tournament is over."))
    if tournament.rounds.exists() and set(fields) & STRUCTURAL:
        raise _refuse("started", _("The format cannot change once the first round is paired."))
    clean = _check_fields(fields, tournament)
    for key, value in clean.items():
        setattr(tournament, key, value)
    tournament.save()
    return tournament


def _locked(tournament: Tournament) -> Tournament:
    return Tournament.objects.select_for_update().select_related("club").get(pk=tournament.pk)


@transaction.atomic
def publish(user: User, tournament: Tournament, now: datetime | None = None) -> Tournament:
    """Publish a draft: it becomes visible and registration opens (now, unless a later
    opening time is set)."""
    tournament = _locked(tournament)
    if not can_manage(user, tournament):
        raise _not_allowed()
    if tournament.status != TournamentStatus.DRAFT:
        raise _refuse("not_draft", _("Only a draft can be published."))
    now = now or timezone.now()
    tournament.status = TournamentStatus.SCHEDULED
    if tournament.registration_opens is None:
        tournament.registration_opens = now
    tournament.save(update_fields=["status", "registration_opens"])
    return tournament


def _set_status(user: User, tournament: Tournament, allowed: Sequence[str], new: str) -> Tournament:
    with transaction.atomic():
        tournament = _locked(tournament)
        if not can_manage(user, tournament):
            raise _not_allowed()
        if tournament.status not in allowed:
            raise _refuse(
                "bad_status",
                _("Not possible while the tournament is %(s)s.")
                % {"s": tournament.get_status_display()},
            )
        tournament.status = new
        tournament.save(update_fields=["status"])
    return tournament


def pause(user: User, tournament: Tournament) -> Tournament:
    """Pause a running tournament: no round starts, no no-show forfeits until resumed
    (games being played go on and their results are still collected)."""
    return _set_status(user, tournament, [TournamentStatus.RUNNING], TournamentStatus.PAUSED)


def resume(user: User, tournament: Tournament) -> Tournament:
    """Resume a paused tournament."""
    return _set_status(user, tournament, [TournamentStatus.PAUSED], TournamentStatus.RUNNING)


def cancel(user: User, tournament: Tournament) -> Tournament:
    """Cancel a tournament that has not finished."""
    return _set_status(
        user,
        tournament,
        [
            TournamentStatus.DRAFT,
            TournamentStatus.SCHEDULED,
            TournamentStatus.RUNNING,
            TournamentStatus.PAUSED,
        ],
        TournamentStatus.CANCELLED,
    )


# --------------------------------------------------------------------------- entries
def registration_open(tournament: Tournament, now: datetime) -> bool:
    """Whether a new entry is accepted now: inside the registration window before the
    start, or while late registration is allowed (before round ``late_until_round``)."""
    if tournament.status == TournamentStatus.SCHEDULED:
        if tournament.registration_opens and now < tournament.registration_opens:
            return False
        closes = tournament.registration_closes or tournament.starts_at
        return now < closes or tournament.late_until_round > 0
    if tournament.status in (TournamentStatus.RUNNING, TournamentStatus.PAUSED):
        created = tournament.rounds.exclude(status=RoundStatus.PENDING).count()
        return created < tournament.late_until_round
    return False


def checkin_open(tournament: Tournament, now: datetime) -> bool:
    """Whether entries may check in now: from ``checkin_minutes`` before the start while the
    tournament is scheduled or running. Entries not checked in when round 1 is paired are
    withdrawn; late entries (after round 1) play without checking in."""
    if tournament.status not in (
        TournamentStatus.SCHEDULED,
        TournamentStatus.RUNNING,
        TournamentStatus.PAUSED,
    ):
        return False
    return now >= tournament.starts_at - timedelta(minutes=tournament.checkin_minutes)


def entry_of(user: User | None, tournament: Tournament) -> Entry | None:
    """The user's active or withdrawn entry in the tournament (as a player or partner)."""
    if user is None or not user.is_authenticated:
        return None
    return (
        tournament.entries.filter(player1=user).first()
        or tournament.entries.filter(player2=user).first()
    )


@transaction.atomic
def register(
    user: User,
    tournament: Tournament,
    *,
    partner: User | None = None,
    player: User | None = None,
    team: str = "",
    now: datetime | None = None,
) -> Entry:
    """Register ``user`` (or, for an organiser, ``player``) with ``partner`` for a pair event.

    Both players must be club members without an entry; the window must be open (an
    organiser may register outside it until the tournament is over)."""
    tournament = _locked(tournament)
    now = now or timezone.now()
    manager = can_manage(user, tournament)
    if player is not None and player != user and not manager:
        raise _not_allowed()
    player = player or user
    if not manager and not registration_open(tournament, now):
        raise _refuse("registration_closed", _("Registration is not open."))
    if tournament.status not in (
        TournamentStatus.SCHEDULED,
        TournamentStatus.RUNNING,
        TournamentStatus.PAUSED,
    ):
        raise _refuse("registration_closed", _("Registration is not open."))
    if tournament.unit_kind == UnitKind.PAIR and partner is None:
        raise _refuse("partner_needed", _("A pair event needs your partner."))
    if tournament.unit_kind != UnitKind.PAIR and partner is not None:
        raise _refuse("no_partner", _("This event is played without a fixed partner."))
    people = [player] + ([partner] if partner else [])
    if partner is not None and partner.pk == player.pk:
        raise _refuse("bad_partner", _("Your partner must be someone else."))
    for person in people:
        if club_selectors.membership_of(person, tournament.club) is None:
            raise _refuse("not_member", _("Every player must be a member of the club."))
        if entry_of(person, tournament) is not None:
            raise _refuse(
                "already_registered",
                _("%(name)s is already registered.") % {"name": person.name},
            )
    if not isinstance(team, str) or len(team) > 60:
        raise _refuse("bad_team", _("A team name is at most 60 characters."))
    name = " / ".join(p.name for p in people)
    seed = tournament.entries.count() + 1
    return Entry.objects.create(
        tournament=tournament,
        player1=player,
        player2=partner,
        team=team.strip(),
        name=name[:120],
        seed=seed,
        registered_at=now,
    )


def _entry_for_action(user: User, tournament: Tournament, entry: Entry | None) -> Entry:
    if entry is None:
        own = entry_of(user, tournament)
        if own is None:
            raise _refuse("not_registered", _("You are not registered."))
        return own
    if entry.tournament_id != tournament.pk:
        raise _refuse("not_registered", _("This entry is not in the tournament."))
    if user.pk not in entry.user_ids and not can_manage(user, tournament):
        raise _not_allowed()
    return entry


@transaction.atomic
def check_in(
    user: User, tournament: Tournament, entry: Entry | None = None, now: datetime | None = None
) -> Entry:
    """Check in the user's own entry (or, for an organiser, any entry) in the window."""
    tournament = _locked(tournament)
    now = now or timezone.now()
    entry = _entry_for_action(user, tournament, entry)
    if entry.status == EntryStatus.WITHDRAWN:
        raise _refuse("withdrawn", _("This entry has withdrawn."))
    if not checkin_open(tournament, now) and not can_manage(user, tournament):
        raise _refuse("checkin_closed", _("Check-in is not open."))
    if entry.status != EntryStatus.CHECKED_IN:
        entry.status = EntryStatus.CHECKED_IN
        entry.checked_in_at = now
        entry.save(update_fields=["status", "checked_in_at"])
    return entry


@transaction.atomic
def withdraw(
    user: User, tournament: Tournament, entry: Entry | None = None, now: datetime | None = None
) -> Entry:
    """Withdraw an entry: it is not paired in any later round (games already paired are
    played or forfeited)."""
    tournament = _locked(tournament)
    entry = _entry_for_action(user, tournament, entry)
    if tournament.status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED):
        raise _refuse("closed", _("This tournament is over."))
    if entry.status != EntryStatus.WITHDRAWN:
        entry.status = EntryStatus.WITHDRAWN
        entry.withdrawn_at = now or timezone.now()
        entry.save(update_fields=["status", "withdrawn_at"])
    return entry


# --------------------------------------------------------------------------- rounds
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


def tournament_order(tournament: Tournament) -> list[int]:
    """Entry ids in seeding order: those of round 1 once it exists, else the active ones."""
    first = tournament.rounds.filter(number=1).first()
    if first is not None:
        games = list(first.games.order_by("number"))
        if tournament.format == TournamentFormat.ELIMINATION:
            return [e for g in sorted(games, key=lambda g: g.slot) for e in g.side0 + g.side1]
        ids = {e for g in games for e in g.side0 + g.side1}
        return [e.pk for e in tournament.entries.order_by("seed", "id") if e.pk in ids]
    return [e.pk for e in _active_entries(tournament, first_round=True)]


def round_time(tournament: Tournament, number: int) -> datetime:
    """When round ``number`` is scheduled: the start, then every ``round_minutes``."""
    return tournament.starts_at + timedelta(minutes=tournament.round_minutes * (number - 1))


def _active_entries(tournament: Tournament, first_round: bool) -> list[Entry]:
    entries = tournament.entries.exclude(status=EntryStatus.WITHDRAWN).order_by("seed", "id")
    if tournament.checkin_required and first_round:
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
    """A Red Two game's standings record of each entry (:func:`tournaments.standings.records_of_table`),
    or {} while it has no result."""
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


def _pair(tournament: Tournament, number: int) -> list[pairing.Game]:
    """The pure pairing of round ``number`` (see :mod:`tournaments.pairing`)."""
    history, games = _history(tournament, number)
    points = standings.match_points(records_of(games), points_of(tournament))
    fmt = tournament.format
    if fmt == TournamentFormat.ROUND_ROBIN:
        order = tournament_order(tournament)
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
            return pairing.elimination_first_round(tournament_order(tournament))
        previous = [g for g in games if g.round.number == number - 1 and not g.third_place]
        previous.sort(key=lambda g: g.slot)
        winners, losers = [], []
        for game in previous:
            w = _winner_entry(game)
            if w is None:
                raise _refuse("undecided", _("A game of the previous round has no winner yet."))
            winners.append(w)
            losers.append(_loser_entry(game))
        if len(winners) < 2:
            return []
        return pairing.elimination_next_round(winners, losers, tournament.third_place)
    units = [e.pk for e in _active_entries(tournament, first_round=number == 1)]
    if number > 1:
        # late entries that never checked in still play once registered
        units = [e.pk for e in _active_entries(tournament, first_round=False)]
    if tournament.per_seat:
        return pairing.table_round(units, points, history)
    if tournament.unit_kind == UnitKind.INDIVIDUAL:
        return pairing.individual_round(units, points, history)
    return pairing.swiss_round(units, points, history)


def _winner_entry(game: Game) -> int | None:
    if game.status == GameStatus.BYE:
        return game.side0[0]
    if game.status != GameStatus.FINISHED or game.winner is None:
        return None
    return game.sides[game.winner][0]


def _loser_entry(game: Game) -> int | None:
    if game.status != GameStatus.FINISHED or game.winner is None:
        return None
    return game.sides[1 - game.winner][0]


def _create_round(tournament: Tournament, number: int, now: datetime) -> Round:
    planned = _pair(tournament, number)
    if not planned:
        raise _refuse("nobody", _("There are not enough entries to pair a round."))
    if number == 1 and tournament.checkin_required:
        # entries that did not check in before round 1 are out (late entries come after)
        tournament.entries.filter(status=EntryStatus.REGISTERED).update(
            status=EntryStatus.WITHDRAWN, withdrawn_at=now
        )
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


@transaction.atomic
def pair_next_round(user: User, tournament: Tournament, now: datetime | None = None) -> Round:
    """Pair the next round now without starting it, so an organiser can edit the pairing."""
    tournament = _locked(tournament)
    if not can_manage(user, tournament):
        raise _not_allowed()
    now = now or timezone.now()
    if tournament.status not in (
        TournamentStatus.SCHEDULED,
        TournamentStatus.RUNNING,
        TournamentStatus.PAUSED,
    ):
        raise _refuse("bad_status", _("This tournament is not running."))
    last = tournament.rounds.order_by("-number").first()
    if last is not None and last.status == RoundStatus.PAIRED:
        return last
    if last is not None and last.status != RoundStatus.FINISHED:
        raise _refuse("round_running", _("The current round has not finished."))
    number = (last.number + 1) if last else 1
    if number > total_rounds(tournament):
        raise _refuse("no_more_rounds", _("Every round has been played."))
    return _create_round(tournament, number, now)


@transaction.atomic
def swap_entries(user: User, rnd: Round, first: int, second: int) -> Round:
    """Swap two entries' places in a paired round that has not started; the notes of the
    games are recomputed (so a broken preference the edit causes is explained too)."""
    tournament = _locked(rnd.tournament)
    if not can_manage(user, tournament):
        raise _not_allowed()
    rnd = Round.objects.select_for_update().get(pk=rnd.pk)
    if rnd.status != RoundStatus.PAIRED:
        raise _refuse("round_started", _("A pairing can only be edited before its round starts."))
    games = list(rnd.games.select_for_update().order_by("number"))
    places = {}
    for game in games:
        for side in (0, 1):
            for i, unit in enumerate(game.sides[side]):
                places[unit] = (game, side, i)
    if first not in places or second not in places or first == second:
        raise _refuse("bad_swap", _("Choose two different entries of this round."))
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


def _seat_users(tournament: Tournament, game: Game, entries: dict[int, Entry]) -> list[int]:
    """The user id of each seat: side 0 at seats 0 and 2, side 1 at seats 1 and 3."""
    if VARIANT_SEATS[tournament.variant] == 2:
        return [entries[game.side0[0]].player1_id, entries[game.side1[0]].player1_id]
    if tournament.unit_kind == UnitKind.INDIVIDUAL:
        return [entries[e].player1_id for e in game.seat_entries]
    ea, eb = entries[game.side0[0]], entries[game.side1[0]]
    return [ea.player1_id, eb.player1_id, ea.player2_id, eb.player2_id]


def _open_tables(tournament: Tournament, rnd: Round) -> None:
    from matches import services as match_services

    entries = {e.pk: e for e in tournament.entries.select_related("player1", "player2")}
    users = {}
    opener = tournament.created_by
    if opener is None or not club_permissions.is_club_admin(opener, tournament.club):
        opener = club_selectors.club_owner(tournament.club)
    for game in rnd.games.filter(status=GameStatus.PENDING).order_by("number"):
        seat_ids = _seat_users(tournament, game, entries)
        for uid in seat_ids:
            if uid not in users:
                users[uid] = User.objects.get(pk=uid)
        try:
            table = match_services.open_table(
                opener,
                tournament.club,
                variant=tournament.variant,
                options=dict(tournament.match_options or {}),
                clocks=True,
                time_limit_seconds=tournament.time_limit_minutes * 60,
                rated=tournament.rated,
                sit=False,
            )
            for index, uid in enumerate(seat_ids):
                match_services.take_seat(users[uid], table, index)
        except match_services.MatchError as error:
            # e.g. a player left the club: nothing of the round is kept (one transaction)
            raise _refuse(
                "table_failed",
                _("The table of game %(n)d could not be opened: %(reason)s")
                % {"n": game.number, "reason": error.message},
            ) from None
        game.table = table
        game.status = GameStatus.PLAYING
        game.save(update_fields=["table", "status"])


def _start_round(tournament: Tournament, rnd: Round, now: datetime) -> Round:
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
    round_id = rnd.pk
    transaction.on_commit(lambda: _queue_notify(round_id))
    return rnd


def _queue_notify(round_id: int) -> None:
    from tournaments.tasks import notify_round_task

    notify_round_task.delay(round_id)


@transaction.atomic
def start_round(user: User, tournament: Tournament, now: datetime | None = None) -> Round:
    """Start the next round by hand now (pairing it first if needed)."""
    tournament = _locked(tournament)
    if not can_manage(user, tournament):
        raise _not_allowed()
    now = now or timezone.now()
    if tournament.status not in (
        TournamentStatus.SCHEDULED,
        TournamentStatus.RUNNING,
        TournamentStatus.PAUSED,
    ):
        raise _refuse("bad_status", _("This tournament is not running."))
    last = tournament.rounds.order_by("-number").first()
    if last is None or last.status == RoundStatus.FINISHED:
        number = (last.number + 1) if last else 1
        if number > total_rounds(tournament):
            raise _refuse("no_more_rounds", _("Every round has been played."))
        last = _create_round(tournament, number, now)
    elif last.status != RoundStatus.PAIRED:
        raise _refuse("round_running", _("The current round has not finished."))
    return _start_round(tournament, last, now)


# --------------------------------------------------------------------------- results
def _finish_game(
    game: Game, score0: int, score1: int, winner: int | None, source: str, now: datetime
) -> bool:
    """Store a result; True when it changed."""
    if (game.score0, game.score1, game.winner, game.source, game.status) == (
        score0,
        score1,
        winner,
        source,
        GameStatus.FINISHED,
    ):
        return False
    game.score0, game.score1, game.winner, game.source = score0, score1, winner, source
    game.status = GameStatus.FINISHED
    game.finished_at = now
    game.save(update_fields=["score0", "score1", "winner", "source", "status", "finished_at"])
    return True


def _finish_seats(
    game: Game, totals: Sequence[int], forfeits: Sequence[int], source: str, now: datetime
) -> bool:
    """Store a Red Two game's result (each seat's total, the seats that forfeited); True when
    it changed."""
    totals, forfeits = [int(t) for t in totals], sorted(set(forfeits))
    if (game.seat_scores, game.seat_forfeits, game.source, game.status) == (
        totals,
        forfeits,
        source,
        GameStatus.FINISHED,
    ):
        return False
    game.seat_scores, game.seat_forfeits, game.source = totals, forfeits, source
    game.status = GameStatus.FINISHED
    game.finished_at = now
    game.save(update_fields=["seat_scores", "seat_forfeits", "source", "status", "finished_at"])
    return True


def _forfeited_seats(match: Any) -> list[int]:
    """The seats a forfeit (a referee's or a no-show's) ended a match against."""
    actions = match.events.filter(action__sanction="forfeit").values_list("action", flat=True)
    return [a["target"] for a in actions if isinstance(a.get("target"), int)]


def _collect_live(
    tournament: Tournament, game: Game, now: datetime, forfeits: Sequence[int] = ()
) -> bool:
    """Take the result of the game's finished live match (``forfeits``: Red Two seats that
    lose by forfeit besides the one the match was forfeited against)."""
    from matches.models import Match, MatchStatus

    match = Match.objects.filter(table_id=game.table_id).first()
    if match is None or match.status != MatchStatus.FINISHED:
        return False
    result = match.result or {}
    source = GameSource.FORFEIT if result.get("reason") == "forfeit" else GameSource.LIVE
    if tournament.per_seat:
        lost = [*forfeits, *(_forfeited_seats(match) if source == GameSource.FORFEIT else [])]
        return _finish_seats(game, result.get("score") or [0] * 4, lost, source, now)
    score = result.get("score") or [0, 0]
    winner = result.get("winner")
    return _finish_game(game, int(score[0]), int(score[1]), winner, source, now)


def _collect_sheet(
    tournament: Tournament,
    game: Game,
    entries: dict[int, Entry],
    results: Sequence[Any],
    now: datetime,
) -> bool:
    """Take the result of the confirmed sheet (among ``results``) with the game's players."""
    if tournament.per_seat:
        return _collect_table_sheet(tournament, game, entries, results, now)
    found = _matching_sheet(tournament, game, entries, results)
    if found is None:
        return False
    result, flip = found
    scores = result.scores[::-1] if flip else result.scores
    winner = result.winner if result.winner is None or not flip else 1 - result.winner
    _link_sheet(game, result.sheet_id)
    if tournament.rated:
        _rate_sheet(tournament, result)
    return _finish_game(game, scores[0], scores[1], winner, GameSource.SHEET, now)


def _link_sheet(game: Game, sheet_id: int) -> None:
    """Record that confirmed score sheet ``sheet_id`` is the game's (saved if it changed)."""
    if game.sheet_id != sheet_id:
        game.sheet_id = sheet_id
        game.save(update_fields=["sheet"])


def _collect_table_sheet(
    tournament: Tournament,
    game: Game,
    entries: dict[int, Entry],
    results: Sequence[Any],
    now: datetime,
) -> bool:
    """A Red Two game's result from the first confirmed sheet (among ``results``) of its four
    players, in whatever seats they sat (the sheet's own recording rates it, if at all)."""
    seat_users = _seat_users(tournament, game, entries)
    for result in results:
        totals = result.seat_totals
        users = result.seat_users
        if not totals or len(totals) != 4 or None in users or sorted(users) != sorted(seat_users):
            continue
        by_user = dict(zip(result.seat_users, totals, strict=True))
        _link_sheet(game, result.sheet_id)
        return _finish_seats(game, [by_user[u] for u in seat_users], [], GameSource.SHEET, now)
    return False


def _matching_sheet(
    tournament: Tournament, game: Game, entries: dict[int, Entry], results: Sequence[Any]
) -> tuple[Any, bool] | None:
    """The first confirmed sheet result (among ``results``) with the game's players on its
    two sides, and whether its sides are the game's the other way round."""
    seat_users = _seat_users(tournament, game, entries)
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


def _rate_sheet(tournament: Tournament, result: Any) -> None:
    """A rated tournament's in-person result feeds the club ladder (idempotent: same source
    id as the score sheet's own recording). In Bao 2 and Guandan the sheet's winner goes with
    the levels, so a sheet won with level scores (23:23 after passing 2A) is rated a win."""
    from ladder import services as ladder_services

    try:
        ladder_services.record_result(
            source="sheet",
            source_id=str(result.sheet_id),
            variant=result.variant,
            sides=result.sides,
            scores=list(result.scores),
            ended_at=result.ended_at,
            club_id=tournament.club_id,
            winner=result.winner if result.variant in LEVEL_VARIANTS else None,
        )
    except ladder_services.LadderError:
        log.exception("sheet %s could not be rated", result.sheet_id)


def organiser_rated_game(sheet: Any) -> Game | None:
    """The game a confirmed score sheet records if an organiser's result already rated it.

    That is a finished game of a rated in-person tournament of the sheet's club and game,
    with the sheet's players on its two sides, whose result an organiser entered (and the
    ladder took, :func:`_rate_organiser_result`) after the sheet was started, in a round that
    had started before it. The sheet is linked to the game, and the caller does not rate it
    again: a game counts once. None when there is no such game.
    """
    from matches.scoresheet_selectors import confirmed_result

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
        if _matching_sheet(tournament, game, entries, [result]) is None:
            continue
        if not _rated_already("admin", game.pk):
            continue
        _link_sheet(game, sheet.pk)
        return game
    return None


def _absent_seats(game: Game, now: datetime) -> list[int]:
    """Seats of a live game whose player has neither connected nor acted."""
    from matches.models import Match, MatchStatus

    match = Match.objects.filter(table_id=game.table_id).first()
    if match is None or match.status != MatchStatus.PLAYING:
        return []
    acted = set(match.events.filter(actor="player").values_list("seat", flat=True))
    present = set(match.presences.values_list("seat", flat=True))
    return [i for i in range(len(match.seats)) if i not in acted and i not in present]


def _forfeit_no_shows(tournament: Tournament, rnd: Round, now: datetime) -> int:
    from matches.models import Match

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
            _collect_live(tournament, game, now, forfeits=absent)
        elif len({seat % 2 for seat in absent}) == 2:
            # Both sides lose. The live match still ends through its event log (a referee
            # forfeit), at a table made unrated first so the ladder does not count it.
            from matches.models import Table

            Table.objects.filter(pk=game.table_id).update(rated=False)
            _forfeit_match(match, absent[0])
            _finish_game(game, 0, 0, None, GameSource.FORFEIT, now)
        else:
            if not _forfeit_match(match, absent[0]):
                continue
            game.refresh_from_db()
            _collect_live(tournament, game, now)
        done += 1
        _notify_users(
            tournament,
            [u for side in _game_users(tournament, game) for u in side],
            _("%(t)s round %(n)d: a no-show forfeited the game.")
            % {"t": tournament.name, "n": rnd.number},
        )
    return done


def _forfeit_match(match: Any, seat: int) -> bool:
    """End a live match by a forfeit against ``seat`` (through its event log); False if the
    match refused it (logged)."""
    from matches import services as match_services
    from matches.models import Actor

    try:
        match_services.submit_action(
            match.pk, {"sanction": "forfeit", "target": seat}, seat=None, actor=Actor.SYSTEM
        )
    except match_services.MatchError:
        log.exception("no-show forfeit of match %s refused", match.pk)
        return False
    return True


def _game_users(tournament: Tournament, game: Game) -> list[list[int]]:
    entries = {e.pk: e for e in tournament.entries.filter(pk__in=game.side0 + game.side1)}
    return [[u for e in side for u in entries[e].user_ids] for side in game.sides]


def collect_results(tournament: Tournament, rnd: Round, now: datetime) -> int:
    """Pick up the results of the round's games (live matches, confirmed sheets); return how
    many changed."""
    changed = 0
    playing = rnd.games.filter(status=GameStatus.PLAYING)
    # live games: only those whose match has finished (one query for the whole round)
    for game in playing.filter(table__isnull=False, table__match__status="finished"):
        changed += _collect_live(tournament, game, now)
    sheet_games = list(playing.filter(table__isnull=True)) if not tournament.online else []
    if sheet_games:
        from matches.scoresheet_selectors import confirmed_results

        results = confirmed_results(tournament.club, tournament.variant, since=rnd.started_at)
        entries = {e.pk: e for e in tournament.entries.all()}
        for game in sheet_games:
            changed += _collect_sheet(tournament, game, entries, results, now)
    return changed


def _round_done(rnd: Round) -> bool:
    games = list(rnd.games.all())
    if not all(g.has_result for g in games):
        return False
    if rnd.tournament.format == TournamentFormat.ELIMINATION:
        return all(g.is_bye or g.winner is not None for g in games)
    return True


@transaction.atomic
def set_result(
    user: User,
    game: Game,
    score0: int | None,
    score1: int | None,
    winner: int | None = None,
    now: datetime | None = None,
) -> Game:
    """Enter or correct a game's result (organisers). Standings follow at once (they are
    computed from the games); in elimination a changed winner replaces the entry in the games
    after it, whose results are cleared. ``winner`` decides a knockout tie or a forfeit, or
    names the side that won a Bao 2 / Guandan game with level scores (it passed the top level
    first). Bao 2 and Guandan scores are levels (0 to the top level). In a rated tournament
    the result feeds the club ladder unless the game is already rated
    (:func:`_rate_organiser_result`)."""
    tournament = _locked(game.round.tournament)
    if not can_manage(user, tournament):
        raise _not_allowed()
    if tournament.per_seat:
        raise _refuse("per_seat", _("Red Two results are each player's points."))
    game = _game_for_result(game)
    now = now or timezone.now()
    for score in (score0, score1):
        if isinstance(score, bool) or not isinstance(score, int) or abs(score) > 10**6:
            raise _refuse("bad_score", _("Scores must be whole numbers."))
    if winner is not None and winner not in (0, 1):
        raise _refuse("bad_winner", _("The winner is side 0 or side 1."))
    if tournament.variant in LEVEL_VARIANTS:
        from engine.deal import deal_rules

        top = deal_rules(tournament.variant).max_level
        if not (0 <= score0 <= top and 0 <= score1 <= top):
            raise _refuse(
                "bad_score", _("Levels are whole numbers from 0 to %(top)d.") % {"top": top}
            )
    natural = None if score0 == score1 else (0 if score0 > score1 else 1)
    if winner is not None and natural is not None and winner != natural:
        raise _refuse("bad_winner", _("The winner must have the higher score."))
    final_winner = natural if winner is None else winner
    before = _winner_entry(game)
    _finish_game(game, score0, score1, final_winner, GameSource.ADMIN, now)
    _rate_organiser_result(tournament, game, now)
    if tournament.format == TournamentFormat.ELIMINATION and before != _winner_entry(game):
        _rebracket(tournament, game.round.number, now)
    return game


def _game_for_result(game: Game) -> Game:
    """The game, locked, if a result may be entered for it (it has started, it is no bye)."""
    game = Game.objects.select_for_update().select_related("round").get(pk=game.pk)
    if game.is_bye:
        raise _refuse("bye", _("A bye has no result to enter."))
    if game.round.status == RoundStatus.PAIRED or game.status == GameStatus.PENDING:
        raise _refuse("not_started", _("This game has not started."))
    return game


@transaction.atomic
def set_seat_result(
    user: User,
    game: Game,
    totals: Sequence[int] | None,
    forfeits: Sequence[int] = (),
    now: datetime | None = None,
) -> Game:
    """Enter or correct a Nanping Red Two game's result (organisers): each seat's match points
    (seats in :attr:`Game.seat_entries` order; they add up to 0, as every point is paid by one
    player to another) and the seats that lost by forfeit. Standings follow at once. The
    ladder is not told: a Red Two rating needs the sides the last deal revealed, which only the
    match itself knows (a rated live match is rated when it ends)."""
    tournament = _locked(game.round.tournament)
    if not can_manage(user, tournament):
        raise _not_allowed()
    if not tournament.per_seat:
        raise _refuse("not_per_seat", _("This game's result is its two sides' scores."))
    game = _game_for_result(game)
    if (
        not isinstance(totals, list | tuple)
        or len(totals) != 4
        or any(isinstance(t, bool) or not isinstance(t, int) or abs(t) > 10**6 for t in totals)
    ):
        raise _refuse("bad_score", _("Give each of the four players' points as a whole number."))
    if sum(totals) != 0:
        raise _refuse(
            "bad_score",
            _("Red Two points are paid between the players: the four totals add up to 0."),
        )
    if not isinstance(forfeits, list | tuple) or any(
        isinstance(s, bool) or s not in (0, 1, 2, 3) for s in forfeits
    ):
        raise _refuse("bad_forfeits", _("Forfeits are seats 0 to 3."))
    _finish_seats(game, totals, forfeits, GameSource.ADMIN, now or timezone.now())
    return game


def _rated_already(source: str, source_id: object) -> bool:
    from ladder.models import RatedResult

    return RatedResult.objects.filter(source=source, source_id=str(source_id)).exists()


def _rate_organiser_result(tournament: Tournament, game: Game, now: datetime) -> None:
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
    from ladder import services as ladder_services

    level = tournament.variant in LEVEL_VARIANTS
    if _rated_already("admin", game.pk):
        try:
            ladder_services.correct_result(
                source="admin",
                source_id=str(game.pk),
                scores=[game.score0, game.score1],
                winner=game.winner if level else None,
            )
        except ladder_services.LadderError:
            log.exception("corrected result of game %s could not be rated", game.pk)
        return
    if game.table_id is not None and not _take_live_match_off_the_ladder(game):
        return
    if game.table_id is None:
        if game.sheet_id is not None and _rated_already("sheet", game.sheet_id):
            return
        if game.sheet_id is None and _link_confirmed_sheet(tournament, game):
            return
    try:
        ladder_services.record_result(
            source="admin",
            source_id=str(game.pk),
            variant=tournament.variant,
            sides=_game_users(tournament, game),
            scores=[game.score0, game.score1],
            ended_at=min(now, timezone.now()),
            club_id=tournament.club_id,
            winner=game.winner if level else None,
        )
    except ladder_services.LadderError:
        log.exception("organiser result of game %s could not be rated", game.pk)


def _take_live_match_off_the_ladder(game: Game) -> bool:
    """For a live game: False if its match has finished and was rated (the ladder has the
    game); else make sure the match never will be, and return True."""
    from django.db.models import F

    from matches.models import Match, MatchStatus, Table

    match = Match.objects.select_for_update().filter(table_id=game.table_id).first()
    if match is None:
        return True
    if match.status == MatchStatus.FINISHED:
        return not _rated_already("live", match.pk)
    Table.objects.filter(pk=game.table_id).update(rated=False)
    Match.objects.filter(pk=match.pk).update(revision=F("revision") + 1)
    return True


def _link_confirmed_sheet(tournament: Tournament, game: Game) -> bool:
    """For an in-person game: link the confirmed sheet of its players (since the round
    started), if any, and rate it as the tick would; True when one was found."""
    from matches.scoresheet_selectors import confirmed_results

    results = confirmed_results(tournament.club, tournament.variant, since=game.round.started_at)
    entries = {e.pk: e for e in tournament.entries.all()}
    found = _matching_sheet(tournament, game, entries, results)
    if found is None:
        return False
    result, _flip = found
    _link_sheet(game, result.sheet_id)
    _rate_sheet(tournament, result)
    return True


def _rebracket(tournament: Tournament, from_round: int, now: datetime) -> None:
    """After a corrected result in round ``from_round``, put the right entries into each later
    elimination game; a game whose entries change loses its result."""
    rounds = list(tournament.rounds.filter(number__gt=from_round).order_by("number"))
    for rnd in rounds:
        try:
            planned = _pair(tournament, rnd.number)
        except TournamentError:
            planned = []
        games = list(rnd.games.order_by("number"))
        for i, game in enumerate(games):
            want = planned[i].sides if i < len(planned) else ((), ())
            if [list(want[0]), list(want[1])] == game.sides:
                continue
            game.side0, game.side1 = list(want[0]), list(want[1])
            game.score0 = game.score1 = game.winner = None
            game.source = ""
            game.status = (
                GameStatus.PENDING if rnd.status == RoundStatus.PAIRED else (GameStatus.PLAYING)
            )
            game.table = None
            game.finished_at = None
            game.notes = list(game.notes) + [
                {"code": "bracket_corrected", "units": [], "detail": {"round": from_round}}
            ]
            game.save()
        if rnd.status == RoundStatus.FINISHED and not _round_done(rnd):
            rnd.status = RoundStatus.PLAYING
            rnd.finished_at = None
            rnd.save(update_fields=["status", "finished_at"])
    if tournament.status == TournamentStatus.FINISHED:
        last = rounds[-1] if rounds else None
        if last is not None and last.status != RoundStatus.FINISHED:
            tournament.status = TournamentStatus.RUNNING
            tournament.finished_at = None
            tournament.save(update_fields=["status", "finished_at"])


# --------------------------------------------------------------------------- scheduling
def advance(tournament: Tournament, now: datetime) -> list[str]:
    """Do what is due for one tournament at ``now``; return what happened (for logs/tests)."""
    done: list[str] = []
    with transaction.atomic():
        tournament = _locked(tournament)
        if tournament.status not in (
            TournamentStatus.SCHEDULED,
            TournamentStatus.RUNNING,
            TournamentStatus.PAUSED,
        ):
            return done
        last = tournament.rounds.order_by("-number").first()
        if last is None and _notify_checkin(tournament, now):
            done.append("checkin_open")
        if last is not None and last.status == RoundStatus.PLAYING:
            if collect_results(tournament, last, now):
                done.append(f"results:{last.number}")
            if tournament.status != TournamentStatus.PAUSED and _forfeit_no_shows(
                tournament, last, now
            ):
                done.append(f"forfeits:{last.number}")
            if _round_done(last):
                last.status = RoundStatus.FINISHED
                last.finished_at = now
                last.save(update_fields=["status", "finished_at"])
                done.append(f"finished:{last.number}")
        if tournament.status == TournamentStatus.PAUSED:
            return done
        if last is not None and last.status == RoundStatus.PAIRED:
            if now >= last.scheduled_at:
                _start_round(tournament, last, now)
                done.append(f"started:{last.number}")
            return done
        if last is not None and last.status != RoundStatus.FINISHED:
            return done
        number = (last.number + 1) if last else 1
        if number > total_rounds(tournament) and (last is not None or now >= tournament.starts_at):
            if last is not None:
                tournament.status = TournamentStatus.FINISHED
                tournament.finished_at = now
                tournament.save(update_fields=["status", "finished_at"])
                done.append("tournament_finished")
            return done
        due = round_time(tournament, number)
        ready = last is not None and tournament.start_when_ready
        if (last is None and now < tournament.starts_at) or (now < due and not ready):
            return done
        try:
            with transaction.atomic():
                rnd = _create_round(tournament, number, now)
                _start_round(tournament, rnd, now)
        except TournamentError as error:
            log.warning("tournament %s round %s not started: %s", tournament.pk, number, error)
            done.append(f"not_started:{error.code}")
            return done
        done.append(f"started:{number}")
    return done


def tick(now: datetime | None = None) -> dict[int, list[str]]:
    """Celery beat: advance every tournament that is scheduled, running or paused."""
    now = now or timezone.now()
    out = {}
    due = Tournament.objects.filter(
        status__in=[TournamentStatus.SCHEDULED, TournamentStatus.RUNNING, TournamentStatus.PAUSED],
        starts_at__lte=now + timedelta(days=1),  # check-in opens at most a day before
    ).values_list("pk", flat=True)
    for pk in list(due):
        tournament = Tournament.objects.get(pk=pk)
        try:
            done = advance(tournament, now)
        except Exception:  # one broken tournament must not stop the others
            log.exception("tournament %s could not advance", pk)
            continue
        if done:
            out[pk] = done
    return out


# --------------------------------------------------------------------------- notifications
def _notify_users(
    tournament: Tournament, user_ids: Sequence[int], text: str, url: str = ""
) -> None:
    TournamentNotice.objects.bulk_create(
        TournamentNotice(tournament=tournament, user_id=uid, text=text[:300], url=url)
        for uid in dict.fromkeys(user_ids)
    )


def _notify_checkin(tournament: Tournament, now: datetime) -> bool:
    """Once check-in opens, tell each registered player (on the site) that it is open."""
    if not tournament.checkin_required or not checkin_open(tournament, now):
        return False
    from django.urls import reverse

    url = reverse("ladder:tournament", args=[tournament.pk]) + "#check-in"
    if TournamentNotice.objects.filter(tournament=tournament, url=url).exists():
        return False
    from django.conf import settings
    from django.utils import translation

    ids = [u for e in tournament.entries.filter(status=EntryStatus.REGISTERED) for u in e.user_ids]
    notices = []
    for person in User.objects.filter(pk__in=ids):
        with translation.override(person.language or settings.LANGUAGE_CODE):
            text = _("%(t)s: check-in is open until round 1 starts.") % {"t": tournament.name}
        notices.append(TournamentNotice(tournament=tournament, user=person, text=text, url=url))
    TournamentNotice.objects.bulk_create(notices)
    return bool(notices)


def site_url(path: str) -> str:
    """An absolute link for emails: the first configured host (``ALLOWED_HOSTS``), https
    unless in DEBUG; the bare path when no host is configured."""
    from django.conf import settings

    hosts = [h.lstrip(".") for h in settings.ALLOWED_HOSTS if h not in ("*", "")]
    if not hosts:
        return path
    scheme = "http" if settings.DEBUG else "https"
    return f"{scheme}://{hosts[0]}{path}"


def notify_round(round_id: int) -> int:
    """Tell every player of a started round where they play: an on-site notice and an email
    in their own language. Returns the number of emails sent (safe to run twice: it sends
    nothing for a round whose notices exist)."""
    from django.conf import settings
    from django.core.mail import send_mail
    from django.urls import reverse
    from django.utils import translation

    rnd = Round.objects.select_related("tournament").filter(pk=round_id).first()
    if rnd is None:
        return 0
    tournament = rnd.tournament
    url = reverse("ladder:tournament", args=[tournament.pk])
    marker = f"#round-{rnd.number}"
    if TournamentNotice.objects.filter(tournament=tournament, url=url + marker).exists():
        return 0
    entries = {e.pk: e for e in tournament.entries.select_related("player1", "player2")}
    sent = 0
    notices = []
    for game in rnd.games.order_by("number"):
        people = [entries[e].player1 for side in game.sides for e in side] + [
            entries[e].player2 for side in game.sides for e in side if entries[e].player2_id
        ]
        for person in people:
            with translation.override(person.language or settings.LANGUAGE_CODE):
                if game.is_bye:
                    text = _("%(t)s, round %(n)d: you have a bye.") % {
                        "t": tournament.name,
                        "n": rnd.number,
                    }
                else:
                    text = _("%(t)s, round %(n)d has started: table %(table)d.") % {
                        "t": tournament.name,
                        "n": rnd.number,
                        "table": game.number,
                    }
            notices.append(
                TournamentNotice(tournament=tournament, user=person, text=text, url=url + marker)
            )
            if person.email:
                try:
                    body = f"{text}\n\n{site_url(url + marker)}\n"
                    send_mail(text, body, settings.DEFAULT_FROM_EMAIL, [person.email])
                    sent += 1
                except Exception:  # an unreachable mail server must not stop the round
                    log.exception("round email to %s failed", person.pk)
    TournamentNotice.objects.bulk_create(notices)
    return sent
