"""Tables: :func:`open_table`, :func:`take_seat`, :func:`leave_seat`, :func:`add_bot`; a table
whose seats are all taken starts its match (:func:`start_match`). Other apps change a table
only through this module (e.g. :func:`take_table_off_the_ladder`)."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from clubs import selectors as club_selectors
from clubs.models import Club, User
from clubs.permissions import is_club_admin
from engine.actions import Refusal
from engine.match import Match as EngineMatch
from engine.match import OptionError
from games.variants import is_game
from matches import broadcast, store
from matches.hooks import may_sit_clubless
from matches.messages import MatchError
from matches.models import BotKind, Match, MatchStatus, Seat, Table, TableKind, TableStatus
from matches.services.play import after_commit, plan_deadline


def _require_member(user: User, club: Club | None) -> None:
    if user is None or not user.is_authenticated:
        raise MatchError("login_required")
    if club is None:  # a club-less table (practice, friends') is not sat at through a club
        raise MatchError("not_allowed")
    if club_selectors.membership_of(user, club) is None:
        raise MatchError("not_member")


def open_table(
    user: User,
    club: Club | None,
    *,
    variant: str,
    options: dict[str, Any] | None = None,
    clocks: bool = True,
    time_limit_seconds: int | None = None,
    rated: bool = False,
    competition: bool = False,
    spectators_allowed: bool = True,
    phrases_allowed: bool = True,
    sit: bool = True,
    deal_group: str = "",
    kind: str = TableKind.CLUB,
) -> Table:
    """Open a table in ``club`` (members only) with engine ``options`` checked by the engine.

    ``time_limit_seconds`` is the match time limit, 0 for none; None takes the engine's
    ``time_limit_minutes`` (the option given, else the game's default: an hour for Bao 2).
    ``competition``: the table belongs to a tournament or a league. ``show_history`` (played
    cards visible) is for casual tables only (:func:`check_history`), and so are quick phrases
    (``phrases_allowed``: the opener may switch them off; :mod:`matches.services.phrases`). The opener takes seat 0
    unless ``sit`` is false. ``deal_group``: a key (at most 64 characters) shared by the
    tables that will play the same deals (a team fixture's tables, a duplicate round's):
    they are siblings (:mod:`matches.services.access`). ``club`` None opens a club-less
    table of ``kind`` (practice, friends) for any signed-in ``user``: never rated, never a
    competition's. Raises :class:`MatchError`.
    """
    if club is None:
        if user is None or not user.is_authenticated:
            raise MatchError("login_required")
        if kind not in TableKind.values or kind == TableKind.CLUB or rated or competition:
            raise MatchError("bad_options")
    else:
        _require_member(user, club)
        if kind != TableKind.CLUB:
            raise MatchError("bad_options")
    if not is_game(variant):
        raise MatchError("bad_variant")
    if not isinstance(options, dict | None):
        raise MatchError("bad_options")
    if not isinstance(deal_group, str) or len(deal_group) > 64:
        raise MatchError("bad_options")
    try:
        checked = EngineMatch.new(variant, "options-check", options or {}).options
    except OptionError as error:
        raise MatchError("bad_options", str(error), option=error) from None
    except (ValueError, TypeError, Refusal) as error:
        raise MatchError("bad_options", str(error)) from None
    check_history(checked, rated=rated, competition=competition)
    if time_limit_seconds is None:
        time_limit_seconds = 60 * int(checked.get("time_limit_minutes") or 0)
    if (
        isinstance(time_limit_seconds, bool)
        or not isinstance(time_limit_seconds, int)
        or not 0 <= time_limit_seconds <= 24 * 3600
    ):
        raise MatchError("bad_options")
    with transaction.atomic():
        table = Table.objects.create(
            club=club,
            kind=kind,
            created_by=user,
            variant=variant,
            options=dict(options or {}),
            clocks=bool(clocks),
            competition=bool(competition),
            time_limit_seconds=time_limit_seconds,
            rated=bool(rated),
            spectators_allowed=bool(spectators_allowed),
            phrases_allowed=bool(phrases_allowed),
            deal_group=deal_group,
        )
        Seat.objects.bulk_create(Seat(table=table, index=i) for i in range(table.seat_count))
        if sit:
            take_seat(user, table, 0)
    return table


def check_history(options: dict[str, Any], *, rated: bool, competition: bool) -> None:
    """The one rule on ``show_history`` (the last trick and every seat's played cards
    visible): casual tables only. A competition table (a tournament's or a league's, rated or
    not: competition rules 八.7 forbid checking played cards) refuses it with
    ``history_competition``, any other rated table with ``history_rated``. Raises
    :class:`MatchError`; returns None when ``options`` may be used."""
    if not options.get("show_history"):
        return
    if competition:
        raise MatchError("history_competition")
    if rated:
        raise MatchError("history_rated")


def _locked_table(table: Table) -> Table:
    return Table.objects.select_for_update().get(pk=table.pk)


def _notify_table(table_id: int) -> None:
    transaction.on_commit(lambda: broadcast.table_changed(table_id))


def _require_seating(user: User, table: Table) -> None:
    """A club's table seats its members; a club-less one its opener and whoever its kind's
    registered check (:func:`matches.hooks.may_sit_clubless`: a friends' table's invitees)
    allows, else ``not_invited``."""
    if table.club_id is not None:
        _require_member(user, table.club)
        return
    if user is None or not user.is_authenticated:
        raise MatchError("login_required")
    if table.created_by_id != user.pk and not may_sit_clubless(user, table):
        raise MatchError("not_invited")


@transaction.atomic
def take_seat(user: User, table: Table, index: int) -> Seat:
    """Sit ``user`` in empty seat ``index`` (:func:`_require_seating`: a club member, or at a
    club-less table its opener or an invitee); a full table starts its match."""
    table = _locked_table(table)
    _require_seating(user, table)
    if table.status != TableStatus.OPEN:
        raise MatchError("table_not_open")
    seats = list(table.seats.select_for_update().order_by("index"))
    if not isinstance(index, int) or not 0 <= index < len(seats):
        raise MatchError("no_such_seat")
    if any(s.user_id == user.pk for s in seats):
        raise MatchError("already_seated")
    seat = seats[index]
    if seat.taken:
        raise MatchError("seat_taken")
    seat.user = user
    seat.bot = ""
    seat.save(update_fields=["user", "bot"])
    _notify_table(table.pk)
    if all(s.taken for s in seats):
        start_match(table)
    return seat


@transaction.atomic
def seat_players(table: Table, users: Sequence[User], seed: str | None = None) -> Match:
    """Seat ``users`` in seat order at open table ``table`` and start its match (``seed``:
    the cards, e.g. the same at both tables of a team fixture). For a caller that already
    decided who plays where — a league fixture seats players of invited clubs, who are not
    members of the host club. Raises :class:`MatchError` when the table is not open or the
    players do not fill its seats."""
    table = _locked_table(table)
    if table.status != TableStatus.OPEN:
        raise MatchError("table_not_open")
    seats = list(table.seats.select_for_update().order_by("index"))
    if len(users) != len(seats) or len({u.pk for u in users}) != len(seats):
        raise MatchError("no_such_seat")
    for seat, user in zip(seats, users, strict=True):
        seat.user, seat.bot = user, ""
        seat.save(update_fields=["user", "bot"])
    _notify_table(table.pk)
    return start_match(table, seed=seed)


@transaction.atomic
def leave_seat(user: User, table: Table) -> None:
    """Stand ``user`` up from an open table."""
    table = _locked_table(table)
    if table.status != TableStatus.OPEN:
        raise MatchError("table_not_open")
    updated = table.seats.filter(user=user).update(user=None)
    if not updated:
        raise MatchError("not_seated")
    _notify_table(table.pk)


@transaction.atomic
def add_bot(user: User, table: Table, index: int, kind: str) -> Seat:
    """Put a bot (``random`` / ``heuristic`` / ``search``) in empty seat ``index``: the table's opener or a
    club admin only (a club-less table: its opener), never at a rated table. A full table
    starts its match."""
    table = _locked_table(table)
    if table.club_id is None:
        if user is None or not user.is_authenticated or table.created_by_id != user.pk:
            raise MatchError("not_allowed")
    else:
        _require_member(user, table.club)
        if table.created_by_id != user.pk and not is_club_admin(user, table.club):
            raise MatchError("not_allowed")
    if table.rated:
        raise MatchError("rated_bots")
    if kind not in (BotKind.RANDOM, BotKind.HEURISTIC, BotKind.SEARCH):
        raise MatchError("bad_options")
    if table.status != TableStatus.OPEN:
        raise MatchError("table_not_open")
    seats = list(table.seats.select_for_update().order_by("index"))
    if not isinstance(index, int) or not 0 <= index < len(seats):
        raise MatchError("no_such_seat")
    seat = seats[index]
    if seat.taken:
        raise MatchError("seat_taken")
    seat.bot = kind
    seat.save(update_fields=["bot"])
    _notify_table(table.pk)
    if all(s.taken for s in seats):
        start_match(table)
    return seat


@transaction.atomic
def clear_seat(user: User, table: Table, index: int) -> Seat:
    """The opener of a club-less table empties seat ``index`` (a person or a bot, not their
    own) while the table waits for players, i.e. before its first deal (the match starts as
    the last seat is taken). Returns the emptied seat."""
    table = _locked_table(table)
    if (
        table.club_id is not None
        or user is None
        or not user.is_authenticated
        or table.created_by_id != user.pk
    ):
        raise MatchError("not_allowed")
    if table.status != TableStatus.OPEN:
        raise MatchError("table_not_open")
    seats = list(table.seats.select_for_update().order_by("index"))
    if not isinstance(index, int) or not 0 <= index < len(seats) or not seats[index].taken:
        raise MatchError("no_such_seat")
    seat = seats[index]
    if seat.user_id == user.pk:
        raise MatchError("not_allowed")
    seat.user, seat.bot = None, ""
    seat.save(update_fields=["user", "bot"])
    _notify_table(table.pk)
    return seat


def start_match(table: Table, seed: str | None = None) -> Match:
    """Start the match of a full table (inside the caller's transaction)."""
    seats = list(table.seats.select_related("user").order_by("index"))
    seed = seed or secrets.token_hex(8)
    engine = EngineMatch.new(table.variant, seed, table.options)
    now = timezone.now()
    limit = table.time_limit_seconds  # 0: none (the engine's default was applied when opened)
    match = Match(
        table=table,
        variant=table.variant,
        seed=seed,
        options=engine.options,
        seats=[
            {"user": s.user_id, "bot": s.bot, "name": s.user.name if s.user else ""} for s in seats
        ],
        version=0,
        snapshot=store.snapshot_of(engine),
        autoplay=[""] * len(seats),
        timeouts=[0] * len(seats),
        started_at=now,
        ends_at=now + timedelta(seconds=limit) if limit else None,
    )
    plan_deadline(match, engine, table, now)
    match.save()
    Table.objects.filter(pk=table.pk).update(status=TableStatus.PLAYING)
    version = match.version
    transaction.on_commit(lambda: after_commit(match, version, engine, None, table.pk))
    return match


@transaction.atomic
def take_table_off_the_ladder(table_id: int) -> Match | None:
    """Make sure the match of table ``table_id`` is never rated if it is still being played:
    with the match row locked, an unfinished match's table becomes unrated and the match's
    revision is bumped (so a write that read it before is redone and sees the table as it is
    now). Returns the table's match as locked (finished ones unchanged: the caller decides
    whether the ladder already has it), or None if the table has no match yet."""
    match = Match.objects.select_for_update().filter(table_id=table_id).first()
    if match is None or match.status == MatchStatus.FINISHED:
        return match
    Table.objects.filter(pk=table_id).update(rated=False)
    Match.objects.filter(pk=match.pk).update(revision=F("revision") + 1)
    match.revision += 1
    return match
