"""``dismiss_summary`` over the real websocket (ASGI application, session auth, the Redis
channel layer): the last person to dismiss ends the pause between deals, and everyone is
told the clock runs."""

import json
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from django.utils import timezone
from matchkit import make_user
from test_consumers import connect, login, receive, receive_type

from matches.models import Match
from matches.services import tables

pytestmark = pytest.mark.integration


def test_dismiss_summary_ends_the_pause_and_tells_everyone(club, players, scheduled):
    table = tables.open_table(players[0], club, variant="bao2")
    for seat in (1, 2, 3):
        tables.add_bot(players[0], table, seat, "heuristic")
    match = Match.objects.get(table=table)
    until = timezone.now() + timedelta(seconds=10)
    # as a deal that just ended leaves it (seat 0 is the only person)
    Match.objects.filter(pk=match.pk).update(
        pause={"deal": 0, "pending": [0], "until": until.timestamp()},
        deadline=until + timedelta(seconds=30),
    )
    watcher = make_user("watcher")
    login(players[0], watcher)

    async def scenario():
        me, spectator = connect(table.pk, players[0]), connect(table.pk, watcher)
        for comm in (me, spectator):
            assert (await comm.connect())[0]
        snap = await receive_type(me, "snapshot")
        assert snap["table"]["summary_pending"] == [0]
        await receive_type(spectator, "snapshot")
        await spectator.send_to(
            text_data=json.dumps({"type": "dismiss_summary", "id": 1, "deal": 0})
        )
        assert (await receive(spectator))["code"] == "spectator"
        await me.send_to(text_data=json.dumps({"type": "dismiss_summary", "id": 2, "deal": "0"}))
        assert (await receive(me))["code"] == "bad_message"
        await me.send_to(text_data=json.dumps({"type": "dismiss_summary", "id": 3, "deal": 0}))
        assert await receive_type(me, "ack") == {"type": "ack", "id": 3}
        told = await receive_type(spectator, "table")
        assert told["table"]["summary_pending"] is None
        assert told["table"]["deadline"] < (until + timedelta(seconds=25)).timestamp()
        for comm in (me, spectator):
            await comm.disconnect()

    async_to_sync(scenario)()
    match.refresh_from_db()
    assert match.pause is None
