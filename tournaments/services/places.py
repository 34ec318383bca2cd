"""The places of a tournament with a cap (``max_entries``; a team event counts teams): an
entry (or team) over the cap waits (:data:`~tournaments.models.EntryStatus.WAITING`), and
:func:`fill_places` moves the earliest waiting ones up when places are free before round 1
starts — a place freed by a withdrawal, or a cap raised — telling each player once through
the outbox. Kept apart from :mod:`tournaments.services.eligibility` so that the settings'
service (:mod:`tournaments.services.setup`) can fill places without an import cycle."""

from __future__ import annotations

from datetime import datetime

from tournaments import conditions, notifications
from tournaments.models import (
    ACCEPTED_STATUSES,
    Entry,
    EntryStatus,
    RoundStatus,
    Tournament,
    TournamentStatus,
)


def _place_key(entry: Entry) -> tuple[str, int]:
    """What takes a place: the entry's team in a team event, else the entry."""
    return ("team", entry.club_team_id) if entry.club_team_id else ("entry", entry.pk)


def places_taken(tournament: Tournament) -> int:
    """How many entries (teams, in a team event) take part: registered or checked in."""
    taken = tournament.entries.filter(status__in=ACCEPTED_STATUSES)
    return len({_place_key(e) for e in taken.only("pk", "club_team_id")})


def new_status(tournament: Tournament, team_id: int | None = None) -> str:
    """The status of a new entry (or team) that takes part now: registered while there is a
    place (:func:`tournaments.conditions.has_place`) or its team (``team_id``) already holds
    one, else waiting."""
    held = tournament.entries.filter(club_team_id=team_id, status__in=ACCEPTED_STATUSES)
    if team_id is not None and held.exists():
        return EntryStatus.REGISTERED
    if conditions.has_place(tournament.max_entries, places_taken(tournament)):
        return EntryStatus.REGISTERED
    return EntryStatus.WAITING


def before_start(tournament: Tournament) -> bool:
    """Whether round 1 has not started (no round, or round 1 only paired) in a tournament
    that is not over."""
    if tournament.status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED):
        return False
    return not tournament.rounds.exclude(status=RoundStatus.PAIRED).exists()


def fill_places(tournament: Tournament, now: datetime | None = None) -> list[Entry]:
    """Move the earliest waiting entries (or teams) up into the places free now, before
    round 1 starts; each entry moved up is registered and its players told once (a notice
    and an e-mail through the outbox, :func:`tournaments.notifications.notify_moved_up`).
    The caller holds the tournament's lock (a waiting entry moves up once: its status
    changes under it). Returns the entries moved up."""
    if not before_start(tournament):
        return []
    waiting = list(
        tournament.entries.filter(status=EntryStatus.WAITING)
        .select_related("player1", "player2", "tournament")
        .order_by("registered_at", "id")
    )
    if not waiting:
        return []
    groups: dict[tuple[str, int], list[Entry]] = {}
    for entry in waiting:
        groups.setdefault(_place_key(entry), []).append(entry)
    keys = list(groups)
    free = (
        len(keys)
        if tournament.max_entries == 0
        else tournament.max_entries - places_taken(tournament)
    )
    chosen = conditions.next_up(
        [
            conditions.Waiting(i, groups[key][0].registered_at, groups[key][0].pk)
            for i, key in enumerate(keys)
        ],
        free,
    )
    moved = [entry for i in chosen for entry in groups[keys[i]]]
    for entry in moved:
        entry.status = EntryStatus.REGISTERED
    Entry.objects.bulk_update(moved, ["status"])
    for entry in moved:
        notifications.notify_moved_up(entry)
    return moved
