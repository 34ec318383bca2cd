"""Who may enter a tournament open to several clubs, and the places it has.

* **Clubs.** The host club invites clubs (:func:`invite_club`, its organisers); the members
  of the host and of an invited club may enter, each entry for one club whose members all its
  players are (:func:`entering_club`).
* **Conditions** (:func:`condition_problems`, the pure check in :mod:`tournaments.conditions`):
  each player's rating and rated matches on the platform ladder of the tournament's game
  (every rated match counts there, whichever club it was played in, so players of different
  clubs are measured on one scale; a club's own ladder is not comparable with another's),
  against the tournament's ``min_rating``, ``max_rating`` and ``min_rated_matches``; every
  problem at once, each a sentence under the setting's label.
* **Places.** With a cap (``max_entries``; a team event counts teams) an entry over it waits
  (:data:`~tournaments.models.EntryStatus.WAITING`); when a place is freed before round 1
  starts, the earliest waiting entry (or team) moves up and is told through the outbox, once
  (:func:`fill_places`, under the tournament's lock; kept in
  :mod:`tournaments.services.places`).

The settings themselves (bounds, a minimum above the maximum) are checked with the others in
:func:`tournaments.forms.check_settings`.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy

from clubs import invitations
from clubs.models import Club, Membership, User
from ladder.models import Ladder, Rating
from tournaments import conditions
from tournaments.forms import label
from tournaments.models import (
    EntryStatus,
    Tournament,
    TournamentStatus,
)
from tournaments.services.errors import TournamentError
from tournaments.services.setup import managed

#: The most clubs one tournament invites.
MAX_INVITED = 50

#: Labels of what an entry names that is no setting (a team's name, its players, its club).
LABELS = {
    "club": pgettext_lazy("entry field", "Club"),
    "players": pgettext_lazy("entry field", "Players"),
    "name": pgettext_lazy("entry field", "Team name"),
}


def field_label(field: str) -> str:
    """How a refusal names ``field``: a setting's label, or the entry form's."""
    if field in LABELS:
        return str(LABELS[field])
    return label(field)


def refusal(code: str, problems: dict[str, list[str]]) -> TournamentError:
    """One refusal listing every problem, each under the label of its field (``fields`` keeps
    them per field, as the settings check does, so a form shows each beside its field and the
    API answers them by name)."""
    lines = [
        _("%(field)s: %(message)s") % {"field": field_label(field), "message": message}
        for field, messages in problems.items()
        for message in messages
    ]
    error = TournamentError(code, " ".join(lines))
    error.fields = problems  # type: ignore[attr-defined]
    return error


def entering_clubs(tournament: Tournament) -> list[Club]:
    """The clubs whose members may enter: the host, then the invited clubs by name (the
    rule :mod:`clubs.invitations`, shared with leagues)."""
    return invitations.taking_part(tournament.club, tournament.invited_clubs.all())


def may_enter_for(tournament: Tournament, club: Club) -> bool:
    """Whether an entry may play for ``club``: the host club or an invited club
    (:func:`clubs.invitations.takes_part`, the rule leagues read too)."""
    return invitations.takes_part(club, tournament.club_id, tournament.invited_clubs.all())


def clubs_of(user: User | None, tournament: Tournament) -> list[Club]:
    """The clubs ``user`` may enter ``tournament`` for: the entering clubs they are a member
    of (the host first)."""
    if user is None or not user.is_authenticated:
        return []
    mine = set(Membership.objects.filter(user=user).values_list("club_id", flat=True))
    return [club for club in entering_clubs(tournament) if club.pk in mine]


def entering_club(tournament: Tournament, people: Sequence[User], club: Club | None = None) -> Club:
    """The club an entry of ``people`` plays for: ``club`` if given (it must be the host or
    an invited club), else the first entering club (the host first) all of them are members
    of. Refused, changing nothing, when there is none."""
    if club is not None and not may_enter_for(tournament, club):
        raise refusal(
            "club_not_invited",
            {"club": [_("%(club)s is not invited to this tournament.") % {"club": club.name}]},
        )
    candidates = [club] if club is not None else entering_clubs(tournament)
    ids = {p.pk for p in people}
    for candidate in candidates:
        members = Membership.objects.filter(club=candidate, user_id__in=ids).count()
        if members == len(ids):
            return candidate
    if len(candidates) == 1 and not tournament.invited_clubs.exists():
        message = _("Every player must be a member of the club.")
    else:
        message = _(
            "Every player must be a member of the host club or of an invited club, all of "
            "the same club."
        )
    raise refusal("not_member", {"club": [message]})


def condition_problems(
    tournament: Tournament, club: Club, people: Sequence[User]
) -> dict[str, list[str]]:
    """Each entry condition a player of ``people`` does not meet, by setting, in sentences
    naming the player and the numbers (empty: they may enter). Ratings are read from the
    platform ladder of the tournament's game (``club`` is the club the entry plays for)."""
    wanted = conditions.Conditions(
        tournament.min_rating, tournament.max_rating, tournament.min_rated_matches
    )
    if wanted == conditions.Conditions():
        return {}
    ladder = Ladder.objects.filter(club__isnull=True, variant=tournament.variant).first()
    ratings = {
        r.user_id: r
        for r in Rating.objects.filter(ladder=ladder, user__in=[p.pk for p in people])
        if ladder is not None
    }
    players = [
        conditions.Player(
            p.name,
            ratings[p.pk].rating if p.pk in ratings else None,
            ratings[p.pk].matches if p.pk in ratings else 0,
        )
        for p in people
    ]
    out: dict[str, list[str]] = {}
    for problem in conditions.problems(wanted, players):
        out.setdefault(problem.field, []).append(_sentence(problem))
    return out


