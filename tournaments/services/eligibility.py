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
  (:func:`fill_places`, under the tournament's lock).

The settings themselves (bounds, a minimum above the maximum) are checked with the others in
:func:`tournaments.forms.check_settings`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import pgettext, pgettext_lazy

from clubs.models import Club, Membership, User
from ladder.models import Ladder, Rating
from tournaments import conditions, notifications
from tournaments.forms import label
from tournaments.models import (
    ACCEPTED_STATUSES,
    Entry,
    EntryStatus,
    RoundStatus,
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
    error = TournamentError(code, pgettext("list separator", "; ").join(lines))
    error.fields = problems  # type: ignore[attr-defined]
    return error


def entering_clubs(tournament: Tournament) -> list[Club]:
    """The clubs whose members may enter: the host, then the invited clubs by name."""
    return [tournament.club, *tournament.invited_clubs.order_by("name")]


def may_enter_for(tournament: Tournament, club: Club) -> bool:
    """Whether an entry may play for ``club``: the host club or an invited club."""
    return club.pk == tournament.club_id or tournament.invited_clubs.filter(pk=club.pk).exists()


def clubs_of(user: User | None, tournament: Tournament) -> list[Club]:
    """The clubs ``user`` may enter ``tournament`` for: the entering clubs they are a member
    of (the host first)."""
    if user is None or not user.is_authenticated:
        return []
    mine = set(Membership.objects.filter(user=user).values_list("club_id", flat=True))
    return [club for club in entering_clubs(tournament) if club.pk in mine]


def is_invited_member(user: User | None, tournament: Tournament) -> bool:
    """Whether ``user`` is a member of a club the tournament invited."""
    if user is None or not user.is_authenticated:
        return False
    return tournament.invited_clubs.filter(memberships__user=user).exists()


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
