"""Quick phrases (issue 41, part 4) through the real ASGI application and Redis channel layer:
a phrase at a casual table reaches every seat and the spectators; a rated table and a
tournament or league table refuse it and broadcast nothing; no free text; a rate limit per
seat; the refusals and the phrases in both languages."""

import json
import re

import pytest
from asgiref.sync import async_to_sync
from django.test import Client
from matchkit import make_user
from test_consumers import connect, login, receive, receive_type

from matches.models import Match, Table
from matches.services import phrases, tables

pytestmark = pytest.mark.integration


def _table(club, players, **options):
    table = tables.open_table(players[0], club, variant="bao2", **options)
    for i in (1, 2, 3):
        tables.take_seat(players[i], table, i)
    table.refresh_from_db()
    assert Match.objects.filter(table=table).exists()
    return table


async def _seated(table, players, watcher):
    """Every player's socket and a spectator's, each past its snapshot."""
    comms = [connect(table.pk, p) for p in players]
    spectator = connect(table.pk, watcher)
    for comm in [*comms, spectator]:
        assert (await comm.connect())[0]
        await receive_type(comm, "snapshot")
    return comms, spectator


async def _say(comm, phrase, frame_id):
    """Send a phrase and return the answer to it (ack or refused), skipping broadcasts."""
    await comm.send_to(text_data=json.dumps({"type": "phrase", "id": frame_id, "phrase": phrase}))
    while True:
        message = await receive(comm)
        if message.get("id") == frame_id:
            return message


async def _phrases_received(comm, timeout=0.5):
    """Every phrase frame that reaches ``comm`` until it has been quiet for ``timeout``
    seconds (receive_nothing: a receive that times out would cancel the application)."""
    got = []
    while not await comm.receive_nothing(timeout=timeout):
        message = await receive(comm)
        if message["type"] == "phrase":
            got.append(message)
    return got


def test_a_phrase_at_a_casual_table_reaches_every_seat_and_the_spectators(
    club, players, scheduled, fresh_layer
):
    table = _table(club, players)
    watcher = make_user("watcher")
    login(*players, watcher)

    async def scenario():
        comms, spectator = await _seated(table, players, watcher)
        answer = await _say(comms[2], "nice", 7)
        assert answer == {"type": "ack", "id": 7}
        expected = {"type": "phrase", "seat": 2, "phrase": "nice"}
        for comm in [*comms, spectator]:
            assert await receive_type(comm, "phrase") == expected
        # a spectator only reads
        refused = await _say(spectator, "hello", 8)
        assert (refused["type"], refused["code"]) == ("refused", "spectator")
        for comm in [*comms, spectator]:
            assert await _phrases_received(comm, 0.3) == []
            await comm.disconnect()

    async_to_sync(scenario)()


@pytest.mark.parametrize("kind", ["rated", "competition"])
def test_rated_and_competition_tables_refuse_phrases_and_broadcast_nothing(
    club, players, scheduled, fresh_layer, kind
):
    table = _table(club, players, **{kind: True})
    watcher = make_user("watcher")
    login(*players, watcher)
    players[1].language = "en"
    players[1].save()
    login(players[1])

    async def scenario():
        comms, spectator = await _seated(table, players, watcher)
        zh = await _say(comms[0], "hello", 1)
        en = await _say(comms[1], "hello", 2)
        for comm in [*comms, spectator]:
            assert await _phrases_received(comm) == []
            await comm.disconnect()
        return zh, en

    zh, en = async_to_sync(scenario)()
    assert zh["type"] == en["type"] == "refused"
    assert zh["code"] == en["code"] == "phrases_off"
    assert "十七.1" in zh["message"] and "计分" in zh["message"] and "搭档" in zh["message"]
    assert en["message"].startswith("Quick phrases are for casual tables only")


class Clock:
    """The phrases' clock, moved by the test (a loaded machine must not refill a bucket)."""

    now = 1_000_000.0

    def time(self):
        return self.now


