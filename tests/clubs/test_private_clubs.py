"""Members-only clubs (issue 20): the club's members, tables, live and finished matches,
replays, ladders, tournaments and leagues are hidden from non-members on the web (404 with a
translated "members only" page) and in the API (lists filtered, details 404); its name,
description and how to join stay public. The same pages of a public club are open to all,
so every refusal below is the visibility setting's doing. The websocket side is in
tests/matches/test_table_access.py.

The matrix: the club's admin, a member, a signed-in non-member and the anonymous visitor.
"""

import pytest
from django.test import Client
from django.utils import timezone, translation
from django.utils.html import escape
from django.utils.translation import gettext
from matchkit import make_user
from rest_framework.test import APIClient

from clubs import permissions, services
from clubs.models import Club, Membership, Role, Visibility
from ladder.models import Ladder, Rating
from leagues.services import setup as league_setup
from matches.models import Match
from matches.services import play, tables
from tournaments.models import Tournament, TournamentStatus

pytestmark = pytest.mark.django_db

ROLES = ("admin", "member", "outsider", "anonymous")
SEES = {"admin": True, "member": True, "outsider": False, "anonymous": False}


@pytest.fixture
def world(db, no_deadline_tasks):
    """A members-only club with a live table, a finished one, a ladder with a rating, a
    published tournament and a league with a season; its admin, a member and an outsider."""
    admin, member, outsider = (make_user(n) for n in ("admin", "member", "outsider"))
    club = services.create_club(admin, name="南平保二会", visibility=Visibility.MEMBERS)
    Membership.objects.create(club=club, user=member, role=Role.MEMBER)
    live = tables.open_table(admin, club, variant="bao2", sit=False)
    for seat in range(4):
        tables.add_bot(admin, live, seat, "heuristic")
    done = tables.open_table(admin, club, variant="bao2", sit=False)
    for seat in range(4):
        tables.add_bot(admin, done, seat, "heuristic")
    play.referee_sanction(admin, Match.objects.get(table=done).pk, "forfeit", 1, "弃权")
    ladder = Ladder.objects.create(club=club, variant="bao2")
    Rating.objects.create(ladder=ladder, user=member, rating=1520)
    tournament = Tournament.objects.create(
        club=club,
        name="春季赛",
        variant="bao2",
        starts_at=timezone.now(),
        status=TournamentStatus.SCHEDULED,
        created_by=admin,
    )
    league = league_setup.create_league(admin, club, name="闽北联赛")
    season = league_setup.create_season(
        admin, league, name="2030", variant="bao2", starts_on=timezone.now().date()
    )
    users = {"admin": admin, "member": member, "outsider": outsider, "anonymous": None}
    return {
        "club": club,
        "users": users,
        "live": live,
        "done": done,
        "ladder": ladder,
        "tournament": tournament,
        "league": league,
        "season": season,
    }


def members_only_text():
    """The refusal as the page shows it, in the visitors' language (the site's default)."""
    with translation.override("zh-hans"):
        return escape(gettext("Only the club's members can see this."))


def web(world, role):
    client = Client()
    if world["users"][role] is not None:
        client.force_login(world["users"][role])
    return client


def api(world, role):
    client = APIClient()
    if world["users"][role] is not None:
        client.force_authenticate(world["users"][role])
    return client


def hidden_pages(world):
    """Every page that shows the club's things."""
    slug, member = world["club"].slug, world["users"]["member"]
    ladder, tournament = world["ladder"].pk, world["tournament"].pk
    return [
        f"/matches/clubs/{slug}/tables/",
        f"/matches/tables/{world['live'].pk}/",
        f"/matches/tables/{world['done'].pk}/replay/",
        f"/ladder/{ladder}/",
        f"/ladder/{ladder}/players/{member.pk}/",
        f"/ladder/clubs/{slug}/tournaments/",
        f"/ladder/clubs/{slug}/tournaments.ics",
        f"/ladder/tournaments/{tournament}/",
        f"/ladder/tournaments/{tournament}/standings/",
        f"/ladder/tournaments/{tournament}/results.csv",
        f"/leagues/{world['league'].pk}/",
        f"/leagues/seasons/{world['season'].pk}/",
        f"/leagues/seasons/{world['season'].pk}/standings.csv",
    ]


def hidden_api_details(world):
    membership = Membership.objects.get(user=world["users"]["member"])
    ladder = world["ladder"].pk
    return [
        f"/api/v1/memberships/{membership.pk}/",
        f"/api/v1/ladders/{ladder}/",
        f"/api/v1/ladders/{ladder}/leaderboard/",
        f"/api/v1/ladders/{ladder}/players/{world['users']['member'].pk}/",
        f"/api/v1/tournaments/{world['tournament'].pk}/",
        f"/api/v1/tournaments/{world['tournament'].pk}/standings/",
        f"/api/v1/leagues/{world['league'].pk}/",
        f"/api/v1/league-seasons/{world['season'].pk}/",
    ]


