"""理牌 over the real websocket (ASGI application, session auth): ``hint`` with ``arrange``
answers ``arranged`` with the engine's groups of the asking seat's own hand, never another
seat's; a spectator is refused; nothing is applied."""

import json

import pytest
from asgiref.sync import async_to_sync
from matchkit import make_user
from test_consumers import connect, login, receive, receive_type

from engine.arrange import arrange
from engine.cards import parse_cards
from engine.match import Match as EngineMatch
from matches.models import Match
from matches.services import tables

pytestmark = pytest.mark.integration


def test_arrange_answers_the_seats_own_groups(club, players, scheduled):
    table = tables.open_table(players[0], club, variant="guandan")
    for i in (1, 2, 3):
        tables.take_seat(players[i], table, i)
    match = Match.objects.get(table=table)
    engine = EngineMatch.from_json(match.snapshot)
    watcher = make_user("watcher")
    login(*players, watcher)

    async def scenario():
        comms = [connect(table.pk, players[i]) for i in range(4)]
        spectator = connect(table.pk, watcher)
        for comm in [*comms, spectator]:
            assert (await comm.connect())[0]
            await receive_type(comm, "snapshot")
        for seat, comm in enumerate(comms):
            await comm.send_to(text_data=json.dumps({"type": "hint", "id": 7, "arrange": True}))
            answer = await receive_type(comm, "arranged")
            obs = engine.observation(seat)
            want = arrange("guandan", obs.get("level"), parse_cards(obs["hand"]))
            assert answer == {"type": "arranged", "id": 7, "version": 0, **want}
        # asked again: the same answer (kept per version), and a plain hint is still a hint
        await comms[1].send_to(text_data=json.dumps({"type": "hint", "id": 8, "arrange": True}))
        assert (await receive_type(comms[1], "arranged"))["id"] == 8
        await comms[1].send_to(text_data=json.dumps({"type": "hint", "id": 9}))
        assert (await receive(comms[1]))["type"] == "hints"
        await spectator.send_to(text_data=json.dumps({"type": "hint", "id": 1, "arrange": True}))
        assert (await receive(spectator))["code"] == "spectator"
        for comm in [*comms, spectator]:
            await comm.disconnect()

    async_to_sync(scenario)()
    match.refresh_from_db()
    assert match.version == 0
