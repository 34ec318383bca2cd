"""Team events between clubs: a club's named team of pairs (or players), entered by its
captain (:func:`enter_team`) and withdrawn by its captain or an organiser
(:func:`withdraw_team`).

Each pair (or player) of a team is an entry of the tournament — paired, scored and ranked as
any entry, its ``team`` label the team's name (so a teammate may not referee its table) — and
the team standings add its entries' results up (:mod:`tournaments.team_selectors`). A team
takes one place under the cap: all its entries take part, or all wait.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.models import Club, Membership, User
from tournaments import notifications
from tournaments.models import (
    ACTIVE_STATUSES,
    ClubTeam,
    Entry,
    EntryStatus,
    Tournament,
    UnitKind,
)
from tournaments.permissions import can_manage
from tournaments.services import eligibility, places
from tournaments.services.errors import TournamentError, not_allowed
from tournaments.services.setup import locked
from tournaments.windows import registration_open

#: The longest team name.
NAME_MAX = 60


def unit_size(tournament: Tournament) -> int:
    """Players per entry of the team: 2 for pairs, 1 for single players."""
    return 2 if tournament.unit_kind == UnitKind.PAIR else 1


def may_captain(user: User | None, tournament: Tournament) -> list[Club]:
    """The clubs ``user`` may enter a team of: the entering clubs they are a member of, in a
    team event (empty otherwise)."""
    if not tournament.team_size:
        return []
    return eligibility.clubs_of(user, tournament)


@transaction.atomic
def enter_team(
    user: User,
    tournament: Tournament,
    *,
    club: Club,
    name: str,
    units: Sequence[Sequence[User]],
    now: datetime | None = None,
) -> ClubTeam:
    """Enter ``club``'s team ``name`` of ``units`` (each a pair, or a player) with ``user`` as
    its captain: a member of ``club``, the host or an invited club, while registration is
    open (an organiser also outside it). The team has the tournament's ``team_size`` entries;
    every player is a member of ``club``, in no other entry, and meets the entry conditions;
    every problem is refused at once, changing nothing. Its entries take part if the cap has
    a place for the team, else they wait; each player is told (a notice and an e-mail)."""
    tournament = locked(tournament)
    now = now or timezone.now()
    if not tournament.team_size:
        raise TournamentError("not_team_event", _("This tournament is not a team event."))
    manager = can_manage(user, tournament)
    member = Membership.objects.filter(club=club, user=user).exists()
    if not member or not eligibility.may_enter_for(tournament, club):
        raise not_allowed()
    if tournament.status not in ACTIVE_STATUSES or (
        not manager and not registration_open(tournament, now)
    ):
        raise TournamentError("registration_closed", _("Registration is not open."))
    problems: dict[str, list[str]] = {}
    name = name.strip() if isinstance(name, str) else ""
    if not name or len(name) > NAME_MAX:
        problems.setdefault("name", []).append(
            _("Give the team a name of 1 to %(n)d characters.") % {"n": NAME_MAX}
        )
    elif tournament.club_teams.filter(name=name).exists():
        problems.setdefault("name", []).append(_("Another team of this tournament has this name."))
    size = unit_size(tournament)
    people = [p for unit in units for p in unit]
    if len(units) != tournament.team_size or any(len(unit) != size for unit in units):
        problems.setdefault("players", []).append(
            (
                _("A team has %(n)d pairs: choose both players of each.")
                if size == 2
                else _("A team has %(n)d players.")
            )
            % {"n": tournament.team_size}
        )
    ids = [p.pk for p in people]
    if len(set(ids)) != len(ids):
        problems.setdefault("players", []).append(_("A player is named twice."))
    members = set(
        Membership.objects.filter(club=club, user_id__in=ids).values_list("user_id", flat=True)
    )
    strangers = [p.name for p in people if p.pk not in members]
    if strangers:
        problems.setdefault("club", []).append(
            _("Not members of %(club)s: %(names)s.")
            % {"club": club.name, "names": ", ".join(dict.fromkeys(strangers))}
        )
    entered = tournament.entries.filter(Q(player1_id__in=ids) | Q(player2_id__in=ids)).exclude(
        status=EntryStatus.WITHDRAWN
    )
    taken = {u for e in entered for u in e.user_ids}
    if taken:
        problems.setdefault("players", []).append(
            _("Already in an entry of this tournament: %(names)s.")
            % {"names": ", ".join(p.name for p in people if p.pk in taken)}
        )
    for field, messages in eligibility.condition_problems(tournament, club, people).items():
        problems.setdefault(field, []).extend(messages)
    if problems:
        raise eligibility.refusal(next(iter(problems)), problems)
    status = places.new_status(tournament)
    team = ClubTeam.objects.create(tournament=tournament, club=club, name=name, captain=user)
    seed = tournament.entries.aggregate(last=Max("seed"))["last"] or 0
    created = []
    for index, unit in enumerate(units, start=1):
        created.append(
            Entry.objects.create(
                tournament=tournament,
                player1=unit[0],
                player2=unit[1] if size == 2 else None,
                team=name,
                name=" / ".join(p.name for p in unit)[:120],
                seed=seed + index,
                registered_at=now,
                status=status,
                club=club,
                club_team=team,
            )
        )
    for entry in created:
        if status == EntryStatus.WAITING:
            notifications.notify_waiting(entry)
        else:
            notifications.notify_registered(entry)
    return team


@transaction.atomic
def withdraw_team(
    user: User, tournament: Tournament, team: ClubTeam, now: datetime | None = None
) -> ClubTeam:
    """Withdraw every entry of ``team`` before round 1 is paired (its captain, or an
    organiser); the place it held goes to the first waiting entry or team, told once. After
    that an organiser withdraws its entries one by one (第二十三、二十四条)."""
    tournament = locked(tournament)
    now = now or timezone.now()
    if team.tournament_id != tournament.pk:
        raise TournamentError("not_registered", _("This team is not in the tournament."))
    if user.pk != team.captain_id and not can_manage(user, tournament):
        raise not_allowed()
    if tournament.rounds.exists():
        raise TournamentError(
            "organiser_only",
            _(
                "Once round 1 is paired, only an organiser can accept a withdrawal "
                "(第二十三条): ask the organiser."
            ),
        )
    leaving = list(
        Entry.objects.select_for_update()
        .filter(club_team=team)
        .exclude(status=EntryStatus.WITHDRAWN)
    )
    held = any(e.status != EntryStatus.WAITING for e in leaving)
    for entry in leaving:
        entry.status = EntryStatus.WITHDRAWN
        entry.withdrawn_at = now
    Entry.objects.bulk_update(leaving, ["status", "withdrawn_at"])
    if held:
        places.fill_places(tournament, now)
    return team
