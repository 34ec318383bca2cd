"""Who may watch a table over its websocket (matches.services.access), through the real ASGI
application (origin check, session auth, the Redis channel layer).

A members-only club's tables refuse every non-member (``members_only``); a table without
spectators refuses the club's members who do not play; a referee — an admin of the club, or
the organiser of the tournament the match belongs to while still a member (issue 40: one who
left the club is refused like any outsider) — may open any table and receives its live
updates. The same web pages follow the same rule.
"""

import json

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.utils import timezone
from matchkit import make_user

from clubs.models import Membership, Role, Visibility
from config.asgi import application
from matches.models import Match
from matches.services import play, tables
from tournaments.models import Game, Round, Tournament

pytestmark = pytest.mark.integration


def cookie_of(user):
    if user is None:
        return ""
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


async def opening(table_id, cookie):
    """Connect; return the first frame and the socket (closed when refused)."""
    headers = [(b"origin", b"http://testserver")]
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    comm = WebsocketCommunicator(application, f"/ws/tables/{table_id}/", headers=headers)
    connected, _ = await comm.connect()
    assert connected
    return json.loads(await comm.receive_from(timeout=5)), comm


@pytest.fixture
def people(club, players):
    """The club made members-only, with a referee admin, a member who does not play, an
    outsider, and the organiser of a tournament who has since left the club."""
    club.visibility = Visibility.MEMBERS
    club.save()
    referee, member, outsider, organiser = (
        make_user(n) for n in ("referee", "member", "outsider", "organiser")
    )
    Membership.objects.create(club=club, user=referee, role=Role.ADMIN)
    Membership.objects.create(club=club, user=member, role=Role.MEMBER)
    return {
        "player": players[1],
        "referee": referee,
        "member": member,
        "outsider": outsider,
        "organiser": organiser,
        "anonymous": None,
    }


@pytest.fixture
def closed_table(club, players, people, scheduled):
    """A live tournament table of four players, no spectators allowed."""
    table = tables.open_table(players[0], club, variant="bao2", spectators_allowed=False)
    for i in (1, 2, 3):
        tables.take_seat(players[i], table, i)
    tournament = Tournament.objects.create(
        club=club,
        name="春季赛",
        variant="bao2",
        starts_at=timezone.now(),
        created_by=people["organiser"],
    )
    rnd = Round.objects.create(tournament=tournament, number=1, scheduled_at=timezone.now())
    Game.objects.create(round=rnd, number=1, side0=[], side1=[], table=table)
    return table


def first_frames(table, people):
    """Each person's first frame at ``table`` (and whether the socket was then closed)."""
    cookies = {name: cookie_of(user) for name, user in people.items()}

    async def scenario():
        out = {}
        for name, cookie in cookies.items():
            frame, comm = await opening(table.pk, cookie)
            closed = False
            if frame["type"] == "refused":
                closed = (await comm.receive_output(timeout=3))["type"] == "websocket.close"
            out[name] = (frame, closed)
            await comm.disconnect()
        return out

    return async_to_sync(scenario)()


def test_who_may_open_a_table_without_spectators_in_a_members_only_club(
    closed_table, people, players
):
    frames = first_frames(closed_table, people)
    player, _ = frames["player"]
    assert player["type"] == "snapshot" and player["you"] == 1 and len(player["obs"]["hand"]) == 27
    for referee in ("referee",):
        frame, _ = frames[referee]
        assert frame["type"] == "snapshot", referee
        assert frame["you"] is None and "hand" not in frame["obs"], referee  # a spectator's view
    expected = {
        "member": "no_spectators",
        "outsider": "members_only",
        "anonymous": "members_only",
        "organiser": "members_only",  # the tournament's creator, no longer a member
    }
    for name, code in expected.items():
        frame, closed = frames[name]
        assert frame["type"] == "refused" and frame["code"] == code and closed, name
        assert frame["message"], name


def test_a_referee_receives_the_live_updates(closed_table, people, fresh_layer):
    match = Match.objects.get(table=closed_table)
    cookie = cookie_of(people["referee"])

    async def scenario():
        snapshot, comm = await opening(closed_table.pk, cookie)
        assert snapshot["type"] == "snapshot"
        await database_sync_to_async(play.referee_sanction)(
            people["referee"], match.pk, "revoke_initiative", match.to_move, "拖延时间"
        )
        while True:
            frame = json.loads(await comm.receive_from(timeout=5))
            if frame.get("event"):
                break
        await comm.disconnect()
        return frame

    frame = async_to_sync(scenario)()
    assert frame["version"] == match.version + 1
    assert frame["event"]["actor"] == "referee" and frame["event"]["action"]["reason"] == "拖延时间"


def test_spectators_of_a_members_only_club_are_its_members(club, players, people, scheduled):
    table = tables.open_table(players[0], club, variant="bao2")
    for i in (1, 2, 3):
        tables.add_bot(players[0], table, i, "heuristic")
    watchers = {k: people[k] for k in ("member", "outsider", "anonymous")}
    frames = first_frames(table, watchers)
    assert frames["member"][0]["type"] == "snapshot"
    assert frames["outsider"][0]["code"] == frames["anonymous"][0]["code"] == "members_only"
    # the same table in a public club: the outsider watches, the anonymous visitor signs in
    club.visibility = Visibility.PUBLIC
    club.save()
    frames = first_frames(table, watchers)
    assert frames["outsider"][0]["type"] == "snapshot"
    assert frames["anonymous"][0]["code"] == "login_required"


def test_the_table_page_follows_the_same_rule(client, closed_table, people):
    url = f"/matches/tables/{closed_table.pk}/"
    for name in ("player", "referee", "member"):
        client.force_login(people[name])
        page = client.get(url)
        assert page.status_code == 200, name
        assert ('id="referee"' in page.content.decode()) is (name == "referee")
    for name in ("outsider", "organiser"):  # the organiser left the club
        client.force_login(people[name])
        assert client.get(url).status_code == 404, name
    client.logout()
    assert client.get(url).status_code == 404
