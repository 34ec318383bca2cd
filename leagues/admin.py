"""Admin of every league model."""

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from leagues.models import (
    Division,
    Entry,
    Fixture,
    FixtureTable,
    League,
    LineUp,
    LineUpPair,
    Round,
    Season,
    Team,
    TeamMember,
)
from leagues.services import standings


def _season_id(obj: Any) -> int:
    if isinstance(obj, Season):
        return obj.pk
    if isinstance(obj, Fixture):
        return obj.round.season_id
    return obj.season_id


class ChangesStandings(admin.ModelAdmin):
    """An admin of a model the standings show: a save or delete renews the season's standings
    key, as the services do, so the cached standings never outlive the edit."""

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        """Save, then renew the key."""
        super().save_model(request, obj, form, change)
        standings.changed(_season_id(obj))

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        """Delete, then renew the key."""
        season_id = _season_id(obj)
        super().delete_model(request, obj)
        standings.changed(season_id)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet) -> None:
        """Delete the selected rows, then renew their seasons' keys."""
        season_ids = {_season_id(obj) for obj in queryset}
        super().delete_queryset(request, queryset)
        for season_id in season_ids:
            standings.changed(season_id)


class TeamMemberInline(admin.TabularInline):
    """A team's roster."""

    model = TeamMember
    extra = 0
    raw_id_fields = ["user"]


class LineUpPairInline(admin.TabularInline):
    """The pairs of a line-up."""

    model = LineUpPair
    extra = 0
    raw_id_fields = ["player1", "player2"]


class FixtureTableInline(admin.TabularInline):
    """The tables of a fixture."""

    model = FixtureTable
    extra = 0


@admin.register(League)
class LeagueAdmin(admin.ModelAdmin):
    """Leagues."""

    list_display = ["name", "host", "inter_club", "created_at"]
    search_fields = ["name"]
    filter_horizontal = ["invited_clubs"]


@admin.register(Season)
class SeasonAdmin(ChangesStandings):
    """Seasons."""

    list_display = ["name", "league", "variant", "entry_kind", "format", "status", "starts_on"]
    list_filter = ["status", "variant", "entry_kind"]


@admin.register(Division)
class DivisionAdmin(ChangesStandings):
    """Divisions."""

    list_display = ["name", "season", "level"]


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    """Teams and their rosters."""

    list_display = ["name", "season", "club", "captain"]
    raw_id_fields = ["captain"]
    inlines = [TeamMemberInline]


@admin.register(TeamMember)
class TeamMemberAdmin(admin.ModelAdmin):
    """Roster lines."""

    list_display = ["team", "user", "season"]
    raw_id_fields = ["user"]


@admin.register(Entry)
class EntryAdmin(ChangesStandings):
    """Entries."""

    list_display = ["name", "season", "division", "club", "joined_round", "withdrawn_at"]
    raw_id_fields = ["player1", "player2"]


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    """Rounds and their windows."""

    list_display = ["season", "number", "opens_on", "closes_on", "club_night", "status"]


@admin.register(Fixture)
class FixtureAdmin(ChangesStandings):
    """Fixtures."""

    list_display = ["__str__", "round", "division", "status", "agreed_at", "source"]
    list_filter = ["status", "source"]
    inlines = [FixtureTableInline]


@admin.register(LineUp)
class LineUpAdmin(admin.ModelAdmin):
    """Line-ups."""

    list_display = ["fixture", "entry", "submitted_at"]
    inlines = [LineUpPairInline]


@admin.register(LineUpPair)
class LineUpPairAdmin(admin.ModelAdmin):
    """Line-up pairs."""

    list_display = ["lineup", "table", "player1", "player2"]


@admin.register(FixtureTable)
class FixtureTableAdmin(admin.ModelAdmin):
    """Fixture tables."""

    list_display = ["fixture", "number", "home_side", "table_ref", "sheet_ref", "done"]
