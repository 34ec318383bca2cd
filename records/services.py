"""The only code that writes the statistics: a finished match read into facts and added to
the tallies, once; the clubs' honours computed again.

A match is recorded in one transaction — its :class:`~records.models.MatchRecord` (unique on
its source), each player's :class:`~records.models.PlayerMatch` and the
:class:`~records.models.Tally` rows it adds to — so a worker killed half-way leaves nothing,
and recording the same match again (a redelivered task, the sweep) changes nothing.

Only matches of people count: a table with a bot seat and a practice table are never
recorded, so no statistic and no honour can be earned against bots. Honours come from club
tables only.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

from celery import current_app
from django.db import IntegrityError, transaction
from django.utils import timezone

from engine.facts import MatchFacts, match_facts, sheet_facts
from leagues.models import FixtureTable
from matches.models import Actor, Match, MatchStatus, TableKind
from records import entered, honours, periods
from records.models import MatchRecord, PlayerMatch, Source, Tally, TallyKind
from sheets.models import ScoreSheet, SheetStatus
from tournaments.models import Game, GameSource, GameStatus

log = logging.getLogger(__name__)

RECORD_MATCH_TASK = "records.tasks.record_match_task"
#: Counters an ``opponent`` tally keeps (head to head: how often, how well).
OPPONENT_FACTS = ("matches", "won", "drawn", "lost")
#: A decision that took longer than this is counted at this (a pause, a reconnection).
THINK_CAP_MS = 120_000
#: How far back beat's sweep looks for finished matches and confirmed sheets not recorded.
SWEEP_DAYS = 3


def queue_match(match_id: int) -> None:
    """Live play's hook (:func:`matches.hooks.register_match_finished`): once the transaction
    that finished match ``match_id`` commits, publish :data:`RECORD_MATCH_TASK` by name. A
    broker that cannot be reached never fails live play: beat's sweep records it later."""

    def publish() -> None:
        try:
            if RECORD_MATCH_TASK not in current_app.tasks:
                # the apps' tasks.py, so that an eager Celery (tests) runs the task here
                current_app.loader.import_default_modules()
            current_app.signature(RECORD_MATCH_TASK, args=(match_id,)).delay()
        except Exception:
            log.warning("records task for match %s not published", match_id, exc_info=True)

    transaction.on_commit(publish)


def _think_ms(events: Sequence[tuple[Any, ...]], started_at: datetime) -> list[int | None]:
    """Per event, how long its player thought (ms, capped), or None for an event no person
    decided (a bot's, auto-play's, the clock's, a referee's)."""
    out: list[int | None] = []
    last = started_at
    for _action, actor, created_at in events:
        if actor == Actor.PLAYER:
            ms = int((created_at - last).total_seconds() * 1000)
            out.append(min(max(0, ms), THINK_CAP_MS))
        else:
            out.append(None)
        last = created_at
    return out


def record_live_match(match_id: int) -> bool:
    """Read finished live match ``match_id`` into facts and add them to the tallies, once.
    Returns True if it was recorded now; False if it was already, is not finished, or does not
    count (a bot seat, a practice table, a seat without a person)."""
    match = Match.objects.select_related("table").filter(pk=match_id).first()
    if match is None or match.status != MatchStatus.FINISHED:
        return False
    if MatchRecord.objects.filter(source=Source.LIVE, source_id=str(match_id)).exists():
        return False
    table = match.table
    users = [s.get("user") for s in match.seats]
    if table.kind == TableKind.PRACTICE or any(s.get("bot") for s in match.seats):
        return False
    if any(u is None for u in users):
        return False
    events = list(match.events.order_by("seq").values_list("action", "actor", "created_at"))
    actions = [e[0] for e in events]
    facts = match_facts(
        match.variant, match.seed, match.options, actions, _think_ms(events, match.started_at)
    )
    if not facts.over:
        return False
    return store_facts(
        Source.LIVE,
        str(match_id),
        facts,
        users,
        club_id=table.club_id,
        rated=table.rated,
        ended_at=match.finished_at or timezone.now(),
    )


