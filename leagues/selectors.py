"""Reads of leagues shared by the pages, the API, the calendars and the exports."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.db.models import Q, QuerySet
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.timezone import localtime
from django.utils.translation import gettext as _

from clubs.models import User
from leagues import bridge
from leagues.models import (
    Division,
    Entry,
    Fixture,
    FixtureStatus,
    LineUp,
    ResultSource,
    Season,
    SeasonStatus,
)
from leagues.permissions import plays_for


def _records(fixture: Any) -> list[bridge.Record]:
    """A finished fixture (or bye) as the shared standings' records."""
    if fixture.status == FixtureStatus.BYE:
        return [bridge.Record(fixture.home_id, (), 0, 0, "bye")]
    if fixture.status != FixtureStatus.DONE:
        return []
    home, away = fixture.home_score or 0, fixture.away_score or 0
    if fixture.winner is None:
        both_lost = fixture.source == ResultSource.FORFEIT
        outcomes = ("loss", "loss") if both_lost else ("draw", "draw")
    else:
        outcomes = ("win", "loss") if fixture.winner == 0 else ("loss", "win")
    return [
        bridge.Record(fixture.home_id, (fixture.away_id,), home, away, outcomes[0]),
        bridge.Record(fixture.away_id, (fixture.home_id,), away, home, outcomes[1]),
    ]


def _rows(season: Season, entries: list[int], fixtures: list[Any]) -> list[bridge.Row]:
    return bridge.standings_rows(
        entries,
        [record for fixture in fixtures for record in _records(fixture)],
        season.tiebreaks,
        (season.points_win, season.points_draw, season.points_loss),
    )


_RESULT_FIELDS = (
    "division_id",
    "home_id",
    "away_id",
    "home_score",
    "away_score",
    "winner",
    "source",
    "status",
)


def _finished(**where: object) -> QuerySet[Any]:
    """The results of finished fixtures as light named rows (no model instances: a season
    page reads hundreds of them)."""
    done = [FixtureStatus.DONE, FixtureStatus.BYE]
    return Fixture.objects.filter(status__in=done, **where).values_list(*_RESULT_FIELDS, named=True)


def standings(division: Division) -> list[bridge.Row]:
    """The division's standings (two queries, whatever its size): match points, then the
    season's tie-breaks; each row's ``unit`` is an entry id (pending pairs are not in them)."""
    entries = list(division.entries.filter(answer_by__isnull=True).values_list("pk", flat=True))
    return _rows(division.season, entries, list(_finished(division=division)))


def season_standings(season: Season) -> list[tuple[Division, list[tuple[bridge.Row, Entry]]]]:
    """Every division's standings with its entries, in three queries whatever the season's
    size (divisions, entries, finished fixtures)."""
    divisions = list(season.divisions.all())
    entries: dict[int, list[Entry]] = {d.pk: [] for d in divisions}
    for entry in Entry.objects.filter(season=season, answer_by__isnull=True).only(
        "pk", "name", "division_id", "withdrawn_at"
    ):
        entries[entry.division_id].append(entry)
    finished: dict[int, list[Any]] = {d.pk: [] for d in divisions}
    for fixture in _finished(round__season=season):
        finished[fixture.division_id].append(fixture)
    out = []
    for division in divisions:
        by_pk = {e.pk: e for e in entries[division.pk]}
        rows = _rows(season, list(by_pk), finished[division.pk])
        out.append((division, [(row, by_pk[row.unit]) for row in rows]))
    return out


def pending_pairs(season: Season) -> list[Entry]:
    """The season's pairs waiting for their partner's acceptance, soonest to lapse first."""
    return list(
        Entry.objects.filter(season=season, answer_by__isnull=False)
        .select_related("player1", "player2")
        .order_by("answer_by", "id")
    )


def invitation_of(user: User, season: Season) -> Entry | None:
    """The season's pending pair that names ``user`` as the partner (at most one)."""
    return Entry.objects.filter(season=season, player2_id=user.pk, answer_by__isnull=False).first()


def home_items(user: User) -> list[dict[str, Any]]:
    """The home page's league items for ``user`` (see :mod:`clubs.hooks`): their next
    fixture, then their pending pairs: answer the invitation (the partner) or wait for it
    (the player who entered the pair)."""
    items = []
    fixture = next_fixture(user)
    if fixture is not None:
        when = fixture.agreed_at
        items.append(
            {
                "kind": "fixture",
                "title": f"{fixture.round.season} · {fixture}",
                "detail": (
                    _("Agreed time: %(when)s")
                    % {"when": date_format(localtime(when), "SHORT_DATETIME_FORMAT")}
                    if when
                    else _("Agree a time by %(last)s.")
                    % {"last": fixture.extended_to or fixture.round.closes_on}
                ),
                "url": reverse("leagues:fixture", args=[fixture.pk]),
                "action": _("Open the fixture"),
                "when": when,
            }
        )
    pending = (
        Entry.objects.filter(answer_by__isnull=False)
        .filter(Q(player1=user) | Q(player2=user))
        .select_related("season", "player1", "player2")
        .order_by("answer_by")[:10]
    )
    for entry in pending:
        asked = entry.player2_id == user.pk
        values = {
            "name": entry.player1.name if asked else entry.player2.name,
            "when": date_format(localtime(entry.answer_by), "SHORT_DATETIME_FORMAT"),
        }
        items.append(
            {
                "kind": "invitation",
                "title": str(entry.season),
                "detail": (
                    _("%(name)s asks you to play as partners. Answer by %(when)s.")
                    if asked
                    else _("Waiting for %(name)s to accept, until %(when)s.")
                )
                % values,
                "url": reverse("leagues:entry", args=[entry.pk]),
                "action": _("Answer the invitation") if asked else _("Open the entry"),
                "when": entry.answer_by,
            }
        )
    return items


