"""Admin of every league model."""

from django.contrib import admin

from leagues.models import (
    Division,
    Entry,
    Fixture,
    FixtureTable,
    League,
    LineUp,
    LineUpPair,
    Notice,
    Round,
    Season,
    Team,
    TeamMember,
)


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
class SeasonAdmin(admin.ModelAdmin):
    """Seasons."""

    list_display = ["name", "league", "variant", "entry_kind", "format", "status", "starts_on"]
    list_filter = ["status", "variant", "entry_kind"]


@admin.register(Division)
class DivisionAdmin(admin.ModelAdmin):
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
class EntryAdmin(admin.ModelAdmin):
    """Entries."""

    list_display = ["name", "season", "division", "club", "joined_round", "withdrawn_at"]
    raw_id_fields = ["player1", "player2"]


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    """Rounds and their windows."""

    list_display = ["season", "number", "opens_on", "closes_on", "club_night", "status"]


@admin.register(Fixture)
class FixtureAdmin(admin.ModelAdmin):
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


@admin.register(Notice)
class NoticeAdmin(admin.ModelAdmin):
    """Notices sent."""

    list_display = ["key", "sent_at"]
