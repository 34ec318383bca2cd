"""The registration and check-in windows of a tournament, computed from its times."""

from __future__ import annotations

from datetime import datetime, timedelta

from tournaments.models import ACTIVE_STATUSES, RoundStatus, Tournament, TournamentStatus


def registration_open(tournament: Tournament, now: datetime) -> bool:
    """Whether a new entry is accepted now: inside the registration window before the
    start, or while late registration is allowed (before round ``late_until_round``)."""
    if tournament.status == TournamentStatus.SCHEDULED:
        if tournament.registration_opens and now < tournament.registration_opens:
            return False
        closes = tournament.registration_closes or tournament.starts_at
        return now < closes or tournament.late_until_round > 0
    if tournament.status in (TournamentStatus.RUNNING, TournamentStatus.PAUSED):
        created = tournament.rounds.exclude(status=RoundStatus.PENDING).count()
        return created < tournament.late_until_round
    return False


def checkin_open(tournament: Tournament, now: datetime) -> bool:
    """Whether entries may check in now: from ``checkin_minutes`` before the start while the
    tournament is scheduled or running. Entries not checked in when round 1 is paired are
    withdrawn; late entries (after round 1) play without checking in."""
    if tournament.status not in ACTIVE_STATUSES:
        return False
    return now >= tournament.starts_at - timedelta(minutes=tournament.checkin_minutes)
