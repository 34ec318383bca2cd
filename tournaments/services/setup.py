"""Setting a tournament up and changing its state: create, edit, publish, pause, resume,
cancel (organisers: the club's owner and admins); and :func:`managed`, the lock and
permission check every organiser action starts with."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

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


def _check_fields(data: dict[str, Any], partial: Tournament | None) -> dict[str, Any]:
    unknown = set(data) - EDITABLE
    if unknown:
        raise TournamentError("bad_field", _("Unknown field: %(f)s") % {"f": sorted(unknown)[0]})
    merged = {f: getattr(partial, f) for f in EDITABLE} if partial else {}
    merged.update(data)
    name = merged.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > 120:
        raise TournamentError("bad_name", _("Give the tournament a name of 1 to 120 characters."))
    variant = merged.get("variant")
    if not is_game(variant):
        raise TournamentError(
            "bad_variant",
            _("Tournaments are played in Bao 2, Guandan, Nanping Red Two or Shuangkou."),
        )
    facts = game_facts(variant)
    fmt = merged.get("format", TournamentFormat.SWISS)
    if fmt not in TournamentFormat.values:
        raise TournamentError("bad_format", _("Choose Swiss, round robin or single elimination."))
    if not facts.fixed_sides:  # partners change every deal (Red Two): only individually
        default_kind = UnitKind.INDIVIDUAL
    else:
        default_kind = UnitKind.PAIR if facts.pairs else UnitKind.SINGLE
    kind = merged.get("unit_kind", default_kind)
    if kind not in UnitKind.values:
        raise TournamentError(
            "bad_unit_kind", _("Choose pairs, single players or an individual event.")
        )
    if facts.seats == 2 and kind != UnitKind.SINGLE:
        raise TournamentError(
            "bad_unit_kind", _("Two-player Shuangkou is played by single players.")
        )
    if facts.seats == 4 and kind == UnitKind.SINGLE:
        raise TournamentError(
            "bad_unit_kind", _("Four-player games are played by pairs or individually.")
        )
    if not facts.fixed_sides and kind != UnitKind.INDIVIDUAL:
        raise TournamentError(
            "bad_unit_kind",
            _("Nanping Red Two is played as an individual event: partners change every deal."),
        )
    if kind == UnitKind.INDIVIDUAL and fmt != TournamentFormat.SWISS:
        raise TournamentError("bad_format", _("Individual events are played in Swiss rounds."))
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
                raise TournamentError(
                    "bad_number",
                    _("%(field)s must be a whole number from %(low)d to %(high)d.")
                    % {"field": field, "low": low, "high": high},
                )
    tiebreaks = merged.get("tiebreaks") or []
    if not isinstance(tiebreaks, list) or any(t not in standings.TIEBREAKS for t in tiebreaks):
        raise TournamentError(
            "bad_tiebreaks",
            _("Tie-breaks are chosen from: %(names)s") % {"names": ", ".join(standings.TIEBREAKS)},
        )
    if len(set(tiebreaks)) != len(tiebreaks):
        raise TournamentError("bad_tiebreaks", _("A tie-break is listed twice."))
    options = merged.get("match_options") or {}
    if not isinstance(options, dict):
        raise TournamentError("bad_options", _("Match options must be an object."))
    merged["match_options"] = options
    merged["tiebreaks"] = tiebreaks
    try:
        checked = EngineMatch.new(variant, "options-check", options).options
    except (ValueError, TypeError) as error:
        raise TournamentError(
            "bad_options", _("Invalid match options: %(e)s") % {"e": error}
        ) from None
    try:  # a tournament's tables are competition tables, rated or not
        match_tables.check_history(checked, rated=bool(merged.get("rated")), competition=True)
    except MatchError as error:
        raise TournamentError(error.code, error.message) from None
    for field in ("registration_opens", "registration_closes", "starts_at"):
        value = merged.get(field)
        if value is not None and (not isinstance(value, datetime) or timezone.is_naive(value)):
            raise TournamentError("bad_time", _("Times must be given with a time zone."))
    if not isinstance(merged.get("starts_at"), datetime):
        raise TournamentError("bad_time", _("Give the start time."))
    opens, closes = merged.get("registration_opens"), merged.get("registration_closes")
    if opens and closes and opens >= closes:
        raise TournamentError("bad_time", _("Registration must open before it closes."))
    if closes and closes > merged["starts_at"] and not merged.get("late_until_round"):
        raise TournamentError("bad_time", _("Registration closes at the latest when play starts."))
    for flag in ("third_place", "rated", "online", "checkin_required", "start_when_ready"):
        if flag in merged and not isinstance(merged[flag], bool):
            raise TournamentError("bad_flag", _("%(field)s is yes or no.") % {"field": flag})
    description = merged.get("description", "")
    if not isinstance(description, str) or len(description) > 5000:
        raise TournamentError("bad_description", _("The description is at most 5000 characters."))
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
