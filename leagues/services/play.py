"""Playing fixtures: open the tables at the agreed time (live tables online, score sheets in
person), take each table's result from its live match or confirmed sheet, add up a team
fixture, forfeit what the window's end leaves unplayed, let the organiser correct, and the
tick that runs all of it (beat)."""

from __future__ import annotations

import logging
import secrets
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.models import User
from clubs.permissions import is_club_admin
from clubs.selectors import club_owner
from games.variants import game
from leagues import bridge, notices
from leagues.models import (
    EntryKind,
    Fixture,
    FixtureStatus,
    FixtureTable,
    LineUp,
    ResultSource,
    Round,
    RoundStatus,
    ScheduleFormat,
    Season,
    SeasonStatus,
)
from leagues.permissions import can_manage, plays_for
from leagues.services import standings
from leagues.services.entries import expire_invitations
from leagues.services.errors import not_allowed, refuse
from leagues.services.fixtures import last_day
from leagues.services.setup import draw_swiss, draw_swiss_again, match_options, window_end

log = logging.getLogger(__name__)

#: A line-up still missing this long before the agreed time is reminded.
LINEUP_REMINDER = timedelta(hours=24)
MAX_SCORE = 100_000


def seatings(fixture: Fixture) -> list[tuple[int, list[int]]] | None:
    """Each table's home side and user ids by seat, or None while a team line-up is
    missing. Team fixtures: the home team's pair at table t sits north–south (seats 0, 2)
    at odd tables and east–west at even ones, the away pair opposite, so the two teams'
    pairs sit in opposite directions at the two tables. Pairs: home at seats 0, 2. Single
    players: home at seat 0."""
    season = fixture.round.season
    if season.entry_kind == EntryKind.TEAM:
        ups = {lu.entry_id: list(lu.pairs.all()) for lu in fixture.lineups.all()}
        if fixture.home_id not in ups or fixture.away_id not in ups:
            return None
        out = []
        for home, away in zip(ups[fixture.home_id], ups[fixture.away_id], strict=True):
            side = (home.table - 1) % 2
            h, a = [home.player1_id, home.player2_id], [away.player1_id, away.player2_id]
            ns, ew = (h, a) if side == 0 else (a, h)
            out.append((side, [ns[0], ew[0], ns[1], ew[1]]))
        return out
    home, away = fixture.home, fixture.away
    if season.entry_kind == EntryKind.PAIR:
        return [(0, [home.player1_id, away.player1_id, home.player2_id, away.player2_id])]
    return [(0, [home.player1_id, away.player1_id])]


def _opener(season: Season) -> User | None:
    league = season.league
    if league.created_by and is_club_admin(league.created_by, league.host):
        return league.created_by
    return club_owner(league.host)


def open_fixture(fixture: Fixture, now: datetime) -> bool:
    """Open the tables of an agreed fixture whose time has come (idempotent). True when it
    opened; False while a line-up is missing (the window's end then forfeits it)."""
    season = fixture.round.season
    seats = seatings(fixture)
    opener = _opener(season)
    if seats is None or opener is None:
        return False
    seed = secrets.token_hex(8)  # one seed: both tables of a team fixture get the same cards
    try:
        # one savepoint: a table that cannot open undoes the fixture's other tables
        with transaction.atomic():
            tables = [
                _open_table(season, fixture, number, side, users, opener, seed)
                for number, (side, users) in enumerate(seats, start=1)
            ]
    except bridge.TableRefused as error:
        log.warning("fixture %s: tables not opened: %s", fixture.pk, error.reason)
        return False
    FixtureTable.objects.bulk_create(tables)
    fixture.status = FixtureStatus.PLAYING
    fixture.save(update_fields=["status"])
    if not season.online:
        notices.sheets_ready(fixture, tables)
    return True


