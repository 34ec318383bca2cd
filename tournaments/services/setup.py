"""Setting a tournament up and changing its state: create, edit, publish, pause, resume,
cancel (organisers: the club's owner and admins); and :func:`managed`, the lock and
permission check every organiser action starts with."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from clubs import permissions as club_permissions
from clubs.models import Club, User
from engine.match import Match as EngineMatch
from games.variants import game as game_facts
from games.variants import is_game
from matches.messages import MatchError
from matches.services import tables as match_tables
from tournaments import standings
from tournaments.models import (
    ACTIVE_STATUSES,
    Tournament,
    TournamentFormat,
    TournamentStatus,
    UnitKind,
)
from tournaments.permissions import can_manage
from tournaments.services.errors import TournamentError, not_allowed

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


def _label(field: str) -> str:
    """The field's verbose name, as the form's label shows it."""
    try:
        return str(Tournament._meta.get_field(field).verbose_name)
    except Exception:  # not a model field
        return field


def _check_fields(
    data: dict[str, Any], partial: Tournament | None, now: datetime | None = None
) -> dict[str, Any]:
    """The settings ``data`` checked (over ``partial``'s when editing): every problem is
    found before refusing, and the refusal names each field by its label and keeps them
    per field in ``fields`` for the form."""
    unknown = set(data) - EDITABLE
    if unknown:
        raise TournamentError("bad_field", _("Unknown field: %(f)s") % {"f": sorted(unknown)[0]})
    merged = {f: getattr(partial, f) for f in EDITABLE} if partial else {}
    merged.update(data)
    problems: dict[str, list[tuple[str, str]]] = {}

    def problem(field: str, code: str, message: str) -> None:
        problems.setdefault(field, []).append((code, message))

    name = merged.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > 120:
        problem("name", "bad_name", _("Give the tournament a name of 1 to 120 characters."))
    variant = merged.get("variant")
    fmt = merged.get("format", TournamentFormat.SWISS)
    if fmt not in TournamentFormat.values:
        problem("format", "bad_format", _("Choose Swiss, round robin or single elimination."))
    if not is_game(variant):
        problem(
            "variant",
            "bad_variant",
            _("Tournaments are played in Bao 2, Guandan, Nanping Red Two or Shuangkou."),
        )
    else:
        facts = game_facts(variant)
        if not facts.fixed_sides:  # partners change every deal (Red Two): only individually
            default_kind = UnitKind.INDIVIDUAL
        else:
            default_kind = UnitKind.PAIR if facts.pairs else UnitKind.SINGLE
        kind = merged.get("unit_kind", default_kind)
        if kind not in UnitKind.values:
            problem(
                "unit_kind",
                "bad_unit_kind",
                _("Choose pairs, single players or an individual event."),
            )
        elif facts.seats == 2 and kind != UnitKind.SINGLE:
            problem(
                "unit_kind", "bad_unit_kind", _("Two-player Shuangkou is played by single players.")
            )
        elif facts.seats == 4 and kind == UnitKind.SINGLE:
            problem(
                "unit_kind",
                "bad_unit_kind",
                _("Four-player games are played by pairs or individually."),
            )
        elif not facts.fixed_sides and kind != UnitKind.INDIVIDUAL:
            problem(
                "unit_kind",
                "bad_unit_kind",
                _("Nanping Red Two is played as an individual event: partners change every deal."),
            )
        elif kind == UnitKind.INDIVIDUAL and fmt != TournamentFormat.SWISS:
            problem("format", "bad_format", _("Individual events are played in Swiss rounds."))
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
                problem(
                    field,
                    "bad_number",
                    _("Enter a whole number from %(low)d to %(high)d.")
                    % {"low": low, "high": high},
                )
    tiebreaks = merged.get("tiebreaks") or []
    if not isinstance(tiebreaks, list) or any(t not in standings.TIEBREAKS for t in tiebreaks):
        problem(
            "tiebreaks",
            "bad_tiebreaks",
            _("Tie-breaks are chosen from: %(names)s") % {"names": ", ".join(standings.TIEBREAKS)},
        )
    elif len(set(tiebreaks)) != len(tiebreaks):
        problem("tiebreaks", "bad_tiebreaks", _("A tie-break is listed twice."))
    options = merged.get("match_options") or {}
    if not isinstance(options, dict):
        problem("match_options", "bad_options", _("Match options must be an object."))
    elif is_game(variant):
        try:
            checked = EngineMatch.new(variant, "options-check", options).options
        except (ValueError, TypeError) as error:
            problem(
                "match_options", "bad_options", _("Invalid match options: %(e)s") % {"e": error}
            )
        else:
            try:  # a tournament's tables are competition tables, rated or not
                match_tables.check_history(
                    checked, rated=bool(merged.get("rated")), competition=True
                )
            except MatchError as error:
                problem("match_options", error.code, error.message)
    merged["match_options"] = options if isinstance(options, dict) else {}
    merged["tiebreaks"] = tiebreaks
    times_ok = True
    for field in ("registration_opens", "registration_closes", "starts_at"):
        value = merged.get(field)
        if value is not None and (not isinstance(value, datetime) or timezone.is_naive(value)):
            problem(field, "bad_time", _("Times must be given with a time zone."))
            times_ok = False
    if not isinstance(merged.get("starts_at"), datetime):
        if times_ok:
            problem("starts_at", "bad_time", _("Give the start time."))
    elif times_ok:
        opens, closes = merged.get("registration_opens"), merged.get("registration_closes")
        starts = merged["starts_at"]
        # a start already past could never open registration: 发布并开放报名 would refuse it
        # a minute of grace: a form gives minutes, so "start now" is a few seconds past
        if "starts_at" in data and starts < (now or timezone.now()) - timedelta(minutes=1):
            problem(
                "starts_at",
                "past_start",
                _("%(when)s has passed: choose a time in the future.")
                % {"when": timezone.localtime(starts).strftime("%Y-%m-%d %H:%M")},
            )
        if opens and closes and opens >= closes:
            problem(
                "registration_closes", "bad_time", _("Registration must open before it closes.")
            )
        if closes and closes > starts and not merged.get("late_until_round"):
            problem(
                "registration_closes",
                "bad_time",
                _("Registration closes at the latest when play starts."),
            )
    for flag in ("third_place", "rated", "online", "checkin_required", "start_when_ready"):
        if flag in merged and not isinstance(merged[flag], bool):
            problem(flag, "bad_flag", _("Choose yes or no."))
    description = merged.get("description", "")
    if not isinstance(description, str) or len(description) > 5000:
        problem("description", "bad_description", _("The description is at most 5000 characters."))
    if problems:
        lines = [
            _("%(field)s: %(message)s") % {"field": _label(field), "message": message}
            for field, found in problems.items()
            for _code, message in found
        ]
        refusal = TournamentError(
            next(iter(problems.values()))[0][0], pgettext("list separator", "; ").join(lines)
        )
        refusal.fields = {  # type: ignore[attr-defined]
            field: [message for _code, message in found] for field, found in problems.items()
        }
        raise refusal
    return {k: v for k, v in merged.items() if k in data or partial is None}


def create_tournament(user: User, club: Club, **fields: Any) -> Tournament:
    """Create a draft tournament in ``club`` (owner / admins only)."""
    if not club_permissions.is_club_admin(user, club):
        raise not_allowed()
    clean = _check_fields(fields, None)
    return Tournament.objects.create(club=club, created_by=user, **clean)


@transaction.atomic
def update_tournament(user: User, tournament: Tournament, **fields: Any) -> Tournament:
    """Change a tournament's settings; the format, game and entry kind only before round 1."""
    tournament = managed(user, tournament)
    if tournament.status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED):
        raise TournamentError("closed", _("This tournament is over."))
    if tournament.rounds.exists() and set(fields) & STRUCTURAL:
        raise TournamentError(
            "started", _("The format cannot change once the first round is paired.")
        )
    clean = _check_fields(fields, tournament)
    for key, value in clean.items():
        setattr(tournament, key, value)
    tournament.save()
    return tournament