def record_sheet(sheet_id: int) -> bool:
    """Read confirmed score sheet ``sheet_id`` into facts (what a sheet knows) and add them to
    the tallies, once. False if already recorded, not confirmed, or a seat is a guest."""
    sheet = ScoreSheet.objects.filter(pk=sheet_id).first()
    if sheet is None or sheet.status != SheetStatus.CONFIRMED:
        return False
    if MatchRecord.objects.filter(source=Source.SHEET, source_id=str(sheet_id)).exists():
        return False
    seats = dict(sheet.players.values_list("seat", "user_id"))
    users = [seats.get(s) for s in range(len(seats))]
    if not users or any(u is None for u in users):
        return False
    logged = sheet.entries.filter(undone=False).order_by("seq").values_list("entry", flat=True)
    entries = [e for e in logged if isinstance(e, dict) and "undo" not in e]
    facts = sheet_facts(sheet.variant, sheet.options, entries)
    if not facts.over:
        return False
    ended = sheet.finished_at or sheet.confirmed_at or timezone.now()
    return store_facts(Source.SHEET, str(sheet_id), facts, users, sheet.club_id, sheet.rated, ended)


def store_facts(
    source: str,
    source_id: str,
    facts: MatchFacts,
    users: Sequence[int | None],
    club_id: int | None,
    rated: bool,
    ended_at: datetime,
    honours_now: bool = True,
) -> bool:
    """Record ``facts`` of the match ``(source, source_id)`` played by ``users`` (per seat):
    the record, its players and their tallies in one transaction, and the club's honours of
    the match's month and season computed again (``honours_now=False``: left to the caller,
    who loads many matches at once and computes them after). True if recorded now; False if it
    already was (the unique source refuses it, also when another worker recorded it at once)."""
    keys = periods.keys_for(ended_at)
    try:
        with transaction.atomic():
            record = MatchRecord.objects.create(
                source=source,
                source_id=source_id,
                variant=facts.variant,
                club_id=club_id,
                rated=rated,
                deals=facts.deals,
                ended_at=ended_at,
            )
            rows = []
            for seat in facts.seats:
                user = users[seat.seat]
                assert user is not None  # the callers record matches of people only
                partner = users[seat.partner] if seat.partner is not None else None
                rows.append(
                    PlayerMatch(
                        record=record,
                        user_id=user,
                        seat=seat.seat,
                        partner_id=partner,
                        outcome=seat.outcome,
                        counters=seat.counters,
                    )
                )
            PlayerMatch.objects.bulk_create(rows)
            _add_to_tallies(facts, users, club_id, rated, keys)
            if club_id is not None and honours_now:
                for key in keys[1:]:
                    honours.compute(club_id, key)
    except IntegrityError:  # recorded at the same moment by another worker: once is enough
        return False
    return True


def _increments(
    facts: MatchFacts, users: Sequence[int | None]
) -> Iterable[tuple[int, str, int, dict[str, int]]]:
    """``(user, kind, other or 0, counters)`` for every tally one match adds to."""
    for seat in facts.seats:
        user = users[seat.seat]
        assert user is not None
        yield user, TallyKind.TOTAL, 0, seat.counters
        partner = users[seat.partner] if seat.partner is not None else None
        yield user, TallyKind.PARTNER, partner or 0, seat.counters
        head = {k: v for k, v in seat.counters.items() if k in OPPONENT_FACTS}
        for o in seat.opponents:
            other = users[o]
            assert other is not None
            yield user, TallyKind.OPPONENT, other, head


def _add_to_tallies(
    facts: MatchFacts,
    users: Sequence[int | None],
    club_id: int | None,
    rated: bool,
    keys: list[str],
) -> None:
    """Add the match's counters to each tally, creating the missing ones (rows locked for the
    transaction: two matches of the same people recorded at once add up)."""
    club_key = club_id or 0
    increments = list(_increments(facts, users))
    people = {u for u, *_rest in increments}
    others = {o for _u, _k, o, _c in increments}
    existing = {
        (t.user_id, t.period, t.kind, t.other_key): t
        for t in Tally.objects.select_for_update().filter(
            user_id__in=people,
            period__in=keys,
            variant=facts.variant,
            rated=rated,
            club_key=club_key,
            other_key__in=others,
        )
    }
    new: dict[tuple[int, str, str, int], Tally] = {}
    changed: list[Tally] = []
    for period in keys:
        for user, kind, other, counters in increments:
            key = (user, period, kind, other)
            tally = existing.get(key) or new.get(key)
            if tally is None:
                tally = new[key] = Tally(
                    user_id=user,
                    variant=facts.variant,
                    club_id=club_id,
                    club_key=club_key,
                    rated=rated,
                    period=period,
                    kind=kind,
                    other_id=other or None,
                    other_key=other,
                    counters={},
                )
            elif key in existing:
                changed.append(tally)
            sums = tally.counters
            for name, value in counters.items():
                sums[name] = sums.get(name, 0) + value
    Tally.objects.bulk_create(new.values())
    if changed:
        Tally.objects.bulk_update(changed, ["counters"])


