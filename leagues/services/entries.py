"""Entries of a season: teams with their rosters, pairs, single players; late entries and
withdrawals (the way Tabbycat and Challonge handle them: see docs/leagues.md).

A player who enters a pair names a partner, who must accept: the entry is pending (not drawn,
not in the standings) until then. A declined, lapsed or withdrawn invitation removes it, so
both players may enter again, with anyone; a club admin entering two other players enters
them at once."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs import partners
from clubs.models import Club, Membership, User
from clubs.services import require_club_visible
from leagues import notices
from leagues.models import (
    TEAM_MAX,
    TEAM_MIN,
    Division,
    Entry,
    EntryKind,
    Fixture,
    FixtureStatus,
    LineUpPair,
    ResultSource,
    RoundStatus,
    ScheduleFormat,
    Season,
    SeasonStatus,
    Team,
    TeamMember,
)
from leagues.permissions import can_enter, can_manage_entry, may_enter
from leagues.services import standings
from leagues.services.errors import LeagueError, not_allowed, refuse
from leagues.services.fixtures import OPEN
from leagues.services.setup import window_start

#: How long a named partner has to answer (never past the opening of the first round).
PARTNER_ANSWER = partners.PARTNER_ANSWER


class LeaguePartners(partners.PartnerInvitations[Season, Entry]):
    """The partner-invitation flow (:mod:`clubs.partners`) of league seasons: a pending pair
    has an ``answer_by``; the answer is due before the first round opens; accepting enters
    the pair (in a running season as a late entry, from the next round); the players are
    told through :mod:`leagues.notices`."""

    entry_model = Entry
    event_field = "season"

    def pending_entries(self) -> QuerySet[Entry]:
        """Entries with an ``answer_by``."""
        return Entry.objects.filter(answer_by__isnull=False)

    def is_pending(self, entry: Entry) -> bool:
        """Whether the entry has an ``answer_by``."""
        return entry.answer_by is not None

    def lock_event(self, event_id: int) -> Season:
        """The season locked, with its league."""
        return Season.objects.select_for_update().select_related("league").get(pk=event_id)

    def answer_limits(self, event: Season) -> list[datetime | None]:
        """The opening of the first round."""
        return [window_start(event.starts_on)]

    def lapsed(self, entry: Entry, event: Season, now: datetime) -> bool:
        """Its time is up or the season is closed."""
        return now >= entry.answer_by or event.status == SeasonStatus.CLOSED

    def accepted(self, entry: Entry, event: Season, now: datetime) -> None:
        """Enter the pair from the first round it can join (refused when none is left) and
        tell the player who entered it."""
        first_round = _late(event)
        entry.answer_by = None
        entry.joined_round = first_round
        entry.save(update_fields=["answer_by", "joined_round"])
        if first_round > 1:
            _place_late(entry, first_round)
        notices.partner_accepted(entry)

    def notify_invited(self, entry: Entry) -> None:
        """See :func:`leagues.notices.partner_invited`."""
        notices.partner_invited(entry)

    def notify_closed(self, entry: Entry, why: str, actor: User | None) -> None:
        """See :func:`leagues.notices.invitation_closed`."""
        notices.invitation_closed(entry, why, actor)

    def refuse(self, code: str, message: str) -> LeagueError:
        """A :class:`leagues.services.errors.LeagueError`."""
        return refuse(code, message)

    def not_allowed(self) -> LeagueError:
        """See :func:`leagues.services.errors.not_allowed`."""
        return not_allowed()


#: The leagues' partner invitations.
PARTNERS = LeaguePartners()


def _fresh(season: Season) -> Season:
    """The season as stored now, locked (its status decides what an entry may do)."""
    return Season.objects.select_for_update().select_related("league").get(pk=season.pk)


def _division(season: Season, division: Division | None) -> Division:
    if division is None:
        division = season.divisions.order_by("-level").first()
    if division is None or division.season_id != season.pk:
        raise refuse("bad_division", _("Choose a division of this season."))
    return division


def _members(club: Club, ids: Sequence[int]) -> None:
    found = Membership.objects.filter(club=club, user_id__in=ids).count()
    if found != len(set(ids)):
        raise refuse("not_member", _("Every player must be a member of the club."))


def _taken(season: Season, ids: Sequence[int], team: Team | None = None) -> None:
    """No player plays for two entries of one season (a pending pair counts; a lapsed one is
    removed first)."""
    PARTNERS.remove_lapsed(season, ids, timezone.now())
    clash = TeamMember.objects.filter(season=season, user_id__in=ids)
    if team is not None:
        clash = clash.exclude(team=team)
    pairs = Entry.objects.filter(season=season).filter(
        Q(player1_id__in=ids) | Q(player2_id__in=ids)
    )
    if clash.exists() or pairs.exists():
        raise refuse("already_entered", _("A player is already in another entry of this season."))


def _late(season: Season) -> int:
    """The first round a new entry can join: 1 before the start; in a running season the
    next round not yet open (Swiss), or refused for a round robin without a free bye."""
    if season.status == SeasonStatus.DRAFT:
        return 1
    if season.status != SeasonStatus.RUNNING:
        raise refuse("season_closed", _("This season is closed."))
    nxt = season.rounds.filter(status=RoundStatus.DRAWN).order_by("number").first()
    if nxt is None:
        raise refuse("no_rounds_left", _("No round is left to join."))
    return nxt.number


def _place_late(entry: Entry, first_round: int) -> None:
    """A late entry in a running season. Swiss: it is drawn from the next round on. Round
    robin: it takes the bye of every round from ``first_round`` on (the phantom's place in
    the circle), so the draw of everyone else stands; an even division has no bye to take,
    and the entry is refused (as Challonge does once a round robin has started)."""
    if entry.season.format == ScheduleFormat.SWISS:
        return
    byes = Fixture.objects.filter(
        division=entry.division, away__isnull=True, round__number__gte=first_round
    )
    if not byes.exists():
        raise refuse(
            "no_free_place",
            _("This division has no free place left in its round robin; enter next season."),
        )
    byes.update(away=entry, status=FixtureStatus.PENDING)


#: Most members offered on the entry form (a club larger than this enters through the API).
CANDIDATES_MAX = 500


def entry_candidates(user: User | None, season: Season, club: Club) -> list[User]:
    """The members of ``club`` offered on the form entering it in ``season`` (at most
    :data:`CANDIDATES_MAX`). A members-only club's members are listed to its members only:
    anyone else gets :class:`clubs.services.MembersOnly` (404), as for every other view of
    the club's members (the caller has checked that ``user`` may see the season's league)."""
    require_club_visible(user, club)
    memberships = Membership.objects.filter(club=club).select_related("user").order_by("pk")
    return [m.user for m in memberships[:CANDIDATES_MAX]]


@transaction.atomic
def enter_team(
    user: User,
    season: Season,
    club: Club,
    *,
    name: str,
    captain: User,
    players: Sequence[User],
    division: Division | None = None,
) -> Entry:
    """Enter a team of ``club`` (by one of its admins): a name, a captain and
    :func:`roster_bounds` players of the club (the captain among them), none in another entry
    of the season."""
    season = _fresh(season)
    if not can_enter(user, season, club):
        raise not_allowed()
    if season.entry_kind != EntryKind.TEAM:
        raise refuse("not_team_season", _("This season is not played by teams."))
    ids = list(dict.fromkeys([captain.pk, *(p.pk for p in players)]))
    _check_roster(season, ids)
    name = str(name).strip()[:60]
    if not name:
        raise refuse("bad_name", _("Give the team a name."))
    _members(club, ids)
    _taken(season, ids)
    division = _division(season, division)
    first_round = _late(season)
    try:
        with transaction.atomic():
            team = Team.objects.create(season=season, club=club, name=name, captain=captain)
    except IntegrityError:
        raise refuse("name_taken", _("Another team of this season has this name.")) from None
    TeamMember.objects.bulk_create(TeamMember(team=team, season=season, user_id=i) for i in ids)
    entry = Entry.objects.create(
        season=season,
        division=division,
        club=club,
        name=name,
        team=team,
        seed=division.entries.count() + 1,
        joined_round=first_round,
    )
    if first_round > 1:
        _place_late(entry, first_round)
    standings.changed(season.pk)
    return entry


@transaction.atomic
def enter_players(
    user: User,
    season: Season,
    club: Club,
    *,
    players: Sequence[User],
    division: Division | None = None,
) -> Entry:
    """Enter a pair (two players) or a single player of ``club``: a player enters
    themselves (with a partner), or a club admin enters them."""
    season = _fresh(season)
    if season.entry_kind == EntryKind.TEAM:
        raise refuse("team_season", _("This season is played by teams."))
    ids = list(dict.fromkeys(p.pk for p in players))
    want = 2 if season.entry_kind == EntryKind.PAIR else 1
    if len(ids) != want:
        raise refuse("bad_players", _("This season's entries have %(n)d players.") % {"n": want})
    if not (can_enter(user, season, club) or (user.pk in ids and _may_self_enter(season, club))):
        raise not_allowed()
    # a player entering a pair with a partner: the partner must accept (player1 is the one
    # who asked)
    invited = want == 2 and user.pk in ids
    if invited:
        ids.sort(key=lambda i: i != user.pk)
    _members(club, ids)
    _taken(season, ids)
    division = _division(season, division)
    first_round = _late(season)
    named = {u.pk: u.name for u in players}
    entry = Entry.objects.create(
        season=season,
        division=division,
        club=club,
        name=" / ".join(named[i] for i in ids),
        player1_id=ids[0],
        player2_id=ids[1] if want == 2 else None,
        seed=division.entries.count() + 1,
        joined_round=first_round,
        answer_by=PARTNERS.answer_by(season, timezone.now()) if invited else None,
    )
    if invited:
        PARTNERS.invited(entry)
    elif first_round > 1:
        _place_late(entry, first_round)
    standings.changed(season.pk)
    return entry


def answer_invitation(
    user: User, entry: Entry, *, accept: bool, now: datetime | None = None
) -> Entry:
    """Accept or decline the invitation to play as ``entry``'s partner: see
    :meth:`clubs.partners.PartnerInvitations.answer`. Accepting enters the pair (in a running
    season as a late entry, from the next round); declining removes it, so both are free
    again; either answer is told to the player who entered the pair. A lapsed invitation
    cannot be accepted."""
    return PARTNERS.answer(user, entry, accept=accept, now=now)


def expire_invitations(now: datetime | None = None) -> int:
    """Remove every pending pair whose invitation has lapsed and tell both players (beat).
    Returns how many were removed."""
    return PARTNERS.expire(now)


def _may_self_enter(season: Season, club: Club) -> bool:
    return may_enter(club, season.league)


def roster_bounds(season: Season) -> tuple[int, int]:
    """The smallest and largest roster of a team of ``season``: 4 to 10 players, and at
    least the two players a line-up sends to each of the season's tables."""
    return max(TEAM_MIN, 2 * season.team_tables), TEAM_MAX


