"""The permission matrix of an event open to several clubs (issue 45, item 3): the host club is
members-only; for its organiser, a host member, an invited club's admin, an invited club's
member, a team's captain, a member of a club not invited and the anonymous visitor — who sees
the tournament (its page, the clubs and teams page, the standings and their CSVs, the API's
tournament, list and teams, a team's roster page), who invites a club, enters a team for
their club, enters one on another captain's behalf, changes the guests' team's roster, and
withdraws a team — through the services, the pages and the API. No new kind of table: the team event's
games are the tournament's tables, whose hidden-information rules are unchanged."""

import pytest
from django.test import Client
from rest_framework.test import APIClient

from clubs.models import Club, Membership, Role, User, Visibility
from tournaments.models import ClubTeam
from tournaments.services import eligibility
from tournaments.services import setup as setup_services
from tournaments.services import teams as team_services
from tournaments.services.errors import NotAllowed, TournamentError

from .test_tournament_services import START, make_tournament

ROLES = (
    "organiser",
    "host member",
    "invited admin",
    "invited member",
    "captain",
    "outsider",
    "anonymous",
)
#: role: (sees the event, invites a club, enters a team, withdraws the guests' team,
#: changes the guests' team's roster, enters a team on another captain's behalf)
MATRIX = {
    "organiser": (True, True, True, True, True, True),
    "host member": (True, False, True, False, False, False),
    "invited admin": (True, False, True, False, False, False),
    "invited member": (True, False, True, False, False, False),
    "captain": (True, False, True, True, True, False),
    "outsider": (False, False, False, False, False, False),
    "anonymous": (False, False, False, False, False, False),
}


def _club(name, slug, visibility=Visibility.PUBLIC):
    return Club.objects.create(name=name, slug=slug, visibility=visibility)


def _member(club, username, role=Role.MEMBER):
    user = User.objects.create_user(username, email=f"{username}@example.com")
    Membership.objects.create(club=club, user=user, role=role)
    return user


@pytest.fixture
def world(db):
    host = _club("南通", "nt", Visibility.MEMBERS)
    guest = _club("无锡", "wx", Visibility.MEMBERS)
    other = _club("常州", "cz")
    organiser = _member(host, "organiser", Role.OWNER)
    t = make_tournament(host, organiser, variant="guandan", team_size=1, unit_kind="pair")
    setup_services.publish(organiser, t, now=START.replace(year=2020))
    eligibility.invite_club(organiser, t, guest)
    guest_admin = _member(guest, "guestadmin", Role.OWNER)
    captain = _member(guest, "captain")
    roster = [captain, _member(guest, "g1")]
    team = team_services.enter_team(captain, t, club=guest, name="无锡队", units=[roster])
    users = {
        "organiser": organiser,
        "host member": _member(host, "hostmember"),
        "invited admin": guest_admin,
        "invited member": _member(guest, "guestmember"),
        "captain": captain,
        "outsider": _member(other, "outsider", Role.OWNER),
        "anonymous": None,
    }
    spare = {  # a partner from the role's own club, for entering a team
        "organiser": _member(host, "hostspare1"),
        "host member": _member(host, "hostspare2"),
        "invited admin": _member(guest, "guestspare1"),
        "invited member": _member(guest, "guestspare2"),
        "outsider": _member(other, "outsiderspare"),
    }
    clubs = {
        "organiser": host,
        "host member": host,
        "invited admin": guest,
        "invited member": guest,
        "captain": guest,
        "outsider": other,
    }
    # members of the guests for a roster change and a team entered on a captain's behalf
    extra = [_member(guest, "guestspare3"), _member(guest, "guestspare4"), _member(guest, "gc")]
    return {
        "t": t,
        "team": team,
        "users": users,
        "spare": spare,
        "clubs": clubs,
        "other": other,
        "extra": extra,
        "roster": roster,
    }


@pytest.mark.parametrize("role", ROLES)
def test_the_team_event_permission_matrix(world, role):
    user = world["users"][role]
    sees, invites, enters, withdraws, changes, enters_for = MATRIX[role]
    t = world["t"]
    # the pages
    client = Client()
    if user is not None:
        client.force_login(user)
    for path in (
        f"/tournaments/{t.pk}/",
        f"/tournaments/{t.pk}/teams/",
        f"/tournaments/{t.pk}/standings/",
        f"/tournaments/{t.pk}/teams.csv",
        f"/tournaments/{t.pk}/standings.csv",
        f"/tournaments/{t.pk}/teams/{world['team'].pk}/roster/",
    ):
        assert (client.get(path).status_code == 200) is sees, (role, path)
    # the API
    api = APIClient()
    if user is not None:
        api.force_authenticate(user)
    assert (api.get(f"/api/v1/tournaments/{t.pk}/").status_code == 200) is sees, role
    assert (api.get(f"/api/v1/tournaments/{t.pk}/teams/").status_code == 200) is sees, role
    listed = [row["id"] for row in api.get("/api/v1/tournaments/").json()["results"]]
    assert (t.pk in listed) is sees, role
    if user is None:
        assert api.post(f"/api/v1/tournaments/{t.pk}/invite/", {"slug": "cz"}).status_code in (
            401,
            403,
        )
        roster = f"/api/v1/tournaments/{t.pk}/teams/{world['team'].pk}/roster/"
        assert api.post(roster, {"units": []}, format="json").status_code in (401, 403)
        return
    # the services: inviting a club
    try:
        eligibility.invite_club(user, t, world["other"])
    except NotAllowed:
        invited = False
    else:
        invited = True
        eligibility.uninvite_club(user, t, world["other"])
    assert invited is invites, role
    # entering a team for the role's own club (the captain: a second team of the guests)
    club = world["clubs"][role]
    partner = world["spare"].get(role) or world["spare"]["invited member"]
    try:
        team_services.enter_team(user, t, club=club, name=f"{role}队", units=[[user, partner]])
    except NotAllowed:
        entered = False
    except TournamentError as error:  # the captain already plays in a team: refused in words
        assert role == "captain" and error.code == "players", error.message
        entered = True
    else:
        entered = True
    assert entered is enters, role
    # changing the guests' team's roster: its captain and the organiser, nobody else
    captain, first, spare3, spare4, gc = *world["roster"], *world["extra"]
    try:
        team_services.change_roster(user, t, world["team"], [[captain, spare3]])
    except NotAllowed:
        changed = False
    else:
        changed = True
    assert changed is changes, role
    api_roster = api.post(
        f"/api/v1/tournaments/{t.pk}/teams/{world['team'].pk}/roster/",
        {"units": [[captain.pk, first.pk]]},
        format="json",
    )
    assert api_roster.status_code == (200 if changes else 403 if sees else 404), role
    # entering the guests' team on another member's behalf (its captain ``gc``): organisers
    try:
        team_services.enter_team(
            user,
            t,
            club=world["clubs"]["captain"],
            name="代报队",
            units=[[spare3, spare4]],
            captain=gc,
        )
    except NotAllowed:
        entered_for = False
    else:
        entered_for = True
        assert ClubTeam.objects.get(tournament=t, name="代报队").captain == gc
    assert entered_for is enters_for, role
    # withdrawing the guests' team: its captain and the organiser
    try:
        team_services.withdraw_team(user, t, world["team"])
    except NotAllowed:
        withdrew = False
    else:
        withdrew = True
    assert withdrew is withdraws, role
    assert ClubTeam.objects.filter(pk=world["team"].pk).exists()
