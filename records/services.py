"""The only code that writes the statistics: a finished match read into facts and added to
the tallies, once; the clubs' honours computed again.

A match is recorded in one transaction — its :class:`~records.models.MatchRecord` (unique on
its source), each player's :class:`~records.models.PlayerMatch` and the
:class:`~records.models.Tally` rows it adds to — so a worker killed half-way leaves nothing,
and recording the same match again (a redelivered task, the sweep) changes nothing.

A match's result corrected after it was recorded is followed by :func:`follow`, also in one
transaction: the facts recorded leave the tallies and the facts it counts for now enter them
(:mod:`records.corrections`: over a live match or a sheet, the deals stay and the outcome and
net levels follow the corrected result; an entered result is read again), or the match
leaves the statistics when its result was cleared. The corrections reach it through Django's
``post_save`` of a tournament game or league fixture (:func:`game_saved`,
:func:`fixture_saved`, connected in :mod:`records.apps`: the tournaments and leagues call
nothing up), and beat's sweep follows those of the last days whose task was lost.

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

from engine.facts import MatchFacts, SeatFacts, match_facts, sheet_facts
from leagues.models import Fixture, FixtureTable, ResultSource
from matches.models import Actor, Match, MatchStatus, TableKind
from records import corrections, entered, honours, periods
from records.entered import Entered
from records.models import MatchRecord, PlayerMatch, Source, Tally, TallyKind
from sheets.models import ScoreSheet, SheetStatus
from tournaments.models import Game, GameSource, GameStatus

log = logging.getLogger(__name__)

RECORD_MATCH_TASK = "records.tasks.record_match_task"
FOLLOW_GAME_TASK = "records.tasks.follow_game_task"
FOLLOW_FIXTURE_TASK = "records.tasks.follow_fixture_task"
#: Counters an ``opponent`` tally keeps (head to head: how often, how well).
OPPONENT_FACTS = ("matches", "won", "drawn", "lost")
#: A decision that took longer than this is counted at this (a pause, a reconnection).
THINK_CAP_MS = 120_000
#: How far back beat's sweep looks for finished matches and confirmed sheets not recorded.
SWEEP_DAYS = 3


def _publish_after_commit(task: str, arg: int) -> None:
    """Publish ``task(arg)`` by name once the current transaction commits. A broker that
    cannot be reached fails nothing: beat's sweep does the work later."""

    def publish() -> None:
        try:
            if task not in current_app.tasks:
                # the apps' tasks.py, so that an eager Celery (tests) runs the task here
                current_app.loader.import_default_modules()
            current_app.signature(task, args=(arg,)).delay()
        except Exception:
            log.warning("records task %s(%s) not published", task, arg, exc_info=True)

    transaction.on_commit(publish)


def queue_match(match_id: int) -> None:
    """Live play's hook (:func:`matches.hooks.register_match_finished`): once the transaction
    that finished match ``match_id`` commits, publish :data:`RECORD_MATCH_TASK` by name. A
    broker that cannot be reached never fails live play: beat's sweep records it later."""
    _publish_after_commit(RECORD_MATCH_TASK, match_id)


def game_saved(sender: Any, instance: Game, created: bool = False, **kwargs: Any) -> None:
    """Django's ``post_save`` of a tournament game (connected in :mod:`records.apps`, so the
    tournaments know nothing of the statistics): a result an organiser or an appeal set
    (``GameSource.ADMIN``: entered or corrected, also over a live match or a sheet), or an
    entered result cleared since (a knockout re-bracketed), queues :data:`FOLLOW_GAME_TASK`
    after the commit. Other saves (pairing, a result taken from play) queue nothing."""
    if created:
        return
    if instance.source == GameSource.ADMIN or (
        instance.status != GameStatus.FINISHED
        and MatchRecord.objects.filter(
            source=Source.ENTERED, source_id=f"{entered.TOURNAMENT}{instance.pk}"
        ).exists()
    ):
        _publish_after_commit(FOLLOW_GAME_TASK, instance.pk)


def fixture_saved(sender: Any, instance: Fixture, created: bool = False, **kwargs: Any) -> None:
    """Django's ``post_save`` of a league fixture: one whose result an organiser set
    (``ResultSource.ORGANISER``: a table's result corrected) queues
    :data:`FOLLOW_FIXTURE_TASK` after the commit."""
    if not created and instance.source == ResultSource.ORGANISER:
        _publish_after_commit(FOLLOW_FIXTURE_TASK, instance.pk)


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