#: How long cached standings are kept (a change renews the season's key long before).
STANDINGS_SECONDS = 7 * 24 * 3600
#: The shape of a cached standings table; a new shape takes new keys.
_TABLE_FORMAT = 1


def season_table(season: Season) -> list[dict[str, Any]]:
    """Every division's standings as plain data, top division first: ``{"division", "name",
    "level", "lines"}``, each line ``{"place", "entry", "name", "withdrawn", "played", "wins",
    "draws", "losses", "byes", "values"}``. Kept in the cache under the season's
    ``standings_key`` (renewed by every change they show), so a page or API read of a
    season whose standings did not change costs one cache read; otherwise
    :func:`season_standings` computes them (three queries)."""
    key = f"leagues:standings:{_TABLE_FORMAT}:{season.pk}:{season.standings_key}"
    tables = cache.get(key)
    if tables is None:
        tables = [
            {
                "division": division.pk,
                "name": division.name,
                "level": division.level,
                "lines": [
                    {
                        "place": row.place,
                        "entry": entry.pk,
                        "name": entry.name,
                        "withdrawn": entry.withdrawn_at is not None,
                        "played": row.played,
                        "wins": row.wins,
                        "draws": row.draws,
                        "losses": row.losses,
                        "byes": row.byes,
                        "values": row.values,
                    }
                    for row, entry in rows
                ],
            }
            for division, rows in season_standings(season)
        ]
        cache.set(key, tables, STANDINGS_SECONDS)
    return tables


def fixtures_of(season: Season) -> QuerySet[Fixture]:
    """Every fixture of the season with what its pages show."""
    return Fixture.objects.filter(round__season=season).select_related(
        "round", "division", "home", "away"
    )


def entries_of_user(user: User | None) -> QuerySet[Entry]:
    """The entries ``user`` plays for (rosters, pairs, singles), of every season."""
    if user is None or not user.is_authenticated:
        return Entry.objects.none()
    return Entry.objects.filter(
        Q(team__members__user=user) | Q(player1=user) | Q(player2=user)
    ).distinct()


def fixtures_of_user(user: User | None) -> QuerySet[Fixture]:
    """The fixtures of every entry ``user`` plays for, in time order."""
    ids = list(entries_of_user(user).values_list("pk", flat=True))
    return (
        Fixture.objects.filter(Q(home_id__in=ids) | Q(away_id__in=ids))
        .exclude(away__isnull=True)
        .select_related("round__season__league", "division", "home", "away")
        .order_by("round__opens_on", "agreed_at", "id")
    )


def fixtures_of_entry(entry: Entry) -> QuerySet[Fixture]:
    """The entry's fixtures (and byes) in round order."""
    return (
        Fixture.objects.filter(Q(home=entry) | Q(away=entry))
        .select_related("round__season__league", "division", "home", "away")
        .order_by("round__number", "id")
    )


def next_fixture(user: User | None, now: datetime | None = None) -> Fixture | None:
    """``user``'s next fixture still to play: the earliest agreed time to come, else the
    earliest open window."""
    now = now or timezone.now()
    pending = fixtures_of_user(user).filter(
        status__in=[
            FixtureStatus.PENDING,
            FixtureStatus.PROPOSED,
            FixtureStatus.AGREED,
            FixtureStatus.PLAYING,
        ],
        round__season__status=SeasonStatus.RUNNING,
    )
    agreed = pending.filter(agreed_at__isnull=False).order_by("agreed_at").first()
    return agreed or pending.filter(agreed_at__isnull=True).first()


def lineup_revealed(fixture: Fixture, now: datetime | None = None) -> bool:
    """Line-ups are secret until both are in or the fixture's agreed time has come."""
    if fixture.lineups.count() >= 2:
        return True
    when = fixture.agreed_at
    return when is not None and (now or timezone.now()) >= when


def visible_lineups(
    user: User | None, fixture: Fixture, now: datetime | None = None
) -> list[LineUp]:
    """The line-ups of ``fixture`` that ``user`` may read: both once revealed, else only
    their own side's (a captain never sees the other team's before)."""
    lineups = list(fixture.lineups.select_related("entry__team").prefetch_related("pairs"))
    if lineup_revealed(fixture, now):
        return lineups
    return [lu for lu in lineups if plays_for(user, lu.entry)]