def unrecorded_matches(now: datetime | None = None) -> list[int]:
    """Finished live matches of the last :data:`SWEEP_DAYS` days, at tables that count, not
    yet recorded (their task was lost): beat's sweep records them."""
    since = (now or timezone.now()) - timedelta(days=SWEEP_DAYS)
    done = MatchRecord.objects.filter(source=Source.LIVE, ended_at__gte=since).values_list(
        "source_id", flat=True
    )
    found = (
        Match.objects.filter(status=MatchStatus.FINISHED, finished_at__gte=since)
        .exclude(table__kind=TableKind.PRACTICE)
        .values_list("pk", "seats")
    )
    recorded = set(done)
    return [
        pk
        for pk, seats in found
        if str(pk) not in recorded and not any(s.get("bot") for s in seats)
    ]


def unrecorded_sheets(now: datetime | None = None) -> list[int]:
    """Score sheets confirmed in the last :data:`SWEEP_DAYS` days and not yet recorded."""
    since = (now or timezone.now()) - timedelta(days=SWEEP_DAYS)
    recorded = set(
        MatchRecord.objects.filter(source=Source.SHEET).values_list("source_id", flat=True)
    )
    found = ScoreSheet.objects.filter(
        status=SheetStatus.CONFIRMED, confirmed_at__gte=since
    ).values_list("pk", flat=True)
    return [pk for pk in found if str(pk) not in recorded]


def record_entered(source_id: str) -> bool:
    """Record the result an organiser entered without a live match or sheet
    (:mod:`records.entered`): ``t<game id>`` a tournament game, ``l<table id>`` a league
    fixture's table; once. False if already recorded or not such a result."""
    kind, number = source_id[:1], source_id[1:]
    if not number.isdigit():
        return False
    readers = {entered.TOURNAMENT: entered.tournament_result, entered.LEAGUE: entered.league_result}
    reader = readers.get(kind)
    if reader is None:
        return False
    if MatchRecord.objects.filter(source=Source.ENTERED, source_id=source_id).exists():
        return False
    result = reader(int(number))
    if result is None or any(u is None for u in result.users):
        return False
    return store_facts(
        Source.ENTERED,
        result.source_id,
        result.facts,
        result.users,
        result.club_id,
        result.rated,
        result.ended_at or timezone.now(),
    )


def unrecorded_entered(now: datetime | None = None) -> list[str]:
    """Results organisers entered without a live match or sheet in the last
    :data:`SWEEP_DAYS` days, not yet recorded (``source_id`` of each): beat's sweep records
    them (nothing in tournaments or leagues calls up to the statistics)."""
    since = (now or timezone.now()) - timedelta(days=SWEEP_DAYS)
    recorded = set(
        MatchRecord.objects.filter(source=Source.ENTERED, ended_at__gte=since).values_list(
            "source_id", flat=True
        )
    )
    games = Game.objects.filter(
        source=GameSource.ADMIN,
        status=GameStatus.FINISHED,
        table__isnull=True,
        sheet__isnull=True,
        finished_at__gte=since,
    ).values_list("pk", flat=True)
    tables = FixtureTable.objects.filter(
        done=True,
        table_ref__isnull=True,
        sheet_ref__isnull=True,
        fixture__finished_at__gte=since,
    ).values_list("pk", flat=True)
    found = [f"{entered.TOURNAMENT}{pk}" for pk in games]
    found += [f"{entered.LEAGUE}{pk}" for pk in tables]
    return [key for key in found if key not in recorded]