def _sentence(problem: conditions.Problem) -> str:
    """A condition not met, in words."""
    facts = {"name": problem.player, "bound": problem.bound}
    if problem.field == "min_rated_matches":
        return _("%(name)s has played %(n)d rated matches of this game; %(bound)d are needed.") % {
            **facts,
            "n": int(problem.value or 0),
        }
    if problem.value is None:
        return _("%(name)s has no rating in this game yet.") % facts
    facts["rating"] = round(problem.value)
    if problem.field == "min_rating":
        return _("%(name)s's rating is %(rating)d, below %(bound)d.") % facts
    return _("%(name)s's rating is %(rating)d, above %(bound)d.") % facts


def check_entry(tournament: Tournament, people: Sequence[User], club: Club | None = None) -> Club:
    """The club an entry of ``people`` plays for (:func:`entering_club`), once every player
    meets the entry conditions; refused with every problem at once otherwise."""
    club = entering_club(tournament, people, club)
    problems = condition_problems(tournament, club, people)
    if problems:
        raise refusal(next(iter(problems)), problems)
    return club


@transaction.atomic
def invite_club(user: User, tournament: Tournament, club: Club) -> Tournament:
    """Invite ``club`` (the host club's organisers): its members may then enter. Inviting a
    club already invited changes nothing; the host takes part without an invitation."""
    tournament = managed(user, tournament)
    if tournament.status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED):
        raise TournamentError("closed", _("This tournament is over."))
    if club.pk == tournament.club_id:
        raise refusal("host_club", {"club": [_("The host club takes part without an invitation.")]})
    if tournament.invited_clubs.count() >= MAX_INVITED and not may_enter_for(tournament, club):
        raise refusal(
            "too_many_clubs",
            {"club": [_("A tournament invites at most %(n)d clubs.") % {"n": MAX_INVITED}]},
        )
    tournament.invited_clubs.add(club)
    return tournament


@transaction.atomic
def uninvite_club(user: User, tournament: Tournament, club: Club) -> Tournament:
    """Take back an invitation (organisers), while no entry of the club is in (withdrawn ones
    aside)."""
    tournament = managed(user, tournament)
    playing = tournament.entries.filter(club=club).exclude(status=EntryStatus.WITHDRAWN)
    if playing.exists():
        raise refusal(
            "club_has_entries",
            {
                "club": [
                    _("%(club)s has entries in this tournament: they withdraw first.")
                    % {"club": club.name}
                ]
            },
        )
    tournament.invited_clubs.remove(club)
    return tournament


def find_club(slug: str = "", pk: int | None = None) -> Club:
    """The club named by its id (``pk``) or its address name (``slug``), refused in words
    when there is none."""
    found = Club.objects.filter(pk=pk) if pk else Club.objects.filter(slug=str(slug).strip()[:60])
    club = found.first()
    if club is None:
        raise refusal("no_club", {"club": [_("No club has this address name.")]})
    return club


#: Most members offered as partners on the tournament page.
CANDIDATES_MAX = 500


def partner_candidates(user: User | None, tournament: Tournament) -> list[User]:
    """The members offered as a partner to ``user`` on the tournament page: the members of
    the entering clubs ``user`` belongs to (the host first), at most :data:`CANDIDATES_MAX`."""
    clubs = clubs_of(user, tournament)
    found: dict[int, User] = {}
    for club in clubs:
        room = CANDIDATES_MAX - len(found)
        if room <= 0:
            break
        memberships = Membership.objects.filter(club=club).select_related("user").order_by("pk")
        for membership in memberships[:room]:
            found.setdefault(membership.user_id, membership.user)
    return list(found.values())
