"""Every call of the leagues into the live tables, score sheets, ladder and shared pairing
and standings code, in one module, so that a move of those apps changes only this file.

The rest of ``leagues`` imports ``clubs`` and ``games`` (the layers below every app) and this
module, nothing else of the platform.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.urls import reverse

from clubs.models import Club, User
from ladder import services as ladder_services
from ladder.errors import LadderError
from matches import hooks as match_hooks
from matches.messages import MatchError
from matches.models import Match, MatchStatus
from matches.services import tables as match_tables
from sheets import selectors as sheet_selectors
from sheets import services as sheet_services
from sheets.models import ScoreSheet
from tournaments import pairing, standings

log = logging.getLogger(__name__)

#: The shared standings' row and record types (re-exported for the selectors).
Record = standings.Record
Row = standings.Row


class TableRefused(Exception):
    """A table or score sheet could not be opened (``reason``: the app's message)."""

    def __init__(self, reason: str) -> None:
        """Keep the other app's reason for the organiser's message."""
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class TableResult:
    """A finished table: each side's score (levels or points), the winning side (None: a
    draw) and when it ended; ``forfeit`` when a forfeit ended it."""

    scores: tuple[int, int]
    winner: int | None
    ended_at: datetime | None
    forfeit: bool = False


# --------------------------------------------------------------------------- live tables
@transaction.atomic
def open_live_table(
    opener: User,
    club: Club,
    *,
    variant: str,
    options: dict,
    time_limit_seconds: int,
    rated: bool,
    seat_users: Sequence[int],
    seed: str,
    deal_group: str = "",
) -> int:
    """Open a table of ``club`` with ``seat_users`` seated in order and start its match
    (``seed``: the same seed at every table of a team fixture, so both tables play the same
    cards in opposite directions; ``deal_group``: the key those tables share, so that live
    play treats them as siblings — nobody seated at one watches another, no replay opens
    before all are over). Returns the table's id; raises :class:`TableRefused`.

    Calls ``matches.services.tables.open_table`` and ``seat_players`` (not ``take_seat``,
    whose club-membership check does not know that a league admitted players of invited
    clubs to the host's tables).
    """
    users = {u.pk: u for u in User.objects.filter(pk__in=seat_users)}
    if len(users) != len(set(seat_users)):
        raise TableRefused("unknown player")
    try:
        table = match_tables.open_table(
            opener,
            club,
            variant=variant,
            options=options,
            clocks=True,
            time_limit_seconds=time_limit_seconds,
            rated=rated,
            competition=True,
            sit=False,
            deal_group=deal_group,
        )
        match_tables.seat_players(table, [users[uid] for uid in seat_users], seed=seed)
    except MatchError as error:
        raise TableRefused(str(error)) from None
    return table.pk


def register_stake_check(check: Callable[[User, object], bool]) -> None:
    """Tell live play ``check(user, table)``: whether ``user`` has a stake in a live table's
    result (they play for a side of its fixture), so that they may not referee it. Calls
    ``matches.hooks.register_stake_check``."""
    match_hooks.register_stake_check(check)


def live_result(table_id: int) -> TableResult | None:
    """The result of the finished match of table ``table_id`` (None while it plays).
    Reads ``matches.models.Match``."""
    match = Match.objects.filter(table_id=table_id).only("status", "result", "finished_at").first()
    if match is None or match.status != MatchStatus.FINISHED:
        return None
    result = match.result or {}
    score = result.get("score") or [0, 0]
    winner = result.get("winner")
    return TableResult(
        scores=(int(score[0]), int(score[1])),
        winner=winner if winner in (0, 1) else None,
        ended_at=match.finished_at,
        forfeit=result.get("reason") == "forfeit",
    )


def table_url(table_id: int) -> str:
    """The page of live table ``table_id`` (URL name ``matches:table``)."""
    return reverse("matches:table", args=[table_id])


# --------------------------------------------------------------------------- score sheets
def start_score_sheet(
    opener: User,
    club: Club,
    *,
    variant: str,
    options: dict,
    seat_users: Sequence[int],
    scorer_id: int,
    rated: bool,
) -> int:
    """Start a score sheet of ``club`` for an in-person table, ``seat_users`` seated in
    order and kept by the seated player ``scorer_id``. Every seated player is admitted
    although an invited club's players are not members of the host club: the league checked
    its rosters. Calls ``sheets.services.start_sheet``; raises :class:`TableRefused`."""
    players = [sheet_services.PlayerSpec(user_id=uid) for uid in seat_users]
    scorer = User.objects.filter(pk=scorer_id).first()
    if scorer is None or scorer_id not in seat_users:
        raise TableRefused("unknown scorer")
    try:
        sheet = sheet_services.start_sheet(
            opener,
            club,
            variant=variant,
            players=players,
            options=options,
            rated=rated,
            scorer=scorer,
            admitted=seat_users,
        )
    except sheet_services.SheetError as error:
        raise TableRefused(error.message) from None
    return sheet.pk


def sheet_url(sheet_id: int) -> str:
    """The page of score sheet ``sheet_id`` (URL name ``scoresheet:sheet``)."""
    return reverse("scoresheet:sheet", args=[sheet_id])


def sheet_result(sheet_id: int) -> TableResult | None:
    """The confirmed result of score sheet ``sheet_id`` (None until confirmed), by seat
    sides (side 0: seats 0 and 2). Calls ``sheets.selectors.confirmed_result``."""
    sheet = ScoreSheet.objects.filter(pk=sheet_id).first()
    if sheet is None:
        return None
    result = sheet_selectors.confirmed_result(sheet)
    if result is None or result.scores is None:
        return None
    return TableResult(
        scores=(int(result.scores[0]), int(result.scores[1])),
        winner=result.winner,
        ended_at=result.ended_at,
        forfeit=result.reason == "forfeit",
    )


# --------------------------------------------------------------------------- ladder
def correct_rated_table(
    *, table_id: int | None, sheet_id: int | None, scores: Sequence[int], winner: int | None
) -> None:
    """An organiser's corrected table result: the ladder rebuilds from it as it does for a
    tournament's corrected game. Calls ``ladder.services.correct_result`` (source ``live``
    or ``sheet``; nothing happens for a table the ladder never took)."""
    if table_id:
        match_id = Match.objects.filter(table_id=table_id).values_list("pk", flat=True).first()
        source, source_id = "live", match_id
    else:
        source, source_id = "sheet", sheet_id
    if source_id is None:
        return
    try:
        ladder_services.correct_result(
            source=source, source_id=str(source_id), scores=list(scores), winner=winner
        )
    except LadderError:
        log.exception("league correction of %s %s could not be rated", source, source_id)


# --------------------------------------------------------------------------- pairing, standings
def swiss_round(
    entries: Sequence[int],
    scores: Mapping[int, float],
    met: Sequence[tuple[int, int]],
    byes: Sequence[int],
) -> list[tuple[int, int | None]]:
    """One Swiss round of ``entries`` (in seeding order) given their ``scores``, the pairs
    that already ``met`` and the entries that had ``byes``: (home, away) fixtures and at most
    one (entry, None) bye, fewest repeated byes and rematches first.
    Calls ``tournaments.pairing.swiss_round``."""
    history = pairing.History()
    for a, b in met:
        history.add(pairing.Game(((a,), (b,))))
    for entry in byes:
        history.add(pairing.Game(((entry,), ())))
    games = pairing.swiss_round(list(entries), dict(scores), history)
    return [(g.sides[0][0], g.sides[1][0] if g.sides[1] else None) for g in games]


def standings_rows(
    entries: Sequence[int],
    records: Sequence[standings.Record],
    tiebreaks: Sequence[str],
    points: tuple[float, float, float],
) -> list[standings.Row]:
    """The ordered standings: match points (win / draw / loss; a bye counts as a win), then
    ``tiebreaks``. Calls ``tournaments.standings.standings``."""
    win, draw, loss = points
    return standings.standings(
        entries,
        records,
        ["match_points", *tiebreaks],
        standings.Points(win=win, draw=draw, loss=loss, bye=win),
    )