def _check_roster(season: Season, ids: Sequence[int]) -> None:
    low, high = roster_bounds(season)
    if not low <= len(ids) <= high:
        raise refuse(
            "bad_roster", _("A team has %(min)d to %(max)d players.") % {"min": low, "max": high}
        )


def eligible_players(team: Team) -> list[User]:
    """The members of ``team``'s club who may be on its roster: its players first, then (at
    most 500, by name) every other member in no entry of the season."""
    season = team.season
    by_name = ("display_name", "username")
    players = list(User.objects.filter(league_teams__team=team).order_by(*by_name))
    taken = TeamMember.objects.filter(season=season).values("user_id")
    paired = Entry.objects.filter(season=season).values_list("player1_id", "player2_id")
    others = {uid for pair in paired for uid in pair if uid}
    free = (
        User.objects.filter(memberships__club_id=team.club_id)
        .exclude(pk__in=taken)
        .exclude(pk__in=others)
        .order_by(*by_name)
    )
    return players + list(free[:500])


@transaction.atomic
def set_roster(
    user: User, team: Team, players: Sequence[User], captain: User | None = None
) -> Team:
    """Change a team's roster and captain (its captain, its club's admins or the host club's
    admins): the captain and ``players`` together make the roster — members of the team's
    club, :func:`roster_bounds` of them, none in another entry of the season. A player named
    in a line-up of a fixture still to play stays (change the line-up first); a closed season
    or a withdrawn team changes nothing."""
    team = Team.objects.select_for_update().select_related("season__league").get(pk=team.pk)
    entry = Entry.objects.select_related("season__league", "team").get(team=team)
    if not can_manage_entry(user, entry):
        raise not_allowed()
    season = team.season
    if season.status == SeasonStatus.CLOSED:
        raise refuse("season_closed", _("This season is closed."))
    if entry.withdrawn_at is not None:
        raise refuse("withdrawn", _("This entry has withdrawn."))
    captain = captain or team.captain
    ids = list(dict.fromkeys([captain.pk, *(p.pk for p in players)]))
    _check_roster(season, ids)
    _members(team.club, ids)
    _taken(season, ids, team=team)
    leaving = set(team.members.exclude(user_id__in=ids).values_list("user_id", flat=True))
    named = LineUpPair.objects.filter(lineup__entry=entry, lineup__fixture__status__in=OPEN).filter(
        Q(player1_id__in=leaving) | Q(player2_id__in=leaving)
    )
    if leaving and named.exists():
        raise refuse(
            "in_lineup",
            _("A player you remove is in a line-up of a fixture still to play; change it first."),
        )
    team.members.filter(user_id__in=leaving).delete()
    have = set(team.members.values_list("user_id", flat=True))
    try:
        with transaction.atomic():
            TeamMember.objects.bulk_create(
                TeamMember(team=team, season=season, user_id=i) for i in ids if i not in have
            )
    except IntegrityError:  # another team took the player meanwhile
        raise refuse(
            "already_entered", _("A player is already in another entry of this season.")
        ) from None
    if captain.pk != team.captain_id:
        team.captain = captain
        team.save(update_fields=["captain"])
    return team


