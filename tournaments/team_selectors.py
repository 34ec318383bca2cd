"""Reads of a team event shared by the standings page, its CSV and the API: each club team
with its entries, and the team standings computed from the entries' results (the pure
:func:`tournaments.teams.team_standings`), so a corrected result shows at once. Imports no
service."""

from __future__ import annotations

from dataclasses import dataclass

from django.urls import reverse

from clubs.models import Club, User
from tournaments import comparisons, selectors, teams
from tournaments.models import (
    ClubTeam,
    Entry,
    EntryStatus,
    TeamRosterChange,
    Tournament,
    TournamentStatus,
)
from tournaments.permissions import can_view


@dataclass
class TeamLine:
    """One team of the standings: the team, its row (place and sums) and its entries in the
    standings with each one's match points and second number."""

    team: ClubTeam
    row: teams.TeamRow
    entries: list[tuple[Entry, float, float]]


def club_teams(tournament: Tournament) -> list[ClubTeam]:
    """The tournament's teams with their club and captain, in the order they entered."""
    return list(
        tournament.club_teams.select_related("club", "captain").prefetch_related(
            "entries__player1", "entries__player2"
        )
    )


def national(tournament: Tournament) -> bool:
    """Whether the team standings add up 级分 (national scoring) rather than level
    differences."""
    return selectors.scale_of(tournament) is not None


def team_standings(tournament: Tournament) -> list[TeamLine]:
    """The teams ranked by their entries' summed match points (场分), then their summed 级分
    (national scoring) or level differences (club scoring) — :mod:`tournaments.teams`. An
    entry counts as it counts in the entries' standings (:func:`tournaments.selectors.standings`:
    not a waiting or pending entry, not one whose results were annulled); a team with no
    entry taking part is not listed. Empty for a tournament without teams."""
    if not tournament.team_size:
        return []
    lines = selectors.standings(tournament)
    counted = {line.entry.pk for line in lines}
    by_team: dict[int, list[int]] = {}
    team_objects = {t.pk: t for t in club_teams(tournament)}
    for line in lines:
        if line.entry.club_team_id in team_objects:
            by_team.setdefault(line.entry.club_team_id, []).append(line.entry.pk)
    sealed = comparisons.sealed_rounds(tournament)  # 复式赛: withheld while a table plays
    games = [g for g in selectors.all_games(tournament) if g.round.number not in sealed]
    records = selectors.records_of(games, selectors.scale_of(tournament))
    rows = teams.team_standings(
        by_team, records, selectors.points_of(tournament), national(tournament)
    )
    entries = {line.entry.pk: line.entry for line in lines if line.entry.pk in counted}
    return [
        TeamLine(
            team_objects[row.team],
            row,
            [(entries[u], *row.by_unit.get(u, (0.0, 0.0))) for u in row.units],
        )
        for row in rows
    ]


def waiting(tournament: Tournament) -> list[Entry]:
    """The waiting list: entries over the cap, in the order they move up."""
    return list(
        tournament.entries.filter(status=EntryStatus.WAITING)
        .select_related("player1", "player2", "club_team")
        .order_by("registered_at", "id")
    )


def invited_to(club: Club, viewer: User | None, limit: int = 50) -> list[Tournament]:
    """The published tournaments of other clubs that invited ``club`` and ``viewer`` may see
    (:func:`tournaments.permissions.can_view`), latest start first, at most ``limit``: the
    club's tournaments page lists them under its own."""
    found = (
        Tournament.objects.filter(invited_clubs=club)
        .exclude(status__in=[TournamentStatus.DRAFT, TournamentStatus.CANCELLED])
        .select_related("club")
        .order_by("-starts_at", "-id")[:limit]
    )
    return [t for t in found if can_view(viewer, t)]


def history_url(team: ClubTeam) -> str:
    """Where a team's history is read: its roster page's history (:func:`roster_history`)."""
    return reverse("tournaments:team_roster", args=[team.tournament_id, team.pk]) + "#history"


def roster_history(team: ClubTeam) -> list[TeamRosterChange]:
    """The changes of ``team``'s roster, the first first: each record's time (``created_at``)
    and its :attr:`~tournaments.models.TeamRosterChange.text` (who made the change, each pair
    before and after it, in the active language)."""
    return list(team.roster_changes.select_related("changed_by", "team").order_by("number"))
