"""Members-only clubs (issue 20): the club's members, tables, live and finished matches,
replays, ladders, tournaments and leagues are hidden from non-members on the web (404 with a
translated "members only" page) and in the API (lists filtered, details 404); its name,
description and how to join stay public. The same pages of a public club are open to all,
so every refusal below is the visibility setting's doing. The websocket side is in
tests/matches/test_table_access.py.

The matrix: the club's admin, a member, a signed-in non-member and the anonymous visitor;
and (issue 40) a removed member (a former member, removed by the owner), a removed creator
(an admin who created a tournament, then was removed: no referee powers are left), both
refused like any outsider, and a seated referee (an admin seated at a table: they play it,
they do not referee it); and (issue 41) a guest account, who reaches no club's things.
"""

import json

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.utils import timezone, translation
from django.utils.html import escape
from django.utils.translation import gettext
from matchkit import make_user
from rest_framework.test import APIClient

from clubs import guests, permissions, services
from clubs.models import Club, Membership, Role, Visibility
from config.asgi import application
from ladder.models import Ladder, Rating
from leagues.services import setup as league_setup
from matches.messages import MatchError
from matches.models import Match
from matches.services import play, tables
from tournaments.models import Game, Round, Tournament, TournamentStatus

pytestmark = pytest.mark.django_db

ROLES = (
    "admin",
    "member",
    "outsider",
    "anonymous",
    "removed member",
    "removed creator",
    "guest",
)
SEES = {
    "admin": True,
    "member": True,
    "outsider": False,
    "anonymous": False,
    "removed member": False,
    "removed creator": False,
    "guest": False,
}


@pytest.fixture
def world(db, no_deadline_tasks):
    """A members-only club with a live table, a finished one, a ladder with a rating, a
    published tournament and a league with a season; its admin, a member and an outsider."""
    admin, member, outsider = (make_user(n) for n in ("admin", "member", "outsider"))
    removed, creator = make_user("removed"), make_user("creator")
    club = services.create_club(admin, name="南平保二会", visibility=Visibility.MEMBERS)
    Membership.objects.create(club=club, user=member, role=Role.MEMBER)
    Membership.objects.create(club=club, user=removed, role=Role.MEMBER)
    Membership.objects.create(club=club, user=creator, role=Role.ADMIN)
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
        admin, league, name="2030", variant="bao2", starts_on=timezone.localdate()
    )
    # the removed admin had created a tournament whose game is played at the live table
    theirs = Tournament.objects.create(
        club=club,
        name="秋季赛",
        variant="bao2",
        starts_at=timezone.now(),
        status=TournamentStatus.SCHEDULED,
        created_by=creator,
    )
    rnd = Round.objects.create(tournament=theirs, number=1, scheduled_at=timezone.now())
    Game.objects.create(round=rnd, number=1, side0=[], side1=[], table=live)
    for user in (removed, creator):
        services.remove_member(admin, Membership.objects.get(club=club, user=user))
    users = {
        "admin": admin,
        "member": member,
        "outsider": outsider,
        "anonymous": None,
        "removed member": removed,
        "removed creator": creator,
        "guest": guests.create_guest("203.0.113.50"),
    }
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
        f"/reviews/share/{world['done'].pk}/",
        f"/reviews/card/{world['done'].pk}/zh-hans.png",
        f"/ladder/{ladder}/",
        f"/ladder/{ladder}/players/{member.pk}/",
        f"/tournaments/clubs/{slug}/",
        f"/tournaments/clubs/{slug}/calendar.ics",
        f"/tournaments/{tournament}/",
        f"/tournaments/{tournament}/standings/",
        f"/tournaments/{tournament}/results.csv",
        f"/leagues/{world['league'].pk}/",
        f"/leagues/seasons/{world['season'].pk}/",
        f"/leagues/seasons/{world['season'].pk}/standings.csv",
        f"/officials/clubs/{slug}/",
        f"/officials/tournaments/{tournament}/",
        f"/officials/seasons/{world['season'].pk}/",
    ]


