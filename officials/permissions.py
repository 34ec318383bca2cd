"""Who may do what among an event's officials: the one permissions module of the services,
views and API.

* the event's **organiser** — an admin of the tournament's club, of the league's host club —
  appoints and removes officials, sets the appeal time and sends announcements;
* an appointed **referee** or the **chief referee** referees the event's tables
  (:func:`can_referee_table`, registered with live play), unless they have a stake in one (live
  play asks that: :func:`matches.services.access.may_referee`); the chief referee also
  removes a referee (第三十五条: 终止该裁判员的执裁资格) and reads every appeal;
* a member of the **appeals committee** reads every appeal and votes on it, unless they play
  in the game appealed (or filed it);
* a **player** of a tournament game, or of a league fixture's table (seated there), files an
  appeal about it, and reads the appeals of their games and tables.

Every power comes from a current role: an appointment counts only while the person is a
member of the event's club (for an inter-club league: the host or an invited club), checked at
every action; a removed member keeps nothing.
"""

from __future__ import annotations

from typing import TypeGuard

from clubs.models import Membership, User
from leagues import permissions as league_permissions
from leagues.models import Entry as LeagueEntry
from leagues.models import FixtureTable, Season
from officials.models import Appeal, Official, OfficialRole, Panel
from tournaments import permissions as tournament_permissions
from tournaments.models import Entry, Game, Tournament

#: The roles that referee the event's tables.
REFEREEING = (OfficialRole.CHIEF, OfficialRole.DEPUTY, OfficialRole.REFEREE)


def _signed_in(user: User | None) -> TypeGuard[User]:
    return user is not None and user.is_authenticated


def event_of(panel: Panel) -> Tournament | Season:
    """The tournament or the season of ``panel``."""
    if panel.tournament_id is not None:
        assert panel.tournament is not None
        return panel.tournament
    assert panel.season is not None
    return panel.season


def is_member(user: User | None, panel: Panel) -> bool:
    """Whether ``user`` is now a member of ``panel``'s event's club (a season: its league's
    host club, or in an inter-club league one of the invited clubs)."""
    if not _signed_in(user):
        return False
    event = event_of(panel)
    if isinstance(event, Tournament):
        return Membership.objects.filter(user=user, club_id=event.club_id).exists()
    league = event.league
    clubs = [league.host_id]
    if league.inter_club:
        clubs += list(league.invited_clubs.values_list("pk", flat=True))
    return Membership.objects.filter(user=user, club_id__in=clubs).exists()


def is_organiser(user: User | None, panel: Panel) -> bool:
    """Whether ``user`` runs ``panel``'s event (the club's admins)."""
    if not _signed_in(user):
        return False
    event = event_of(panel)
    if isinstance(event, Tournament):
        return tournament_permissions.can_manage(user, event)
    return league_permissions.can_manage(user, event.league)


def can_see_event(user: User | None, panel: Panel) -> bool:
    """Whether ``user`` may see ``panel``'s event (and so its officials page)."""
    event = event_of(panel)
    if isinstance(event, Tournament):
        return tournament_permissions.can_view(user, event)
    return league_permissions.can_see_league(user, event.league)


def role_of(user: User | None, panel: Panel) -> str | None:
    """``user``'s current role among ``panel``'s officials: their appointment, while they
    are a member of the event's club; None otherwise."""
    if not _signed_in(user):
        return None
    role = Official.objects.filter(panel=panel, user_id=user.pk).values_list("role", flat=True)
    found = role.first()
    if found is None or not is_member(user, panel):
        return None
    return found


def _panel_of_table(table: object) -> Panel | None:
    pk = getattr(table, "pk", None)
    if not isinstance(pk, int):
        return None
    game = Game.objects.filter(table_id=pk).values_list("round__tournament_id", flat=True).first()
    if game is not None:
        return Panel.objects.select_related("tournament").filter(tournament_id=game).first()
    season = (
        FixtureTable.objects.filter(table_ref=pk)
        .values_list("fixture__round__season_id", flat=True)
        .first()
    )
    if season is not None:
        return Panel.objects.select_related("season__league").filter(season_id=season).first()
    return None


def can_referee_table(user: User | None, table: object) -> bool:
    """Whether ``user`` holds a referee's role at a live ``table`` now: the table plays a game
    of a tournament or a fixture of a season whose chief referee or referee they are, and
    they are still a member of its club. A stake in the table is live play's question
    (:func:`matches.services.access.has_stake`): an appointed referee never referees a table
    they, their partner or a teammate play at."""
    if not _signed_in(user):
        return False
    panel = _panel_of_table(table)
    return panel is not None and role_of(user, panel) in REFEREEING


def can_dismiss(user: User | None, official: Official) -> bool:
    """The organiser removes any official; the chief referee removes a referee (第三十五条一),
    and so does a deputy while the event has no chief referee (第三十五条二: the deputy acts
    for them)."""
    panel = official.panel
    if is_organiser(user, panel):
        return True
    if official.role != OfficialRole.REFEREE:
        return False
    return acts_as_chief(user, panel)


