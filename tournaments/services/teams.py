"""Team events between clubs: a club's named team of pairs (or players), entered by its
captain or by an organiser on a captain's behalf (:func:`enter_team`), its roster changed by
its captain or an organiser before round 1 is paired (:func:`change_roster`), and withdrawn by
either (:func:`withdraw_team`).

Each pair (or player) of a team is an entry of the tournament — paired, scored and ranked as
any entry, its ``team`` label the team's name (so a teammate may not referee its table) — and
the team standings add its entries' results up (:mod:`tournaments.team_selectors`). A team
takes one place under the cap: all its entries take part, or all wait. Entry and roster change
check the pairs with one check (:func:`roster_problems`), every problem at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.models import Club, Membership, User
from tournaments import notifications, team_selectors
from tournaments.models import (
    ACCEPTED_STATUSES,
    ACTIVE_STATUSES,
    ClubTeam,
    Entry,
    EntryStatus,
    TeamRosterChange,
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
    team event (empty otherwise); an organiser enters a team of any entering club, naming
    its captain."""
    if not tournament.team_size:
        return []
    if user is not None and can_manage(user, tournament):
        return eligibility.entering_clubs(tournament)
    return eligibility.clubs_of(user, tournament)


def may_change(user: User | None, team: ClubTeam) -> bool:
    """Whether ``user`` may change ``team``'s roster or withdraw it: its captain, or an
    organiser of its tournament (nobody else)."""
    if user is None or not user.is_authenticated:
        return False
    return user.pk == team.captain_id or can_manage(user, team.tournament)


def roster_problems(
    tournament: Tournament,
    club: Club,
    units: Sequence[Sequence[User]],
    team: ClubTeam | None = None,
) -> dict[str, list[str]]:
    """Every problem of ``units`` as ``club``'s team (empty: none), by field — the one check
    of a team's pairs (or players), at its entry and at every change of its roster: the
    tournament's ``team_size`` units of the right size, nobody named twice, every player a
    member of ``club``, in no other entry of the tournament (``team``'s own entries aside)
    and meeting the entry conditions (:func:`eligibility.condition_problems`)."""
    problems: dict[str, list[str]] = {}
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
    if team is not None:
        entered = entered.exclude(club_team=team)
    taken = {u for e in entered for u in e.user_ids}
    if taken:
        problems.setdefault("players", []).append(
            _("Already in an entry of this tournament: %(names)s.")
            % {"names": ", ".join(dict.fromkeys(p.name for p in people if p.pk in taken))}
        )
    for key, messages in eligibility.condition_problems(tournament, club, people).items():
        problems.setdefault(key, []).extend(messages)
    return problems


def _free_withdrawn(
    tournament: Tournament, ids: Sequence[int], team: ClubTeam | None = None
) -> None:
    """Remove the withdrawn entries led by ``ids`` (their ``player1``) and those of ``team``,
    so these players can be in a new entry (one entry per player of a tournament) and a team
    lists only the pairs it has. Called before round 1 is paired only: such an entry has no
    game, as :mod:`tournaments.services.entries` removes one for a new registration."""
    found = Q(player1_id__in=list(ids))
    if team is not None:
        found |= Q(club_team=team)
    tournament.entries.filter(found, status=EntryStatus.WITHDRAWN).delete()


def _name_taken(tournament: Tournament, name: str) -> bool:
    """Whether another team of ``tournament`` has ``name``: a team that withdrew before
    round 1 was paired leaves its name free (it may enter again)."""
    teams = tournament.club_teams.filter(name=name)
    if not tournament.rounds.exists():
        teams = teams.filter(
            entries__status__in=[*ACCEPTED_STATUSES, EntryStatus.WAITING]
        ).distinct()
    return teams.exists()


def _unit_name(unit: Sequence[User]) -> str:
    return " / ".join(p.name for p in unit)[:120]