def hidden_api_details(world):
    membership = Membership.objects.get(user=world["users"]["member"])
    ladder = world["ladder"].pk
    return [
        f"/api/v1/memberships/{membership.pk}/",
        f"/api/v1/ladders/{ladder}/",
        f"/api/v1/ladders/{ladder}/leaderboard/",
        f"/api/v1/ladders/{ladder}/players/{world['users']['member'].pk}/",
        f"/api/v1/clubs/{world['club'].slug}/honours/",
        f"/api/v1/tournaments/{world['tournament'].pk}/",
        f"/api/v1/tournaments/{world['tournament'].pk}/standings/",
        f"/api/v1/tournaments/{world['tournament'].pk}/duplicate/",
        f"/api/v1/leagues/{world['league'].pk}/",
        f"/api/v1/league-seasons/{world['season'].pk}/",
        f"/api/v1/tournament-officials/{world['tournament'].pk}/",
        f"/api/v1/season-officials/{world['season'].pk}/",
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


def first_frame(table_id, user):
    """The first frame ``user`` (None: anonymous) gets from the table's websocket."""
    cookie = ""
    if user is not None:
        client = Client()
        client.force_login(user)
        cookie = f"sessionid={client.cookies['sessionid'].value}"

    async def scenario():
        headers = [(b"origin", b"http://testserver")]
        if cookie:
            headers.append((b"cookie", cookie.encode()))
        comm = WebsocketCommunicator(application, f"/ws/tables/{table_id}/", headers=headers)
        connected, _ = await comm.connect()
        assert connected
        frame = json.loads(await comm.receive_from(timeout=5))
        await comm.disconnect()
        return frame

    return async_to_sync(scenario)()


@pytest.mark.integration
@pytest.mark.parametrize("role", ROLES)
def test_the_websocket_and_the_referee_console_by_role(transactional_db, world, role):
    """The live table's socket, its page's referee console and a sanction, role by role: the
    admin referees; the removed creator keeps no referee power (handshake and sanction
    refused); the removed member is refused like any outsider."""
    user, live = world["users"][role], world["live"]
    frame = first_frame(live.pk, user)
    match = Match.objects.get(table=live)
    if SEES[role]:
        assert frame["type"] == "snapshot" and frame["you"] is None, role
    else:
        assert frame["type"] == "refused" and frame["code"] == "members_only", role
    page = web(world, role).get(f"/matches/tables/{live.pk}/")
    assert page.status_code == (200 if SEES[role] else 404), role
    assert ('id="referee"' in page.content.decode()) is (role == "admin"), role
    if role == "admin":
        return
    with pytest.raises(MatchError) as refused:
        play.referee_sanction(user, match.pk, "forfeit", 1, "弃权")
    assert refused.value.code == "not_referee", role
    answer = web(world, role).post(
        f"/matches/tables/{live.pk}/referee/", {"sanction": "forfeit", "target": 1, "reason": "x"}
    )
    assert answer.status_code == 403 and answer.json()["code"] == "not_referee", role
    assert Match.objects.get(pk=match.pk).version == match.version


def test_a_seated_referee_plays_and_does_not_referee(world):
    """An admin seated at a table (with bots) sees it as a player: no referee console, and
    their sanction is refused ``not_referee``; the club's other admin referees it."""
    club, admin = world["club"], world["users"]["admin"]
    seated = make_user("seated")
    Membership.objects.create(club=club, user=seated, role=Role.ADMIN)
    table = tables.open_table(seated, club, variant="bao2")
    for seat in (1, 2, 3):
        tables.add_bot(seated, table, seat, "heuristic")
    match = Match.objects.get(table=table)
    client = Client()
    client.force_login(seated)
    page = client.get(f"/matches/tables/{table.pk}/")
    assert page.status_code == 200 and 'id="referee"' not in page.content.decode()
    answer = client.post(
        f"/matches/tables/{table.pk}/referee/", {"sanction": "forfeit", "target": 1, "reason": "x"}
    )
    assert answer.status_code == 403 and answer.json()["code"] == "not_referee"
    page = web(world, "admin").get(f"/matches/tables/{table.pk}/")
    assert 'id="referee"' in page.content.decode()
    play.referee_sanction(admin, match.pk, "revoke_initiative", match.to_move, "拖延")