def _open_table(
    season: Season,
    fixture: Fixture,
    number: int,
    side: int,
    users: list[int],
    opener: User,
    seed: str,
) -> FixtureTable:
    """Open one table of a fixture (a live table online, a score sheet in person)."""
    if len(users) != game(season.variant).seats:
        raise bridge.TableRefused("wrong number of players")
    table = FixtureTable(fixture=fixture, number=number, home_side=side, seat_users=users)
    if season.online:
        table.table_ref = bridge.open_live_table(
            opener,
            season.league.host,
            variant=season.variant,
            options=match_options(season),
            time_limit_seconds=season.time_limit_minutes * 60,
            rated=season.rated,
            seat_users=users,
            seed=seed,
            # the tables dealt from one seed are siblings: none shows another's cards
            deal_group=deal_group(fixture),
        )
    else:
        options = match_options(season)
        if season.time_limit_minutes and "time_limit_minutes" in game(season.variant).sheet_options:
            options["time_limit_minutes"] = season.time_limit_minutes
        table.sheet_ref = bridge.start_score_sheet(
            opener,
            season.league.host,
            variant=season.variant,
            options=options,
            seat_users=users,
            scorer_id=users[side],  # the home side's first seat keeps the sheet
            rated=season.rated,
        )
    return table


def deal_group(fixture: Fixture) -> str:
    """The deal group of ``fixture``'s live tables (``matches.models.Table.deal_group``):
    they are dealt from one seed, so they are siblings."""
    return f"league-fixture-{fixture.pk}"


def has_stake_in_table(user: User | None, table: object) -> bool:
    """Whether ``user`` has a stake in the league fixture that live ``table`` belongs to:
    they sit at one of its tables, or they play for its home or away entry (a team's roster
    or captain, a pair's players), so they may not referee it. Registered with live play
    (:func:`leagues.bridge.register_stake_check`)."""
    if user is None or not user.is_authenticated:
        return False
    pk = getattr(table, "pk", None)
    row = (
        FixtureTable.objects.select_related("fixture__home__team", "fixture__away__team")
        .filter(table_ref=pk)
        .first()
    )
    if row is None:
        return False
    fixture = row.fixture
    if any(user.pk in seats for seats in fixture.tables.values_list("seat_users", flat=True)):
        return True
    return any(plays_for(user, entry) for entry in (fixture.home, fixture.away) if entry)


def _table_result(table: FixtureTable) -> bridge.TableResult | None:
    if table.table_ref:
        return bridge.live_result(table.table_ref)
    if table.sheet_ref:
        return bridge.sheet_result(table.sheet_ref)
    return None


def _store_table(
    table: FixtureTable, side_scores: tuple[int, int], side_winner: int | None
) -> None:
    """Store a table's result given by seat sides, turned to the home side's view."""
    s = table.home_side
    table.home_score, table.away_score = side_scores[s], side_scores[1 - s]
    table.winner = None if side_winner is None else (0 if side_winner == s else 1)
    table.done = True
    table.save(update_fields=["home_score", "away_score", "winner", "done"])


def add_up(fixture: Fixture, now: datetime, source: str = ResultSource.PLAYED) -> bool:
    """Add a fixture's tables once all have results: the sides' levels (Bao 2, Guandan) or
    points summed over the tables, so the difference is the sum of the tables' margins; the
    larger total wins, equal totals go to the side that won more tables, else a draw."""
    tables = list(fixture.tables.all())
    if not tables or not all(t.done for t in tables):
        return False
    home = sum(t.home_score or 0 for t in tables)
    away = sum(t.away_score or 0 for t in tables)
    if home != away:
        winner = 0 if home > away else 1
    else:
        won = [sum(1 for t in tables if t.winner == side) for side in (0, 1)]
        winner = None if won[0] == won[1] else (0 if won[0] > won[1] else 1)
    fixture.home_score, fixture.away_score, fixture.winner = home, away, winner
    fixture.source = source
    fixture.status = FixtureStatus.DONE
    fixture.finished_at = now
    fixture.save(
        update_fields=["home_score", "away_score", "winner", "source", "status", "finished_at"]
    )
    standings.changed(fixture.round.season_id)
    return True


