"""The competition rules an event is run by (organisers, before round 1): club scoring, or
the national rules' 场分 and 级分 (:mod:`tournaments.scoring`) with their tie-break order.

The format itself (Swiss, round robin, single or double elimination) is a setting like any
other (:mod:`tournaments.services.setup`); the scoring is set here because it depends on the
game (only a game won by levels has 级分) and cannot change once the event has started."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from clubs.models import User
from games.variants import game as game_facts
from tournaments.models import Scoring, Tournament, TournamentStatus
from tournaments.services.errors import TournamentError
from tournaments.services.setup import managed


@transaction.atomic
def set_scoring(user: User, tournament: Tournament, scoring: object) -> Tournament:
    """Score the event by the club's match points (``club``) or by the national rules
    (``national``: 场分 2/1/0, 级分 — the 26-point table for Guandan, Bao 2's own levels —,
    forfeits 2:0 and 18:0, and the tie-breaks of 第二十七、二十八条 unless the event chose its
    own). Organisers only; refused once round 1 is paired, for a game scored by points, or
    for an event that is over, having changed nothing."""
    tournament = managed(user, tournament)
    if scoring not in Scoring.values:
        raise TournamentError("bad_scoring", _("Choose club scoring or the national rules."))
    if tournament.status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED):
        raise TournamentError("closed", _("This tournament is over."))
    if tournament.rounds.exists():
        raise TournamentError(
            "started", _("The scoring cannot change once the first round is paired.")
        )
    if scoring == Scoring.NATIONAL and not game_facts(tournament.variant).levels:
        raise TournamentError(
            "bad_scoring", _("The national rules score games won by levels: Bao 2 and Guandan.")
        )
    tournament.scoring = str(scoring)
    tournament.save(update_fields=["scoring"])
    return tournament