@transaction.atomic
def enter_team(
    user: User,
    tournament: Tournament,
    *,
    club: Club,
    name: str,
    units: Sequence[Sequence[User]],
    captain: User | None = None,
    now: datetime | None = None,
) -> ClubTeam:
    """Enter ``club``'s team ``name`` of ``units`` (each a pair, or a player) with
    ``captain`` (``user`` unless given) as its captain: a member of ``club``, the host or an
    invited club, while registration is open. An organiser may also enter outside it, and
    enter a team on a captain's behalf (``captain`` another member of ``club``); nobody else
    names another captain. The team has the tournament's ``team_size`` entries
    (:func:`roster_problems`); every problem is refused at once, changing nothing. Its
    entries take part if the cap has a place for the team, else they wait; each player is
    told (a notice and an e-mail), and a captain who does not play and did not enter the
    team is told too."""
    tournament = locked(tournament)
    now = now or timezone.now()
    if not tournament.team_size:
        raise TournamentError("not_team_event", _("This tournament is not a team event."))
    manager = can_manage(user, tournament)
    captain = captain or user
    if captain.pk != user.pk and not manager:
        raise not_allowed()
    if not eligibility.may_enter_for(tournament, club):
        if not manager:
            raise not_allowed()
        raise eligibility.refusal(
            "club_not_invited",
            {"club": [_("%(club)s is not invited to this tournament.") % {"club": club.name}]},
        )
    captain_member = Membership.objects.filter(club=club, user=captain).exists()
    if not captain_member and captain.pk == user.pk:
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
    elif _name_taken(tournament, name):
        problems.setdefault("name", []).append(_("Another team of this tournament has this name."))
    if not captain_member:
        problems.setdefault("captain", []).append(
            _("The captain must be a member of %(club)s.") % {"club": club.name}
        )
    for key, messages in roster_problems(tournament, club, units).items():
        problems.setdefault(key, []).extend(messages)
    if problems:
        raise eligibility.refusal(next(iter(problems)), problems)
    size = unit_size(tournament)
    # a team of this name that withdrew before round 1 was paired is entered again
    tournament.club_teams.filter(name=name).delete()
    _free_withdrawn(tournament, [p.pk for unit in units for p in unit])
    status = places.new_status(tournament)
    team = ClubTeam.objects.create(tournament=tournament, club=club, name=name, captain=captain)
    seed = tournament.entries.aggregate(last=Max("seed"))["last"] or 0
    created = []
    for index, unit in enumerate(units, start=1):
        created.append(
            Entry.objects.create(
                tournament=tournament,
                player1=unit[0],
                player2=unit[1] if size == 2 else None,
                team=name,
                name=_unit_name(unit),
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
    players = {p.pk for unit in units for p in unit}
    if captain.pk != user.pk and captain.pk not in players:
        notifications.notify_captain(team, user)
    return team


@dataclass
class RosterChange:
    """What a roster change did: each changed entry with the players it had (``before``:
    names, empty for a pair added to a short team), the members who left the team and those
    who joined it, and the number of the change (1 for the team's first)."""

    team: ClubTeam
    number: int = 0
    changed: list[tuple[Entry, str]] = field(default_factory=list)
    left: list[User] = field(default_factory=list)
    joined: list[User] = field(default_factory=list)


def _roster_closed() -> TournamentError:
    return TournamentError(
        "roster_closed",
        _(
            "Round 1 is paired: the team plays as it stands. The national rules provide for "
            "no substitutes between rounds (第二十三、二十四条 deal only with withdrawals); an "
            "organiser can still withdraw a pair."
        ),
    )


@transaction.atomic
def change_roster(
    user: User,
    tournament: Tournament,
    team: ClubTeam,
    units: Sequence[Sequence[User]],
    now: datetime | None = None,
) -> RosterChange:
    """Make ``team``'s pairs (or players) ``units`` — replacing a member, a whole pair, or
    adding pairs to a team short of its ``team_size`` — by its captain or an organiser
    (nobody else), before round 1 is paired. The new roster passes the entry's own check
    (:func:`roster_problems`: every problem at once, changing nothing). A pair whose players
    are unchanged is kept as it is (its seed, status and check-in); a changed pair keeps its
    seed and place but is checked in again. The members who leave the team and those who
    join it are told once (a notice and an e-mail through the outbox), and the change is
    recorded — who, what, when — in the team's history
    (:func:`tournaments.team_selectors.roster_history`). The same roster again changes
    nothing. After round 1 is paired a change is refused with the reason: the national rules
    have no substitutes."""
    tournament = locked(tournament)
    now = now or timezone.now()
    if team.tournament_id != tournament.pk:
        raise TournamentError("not_registered", _("This team is not in the tournament."))
    team.tournament = tournament
    if not may_change(user, team):
        raise not_allowed()
    if tournament.status not in ACTIVE_STATUSES:
        raise TournamentError("closed", _("This tournament is over."))
    if tournament.rounds.exists():
        raise _roster_closed()
    current = list(
        Entry.objects.select_for_update(of=("self",))
        .filter(club_team=team)
        .exclude(status=EntryStatus.WITHDRAWN)
        .select_related("player1", "player2")
        .order_by("seed", "id")
    )
    if not current:
        raise TournamentError(
            "team_withdrawn", _("This team has withdrawn: its captain enters it again.")
        )
    problems = roster_problems(tournament, team.club, units, team=team)
    if problems:
        raise eligibility.refusal(next(iter(problems)), problems)
    # a pair named again keeps its entry; the others take the changed entries' places in
    # their order, and any more units are pairs added to a team short of its size
    wanted = [list(unit) for unit in units]
    kept: set[int] = set()
    for entry in current:
        same = next(
            (u for u in wanted if {p.pk for p in u} == set(entry.user_ids)),
            None,
        )
        if same is not None:
            kept.add(entry.pk)
            wanted.remove(same)
    changing = [e for e in current if e.pk not in kept]
    result = RosterChange(team)
    if not wanted:
        return result
    before = {u.pk: u for e in current for u in _players(e)}
    after = {p.pk: p for unit in units for p in unit}
    result.left = [u for pk, u in before.items() if pk not in after]
    result.joined = [u for pk, u in after.items() if pk not in before]
    size = unit_size(tournament)
    team_status = (
        EntryStatus.WAITING
        if all(e.status == EntryStatus.WAITING for e in current)
        else EntryStatus.REGISTERED
    )
    # one entry per player (player1) of a tournament: free the changed entries' players and
    # the withdrawn entries of the newcomers first, then write the changed pairs anew under
    # their own ids, so that nothing else (seed, time of entry, place) moves
    Entry.objects.filter(pk__in=[e.pk for e in changing]).delete()
    _free_withdrawn(tournament, list(after), team)
    seed = tournament.entries.aggregate(last=Max("seed"))["last"] or 0
    rows = []
    for index, unit in enumerate(wanted):
        old = changing[index] if index < len(changing) else None
        status = team_status if old is None else old.status
        if status == EntryStatus.CHECKED_IN:  # new players check in themselves
            status = EntryStatus.REGISTERED
        if old is None:
            seed += 1
        rows.append(
            Entry(
                pk=old.pk if old else None,
                tournament=tournament,
                player1=unit[0],
                player2=unit[1] if size == 2 else None,
                team=team.name,
                name=_unit_name(unit),
                seed=old.seed if old else seed,
                registered_at=old.registered_at if old else now,
                status=status,
                club=team.club,
                club_team=team,
            )
        )
        result.changed.append((rows[-1], old.name if old else ""))
    for row in rows:
        row.save(force_insert=True)
    result.number = _record(team, user, result.changed)
    notifications.notify_roster_change(team, result.number, result.left, result.joined)
    return result


def _record(team: ClubTeam, user: User, changed: Sequence[tuple[Entry, str]]) -> int:
    """Record a roster change in the team's history (:class:`TeamRosterChange`: who made it,
    each pair before and after, when); a captain whose roster an organiser changed is told
    (on the site and in their notification list, no e-mail), linking the history. Returns the
    change's number."""
    number = 1 + team.roster_changes.count()  # the tournament's row is locked
    record = TeamRosterChange.objects.create(
        team=team,
        number=number,
        changed_by=user,
        pairs=[[before, entry.name] for entry, before in changed],
    )
    if user.pk != team.captain_id:
        notifications.notify_users(
            team.tournament,
            [team.captain_id],
            lambda: record.text,
            url=team_selectors.history_url(team),
            key=f"roster:{team.pk}:{number}:captain",
        )
    return number


def _players(entry: Entry) -> list[User]:
    return [p for p in (entry.player1, entry.player2) if p is not None]


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
