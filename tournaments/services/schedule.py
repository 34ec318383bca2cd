"""Scheduling: :func:`tick` (Celery beat, with the current time) advances every tournament
that is due: starts it at its time, pairs and starts each round at its time (or as soon as
the previous one has finished), collects results, forfeits no-shows, finishes it."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from tournaments.models import ACTIVE_STATUSES, RoundStatus, Tournament, TournamentStatus
from tournaments.notifications import notify_checkin, notify_final_standings
from tournaments.selectors import standings
from tournaments.services.entries import expire_invitations
from tournaments.services.errors import TournamentError
from tournaments.services.forfeits import forfeit_no_shows
from tournaments.services.results import collect_results, round_done
from tournaments.services.rounds import begin_round, create_round, round_time, total_rounds
from tournaments.services.setup import locked

log = logging.getLogger(__name__)


def advance(tournament: Tournament, now: datetime) -> list[str]:
    """Do what is due for one tournament at ``now``; return what happened (for logs/tests)."""
    done: list[str] = []
    with transaction.atomic():
        tournament = locked(tournament)
        if tournament.status not in ACTIVE_STATUSES:
            return done
        last = tournament.rounds.order_by("-number").first()
        if last is None and notify_checkin(tournament, now):
            done.append("checkin_open")
        if last is not None and last.status == RoundStatus.PLAYING:
            if collect_results(tournament, last, now):
                done.append(f"results:{last.number}")
            if tournament.status != TournamentStatus.PAUSED and forfeit_no_shows(
                tournament, last, now
            ):
                done.append(f"forfeits:{last.number}")
            if round_done(last):
                last.status = RoundStatus.FINISHED
                last.finished_at = now
                last.save(update_fields=["status", "finished_at"])
                done.append(f"finished:{last.number}")
        if tournament.status == TournamentStatus.PAUSED:
            return done
        if last is not None and last.status == RoundStatus.PAIRED:
            if now >= last.scheduled_at:
                begin_round(tournament, last, now)
                done.append(f"started:{last.number}")
            return done
        if last is not None and last.status != RoundStatus.FINISHED:
            return done
        number = (last.number + 1) if last else 1
        if number > total_rounds(tournament) and (last is not None or now >= tournament.starts_at):
            if last is not None:
                tournament.status = TournamentStatus.FINISHED
                tournament.finished_at = now
                tournament.save(update_fields=["status", "finished_at"])
                notify_final_standings(tournament, standings(tournament))
                done.append("tournament_finished")
            return done
        due = round_time(tournament, number)
        ready = last is not None and tournament.start_when_ready
        if (last is None and now < tournament.starts_at) or (now < due and not ready):
            return done
        try:
            with transaction.atomic():
                rnd = create_round(tournament, number, now)
                begin_round(tournament, rnd, now)
        except TournamentError as error:
            log.warning("tournament %s round %s not started: %s", tournament.pk, number, error)
            done.append(f"not_started:{error.code}")
            return done
        done.append(f"started:{number}")
    return done


def tick(now: datetime | None = None) -> dict[int, list[str]]:
    """Celery beat: remove the partner invitations that lapsed, then advance every tournament
    that is scheduled, running or paused."""
    now = now or timezone.now()
    expire_invitations(now)
    out = {}
    due = Tournament.objects.filter(
        status__in=ACTIVE_STATUSES,
        starts_at__lte=now + timedelta(days=1),  # check-in opens at most a day before
    ).values_list("pk", flat=True)
    for pk in list(due):
        tournament = Tournament.objects.get(pk=pk)
        try:
            done = advance(tournament, now)
        except Exception:  # one broken tournament must not stop the others
            log.exception("tournament %s could not advance", pk)
            continue
        if done:
            out[pk] = done
    return out
