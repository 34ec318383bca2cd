"""Scheduling: :func:`tick` (Celery beat, with the current time) advances every tournament
that is due: starts it at its time, pairs and starts each round at its time (or as soon as
the previous one has finished), collects results, forfeits no-shows, finishes it.

What is due is read by :func:`tournaments.selectors.next_step`; :func:`advance` only does it."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from tournaments import selectors
from tournaments.models import (
    ACTIVE_STATUSES,
    Round,
    RoundStatus,
    Tournament,
    TournamentStatus,
)
from tournaments.notifications import notify_checkin, notify_final_standings
from tournaments.services.cuts import make_cut
from tournaments.services.entries import expire_invitations
from tournaments.services.errors import TournamentError
from tournaments.services.forfeits import forfeit_no_shows
from tournaments.services.results import collect_results, rebracket, round_done
from tournaments.services.rounds import begin_round, create_round
from tournaments.services.setup import locked
from tournaments.services.ties import play_on_ties

log = logging.getLogger(__name__)


def advance(tournament: Tournament, now: datetime) -> list[str]:
    """Do what is due for one tournament at ``now``, under its lock; return what happened (for
    logs/tests): each round being played takes in its results and no-shows and finishes once
    decided, the earliest first — an earlier round is played again when a correction left a
    knockout tie of it undecided (:func:`tournaments.services.ties.play_on_ties`), and once
    it finishes the later rounds' games waiting for that tie get their entries
    (:func:`tournaments.services.results.rebracket`); then (unless paused, and only once no
    round before the latest is being played) the next step of
    :func:`tournaments.selectors.next_step`."""
    done: list[str] = []
    with transaction.atomic():
        tournament = locked(tournament)
        if tournament.status not in ACTIVE_STATUSES:
            return done
        playing = list(tournament.rounds.filter(status=RoundStatus.PLAYING).order_by("number"))
        if not playing and not tournament.rounds.exists() and notify_checkin(tournament, now):
            done.append("checkin_open")
        while playing:
            rnd = playing.pop(0)
            done += _play_on(tournament, rnd, now)
            if (
                rnd.status == RoundStatus.FINISHED
                and tournament.rounds.filter(number__gt=rnd.number).exists()
            ):
                rebracket(tournament, rnd.number, now)  # the games its ties feed, filled
                done.append(f"bracket:{rnd.number}")
                # a later round it reopened is played on in this tick too
                playing = list(
                    tournament.rounds.filter(
                        status=RoundStatus.PLAYING, number__gt=rnd.number
                    ).order_by("number")
                )
        if tournament.status == TournamentStatus.PAUSED:
            return done
        rounds = list(tournament.rounds.order_by("number"))
        if any(r.status != RoundStatus.FINISHED for r in rounds[:-1]):
            return done  # an earlier round is played again first (a corrected knockout tie)
        last = rounds[-1] if rounds else None
        step = selectors.next_step(tournament, last, now)
        if step.action == "start" and last is not None:
            begin_round(tournament, last, now)
            done.append(f"started:{step.number}")
        elif step.action == "pair":
            done.append(_pair_and_start(tournament, step.number, now))
        elif step.action == "finish":
            _finish(tournament, now)
            done.append("tournament_finished")
    return done


def _play_on(tournament: Tournament, rnd: Round, now: datetime) -> list[str]:
    """The round being played: collect its results, forfeit its no-shows (not while paused),
    finish it once every game is decided (and make the low-position cut after it, if the plan
    has one: :func:`tournaments.services.cuts.make_cut`)."""
    done = []
    if collect_results(tournament, rnd, now):
        done.append(f"results:{rnd.number}")
    if tournament.status != TournamentStatus.PAUSED and forfeit_no_shows(tournament, rnd, now):
        done.append(f"forfeits:{rnd.number}")
    if play_on_ties(tournament, rnd, now):  # a tie of several games goes on (第三十条)
        done.append(f"series:{rnd.number}")
    if round_done(rnd):
        rnd.status = RoundStatus.FINISHED
        rnd.finished_at = now
        rnd.save(update_fields=["status", "finished_at"])
        done.append(f"finished:{rnd.number}")
        # a low-position cut after this round (第二十九条) is made at once, so the standings
        # show who plays on before the next round is paired
        if make_cut(tournament, rnd.number + 1):
            done.append(f"cut:{rnd.number}")
    return done


def _pair_and_start(tournament: Tournament, number: int, now: datetime) -> str:
    """Pair round ``number`` and start it, all or nothing: a refusal (too few entries, a table
    that cannot open) is logged and the round waits for the next tick."""
    try:
        with transaction.atomic():
            begin_round(tournament, create_round(tournament, number, now), now)
    except TournamentError as error:
        log.warning("tournament %s round %s not started: %s", tournament.pk, number, error)
        return f"not_started:{error.code}"
    return f"started:{number}"


def _finish(tournament: Tournament, now: datetime) -> None:
    """Every round has been played: the tournament is finished and its players told the final
    standings."""
    tournament.status = TournamentStatus.FINISHED
    tournament.finished_at = now
    tournament.save(update_fields=["status", "finished_at"])
    notify_final_standings(tournament, selectors.standings(tournament))


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