@pytest.mark.parametrize("role", ROLES)
def test_web_pages_of_a_members_only_club(world, role):
    client = web(world, role)
    for url in hidden_pages(world):
        answer = client.get(url)
        if SEES[role]:
            assert answer.status_code == 200, url
        else:
            assert answer.status_code == 404, url
            assert members_only_text() in answer.content.decode(), url
    # the club page stays public: its name and how to join, not its members or sections
    page = client.get(f"/clubs/{world['club'].slug}/").content.decode()
    assert "南平保二会" in page
    assert ('id="members-only"' not in page) is SEES[role]
    assert ('<h2 id="members">' in page) is SEES[role]
    # lists across clubs leave it out
    assert ("闽北联赛" in client.get("/leagues/").content.decode()) is SEES[role]
    ladders = client.get("/ladder/").content.decode()
    assert (f"/ladder/{world['ladder'].pk}/" in ladders) is SEES[role]


@pytest.mark.parametrize("role", ROLES)
def test_api_of_a_members_only_club(world, role):
    client = api(world, role)
    for url in hidden_api_details(world):
        answer = client.get(url)
        assert answer.status_code == (200 if SEES[role] else 404), url
    slug, member = world["club"].slug, world["users"]["member"]
    listed = {
        "memberships": client.get(f"/api/v1/memberships/?club={slug}").json()["results"],
        "ladders": client.get("/api/v1/ladders/").json()["results"],
        "tournaments": client.get("/api/v1/tournaments/").json()["results"],
        "leagues": client.get("/api/v1/leagues/").json()["results"],
        "seasons": client.get("/api/v1/league-seasons/").json()["results"],
        "ratings": client.get(f"/api/v1/players/{member.pk}/ratings/").json(),
    }
    for name, rows in listed.items():
        assert (len(rows) > 0) is SEES[role], name
    # the club itself stays listed, with its visibility
    club = client.get(f"/api/v1/clubs/{slug}/").json()
    assert club["visibility"] == "members" and club["name"] == "南平保二会"


def test_a_public_club_shows_the_same_things_to_everyone(world):
    club = world["club"]
    club.visibility = Visibility.PUBLIC
    club.save()
    for role in ("outsider", "anonymous"):
        for url in hidden_pages(world):
            assert web(world, role).get(url).status_code == 200, (role, url)
        for url in hidden_api_details(world):
            assert api(world, role).get(url).status_code == 200, (role, url)


def test_admins_set_the_visibility_on_the_settings_page_and_through_the_api(world):
    club = world["club"]
    form = {"name": club.name, "city": "", "description": "", "join_policy": "request"}
    # a member may not
    assert web(world, "member").post(f"/clubs/{club.slug}/edit/", form).status_code == 403
    answer = api(world, "member").patch(f"/api/v1/clubs/{club.slug}/", {"visibility": "public"})
    assert answer.status_code == 403
    assert Club.objects.get(pk=club.pk).visibility == Visibility.MEMBERS
    # the settings page offers both choices; an admin saves one
    page = web(world, "admin").get(f"/clubs/{club.slug}/edit/").content.decode()
    assert 'name="visibility" value="public"' in page
    assert 'name="visibility" value="members"' in page
    answer = web(world, "admin").post(f"/clubs/{club.slug}/edit/", {**form, "visibility": "public"})
    assert answer.status_code == 302
    assert Club.objects.get(pk=club.pk).visibility == Visibility.PUBLIC
    # a form without the field keeps it
    web(world, "admin").post(f"/clubs/{club.slug}/edit/", form)
    assert Club.objects.get(pk=club.pk).visibility == Visibility.PUBLIC
    answer = api(world, "admin").patch(f"/api/v1/clubs/{club.slug}/", {"visibility": "secret"})
    assert answer.status_code == 400
    answer = api(world, "admin").patch(f"/api/v1/clubs/{club.slug}/", {"visibility": "members"})
    assert answer.status_code == 200 and answer.json()["visibility"] == "members"
    assert Club.objects.get(pk=club.pk).visibility == Visibility.MEMBERS
    created = api(world, "member").post("/api/v1/clubs/", {"name": "新俱乐部"}).json()
    assert created["visibility"] == "public"  # the default


def test_the_rule_and_its_query_agree(world):
    public = services.create_club(world["users"]["outsider"], name="Open club")
    for role, user in world["users"].items():
        listed = set(Club.objects.filter(permissions.visible_clubs_filter(user)))
        for club in (world["club"], public):
            assert permissions.can_see_club(user, club) is (club in listed), (role, club)
        assert public in listed and (world["club"] in listed) is SEES[role]