def live_reading(match_id: int) -> Entered | None:
    """Finished live match ``match_id`` read into facts, with the outcome its event's result
    holds now (:mod:`records.corrections`), or None if it is not finished or does not count
    (a bot seat, a practice table, a seat without a person)."""
    match = Match.objects.select_related("table").filter(pk=match_id).first()
    if match is None or match.status != MatchStatus.FINISHED:
        return None
    table = match.table
    users = [s.get("user") for s in match.seats]
    if table.kind == TableKind.PRACTICE or any(s.get("bot") for s in match.seats):
        return None
    if any(u is None for u in users):
        return None
    events = list(match.events.order_by("seq").values_list("action", "actor", "created_at"))
    actions = [e[0] for e in events]
    facts = match_facts(
        match.variant, match.seed, match.options, actions, _think_ms(events, match.started_at)
    )
    if not facts.over:
        return None
    played = (match.result or {}).get("score")
    facts = corrections.overlay(
        facts, users, played, corrections.event_result(table_id=match.table_id)
    )
    ended = match.finished_at or timezone.now()
    return Entered(str(match_id), facts, users, table.club_id, table.rated, ended)


def sheet_reading(sheet_id: int) -> Entered | None:
    """Confirmed score sheet ``sheet_id`` read into facts (what a sheet knows), with the
    outcome its event's result holds now, or None if not confirmed or a seat is a guest."""
    sheet = ScoreSheet.objects.filter(pk=sheet_id).first()
    if sheet is None or sheet.status != SheetStatus.CONFIRMED:
        return None
    seats = dict(sheet.players.values_list("seat", "user_id"))
    users = [seats.get(s) for s in range(len(seats))]
    if not users or any(u is None for u in users):
        return None
    logged = sheet.entries.filter(undone=False).order_by("seq").values_list("entry", flat=True)
    entries = [e for e in logged if isinstance(e, dict) and "undo" not in e]
    facts = sheet_facts(sheet.variant, sheet.options, entries)
    if not facts.over:
        return None
    played = ((sheet.state or {}).get("result") or {}).get("score")
    facts = corrections.overlay(facts, users, played, corrections.event_result(sheet_id=sheet_id))
    ended = sheet.finished_at or sheet.confirmed_at or timezone.now()
    return Entered(str(sheet_id), facts, users, sheet.club_id, sheet.rated, ended)


def entered_reading(source_id: str) -> Entered | None:
    """The result an organiser entered without a live match or sheet (:mod:`records.entered`):
    ``t<game id>`` a tournament game, ``l<table id>`` a league fixture's table; None if it is
    not (or no longer) such a result."""
    kind, number = source_id[:1], source_id[1:]
    readers = {entered.TOURNAMENT: entered.tournament_result, entered.LEAGUE: entered.league_result}
    reader = readers.get(kind)
    if reader is None or not number.isdigit():
        return None
    result = reader(int(number))
    if result is None or any(u is None for u in result.users):
        return None
    return result


def reading(source: str, source_id: str) -> Entered | None:
    """What match ``(source, source_id)`` counts for now (None: nothing)."""
    if source == Source.LIVE:
        return live_reading(int(source_id)) if source_id.isdigit() else None
    if source == Source.SHEET:
        return sheet_reading(int(source_id)) if source_id.isdigit() else None
    if source == Source.ENTERED:
        return entered_reading(source_id)
    return None


def record_live_match(match_id: int) -> bool:
    """Read finished live match ``match_id`` into facts and add them to the tallies, once
    (and follow a correction of its result: :func:`follow`). True if the statistics changed
    now; False if they already held it, or it is not finished or does not count."""
    return follow(Source.LIVE, str(match_id))


def record_sheet(sheet_id: int) -> bool:
    """Read confirmed score sheet ``sheet_id`` into facts and add them to the tallies, once
    (:func:`follow`). False if already recorded as it stands, not confirmed, or a guest sat."""
    return follow(Source.SHEET, str(sheet_id))


