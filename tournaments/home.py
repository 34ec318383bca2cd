"""A player's games now and next, for the home page: live tables waiting for them, the current
round of each tournament they play (table, partner, opponents, time), score sheets waiting for
their confirmation, and tournaments about to start. Registered with :mod:`clubs.hooks` (the home
page is the clubs app's; it cannot import the apps above it)."""

from __future__ import annotations

from typing import Any

from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.timezone import localtime
from django.utils.translation import gettext as _

from clubs.models import User
from matches.models import Seat, TableStatus
from sheets.models import ScoreSheet, SheetStatus
from tournaments.models import (
    ACTIVE_STATUSES,
    Entry,
    EntryStatus,
    GameStatus,
    RoundStatus,
)
from tournaments.notifications import entry_url, game_link
from tournaments.windows import checkin_open

#: At most this many items of each kind (a home page, not an archive).
LIMIT = 10


def my_games(user: User) -> list[dict[str, Any]]:
    """The signed-in ``user``'s games now and next (see the module docstring), rounds first."""
    rounds, tables_of_rounds = _rounds(user)
    return rounds + _tables(user, exclude=tables_of_rounds) + _sheets(user)


def _rounds(user: User) -> tuple[list[dict[str, Any]], set[int]]:
    items: list[dict[str, Any]] = []
    table_ids: set[int] = set()
    entries = (
        Entry.objects.filter(Q(player1=user) | Q(player2=user))
        .filter(tournament__status__in=ACTIVE_STATUSES)
        .exclude(status=EntryStatus.WITHDRAWN)
        .select_related("tournament", "player1", "player2")
        .order_by("tournament__starts_at")[:LIMIT]
    )
    for entry in entries:
        tournament = entry.tournament
        if entry.status == EntryStatus.PENDING:
            items.append(_invitation(user, entry))
            continue
        rnd = tournament.rounds.order_by("-number").first()
        page = reverse("tournaments:detail", args=[tournament.pk])
        if rnd is None or rnd.status == RoundStatus.FINISHED:
            item = {
                "kind": "tournament",
                "title": tournament.name,
                "detail": _("Next round: %(when)s")
                % {"when": _when(rnd.scheduled_at if rnd else tournament.starts_at)},
                "url": page,
                "action": _("Open the tournament"),
                "when": tournament.starts_at,
            }
            if (
                rnd is None
                and entry.status == EntryStatus.REGISTERED
                and tournament.checkin_required
            ):
                if checkin_open(tournament, timezone.now()):
                    item["action"] = _("Check in")
                    item["url"] = page + "#check-in"
            items.append(item)
            continue
        game = next(
            (g for g in rnd.games.select_related("round") if entry.pk in g.side0 + g.side1), None
        )
        if game is None:
            continue
        if game.table_id:
            table_ids.add(game.table_id)
        names = {e.pk: e.name for e in tournament.entries.filter(pk__in=game.side0 + game.side1)}
        mine = 0 if entry.pk in game.side0 else 1
        if game.is_bye:
            detail = _("You have a bye.")
        else:
            partner, opponents = _tablemates(user, entry, game, mine, names)
            values = {
                "n": game.number,
                "names": opponents,
                "partner": partner,
                "when": _when(rnd.started_at or rnd.scheduled_at),
            }
            detail = (
                _("Table %(n)d · partner %(partner)s · against %(names)s · %(when)s") % values
                if partner
                else _("Table %(n)d · against %(names)s · %(when)s") % values
            )
        playing = game.status in (GameStatus.PENDING, GameStatus.PLAYING) and not game.is_bye
        items.append(
            {
                "kind": "round",
                "title": _("%(t)s · round %(n)d") % {"t": tournament.name, "n": rnd.number},
                "detail": detail,
                "url": game_link(tournament, game),
                "action": _("Go to your table")
                if playing and rnd.status == RoundStatus.PLAYING
                else _("See the pairings"),
                "when": rnd.started_at or rnd.scheduled_at,
            }
        )
    return items, table_ids


def _tablemates(
    user: User, entry: Entry, game: Any, mine: int, names: dict[int, str]
) -> tuple[str, str]:
    """The user's partner and opponents in ``game``, as text: a fixed pair's other player, or
    the entries beside the user's in an individual event; in a Red Two game (partners change
    every deal) no partner, everyone else at the table an opponent."""
    own, other = game.sides[mine], game.sides[1 - mine]
    if entry.tournament.per_seat:
        return "", " / ".join(names.get(e, "") for e in own + other if e != entry.pk)
    if entry.player2_id:
        partner = entry.player2 if entry.player1_id == user.pk else entry.player1
        mates = partner.name
    else:
        mates = " / ".join(names.get(e, "") for e in own if e != entry.pk)
    return mates, " / ".join(names.get(e, "") for e in other)


def _invitation(user: User, entry: Entry) -> dict[str, Any]:
    """A pending pair: the partner is asked to answer; the player who registered waits."""
    asked = entry.player2_id == user.pk
    values = {
        "name": entry.player1.name if asked else entry.player2.name,
        "when": _when(entry.answer_by),
    }
    return {
        "kind": "invitation",
        "title": entry.tournament.name,
        "detail": (
            _("%(name)s asks you to play as partners. Answer by %(when)s.")
            if asked
            else _("Waiting for %(name)s to accept, until %(when)s.")
        )
        % values,
        "url": entry_url(entry.tournament),
        "action": _("Answer the invitation") if asked else _("Open the tournament"),
        "when": entry.answer_by,
    }


def _tables(user: User, exclude: set[int]) -> list[dict[str, Any]]:
    seats = (
        Seat.objects.filter(user=user, table__status__in=[TableStatus.OPEN, TableStatus.PLAYING])
        .exclude(table_id__in=exclude)
        .select_related("table", "table__club")
        .order_by("-table__created_at")[:LIMIT]
    )
    return [
        {
            "kind": "table",
            # a club-less table (practice, friends') is named by its kind
            "title": f"{seat.table.get_variant_display()} · "
            f"{seat.table.club.name if seat.table.club else seat.table.get_kind_display()}",
            "detail": seat.table.get_status_display(),
            "url": reverse("matches:table", args=[seat.table_id]),
            "action": _("Go to your table"),
            "when": seat.table.created_at,
        }
        for seat in seats
    ]


def _sheets(user: User) -> list[dict[str, Any]]:
    sheets = (
        ScoreSheet.objects.filter(status=SheetStatus.FINISHED, players__user=user)
        .select_related("club")
        .distinct()
        .order_by("-finished_at")[:LIMIT]
    )
    items = []
    for sheet in sheets:
        if sheet.verdicts.filter(user=user, version=sheet.version).exists():
            continue
        items.append(
            {
                "kind": "sheet",
                "title": f"{sheet.get_variant_display()} · {sheet.club.name}",
                "detail": _("A score sheet waits for your confirmation."),
                "url": reverse("scoresheet:sheet", args=[sheet.pk]),
                "action": _("Check and confirm"),
                "when": sheet.finished_at,
            }
        )
    return items


def _when(moment: Any) -> str:
    return date_format(localtime(moment), "SHORT_DATETIME_FORMAT") if moment else ""
