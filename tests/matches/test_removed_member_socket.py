"""Issue 40, item 6: a member removed from a members-only club kept their socket on its table
(32 frames in 20 s after the removal). A removal, a departure, a role change and a ban
(a deactivated account) make each of the user's sockets ask the access rule again; those
that no longer pass get a refusal with the reason and close with code 4410, and nothing
follows. Those that still pass (a seated player, a spectator of a table that allows them) stay.
"""

import json

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from matchkit import make_user
from test_consumers import connect, login, receive_type

from clubs import services as club_services
from clubs.models import Membership, Role, Visibility
from engine.match import Match as EngineMatch
from matches.consumers import ACCESS_WITHDRAWN
from matches.models import Match
from matches.services import tables

pytestmark = pytest.mark.integration


@pytest.fixture
def private_club(club):
    club.visibility = Visibility.MEMBERS
    club.save(update_fields=["visibility"])
    return club


def _table(club, players, spectators_allowed=True):
    table = tables.open_table(
        players[0], club, variant="bao2", spectators_allowed=spectators_allowed
    )
    for i in (1, 2, 3):
        tables.take_seat(players[i], table, i)
    table.refresh_from_db()
    return table


async def _closed_for(comm, code):
    """The socket gets a refusal with ``code``, then the close 4410."""
    output = await comm.receive_output(timeout=5)
    while output["type"] == "websocket.send" and "code" not in json.loads(output["text"]):
        output = await comm.receive_output(timeout=5)  # frames sent before the change
    assert output["type"] == "websocket.send", output
    assert json.loads(output["text"])["code"] == code, output
    output = await comm.receive_output(timeout=5)
    assert output == {"type": "websocket.close", "code": ACCESS_WITHDRAWN}, output


async def _move(comm, legal, n=0):
    await comm.send_to(
        text_data=json.dumps({"type": "action", "id": f"m{n}", "seq": n, "action": legal})
    )
    return (await receive_type(comm, "ack"))["version"]


def test_a_removed_member_loses_their_socket(private_club, players, scheduled, fresh_layer):
    table = _table(private_club, players)
    match = Match.objects.get(table=table)
    engine = EngineMatch.from_json(match.snapshot)
    mover = engine.to_move()
    legal = engine.legal_actions(mover)[0].to_json()
    member, other = make_user("member"), make_user("other")
    for user in (member, other):
        Membership.objects.create(club=private_club, user=user, role=Role.MEMBER)
    login(*players, member, other)
    owner = players[0]

    async def scenario():
        watcher, stays, actor = (
            connect(table.pk, member),
            connect(table.pk, other),
            connect(table.pk, players[mover]),
        )
        second_tab = connect(table.pk, member)
        for comm in (watcher, stays, actor, second_tab):
            assert (await comm.connect())[0]
            await receive_type(comm, "snapshot")
        membership = await database_sync_to_async(Membership.objects.get)(
            club=private_club, user=member
        )
        await database_sync_to_async(club_services.remove_member)(owner, membership)
        for comm in (watcher, second_tab):  # every socket of theirs
            await _closed_for(comm, "members_only")
        # play goes on: the other member and the players see it, the removed member nothing
        assert await _move(actor, legal) == 1
        assert (await receive_type(stays, "update"))["version"] == 1
        assert await watcher.receive_nothing(timeout=1.5)
        assert await second_tab.receive_nothing(timeout=0.1)
        # and they cannot come back
        again = connect(table.pk, member)
        assert (await again.connect())[0]
        assert (await receive_type(again, "refused"))["code"] == "members_only"
        for comm in (watcher, stays, actor, second_tab, again):
            await comm.disconnect()

    async_to_sync(scenario)()


def test_a_member_who_leaves_and_a_seated_player_removed(
    private_club, players, scheduled, fresh_layer
):
    """Leaving counts too; a seated player keeps their seat's socket (players always may)."""
    table = _table(private_club, players)
    member = make_user("member")
    Membership.objects.create(club=private_club, user=member, role=Role.MEMBER)
    login(players[1], member)

    async def scenario():
        watcher, seated = connect(table.pk, member), connect(table.pk, players[1])
        for comm in (watcher, seated):
            assert (await comm.connect())[0]
            await receive_type(comm, "snapshot")
        await database_sync_to_async(club_services.leave_club)(member, private_club)
        await _closed_for(watcher, "members_only")
        membership = await database_sync_to_async(Membership.objects.get)(
            club=private_club, user=players[1]
        )
        await database_sync_to_async(club_services.remove_member)(players[0], membership)
        assert await seated.receive_nothing(timeout=1.5)
        await seated.send_to(text_data=json.dumps({"type": "ping", "id": 1}))
        assert (await receive_type(seated, "pong"))["id"] == 1
        for comm in (watcher, seated):
            await comm.disconnect()

    async_to_sync(scenario)()


def test_an_admin_demoted_loses_the_referee_view(club, players, scheduled, fresh_layer):
    """An admin watches a table without spectators as its referee; made a plain member, they
    are a spectator there no more (``no_spectators``). At a table that allows spectators the
    same change leaves their socket open."""
    closed = _table(club, players, spectators_allowed=False)
    others = [make_user(f"q{i}") for i in range(4)]
    for user in others:
        Membership.objects.create(club=club, user=user, role=Role.MEMBER)
    open_table = _table(club, others)
    admin = make_user("admin")
    Membership.objects.create(club=club, user=admin, role=Role.ADMIN)
    login(admin)

    async def scenario():
        referee, spectator = connect(closed.pk, admin), connect(open_table.pk, admin)
        for comm in (referee, spectator):
            assert (await comm.connect())[0]
            await receive_type(comm, "snapshot")
        membership = await database_sync_to_async(Membership.objects.get)(club=club, user=admin)
        await database_sync_to_async(club_services.change_role)(players[0], membership, Role.MEMBER)
        await _closed_for(referee, "no_spectators")
        assert await spectator.receive_nothing(timeout=1.5)
        for comm in (referee, spectator):
            await comm.disconnect()

    async_to_sync(scenario)()


def test_a_banned_account_loses_its_sockets(club, players, scheduled, fresh_layer):
    """A deactivated account (the site's ban) is an anonymous visitor to the access rule."""
    table = _table(club, players)
    watcher = make_user("watcher")
    login(watcher)

    async def scenario():
        comm = connect(table.pk, watcher)
        assert (await comm.connect())[0]
        await receive_type(comm, "snapshot")

        def ban():
            watcher.is_active = False
            watcher.save(update_fields=["is_active"])

        await database_sync_to_async(ban)()
        await _closed_for(comm, "login_required")
        await comm.disconnect()

    async_to_sync(scenario)()