def _stored(record: MatchRecord) -> tuple[MatchFacts, list[int | None]]:
    """The facts a recorded match added to the tallies, read back from its players' rows
    (opponents as every producer of facts gives them: the seats other than the seat and its
    partner)."""
    rows = sorted(record.players.all(), key=lambda r: r.seat)
    users: list[int | None] = [None] * (max((r.seat for r in rows), default=-1) + 1)
    for r in rows:
        users[r.seat] = r.user_id
    seat_of = {r.user_id: r.seat for r in rows}
    seats = []
    for r in rows:
        partner = seat_of.get(r.partner_id) if r.partner_id is not None else None
        # a seat whose account was deleted since has no row (nor tallies) left
        opponents = [
            o for o in range(len(users)) if o not in (r.seat, partner) and users[o] is not None
        ]
        seats.append(SeatFacts(r.seat, r.outcome, partner, opponents, dict(r.counters)))
    return MatchFacts(record.variant, True, record.deals, seats), users


def _rows(facts: MatchFacts, users: Sequence[int | None]) -> list[tuple[Any, ...]]:
    """A comparable form of the players' rows ``facts`` make."""
    out = []
    for seat in facts.seats:
        partner = users[seat.partner] if seat.partner is not None else None
        out.append((seat.seat, users[seat.seat], partner, seat.outcome, dict(seat.counters)))
    return sorted(out, key=lambda row: row[0])


def follow(source: str, source_id: str) -> bool:
    """Bring match ``(source, source_id)``'s statistics to what it counts for now
    (:func:`reading`), in one transaction: a match not yet recorded is recorded; a recorded
    one whose result was corrected has its old facts taken out of the tallies and the new
    ones added (it keeps the month and season it was recorded in); one whose result was
    voided (a cleared entered result) leaves them. The honours of the club's periods
    concerned are computed again. True if anything changed; running it again changes
    nothing (rows locked: two runs at once apply it once)."""
    with transaction.atomic():
        record = (
            MatchRecord.objects.select_for_update()
            .filter(source=source, source_id=source_id)
            .first()
        )
        found = reading(source, source_id)
        if record is None:
            if found is None:
                return False
            return store_facts(
                source,
                source_id,
                found.facts,
                found.users,
                found.club_id,
                found.rated,
                found.ended_at or timezone.now(),
            )
        old, old_users = _stored(record)
        if (
            found is not None
            and _rows(found.facts, found.users) == _rows(old, old_users)
            and (found.club_id, found.rated, found.facts.deals)
            == (record.club_id, record.rated, record.deals)
        ):
            return False
        old_keys = periods.keys_for(record.ended_at)
        _add_to_tallies(old, old_users, record.club_id, record.rated, old_keys, sign=-1)
        concerned = {(record.club_id, k) for k in old_keys[1:] if record.club_id is not None}
        record.players.all().delete()
        if found is None:
            record.delete()
        else:
            record.club_id, record.rated, record.deals = (
                found.club_id,
                found.rated,
                found.facts.deals,
            )
            record.recorded_at = timezone.now()
            record.save(update_fields=["club", "rated", "deals", "recorded_at"])
            PlayerMatch.objects.bulk_create(_player_rows(record, found.facts, found.users))
            _add_to_tallies(found.facts, found.users, found.club_id, found.rated, old_keys)
            if found.club_id is not None:
                concerned |= {(found.club_id, k) for k in old_keys[1:]}
        for club_id, key in sorted(concerned):
            honours.compute(club_id, key)
    log.info("records: %s %s followed its corrected result", source, source_id)
    return True


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
            rows = _player_rows(record, facts, users)
            PlayerMatch.objects.bulk_create(rows)
            _add_to_tallies(facts, users, club_id, rated, keys)
            if club_id is not None and honours_now:
                for key in keys[1:]:
                    honours.compute(club_id, key)
    except IntegrityError:  # recorded at the same moment by another worker: once is enough
        return False
    return True


