"""A team's roster: who may change it (web, API, service alike) and the rules it keeps."""

import pytest
from django.test import Client
from django.utils import translation
from django.utils.translation import gettext

from clubs.models import Membership
from games.errors import NotAllowed
from leagues.models import SeasonStatus, TeamMember
from leagues.services import entries, fixtures
from leagues.services.errors import LeagueError

#: Who may change the home (host club) team's roster, and the guest team's.
ALLOWED = {
    "host_admin": (True, True),
    "guest_admin": (False, True),
    "other_admin": (False, False),
    "home_captain": (True, False),
    "home_player": (False, False),
    "outsider": (False, False),
    "anonymous": (False, False),
}


def actor(world, two_teams, role):
    _season, _fixture, (_a, pa), _ = two_teams
    return {
        "host_admin": world.host_admin,
        "guest_admin": world.guest_admin,
        "other_admin": world.other_admin,
        "home_captain": pa[0],
        "home_player": pa[1],
        "outsider": world.outsider,
        "anonymous": None,
    }[role]


def roster(entry):
    return set(TeamMember.objects.filter(team=entry.team).values_list("user_id", flat=True))


def test_the_captain_adds_and_removes_players_and_hands_over(world, two_teams):
    season, fixture, (a, pa), _ = two_teams
    new = [world.member(world.host) for _ in range(2)]
    entries.set_roster(pa[0], a.team, [pa[1], pa[2], *new], captain=pa[0])
    assert roster(a) == {pa[0].pk, pa[1].pk, pa[2].pk, new[0].pk, new[1].pk}
    entries.set_roster(pa[0], a.team, [pa[0], pa[2], *new], captain=pa[1])
    a.team.refresh_from_db()
    assert a.team.captain == pa[1]  # the new captain is on the roster although not listed
    assert roster(a) == {pa[0].pk, pa[1].pk, pa[2].pk, new[0].pk, new[1].pk}
    with pytest.raises(NotAllowed):  # the old captain no longer speaks for the team
        entries.set_roster(pa[0], a.team, pa[:4])


@pytest.mark.parametrize(
    "change,code",
    [
        ("too_few", "bad_roster"),
        ("too_many", "bad_roster"),
        ("guest_player", "not_member"),
        ("other_team", "already_entered"),
        ("in_lineup", "in_lineup"),
        ("closed", "season_closed"),
    ],
)
def test_a_roster_keeps_its_rules(world, two_teams, change, code):
    season, fixture, (a, pa), (b, pb) = two_teams
    players = pa[1:]
    if change == "too_few":
        players = pa[1:3]
    elif change == "too_many":
        players = pa[1:] + [world.member(world.host) for _ in range(7)]
    elif change == "guest_player":
        players = [*pa[1:], world.member(world.guest)]
    elif change == "other_team":  # a member of both clubs, already on the guest team
        Membership.objects.create(club=world.host, user=pb[1])
        players = [*pa[1:], pb[1]]
    elif change == "in_lineup":
        fixtures.submit_lineup(pa[0], fixture, [pa[:2], pa[2:]])
        players = [pa[1], pa[2], world.member(world.host)]  # drops pa[3], who is lined up
    elif change == "closed":
        season.status = SeasonStatus.CLOSED
        season.save(update_fields=["status"])
    before = roster(a)
    with pytest.raises(LeagueError) as caught:
        entries.set_roster(pa[0], a.team, players)
    assert caught.value.code == code
    assert roster(a) == before


def test_more_tables_need_a_larger_roster(world):
    season = world.season(team_tables=3)
    assert entries.roster_bounds(season) == (6, 10)
    with pytest.raises(LeagueError) as caught:
        world.team(season, world.host, world.host_admin, "四人队")
    assert caught.value.code == "bad_roster"
    entry, players = world.team(season, world.host, world.host_admin, "六人队", size=6)
    with pytest.raises(LeagueError):
        entries.set_roster(players[0], entry.team, players[:5])


@pytest.mark.parametrize("role", sorted(ALLOWED))
def test_who_changes_a_roster_on_the_web_and_the_api(world, two_teams, role):
    season, fixture, (a, pa), (b, pb) = two_teams
    user = actor(world, two_teams, role)
    client = Client()
    if user is not None:
        client.force_login(user)
    for entry, allowed, players in (
        (a, ALLOWED[role][0], pa),
        (b, ALLOWED[role][1], pb),
    ):
        club = entry.club
        extra = world.member(club)
        page = client.get(f"/leagues/entries/{entry.pk}/roster/")
        assert page.status_code == (200 if allowed else 302 if user is None else 404)
        shown = client.get(f"/leagues/entries/{entry.pk}/").content.decode()
        assert (f"/leagues/entries/{entry.pk}/roster/" in shown) == allowed
        data = {"captain": players[0].pk, "players": [p.pk for p in players] + [extra.pk]}
        client.post(f"/leagues/entries/{entry.pk}/roster/", data)
        assert (extra.pk in roster(entry)) == allowed
        later = world.member(club)
        response = client.post(
            f"/api/v1/league-entries/{entry.pk}/roster/",
            {"captain": players[0].pk, "players": [p.pk for p in players] + [later.pk]},
            content_type="application/json",
        )
        assert response.status_code == (200 if allowed else 401 if user is None else 403)
        assert (later.pk in roster(entry)) == allowed
        if allowed:
            assert later.pk in response.json()["roster"]


def test_the_roster_page_refuses_in_the_users_language(world, two_teams):
    season, fixture, (a, pa), _ = two_teams
    client = Client()
    client.force_login(pa[0])
    page = client.get(f"/leagues/entries/{a.pk}/roster/").content.decode()
    assert f'value="{pa[3].pk}"' in page and "checked" in page
    outsider = world.member(world.guest)
    assert f'value="{outsider.pk}"' not in page  # only the team's club's members are offered
    url = f"/leagues/entries/{a.pk}/roster/"
    response = client.post(url, {"captain": pa[0].pk, "players": [pa[1].pk, pa[2].pk]})
    assert response.status_code == 200
    with translation.override("zh-hans"):
        expected = gettext("A team has %(min)d to %(max)d players.") % {"min": 4, "max": 10}
    assert expected != "A team has 4 to 10 players." and expected in response.content.decode()
    assert len(roster(a)) == 4
    bad = client.post(url, {"captain": "x", "players": ["1; drop"]})
    assert bad.status_code == 200 and len(roster(a)) == 4
    api = client.post(
        f"/api/v1/league-entries/{a.pk}/roster/",
        {"players": [pa[1].pk]},
        content_type="application/json",
    )
    assert api.status_code == 400 and api.json()["code"] == "bad_roster"


def test_withdrawing_on_the_roster_page_needs_a_tick(world, two_teams):
    season, fixture, (a, pa), (b, pb) = two_teams
    client = Client()
    client.force_login(world.host_admin)
    url = f"/leagues/entries/{b.pk}/roster/"
    assert client.post(url, {"withdraw": "1"}).status_code == 200
    b.refresh_from_db()
    assert b.withdrawn_at is None
    assert client.post(url, {"withdraw": "1", "confirm": "1"}).status_code == 302
    b.refresh_from_db()
    fixture.refresh_from_db()
    assert b.withdrawn_at is not None and fixture.winner == 0
    api = Client()
    api.force_login(pa[1])  # a player, not the captain
    assert api.post(f"/api/v1/league-entries/{a.pk}/withdraw/").status_code == 403