def collect(fixture: Fixture, now: datetime) -> bool:
    """Take the results of the fixture's tables that have finished (a result is never typed
    twice: it is read from the live match or the confirmed sheet); True when the fixture is
    complete."""
    for table in fixture.tables.filter(done=False):
        result = _table_result(table)
        if result is not None:
            _store_table(table, result.scores, result.winner)
    return add_up(fixture, now)


def forfeit(fixture: Fixture, now: datetime) -> None:
    """Forfeit a fixture left unplayed at the end of its window: the side that proposed a
    time the other never accepted wins; in a team fixture with an agreed time, the side
    that sent no line-up loses; otherwise both lose (0 points each)."""
    winner: int | None = None
    both_lost = True
    if fixture.status == FixtureStatus.PROPOSED and fixture.proposed_by_id:
        winner, both_lost = (0 if fixture.proposed_by_id == fixture.home_id else 1), False
    elif fixture.status == FixtureStatus.AGREED:
        sent = set(LineUp.objects.filter(fixture=fixture).values_list("entry_id", flat=True))
        if len(sent) == 1:
            winner, both_lost = (0 if fixture.home_id in sent else 1), False
    fixture.home_score = fixture.away_score = 0
    fixture.winner = None if both_lost else winner
    fixture.source = ResultSource.FORFEIT
    fixture.status = FixtureStatus.DONE
    fixture.finished_at = now
    fixture.save()
    standings.changed(fixture.round.season_id)


@transaction.atomic
def correct_table(
    user: User,
    table: FixtureTable,
    home_score: int,
    away_score: int,
    winner: int | None = None,
    *,
    by_committee: bool = False,
) -> Fixture:
    """Correct one table's result (home side's view; ``winner`` 0 home, 1 away, None from the
    scores): the organiser's correction, or (``by_committee``) an appeals committee's majority
    decision (第三十九条), whose authority the caller — ``officials.services`` — has checked.
    The one place a played table's result changes: the fixture's total and the standings
    follow, so does the ladder when the table was rated, and the statistics (the fixture is
    saved as the organiser's result, which ``records`` follows)."""
    fixture = Fixture.objects.select_for_update().get(pk=table.fixture_id)
    season = fixture.round.season
    if not by_committee and not can_manage(user, season.league):
        raise not_allowed()
    for value in (home_score, away_score):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SCORE:
            raise refuse("bad_score", _("A score is a whole number from 0 to 100000."))
    if winner not in (None, 0, 1):
        raise refuse("bad_winner", _("The winner is the home or the away side."))
    if winner is None and home_score != away_score:
        winner = 0 if home_score > away_score else 1
    s = table.home_side
    side_scores = (home_score, away_score) if s == 0 else (away_score, home_score)
    side_winner = None if winner is None else (s if winner == 0 else 1 - s)
    _store_table(table, side_scores, side_winner)
    if season.rated:
        bridge.correct_rated_table(
            table_id=table.table_ref,
            sheet_id=table.sheet_ref,
            scores=side_scores,
            winner=side_winner,
        )
    add_up(fixture, timezone.now(), ResultSource.ORGANISER)
    draw_swiss_again(fixture.round)
    return fixture


@transaction.atomic
def award(user: User, fixture: Fixture, winner: int | None) -> Fixture:
    """The organiser decides a fixture without tables (a forfeit awarded to ``winner``, 0
    home / 1 away, or None: both lose), e.g. after an appeal."""
    fixture = Fixture.objects.select_for_update().get(pk=fixture.pk)
    if not can_manage(user, fixture.round.season.league):
        raise not_allowed()
    if fixture.away_id is None or winner not in (None, 0, 1):
        raise refuse("bad_winner", _("The winner is the home or the away side."))
    fixture.home_score = fixture.away_score = 0
    fixture.winner = winner
    fixture.source = ResultSource.FORFEIT
    fixture.status = FixtureStatus.DONE
    fixture.finished_at = timezone.now()
    fixture.save()
    standings.changed(fixture.round.season_id)
    draw_swiss_again(fixture.round)
    return fixture