@transaction.atomic
def withdraw(user: User, entry: Entry, now: datetime | None = None) -> Entry:
    """Withdraw an entry (its captain, its club's admins or the host's admins). Before the
    start it is removed (so is a pending pair: its invitation is withdrawn); in a running
    season its played fixtures stand and every fixture still to play is lost by forfeit
    (Challonge's rule), and a Swiss season draws it no more (Tabbycat's: a withdrawn team is
    left out of the next draws)."""
    if not can_manage_entry(user, entry):
        raise not_allowed()
    season = _fresh(entry.season)
    now = now or timezone.now()
    if entry.answer_by is not None:  # a pending pair: the invitation is withdrawn
        return PARTNERS.withdraw(user, entry)
    standings.changed(season.pk)
    if season.status == SeasonStatus.DRAFT:
        if entry.team_id:
            entry.team.delete()  # cascades to the entry
        else:
            entry.delete()
        return entry
    if entry.withdrawn_at is not None:
        raise refuse("withdrawn", _("This entry has withdrawn."))
    entry.withdrawn_at = now
    entry.save(update_fields=["withdrawn_at"])
    open_fixtures = Fixture.objects.filter(Q(home=entry) | Q(away=entry)).exclude(
        status__in=[FixtureStatus.DONE, FixtureStatus.BYE, FixtureStatus.PLAYING]
    )
    for fixture in open_fixtures:
        winner = 1 if fixture.home_id == entry.pk else 0
        fixture.home_score = fixture.away_score = 0
        fixture.winner = winner
        fixture.source = ResultSource.FORFEIT
        fixture.status = FixtureStatus.DONE
        fixture.finished_at = now
        fixture.save()
    return entry