def acts_as_chief(user: User | None, panel: Panel) -> bool:
    """The chief referee, or a deputy while the event has no chief referee (第三十五条二: the
    deputy acts for them)."""
    role = role_of(user, panel)
    if role == OfficialRole.CHIEF:
        return True
    chiefs = Official.objects.filter(panel=panel, role=OfficialRole.CHIEF).select_related("user")
    return role == OfficialRole.DEPUTY and not any(is_member(c.user, panel) for c in chiefs)


def players_of(game: Game) -> set[int]:
    """The user ids of the players of ``game``'s entries."""
    users: set[int] = set()
    for entry in Entry.objects.filter(pk__in=[*game.side0, *game.side1]):
        users.update(entry.user_ids)
    return users


def seated_at(table: FixtureTable) -> set[int]:
    """The user ids of the players seated at a league fixture's ``table``."""
    return {pk for pk in table.seat_users if isinstance(pk, int)}


def _entry_players(entry: LeagueEntry | None) -> set[int]:
    """Who plays for a league entry: a pair's players, a team's captain and roster."""
    if entry is None:
        return set()
    ids = {pk for pk in (entry.player1_id, entry.player2_id) if pk}
    if entry.team_id is not None:
        assert entry.team is not None
        ids.add(entry.team.captain_id)
        ids.update(entry.team.members.values_list("user_id", flat=True))
    return ids


def appellants(appeal: Appeal) -> set[int]:
    """Who may file and read appeals about ``appeal``'s game or table: the players of a
    tournament game's entries, the players seated at a league table."""
    if appeal.game_id is not None:
        assert appeal.game is not None
        return players_of(appeal.game)
    assert appeal.table is not None
    return seated_at(appeal.table)


def stake_in(appeal: Appeal) -> set[int]:
    """Who has a stake in ``appeal``'s result and so may not judge it: a tournament game's
    players; for a league table, everyone seated at any table of its fixture and everyone
    who plays for its home or away side (a teammate's table decides the team's fixture)."""
    if appeal.game_id is not None:
        assert appeal.game is not None
        return players_of(appeal.game)
    assert appeal.table is not None
    fixture = appeal.table.fixture
    ids: set[int] = set()
    for seats in fixture.tables.values_list("seat_users", flat=True):
        ids.update(pk for pk in seats if isinstance(pk, int))
    for entry in (fixture.home, fixture.away):
        ids.update(_entry_players(entry))
    return ids


def reads_every_appeal(user: User | None, panel: Panel) -> bool:
    """The organiser, the chief referee and deputies, and the appeals committee read every
    appeal."""
    return is_organiser(user, panel) or role_of(user, panel) in (
        OfficialRole.CHIEF,
        OfficialRole.DEPUTY,
        OfficialRole.COMMITTEE,
    )


def can_read_appeal(user: User | None, appeal: Appeal) -> bool:
    """Who reads ``appeal``: those who read every appeal, and the players of its game or
    table."""
    if not _signed_in(user):
        return False
    return reads_every_appeal(user, appeal.panel) or user.pk in appellants(appeal)


def may_rule(user: User | None, appeal: Appeal) -> bool:
    """Who gives the first ruling on an appeal (第三十九条二.1): the chief referee (or the
    deputy acting for them) with no stake in the game or fixture, who did not file it."""
    if not _signed_in(user) or not acts_as_chief(user, appeal.panel):
        return False
    return user.pk != appeal.filed_by_id and user.pk not in stake_in(appeal)


def may_vote(user: User | None, appeal: Appeal) -> bool:
    """A current member of the event's appeals committee who neither has a stake in the
    game or fixture appealed (:func:`stake_in`) nor filed the appeal (they may not judge
    their own cause)."""
    if not _signed_in(user) or role_of(user, appeal.panel) != OfficialRole.COMMITTEE:
        return False
    return user.pk != appeal.filed_by_id and user.pk not in stake_in(appeal)


def may_mark_fee(user: User | None, appeal: Appeal) -> bool:
    """Who records that an appeal's fee was received (第三十九条一.4: paid to the organising
    committee with the appeal): the event's organiser, and the chief referee (or a deputy
    while the event has none), as they stand now; never the person who filed the appeal."""
    if not _signed_in(user) or user.pk == appeal.filed_by_id:
        return False
    return is_organiser(user, appeal.panel) or acts_as_chief(user, appeal.panel)


def same_side(appeal: Appeal, first: int, second: int) -> bool:
    """Whether the players ``first`` and ``second`` (user ids) play on the same side of
    ``appeal``'s game (the same side's entries) or table (seats 0 and 2, or 1 and 3)."""
    if appeal.game_id is not None:
        assert appeal.game is not None
        game = appeal.game
        for side in (game.side0, game.side1):
            users: set[int] = set()
            for entry in Entry.objects.filter(pk__in=side):
                users.update(entry.user_ids)
            if first in users:
                return second in users
        return False
    assert appeal.table is not None
    seats = list(appeal.table.seat_users)
    if first not in seats or second not in seats:
        return False
    return seats.index(first) % 2 == seats.index(second) % 2