# --------------------------------------------------------------------------- tick
def _open_rounds(now: datetime) -> int:
    opened = 0
    for rnd in Round.objects.filter(
        status=RoundStatus.DRAWN,
        opens_on__lte=timezone.localdate(now),
        season__status=SeasonStatus.RUNNING,
    ).select_related("season__league"):
        if not rnd.fixtures.exists():
            continue  # a Swiss round not yet drawn
        rnd.status = RoundStatus.OPEN
        rnd.save(update_fields=["status"])
        notices.round_open(rnd)
        opened += 1
    return opened


def _remind(now: datetime) -> None:
    soon = Fixture.objects.filter(
        status=FixtureStatus.AGREED,
        agreed_at__lte=now + LINEUP_REMINDER,
        agreed_at__gt=now,
        round__season__entry_kind=EntryKind.TEAM,
    ).select_related("home__team__captain", "away__team__captain", "round__season")
    for fixture in soon:
        sent = set(fixture.lineups.values_list("entry_id", flat=True))
        for entry in fixture.entries:
            if entry.pk not in sent:
                notices.lineup_missing(fixture, entry)
    closing = Fixture.objects.filter(
        status__in=[FixtureStatus.PENDING, FixtureStatus.PROPOSED],
        round__status=RoundStatus.OPEN,
        round__closes_on__lte=timezone.localdate(now) + timedelta(days=1),
        extended_to__isnull=True,
    ).select_related("round__season", "home__team__captain", "away__team__captain")
    for fixture in closing:
        notices.window_closing(fixture)


def _open_due(now: datetime) -> int:
    due = Fixture.objects.filter(
        status=FixtureStatus.AGREED, agreed_at__lte=now, round__status=RoundStatus.OPEN
    ).select_related("round__season__league", "home", "away")
    return sum(open_fixture(f, now) for f in due)


def _collect(now: datetime) -> int:
    playing = Fixture.objects.filter(status=FixtureStatus.PLAYING).select_related("round__season")
    return sum(collect(f, now) for f in playing)


def _close_rounds(now: datetime) -> int:
    today = timezone.localdate(now)
    closed = 0
    for rnd in Round.objects.filter(status=RoundStatus.OPEN, closes_on__lt=today).select_related(
        "season"
    ):
        for fixture in rnd.fixtures.filter(
            status__in=[FixtureStatus.PENDING, FixtureStatus.PROPOSED, FixtureStatus.AGREED]
        ).select_related("round"):
            if now >= window_end(last_day(fixture)):
                forfeit(fixture, now)
        if rnd.fixtures.exclude(status__in=[FixtureStatus.DONE, FixtureStatus.BYE]).exists():
            continue  # extended or still playing fixtures keep the round open
        rnd.status = RoundStatus.CLOSED
        rnd.save(update_fields=["status"])
        closed += 1
        season = rnd.season
        if season.format == ScheduleFormat.SWISS:
            nxt = season.rounds.filter(number=rnd.number + 1).first()
            if nxt is not None and not nxt.fixtures.exists():
                draw_swiss(nxt)
    return closed


def tick(now: datetime | None = None) -> dict[str, int]:
    """Everything due at ``now`` (beat, every minute; safe to run twice: each step acts only
    on what is still due and locks what it changes): remove lapsed partner invitations, open
    rounds by their windows, remind,
    open the tables of fixtures whose time has come, collect results, forfeit unplayed
    fixtures at the window's end and close the round (a Swiss season then draws the next)."""
    now = now or timezone.now()
    out = {"invitations_lapsed": expire_invitations(now)}
    with transaction.atomic():
        out["rounds_opened"] = _open_rounds(now)
    with transaction.atomic():
        _remind(now)
    for name, step in (("tables_opened", _open_due), ("fixtures_done", _collect)):
        with transaction.atomic():
            out[name] = step(now)
    with transaction.atomic():
        out["rounds_closed"] = _close_rounds(now)
    return out
