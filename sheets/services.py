"""The only place that changes score sheets (保2记分器).

Every rule number comes from the engine: a sheet's state is its entries replayed through
:class:`engine.match.TableMatch`. Entries are idempotent on the client's key, so a phone that
resends its offline queue never adds a deal twice. A finished sheet counts once a player of each
side (every player, when the sides change between deals) or a club admin confirms it; it is
then recorded in the ladder with source ``sheet``, exactly as a live match is. Every function
checks permissions (:mod:`sheets.permissions`) and raises :class:`clubs.services.ClubError` (a
stable ``code`` and a translated message; :class:`SheetError` also names the input
``field``); a refused call changes nothing.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.models import Club, Membership, Role, User
from clubs.services import ClubError, NotAllowed, NotFound
from engine.actions import Refusal
from engine.match import OutcomeRefusal, TableMatch
from games.variants import game, is_game
from ladder import services as ladder_services
from ladder.errors import LadderError
from outbox import services as outbox
from outbox.models import Kind
from sheets import hooks
from sheets import permissions as perms
from sheets.models import ScoreSheet, SheetEntry, SheetPlayer, SheetStatus, SheetVerdict
from sheets.selectors import confirmed_result, sheet_record

log = logging.getLogger(__name__)

#: The largest id a row can have (a signed 64-bit integer): a larger one names nobody.
MAX_ID = 2**63 - 1

#: Statuses in which the record may still change.
OPEN_STATUSES = (SheetStatus.PLAYING, SheetStatus.FINISHED, SheetStatus.DISPUTED)


class SheetError(ClubError):
    """A refused sheet action; ``field`` names the bad part of the input (or ``""``)."""

    def __init__(self, code: str, message: str, field: str = "") -> None:
        """Keep the field beside the code and the translated message."""
        super().__init__(code, message)
        self.field = field


def refusal_message(code: str) -> str:
    """The translated sentence for an engine refusal code of a table entry."""
    messages = {
        "match_over": _("The match is over: nothing more can be entered."),
        "bad_entry": _("An entry is a deal, a referee card or the end of time."),
        "unknown_field": _("This game has no such detail."),
        "bad_number": _("Enter a whole number in the allowed range."),
        "bad_twos": _("Give the number of 2s, and how many of them are red."),
        "bad_finish": _("Give the finishing order until the deal ended, each player once."),
        "bao2_not_first": _("Only the side of the first player out can score 保2."),
        "bad_immune": _("Immune bomb is yes or no."),
        "immune_without_bao2": _("An immune bomb only answers a 保2."),
        "bad_stuck": _("Stuck end is yes or no."),
        "twos_of_finished": _("A player who went out has no 2s left in hand."),
        "too_many_twos": _("There are only eight 2s in play (four of them red)."),
        "bad_bombs": _("Give the line count of each bomb played."),
        "bad_mode": _("Choose how the deal was played."),
        "bad_fans": _("Give the fans of each player."),
        "bad_h2": _("Choose the two players who held ♥2."),
        "bad_receiver": _("The solo player cannot pay themselves."),
        "bad_card": _("This game has no such referee card."),
    }
    return messages.get(code, _("This entry is not possible."))


def _refused(refusal: Refusal) -> SheetError:
    field = refusal.field if isinstance(refusal, OutcomeRefusal) else ""
    return SheetError(refusal.code, refusal_message(refusal.code), field)


def _not_allowed() -> NotAllowed:
    return NotAllowed("not_allowed", _("You are not allowed to do this."))


@dataclass(frozen=True)
class PlayerSpec:
    """One seat as given when starting a sheet: a club member's user id, or a guest's name."""

    user_id: int | None = None
    guest_name: str = ""


# --------------------------------------------------------------------------- start
@transaction.atomic
def start_sheet(
    user: User,
    club: Club,
    *,
    variant: str,
    players: list[PlayerSpec],
    options: dict[str, Any] | None = None,
    rated: bool = True,
    scorer: User | None = None,
    admitted: Collection[int] = (),
) -> ScoreSheet:
    """Start a score sheet for ``club``; ``user`` (a club member) starts it and ``scorer``
    (default ``user``) keeps it.

    ``players`` lists the seats in turn order (partners opposite: seats 0+2 against 1+3; in
    two-player Shuangkou seat 0 against seat 1). Each is a club member or a named guest; a
    member appears once. ``admitted`` are user ids that may sit (and keep the sheet) without
    being members of the club: a caller that checked its players itself, such as an
    inter-club league seating its invited clubs' players at the host's sheets. ``options``
    are checked by the engine. Raises :class:`SheetError`."""
    if not perms.can_start(user, club):
        raise _not_allowed()
    admitted = frozenset(admitted)
    scorer = scorer or user
    if scorer.pk != user.pk and not (perms.is_member(scorer, club) or scorer.pk in admitted):
        raise SheetError(
            "not_member", _("Players chosen from the list must be club members."), "scorer"
        )
    if not is_game(variant):
        raise SheetError("bad_variant", _("Unknown game."), "variant")
    seats = game(variant).seats
    if len(players) != seats:
        raise SheetError(
            "bad_players", _("This game needs %(n)d players.") % {"n": seats}, "players"
        )
    options = dict(options or {})
    unknown = set(options) - game(variant).sheet_options
    if unknown:
        raise SheetError("bad_option", _("This game has no such option."), "options")
    try:
        TableMatch(variant, options)
    except ValueError:
        raise SheetError(
            "bad_option", _("An option has a value the game does not allow."), "options"
        ) from None
    ids = [p.user_id for p in players if p.user_id is not None]
    if any(isinstance(i, bool) or not isinstance(i, int) or not 0 < i <= MAX_ID for i in ids):
        raise SheetError(
            "not_member", _("Players chosen from the list must be club members."), "players"
        )
    if len(set(ids)) != len(ids):
        raise SheetError("duplicate_player", _("A member plays only one seat."), "players")
    members = admitted | set(
        Membership.objects.filter(club=club, user_id__in=ids).values_list("user_id", flat=True)
    )
    for p in players:
        if p.user_id is None and not p.guest_name.strip():
            raise SheetError(
                "bad_players",
                _("Choose a member or write a guest's name for every seat."),
                "players",
            )
        if p.user_id is not None and p.user_id not in members:
            raise SheetError(
                "not_member", _("Players chosen from the list must be club members."), "players"
            )
    sheet = ScoreSheet.objects.create(
        club=club, scorer=scorer, variant=variant, options=options, rated=bool(rated)
    )
    SheetPlayer.objects.bulk_create(
        SheetPlayer(
            sheet=sheet,
            seat=seat,
            user_id=p.user_id,
            guest_name="" if p.user_id is not None else p.guest_name.strip()[:60],
        )
        for seat, p in enumerate(players)
    )
    sheet.state = TableMatch(variant, options).state()
    sheet.save(update_fields=["state"])
    return sheet


# --------------------------------------------------------------------------- entries
def _locked(sheet: ScoreSheet) -> ScoreSheet:
    return ScoreSheet.objects.select_for_update().get(pk=sheet.pk)


def _active_entries(sheet: ScoreSheet) -> list[SheetEntry]:
    return list(sheet.entries.filter(undone=False).exclude(entry__has_key="undo").order_by("seq"))


def replay(sheet: ScoreSheet) -> TableMatch:
    """The engine's match after the sheet's active entries (every deal not undone)."""
    return TableMatch.replay(
        sheet.variant, sheet.options, [e.entry for e in _active_entries(sheet)]
    )


def _existing(sheet: ScoreSheet, key: uuid.UUID) -> SheetEntry | None:
    return SheetEntry.objects.filter(sheet=sheet, key=key).first()


def _store(sheet: ScoreSheet, user: User, key: uuid.UUID, entry: dict, record: dict) -> SheetEntry:
    sheet.version += 1
    try:
        with transaction.atomic():
            stored = SheetEntry.objects.create(
                sheet=sheet, seq=sheet.version, key=key, entry=entry, record=record, user=user
            )
    except IntegrityError:
        raise SheetError("conflict", _("Someone else changed the sheet; reload.")) from None
    return stored


def _after_change(sheet: ScoreSheet, match: TableMatch) -> None:
    sheet.state = match.state()
    if match.over:
        if sheet.status != SheetStatus.DISPUTED:
            sheet.status = SheetStatus.FINISHED
        sheet.finished_at = sheet.finished_at or timezone.now()
    else:
        sheet.status = SheetStatus.PLAYING
        sheet.finished_at = None
    sheet.save(update_fields=["state", "status", "finished_at", "version"])


@dataclass(frozen=True)
class EntryOutcome:
    """What :func:`add_entry` / :func:`undo_last` did: the stored entry, and whether it was new
    (False: the key was already stored, nothing changed)."""

    entry: SheetEntry
    created: bool


@transaction.atomic
def add_entry(user: User, sheet: ScoreSheet, entry: dict[str, Any], key: uuid.UUID) -> EntryOutcome:
    """Add one entry (a deal outcome, a referee card, or time up; see
    :class:`engine.match.TableMatch`) to the sheet, as the engine scores it.

    Idempotent on ``key``: a key already stored for this sheet returns that entry and changes
    nothing. Only the scorer and club admins may add; a confirmed or voided sheet is closed.
    A rule refusal raises :class:`SheetError` naming the field."""
    if not perms.can_score(user, sheet):
        raise _not_allowed()
    sheet = _locked(sheet)
    found = _existing(sheet, key)
    if found is not None:
        return EntryOutcome(found, False)
    if not isinstance(entry, dict) or "undo" in entry:
        raise SheetError("bad_entry", refusal_message("bad_entry"), "entry")
    if sheet.status not in OPEN_STATUSES:
        raise SheetError("closed", _("This sheet is closed."))
    match = replay(sheet)
    try:
        record = match.apply(entry)
    except Refusal as refusal:
        raise _refused(refusal) from None
    stored = _store(sheet, user, key, entry, record)
    _after_change(sheet, match)
    return EntryOutcome(stored, True)


@transaction.atomic
def undo_last(user: User, sheet: ScoreSheet, key: uuid.UUID) -> EntryOutcome:
    """Take back the last active entry (the log keeps it, marked undone, and records the undo).
    Idempotent on ``key`` like :func:`add_entry`. Confirmations given before are void."""
    if not perms.can_score(user, sheet):
        raise _not_allowed()
    sheet = _locked(sheet)
    found = _existing(sheet, key)
    if found is not None:
        return EntryOutcome(found, False)
    if sheet.status not in OPEN_STATUSES:
        raise SheetError("closed", _("This sheet is closed."))
    active = _active_entries(sheet)
    if not active:
        raise SheetError("nothing_to_undo", _("There is no deal to undo."))
    last = active[-1]
    last.undone = True
    last.save(update_fields=["undone"])
    stored = _store(sheet, user, key, {"undo": True}, {"undid": last.seq})
    _after_change(sheet, replay(sheet))
    return EntryOutcome(stored, True)


# --------------------------------------------------------------------------- verdicts
def _current_verdicts(sheet: ScoreSheet) -> list[SheetVerdict]:
    return list(sheet.verdicts.filter(version=sheet.version))


def _confirmed_by_players(sheet: ScoreSheet) -> bool:
    """Whether the players' confirmations of the current record suffice: a player of each side
    in a game with sides fixed by seat; every player with an account in a game whose sides
    change between deals (Red Two: no seat speaks for another; a guest has no account to
    confirm with, and a sheet with guests is never rated)."""
    confirms = [v for v in _current_verdicts(sheet) if v.kind == SheetVerdict.Kind.CONFIRM]
    if game(sheet.variant).fixed_sides:
        return {0, 1} <= {v.side for v in confirms}
    players = set(sheet.players.exclude(user=None).values_list("user_id", flat=True))
    return bool(players) and players <= {v.user_id for v in confirms}


@transaction.atomic
def confirm(user: User, sheet: ScoreSheet) -> ScoreSheet:
    """Confirm a finished sheet. It counts (status ``confirmed``) once the players confirmed
    the current record — a player of each side, or every player in a game whose sides change
    between deals (Red Two) — or at once when a club admin (such as the organiser of the
    tournament the sheet is played for) confirms, also a disputed one. A confirmed rated sheet
    of members only is then recorded in the ladder (source ``sheet``)."""
    if not perms.can_confirm(user, sheet):
        raise _not_allowed()
    sheet = _locked(sheet)
    admin = perms.is_admin(user, sheet)
    side = perms.user_side(user, sheet)
    if sheet.status == SheetStatus.CONFIRMED:
        return sheet
    allowed = (SheetStatus.FINISHED, SheetStatus.DISPUTED) if admin else (SheetStatus.FINISHED,)
    if sheet.status not in allowed:
        raise SheetError("not_finished", _("Only a finished match can be confirmed."))
    SheetVerdict.objects.create(
        sheet=sheet, user=user, side=side, kind=SheetVerdict.Kind.CONFIRM, version=sheet.version
    )
    if admin or _confirmed_by_players(sheet):
        sheet.status = SheetStatus.CONFIRMED
        sheet.confirmed_at = timezone.now()
        sheet.save(update_fields=["status", "confirmed_at"])
        _record_in_ladder(sheet)
    return sheet


@transaction.atomic
def dispute(user: User, sheet: ScoreSheet, reason: str = "") -> ScoreSheet:
    """Dispute a finished sheet: it stops counting until a club admin confirms or voids it; the
    club's admins are emailed the deal record (in their language) through the outbox, written
    in this transaction and sent after the commit. A player has one open dispute per sheet: a
    second dispute of the same record is refused (``already_disputed``) and emails nobody."""
    if not perms.can_dispute(user, sheet):
        raise _not_allowed()
    sheet = _locked(sheet)
    if sheet.status not in (SheetStatus.FINISHED, SheetStatus.DISPUTED):
        raise SheetError("not_finished", _("Only a finished, unconfirmed match can be disputed."))
    if (
        sheet.status == SheetStatus.DISPUTED
        and sheet.verdicts.filter(
            user=user, kind=SheetVerdict.Kind.DISPUTE, version=sheet.version
        ).exists()
    ):
        raise SheetError(
            "already_disputed",
            _("You have already disputed this result; a club admin will settle it."),
        )
    verdict = SheetVerdict.objects.create(
        sheet=sheet,
        user=user,
        side=perms.user_side(user, sheet),
        kind=SheetVerdict.Kind.DISPUTE,
        reason=(reason or "")[:500],
        version=sheet.version,
    )
    sheet.status = SheetStatus.DISPUTED
    sheet.save(update_fields=["status"])
    notify_dispute(verdict)
    return sheet


@transaction.atomic
def void(user: User, sheet: ScoreSheet) -> ScoreSheet:
    """A club admin voids an unconfirmed sheet (it never counts)."""
    if not perms.can_void(user, sheet):
        raise _not_allowed()
    sheet = _locked(sheet)
    if sheet.status == SheetStatus.CONFIRMED:
        raise SheetError("closed", _("A confirmed result cannot be voided."))
    sheet.status = SheetStatus.VOIDED
    sheet.save(update_fields=["status"])
    return sheet


def notify_dispute(verdict: SheetVerdict) -> int:
    """Queue for each admin of the sheet's club (with an email address) an email with the
    dispute ``verdict`` and the deal record, in the admin's language, in the current
    transaction (one outbox message per admin and dispute: key
    ``sheet-dispute:<verdict id>:user:<admin id>``). Returns the number of emails queued."""
    sheet = ScoreSheet.objects.select_related("club").get(pk=verdict.sheet_id)
    admins = User.objects.filter(
        memberships__club=sheet.club, memberships__role__in=[Role.OWNER, Role.ADMIN]
    ).exclude(email="")
    context = {
        "sheet": sheet,
        "by": verdict.user,
        "record": sheet_record(sheet),
        "link": outbox.site_url(reverse("scoresheet:sheet", args=[sheet.pk])),
    }
    queued = 0
    for admin in admins:
        message = outbox.email_user(
            key=f"sheet-dispute:{verdict.pk}:user:{admin.pk}",
            user=admin,
            template="sheets/dispute",
            context=context,
            kind=Kind.SHEETS,
            url=reverse("scoresheet:sheet", args=[sheet.pk]),
        )
        queued += message is not None
    return queued


def _record_in_ladder(sheet: ScoreSheet) -> None:
    """Hand a confirmed rated sheet of club members to the ladder, as a live match is.

    For the level games (a match of them can be won with level scores: both teams at the top
    level when one passes it) the engine's winner goes with the levels: a Bao 2 sheet that
    ends 23:23 because one team passed 2A is rated as that team's win, not a draw. A sheet
    whose game the ladder already has from elsewhere (e.g. a tournament game whose
    organiser-entered result was rated: :func:`sheets.hooks.rated_elsewhere`) is not rated
    again."""
    result = confirmed_result(sheet)
    if result is None or not sheet.rated or result.sides is None:
        return
    if hooks.rated_elsewhere(sheet):  # e.g. the organiser's result already rated it: once only
        log.info("sheet %s records a game already rated", sheet.pk)
        return

    try:
        ladder_services.record_result(
            source="sheet",
            source_id=str(sheet.pk),
            variant=sheet.variant,
            sides=result.sides,
            scores=list(result.scores),
            ended_at=result.ended_at,
            club_id=sheet.club_id,
            winner=result.winner if game(sheet.variant).levels else None,
        )
    except LadderError:
        log.exception("sheet %s could not be recorded for the ladder", sheet.pk)


def get_sheet(user: User, sheet_id: int) -> ScoreSheet:
    """The sheet if ``user`` may see it; raises ``NotFound`` otherwise (no existence leak)."""
    sheet = ScoreSheet.objects.filter(pk=sheet_id).select_related("club", "scorer").first()
    if sheet is None or not perms.can_view(user, sheet):
        raise NotFound("not_found", _("No such score sheet."))
    return sheet