def test_no_free_text_and_a_rate_limit_per_seat(club, players, scheduled, fresh_layer, monkeypatch):
    monkeypatch.setattr(phrases, "EVERY_SECONDS", 1.0)
    clock = Clock()
    monkeypatch.setattr(phrases, "time", clock)
    table = _table(club, players)
    watcher = make_user("watcher")
    login(*players, watcher)

    async def scenario():
        comms, spectator = await _seated(table, players, watcher)
        me = comms[0]
        for n, bad in enumerate(["打得好", "Nice one, partner: lead hearts", {"key": "nice"}, 5]):
            answer = await _say(me, bad, f"bad{n}")
            assert (answer["type"], answer["code"]) == ("refused", "phrase_unknown")
        await me.send_to(text_data=json.dumps({"type": "phrase", "id": "none"}))
        assert (await receive(me))["code"] == "phrase_unknown"
        assert await _phrases_received(spectator, 0.3) == []
        # a burst of three (the refused ones did not count), then one per EVERY_SECONDS
        answers = [await _say(me, "thanks", n) for n in range(4)]
        assert [a["type"] for a in answers] == ["ack", "ack", "ack", "refused"]
        assert answers[3]["code"] == "phrase_too_soon" and answers[3]["message"]
        # a second tab of the same seat shares the limit; another seat has its own
        tab2 = connect(table.pk, players[0])
        assert (await tab2.connect())[0]
        await receive_type(tab2, "snapshot")
        assert (await _say(tab2, "sorry", "tab2"))["code"] == "phrase_too_soon"
        assert (await _say(comms[1], "hello", "other"))["type"] == "ack"
        seen = await _phrases_received(spectator, 0.5)
        assert [(p["seat"], p["phrase"]) for p in seen] == [(0, "thanks")] * 3 + [(1, "hello")]
        clock.now += 1.1  # one more phrase for seat 0, not two
        assert (await _say(me, "again", "later"))["type"] == "ack"
        assert (await _say(me, "again", "later2"))["code"] == "phrase_too_soon"
        for comm in [*comms, spectator, tab2]:
            await comm.disconnect()

    async_to_sync(scenario)()


def _offered(page):
    """The phrases list the table page carries (json_script), or None."""
    found = re.search(r'<script id="table-phrases" type="application/json">(.*?)</script>', page)
    return json.loads(found.group(1)) if found else None


def test_the_table_page_offers_the_phrases_in_the_viewers_language_at_casual_tables_only(
    club, players, scheduled
):
    casual = _table(club, players)
    rated = tables.open_table(players[0], club, variant="bao2", rated=True)
    Table.objects.create(club=club, variant="bao2", competition=True)
    competition = Table.objects.get(competition=True)
    client = Client()
    client.force_login(players[0])
    offered = _offered(client.get(f"/matches/tables/{casual.pk}/").content.decode())
    assert [key for key, _words in offered] == list(phrases.PHRASES)
    assert ["nice", "打得好！"] in offered and ["again", "再来一局？"] in offered
    players[0].language = "en"
    players[0].save()
    offered = _offered(client.get(f"/matches/tables/{casual.pk}/").content.decode())
    assert ["nice", "Well played!"] in offered and ["again", "Another match?"] in offered
    for other in (rated, competition):
        page = client.get(f"/matches/tables/{other.pk}/").content.decode()
        assert 'id="table-phrases"' not in page
    # the service's own answer, without a socket: the same refusals
    match = Match.objects.get(table=casual)
    for args, code in [
        ((None, 0, "hello"), "not_started"),
        ((match.pk, None, "hello"), "spectator"),
        ((match.pk, 0, "free text"), "phrase_unknown"),
    ]:
        with pytest.raises(phrases.PhraseError) as refused:
            phrases.say(*args)
        assert refused.value.code == code


def test_a_casual_table_whose_opener_switched_phrases_off_refuses_them(
    club, players, scheduled, fresh_layer
):
    table = _table(club, players, phrases_allowed=False)
    assert phrases.casual(table) and phrases.offered(table) == []
    on = _table(club, players)  # the default: a casual table takes them
    assert on.phrases_allowed and [key for key, _ in phrases.offered(on)] == list(phrases.PHRASES)
    players[1].language = "en"
    players[1].save()
    login(*players)

    async def scenario():
        comms = [connect(table.pk, p) for p in players]
        for comm in comms:
            assert (await comm.connect())[0]
            await receive_type(comm, "snapshot")
        zh = await _say(comms[0], "hello", 1)
        en = await _say(comms[1], "thanks", 2)
        for comm in comms:
            assert await _phrases_received(comm) == []
            await comm.disconnect()
        return zh, en

    zh, en = async_to_sync(scenario)()
    assert zh["type"] == en["type"] == "refused"
    assert zh["code"] == en["code"] == "phrases_disabled"
    assert zh["message"] == "这张牌桌关闭了快捷语。"
    assert en["message"] == "Quick phrases are switched off at this table."
    # the table's page offers none
    client = Client()
    client.force_login(players[0])
    page = client.get(f"/matches/tables/{table.pk}/").content.decode()
    assert 'id="table-phrases"' not in page
    assert 'id="table-phrases"' in client.get(f"/matches/tables/{on.pk}/").content.decode()