def _player_rows(
    record: MatchRecord, facts: MatchFacts, users: Sequence[int | None]
) -> list[PlayerMatch]:
    """Each player's row of ``record`` from ``facts`` (users per seat)."""
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
    return rows


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
    sign: int = 1,
) -> None:
    """Add the match's counters to each tally (``sign=-1``: take them out, as a corrected
    match's old facts leave), creating the missing ones (rows locked for the transaction: two
    matches of the same people recorded at once add up). A counter that comes to 0 is dropped
    and a tally left with none is deleted, so a match taken out leaves the tallies as if it
    had never been counted."""
    club_key = club_id or 0
    increments = list(_increments(facts, users))
    people = {u for u, *_rest in increments}
    others = {o for _u, _k, o, _c in increments}
    existing = {
        (t.user_id, t.period, t.kind, t.other_key): t
        for t in Tally.objects.select_for_update()
        .filter(
            user_id__in=people,
            period__in=keys,
            variant=facts.variant,
            rated=rated,
            club_key=club_key,
            other_key__in=others,
        )
        .order_by("pk")  # locked in one order: two writers of the same people never deadlock
    }
    new: dict[tuple[int, str, str, int], Tally] = {}
    changed: dict[int, Tally] = {}
    for period in keys:
        for user, kind, other, counters in increments:
            key = (user, period, kind, other)
            tally = existing.get(key) or new.get(key)
            if tally is None and sign < 0:
                continue  # gone with a deleted account: nothing to take out
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
                changed[tally.pk] = tally
            sums = tally.counters
            for name, value in counters.items():
                sums[name] = sums.get(name, 0) + sign * value
                if sums[name] == 0:
                    del sums[name]
    Tally.objects.bulk_create(new.values())
    empty = [pk for pk, t in changed.items() if not t.counters]
    if empty:
        Tally.objects.filter(pk__in=empty).delete()
    kept = [t for t in changed.values() if t.counters]
    if kept:
        Tally.objects.bulk_update(kept, ["counters"])


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
    fixture's table; once, following a later correction of it (:func:`follow`). False if
    already recorded as it stands or not such a result (nor one recorded before)."""
    kind, number = source_id[:1], source_id[1:]
    if kind not in (entered.TOURNAMENT, entered.LEAGUE) or not number.isdigit():
        return False
    return follow(Source.ENTERED, source_id)


def follow_game(game_id: int) -> int:
    """Follow tournament game ``game_id``'s result (entered, corrected or cleared) into the
    statistics of every match it concerns: its entered result, its live match, its score
    sheet (:func:`follow`). Returns how many changed."""
    keys: list[tuple[str, str]] = [(Source.ENTERED, f"{entered.TOURNAMENT}{game_id}")]
    game = Game.objects.filter(pk=game_id).values_list("table_id", "sheet_id").first()
    if game is not None:
        keys += _played_keys(game[0], game[1])
    return sum(follow(source, key) for source, key in keys)


def follow_fixture(fixture_id: int) -> int:
    """Follow the results of league fixture ``fixture_id``'s tables (an organiser's
    correction) into the statistics, as :func:`follow_game`. Returns how many changed."""
    keys: list[tuple[str, str]] = []
    tables = FixtureTable.objects.filter(fixture_id=fixture_id)
    for pk, table_ref, sheet_ref in tables.values_list("pk", "table_ref", "sheet_ref"):
        keys.append((Source.ENTERED, f"{entered.LEAGUE}{pk}"))
        keys += _played_keys(table_ref, sheet_ref)
    return sum(follow(source, key) for source, key in keys)


def _played_keys(table_id: int | None, sheet_id: int | None) -> list[tuple[str, str]]:
    """The recorded-match keys of the live match at table ``table_id`` and sheet ``sheet_id``."""
    keys: list[tuple[str, str]] = []
    if table_id is not None:
        match_id = Match.objects.filter(table_id=table_id).values_list("pk", flat=True).first()
        if match_id is not None:
            keys.append((Source.LIVE, str(match_id)))
    if sheet_id is not None:
        keys.append((Source.SHEET, str(sheet_id)))
    return keys


def corrected_results(now: datetime | None = None) -> tuple[list[int], list[int], list[str]]:
    """Beat's safety net for corrections whose task was lost, of the last :data:`SWEEP_DAYS`
    days: tournament games whose result an organiser or an appeal set (``GameSource.ADMIN``),
    league fixtures an organiser corrected (``ResultSource.ORGANISER``), and the entered
    results recorded (one may have been cleared since)."""
    since = (now or timezone.now()) - timedelta(days=SWEEP_DAYS)
    games = Game.objects.filter(
        source=GameSource.ADMIN, status=GameStatus.FINISHED, finished_at__gte=since
    ).values_list("pk", flat=True)
    fixtures = Fixture.objects.filter(
        source=ResultSource.ORGANISER, finished_at__gte=since
    ).values_list("pk", flat=True)
    recorded = MatchRecord.objects.filter(source=Source.ENTERED, recorded_at__gte=since)
    return list(games), list(fixtures), list(recorded.values_list("source_id", flat=True))


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
