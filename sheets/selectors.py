"""Reads of score sheets shared by the pages, the API, the services and other apps.

Tournaments (and anything else that counts in-person results) read a confirmed result with
:func:`confirmed_result` / :func:`confirmed_results`; nothing else about a sheet is a result.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from clubs.models import Club, User
from engine.match import TableMatch
from games.variants import game
from sheets import permissions as perms
from sheets.models import ScoreSheet, SheetStatus, SheetVerdict


@dataclass(frozen=True)
class ConfirmedResult:
    """A confirmed in-person result. ``scores`` are the two sides' final levels (level games)
    or points (two-player Shuangkou); for Red Two the per-seat totals are in ``seat_totals``
    and ``sides``/``scores`` are None (its partnerships change every deal). ``sides`` lists
    the user ids of each side, or is None when a seat is a guest; ``seat_users`` the user id
    of each seat in seat order (None: a guest). ``winner`` is the winning side (None: draw)."""

    sheet_id: int
    club_id: int
    variant: str
    sides: list[list[int]] | None
    names: list[list[str]]
    scores: tuple[int, int] | None
    seat_totals: list[int] | None
    winner: int | None
    reason: str | None
    ended_at: datetime
    seat_users: list[int | None]


def seats_by_side(sheet: ScoreSheet, players: list[Any] | None = None) -> list[list[Any]]:
    """The sheet's players (``players``: already read in seat order) grouped by side (side 0
    first), each in seat order."""
    if players is None:
        players = list(sheet.players.select_related("user").order_by("seat"))
    sides: list[list[Any]] = [[], []]
    for p in players:
        sides[perms.side_of_seat(sheet.variant, p.seat)].append(p)
    return sides


def confirmed_result(sheet: ScoreSheet) -> ConfirmedResult | None:
    """The sheet's result if it is confirmed, else None."""
    if sheet.status != SheetStatus.CONFIRMED:
        return None
    state = sheet.state or {}
    result = state.get("result") or {}
    players = list(sheet.players.select_related("user").order_by("seat"))
    grouped = seats_by_side(sheet, players)
    names = [[p.name for p in side] for side in grouped]
    ids = [[p.user_id for p in side] for side in grouped]
    sides = None if any(i is None for side in ids for i in side) else ids
    score = result.get("score")
    winner = result.get("winner")
    seat_totals = None
    scores = None
    if not game(sheet.variant).fixed_sides:  # partners change every deal (Red Two)
        seat_totals = list(score or [])
        sides = None
    elif score is not None:
        scores = (int(score[0]), int(score[1]))
    return ConfirmedResult(
        sheet_id=sheet.pk,
        club_id=sheet.club_id,
        variant=sheet.variant,
        sides=sides,
        names=names,
        scores=scores,
        seat_totals=seat_totals,
        winner=winner,
        reason=result.get("reason"),
        ended_at=sheet.finished_at or sheet.confirmed_at or sheet.started_at,
        seat_users=[p.user_id for p in players],
    )


def confirmed_results(
    club: Club | None = None, variant: str | None = None, since: datetime | None = None
) -> list[ConfirmedResult]:
    """Confirmed results, oldest first, optionally of one club / game / ended since a time."""
    sheets = ScoreSheet.objects.filter(status=SheetStatus.CONFIRMED)
    if club is not None:
        sheets = sheets.filter(club=club)
    if variant is not None:
        sheets = sheets.filter(variant=variant)
    if since is not None:
        sheets = sheets.filter(finished_at__gte=since)
    out = []
    for sheet in sheets.order_by("finished_at", "id"):
        result = confirmed_result(sheet)
        if result is not None:
            out.append(result)
    return out


def sheets_of_club(club: Club) -> QuerySet[ScoreSheet]:
    """A club's sheets, disputed first, then newest first."""
    return club.score_sheets.prefetch_related("players__user").order_by("-started_at", "-id")


def disputed_sheets(club: Club) -> QuerySet[ScoreSheet]:
    """A club's disputed sheets (for its admins)."""
    return sheets_of_club(club).filter(status=SheetStatus.DISPUTED)


def sheet_record(sheet: ScoreSheet) -> list[dict[str, Any]]:
    """The deal-by-deal record: each active entry (deal, card, time up) in order with the
    state before and after it, as the engine recorded it."""
    rows = []
    number = 0
    for e in sheet.entries.filter(undone=False).order_by("seq"):
        if "undo" in e.entry:
            continue
        kind = next(iter(e.entry))
        if kind == "deal":
            number += 1
        rows.append(
            {
                "seq": e.seq,
                "kind": kind,
                "deal_no": number if kind == "deal" else None,
                "entry": e.entry,
                "record": e.record,
            }
        )
    return rows


def time_limit_seconds(sheet: ScoreSheet) -> int:
    """The match time limit in seconds (0: none), from the engine option."""
    defaults = TableMatch(sheet.variant, None).options
    minutes = sheet.options.get("time_limit_minutes", defaults.get("time_limit_minutes", 0))
    return int(minutes) * 60


def sheet_json(sheet: ScoreSheet, user: User | None) -> dict[str, Any]:
    """Everything the sheet page and the API show: players, state, record, verdicts and what
    ``user`` may do."""
    players = list(sheet.players.select_related("user").order_by("seat"))
    limit = time_limit_seconds(sheet)
    verdicts = [
        {
            "user": v.user.name,
            "side": v.side,
            "kind": v.kind,
            "reason": v.reason,
            "current": v.version == sheet.version,
            "at": v.created_at.isoformat(),
        }
        for v in sheet.verdicts.select_related("user").order_by("created_at", "id")
    ]
    open_ = sheet.status in (SheetStatus.PLAYING, SheetStatus.FINISHED, SheetStatus.DISPUTED)
    uid = getattr(user, "pk", None)
    confirmed_by_me = sheet.verdicts.filter(
        user_id=uid, version=sheet.version, kind=SheetVerdict.Kind.CONFIRM
    ).exists()
    return {
        "id": sheet.pk,
        "club": sheet.club.slug,
        "variant": sheet.variant,
        "options": sheet.options,
        "rated": sheet.rated,
        "status": sheet.status,
        "status_display": sheet.get_status_display(),
        "version": sheet.version,
        "scorer": sheet.scorer.name if sheet.scorer_id else None,
        "players": [
            {
                "seat": p.seat,
                "side": perms.side_of_seat(sheet.variant, p.seat),
                "name": p.name,
                "user": p.user_id,
                "guest": p.user_id is None,
            }
            for p in players
        ],
        "state": sheet.state,
        "record": sheet_record(sheet),
        "verdicts": verdicts,
        # the page's clock counts from the server's time, not the phone's
        "now": timezone.now().isoformat(),
        "started_at": sheet.started_at.isoformat(),
        "finished_at": sheet.finished_at.isoformat() if sheet.finished_at else None,
        "time_limit_seconds": limit,
        "ends_at": (sheet.started_at + timedelta(seconds=limit)).isoformat() if limit else None,
        "can": {
            "score": open_ and perms.can_score(user, sheet),
            "confirm": sheet.status in (SheetStatus.FINISHED, SheetStatus.DISPUTED)
            and not confirmed_by_me
            and perms.can_confirm(user, sheet)
            and (sheet.status == SheetStatus.FINISHED or perms.is_admin(user, sheet)),
            "dispute": sheet.status == SheetStatus.FINISHED and perms.can_dispute(user, sheet),
            "void": sheet.status != SheetStatus.CONFIRMED
            and sheet.status != SheetStatus.VOIDED
            and perms.can_void(user, sheet),
        },
        "my_side": perms.user_side(user, sheet),
    }