def locked(tournament: Tournament) -> Tournament:
    """``tournament`` read again with its club and locked until the transaction ends."""
    return Tournament.objects.select_for_update().select_related("club").get(pk=tournament.pk)


def managed(user: User, tournament: Tournament) -> Tournament:
    """The preamble of every organiser action, in one place: ``tournament`` read again and
    locked for the transaction (with its club) if ``user`` may manage it; raises
    :class:`~tournaments.services.errors.NotAllowed` otherwise, having changed nothing."""
    tournament = locked(tournament)
    if not can_manage(user, tournament):
        raise not_allowed()
    return tournament


@transaction.atomic
def publish(user: User, tournament: Tournament, now: datetime | None = None) -> Tournament:
    """Publish a draft: it becomes visible and registration opens (now, unless a later
    opening time is set)."""
    tournament = managed(user, tournament)
    if tournament.status != TournamentStatus.DRAFT:
        raise TournamentError("not_draft", _("Only a draft can be published."))
    now = now or timezone.now()
    tournament.status = TournamentStatus.SCHEDULED
    if tournament.registration_opens is None:
        tournament.registration_opens = now
    tournament.save(update_fields=["status", "registration_opens"])
    return tournament


def _set_status(user: User, tournament: Tournament, allowed: Sequence[str], new: str) -> Tournament:
    with transaction.atomic():
        tournament = managed(user, tournament)
        if tournament.status not in allowed:
            raise TournamentError(
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
        [TournamentStatus.DRAFT, *ACTIVE_STATUSES],
        TournamentStatus.CANCELLED,
    )
