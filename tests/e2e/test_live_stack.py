"""End-to-end: the real ASGI server (uvicorn), a real Celery worker with beat, a Redis server,
and websocket clients playing as browsers do (bench.botclient)."""

import asyncio
import os
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from hidden import check_frames, check_sibling_refusal  # noqa: E402
from stack import Stack  # noqa: E402

from bench.botclient import SeatClient  # noqa: E402

pytest.importorskip("websockets")

CHECK_MATCH = """
from matches.models import Match
from matches.store import replay_events
from engine.match import Match as EngineMatch
m = Match.objects.get(pk={match})
events = list(m.events.order_by("seq").values("seq", "seat", "actor", "action"))
replayed = replay_events(m)
stored = EngineMatch.from_json(m.snapshot)
out = {{
    "status": m.status, "version": m.version, "result": m.result, "autoplay": m.autoplay,
    "seed": m.seed, "options": m.options, "variant": m.variant,
    "seqs_ok": [e["seq"] for e in events] == list(range(1, m.version + 1)),
    "replay_ok": replayed.state_json() == stored.state_json(),
    "events": events,
}}
"""


@pytest.fixture(scope="module")
def stack(shared_stack):
    # the run's one stack (tests/conftest.py): this module only adds tables and people to it
    return shared_stack


@pytest.fixture
def own_stack():
    """A stack of the test's own, for a test that kills its processes."""
    stack = Stack(bot_delay=0.0, sweep_seconds=1.0).start()
    yield stack
    stack.stop()


def clients_for(stack, table, record=False, idle_seats=(), spectators=True):
    url = f"{stack.ws}/ws/tables/{table['table']}/"
    clients = [
        SeatClient(url, cookie, stack.http, act=seat not in idle_seats, record=record)
        for seat, cookie in enumerate(table["cookies"])
    ]
    if spectators:
        clients += [SeatClient(url, c, stack.http, record=record) for c in table["spectators"]]
    return clients


async def play(clients, timeout):
    tasks = [asyncio.create_task(c.run()) for c in clients]
    try:
        deadline = time.monotonic() + timeout
        while not all(c.over for c in clients):
            if time.monotonic() > deadline:
                states = [(c.you, c.version, c.connects, c.errors[-1:]) for c in clients]
                raise AssertionError(f"the match did not end in time: {states}")
            await asyncio.sleep(0.1)
    finally:
        for client in clients:
            client.stop()
            if client.ws is not None:
                await client.ws.close()
        await asyncio.gather(*tasks, return_exceptions=True)


def check_match(stack, match_id):
    data = stack.query(CHECK_MATCH.format(match=match_id))
    assert data["seqs_ok"], "event seqs are not 1..version"
    assert data["replay_ok"], "replaying the event log does not rebuild the snapshot"
    return data


def assert_versions_complete(client, final):
    """After its first frame, a client saw every version once (updates or resent events)."""
    seen = []
    first = None
    for frame in client.frames:
        if frame["type"] == "snapshot" and first is None:
            first = frame["version"]
        elif frame["type"] == "update":
            seen.append(frame["version"])
        elif frame["type"] == "events":
            seen.extend(e["seq"] for e in frame["events"])
    assert first is not None
    # (an update may also repeat the version of the first snapshot: it raced the connect)
    assert sorted({v for v in seen if v > first}) == list(range(first + 1, final + 1))


def test_four_bots_play_a_bao2_match_to_its_end(stack):
    # A match to 2A takes over 1,000 actions (about a minute here); the match time limit ends
    # this one after the deal in progress, through the same code path.
    (table,) = stack.setup_tables(1, spectators=1, time_limit=int(os.environ.get("E2E_LIMIT", "5")))
    clients = clients_for(stack, table, record=True)
    asyncio.run(play(clients, timeout=400))
    data = check_match(stack, table["match"])
    assert data["status"] == "finished" and data["result"]["over"]
    assert data["result"]["reason"] in ("last_level", "time")
    assert {e["actor"] for e in data["events"] if e["seat"] is not None} == {"player"}
    for client in clients:
        assert client.over and client.version == data["version"]
        assert_versions_complete(client, data["version"])
        assert not [r for r in client.refusals if r["code"] != "stale"]
    frames = {c.you: c.frames for c in clients}
    actions = [e["action"] for e in data["events"]]
    assert check_frames(data["variant"], data["seed"], data["options"], actions, frames) > 0


def test_a_seat_timing_out_every_action_is_auto_played_to_the_end(stack):
    # A Bao 2 match can end at 2A within its first deal, in a few seconds of auto-play; a 2 s
    # limit passes before seat 2's two 1 s clocks have run out, so time_up is always entered.
    (table,) = stack.setup_tables(
        1, options={"first_action_seconds": 1, "action_seconds": 1}, time_limit=2
    )
    clients = clients_for(stack, table, idle_seats=(2,), spectators=False)
    asyncio.run(play(clients, timeout=200))
    data = check_match(stack, table["match"])
    # auto-play is fast: the deal in progress when the limit passes may also pass 2A
    assert data["status"] == "finished" and data["result"]["reason"] in ("time", "last_level")
    by_seat2 = [e["actor"] for e in data["events"] if e["seat"] == 2]
    assert by_seat2[:2] == ["clock", "clock"]
    assert set(by_seat2[2:]) == {"auto"} and len(by_seat2) > 2
    assert data["autoplay"][2] == "timeout"
    # the other seats' clients play (on a loaded machine a 1 s clock may rarely beat them)
    others = [e["actor"] for e in data["events"] if e["seat"] not in (2, None)]
    assert set(others) <= {"player", "clock", "auto"}
    assert others.count("player") >= 0.9 * len(others)
    assert [e["action"] for e in data["events"] if e["seat"] is None] == [{"time_up": True}]


def test_a_client_that_hears_nothing_asks_for_what_it_missed(stack):
    # Nobody acts (every seat idle, the first clock ten minutes): the spectator
    # hears nothing after its snapshot, so its watchdog sends hello on the same connection.
    (table,) = stack.setup_tables(1, spectators=1, options={"first_action_seconds": 600})
    clients = clients_for(stack, table, record=True, idle_seats=range(4))
    spectator = clients[-1]
    spectator.idle_resync = 0.5
    for seat in clients[:4]:
        seat.idle_resync = 600.0

    async def scenario():
        tasks = [asyncio.create_task(c.run()) for c in clients]
        try:
            await wait_for(lambda: spectator.resyncs >= 3, 60, "no hello after silence")
        finally:
            for client in clients:
                client.stop()
                if client.ws is not None:
                    await client.ws.close()
            await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(scenario())
    kinds = [f["type"] for f in spectator.frames]
    assert kinds[0] == "snapshot" and kinds.count("events") >= 2, kinds
    assert spectator.connects == 1 and not spectator.errors
    assert all(c.resyncs == 0 for c in clients[:4])


def test_crash_of_server_and_worker_mid_match(own_stack):
    stack = own_stack
    (table,) = stack.setup_tables(1, time_limit=12, spectators=1)
    clients = clients_for(stack, table, record=True)

    async def scenario():
        tasks = [asyncio.create_task(c.run()) for c in clients]
        deadline = time.monotonic() + 60
        while min(c.version for c in clients) < 40:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        stack.kill("asgi")
        stack.kill("worker")
        before = max(c.version for c in clients)
        await asyncio.sleep(1.0)
        stack.start_asgi()
        stack.start_worker()
        try:
            await asyncio.wait_for(asyncio.gather(*tasks), 300)
        finally:
            for c in clients:
                c.stop()
            await asyncio.gather(*tasks, return_exceptions=True)
        return before

    before = asyncio.run(scenario())
    data = check_match(stack, table["match"])
    assert data["status"] == "finished" and data["version"] > before
    for client in clients:
        assert client.connects >= 2
        assert client.over and client.version == data["version"]
        assert_versions_complete(client, data["version"])
    frames = {c.you: c.frames for c in clients}
    actions = [e["action"] for e in data["events"]]
    check_frames(data["variant"], data["seed"], data["options"], actions, frames)


# The referee (the club's owner) applies one sanction at each table, through the service the
# referee console posts to; then each match is told its time is up (the engine's ``time_up``,
# the action the time limit enters), so it ends after the deal in progress.
SANCTIONS = """
from clubs.models import User
from matches.messages import MatchError
from matches.models import Actor
from matches.services import play
referee = User.objects.get(username="e2e-owner")
applied = []
for k, match_id in enumerate({matches}):
    sanction = ("yellow", "suspend_follow", "revoke_initiative")[k % 3]
    for _ in range(5):
        try:
            play.referee_sanction(referee, match_id, sanction, k % 4, f"拖延 {{k}}")
            applied.append(match_id)
            break
        except MatchError as error:
            if error.code != "stale":
                break
out = {{"applied": applied}}
"""
TIME_UP = """
from matches.messages import MatchError
from matches.models import Actor
from matches.services import play
for match_id in {matches}:
    try:
        play.submit_action(match_id, {{"time_up": True}}, seat=None, actor=Actor.SYSTEM)
    except MatchError:
        pass  # already over
out = {{}}
"""
#: State frames each client gets at least before the matches are told their time is up.
MIN_FRAMES = 30


def state_frames(client):
    return sum(f["type"] in ("snapshot", "update", "events") for f in client.frames)


def referee_seqs(client):
    """The seqs of the referee's events among the frames a client received."""
    events = [e for f in client.frames for e in [f.get("event"), *(f.get("events") or [])] if e]
    return {e["seq"] for e in events if e["actor"] == "referee"}


async def wait_for(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.1)


def test_hidden_information_over_many_bot_matches(stack):
    # Half the tables show played cards (show_history: past tricks are public there and
    # absent from every frame elsewhere). No time limit runs while the clients connect (on a
    # loaded machine that takes seconds): the matches are ended once every client is attached
    # and has seen many frames, after a referee sanction at each table.
    tables = stack.setup_tables(3, spectators=1) + stack.setup_tables(
        3, spectators=1, options={"show_history": True}
    )
    matches = [t["match"] for t in tables]
    groups = [clients_for(stack, table, record=True) for table in tables]
    clients = [c for group in groups for c in group]

    async def scenario():
        tasks = [asyncio.create_task(c.run()) for c in clients]
        try:
            await wait_for(lambda: all(c.version >= 0 for c in clients), 120, "not attached")
            await wait_for(
                lambda: all(state_frames(c) >= MIN_FRAMES // 2 for c in clients), 120, "slow"
            )
            sanctioned = await asyncio.to_thread(stack.query, SANCTIONS.format(matches=matches))
            await wait_for(lambda: all(state_frames(c) >= MIN_FRAMES for c in clients), 120, "slow")
            await asyncio.to_thread(stack.query, TIME_UP.format(matches=matches))
            await wait_for(lambda: all(c.over for c in clients), 300, "not over")
        finally:
            for client in clients:
                client.stop()
                if client.ws is not None:
                    await client.ws.close()
            await asyncio.gather(*tasks, return_exceptions=True)
        return sanctioned["applied"]

    sanctioned = asyncio.run(scenario())
    assert len(sanctioned) >= 4, sanctioned
    checked = 0
    for table, group in zip(tables, groups, strict=True):
        data = check_match(stack, table["match"])
        assert data["status"] == "finished"
        for client in group:
            assert state_frames(client) >= MIN_FRAMES, (table["match"], client.you)
        referee = {e["seq"] for e in data["events"] if e["actor"] == "referee"}
        assert len(referee) == int(table["match"] in sanctioned)
        for client in group:  # every seat and the spectator was told of the sanction
            assert referee_seqs(client) == referee, (table["match"], client.you)
        frames = {c.you: c.frames for c in group}
        actions = [e["action"] for e in data["events"]]
        checked += check_frames(data["variant"], data["seed"], data["options"], actions, frames)
    assert checked > 6 * 5 * 50


# Two sibling tables (issue 40): the same seed and deal group, four people each, opened as a
# league team fixture opens its tables; the club's owner referees. The first has no time
# limit (the referee forfeits it), the second ends with its limit.
SIBLINGS = """
import secrets
from clubs.models import Club, Membership, Role, User
from bench.tables import session_cookie
from matches.models import Match
from matches.services import tables
def person(name):
    return User.objects.get_or_create(username=name, defaults={{"email": name + "@example.com"}})[0]
owner = person("sib-owner")
club = Club.objects.filter(slug="sib").first()
if club is None:
    club = Club.objects.create(name="sib", slug="sib")
    Membership.objects.create(club=club, user=owner, role=Role.OWNER)
seed = secrets.token_hex(8)
out = {{"tables": [], "owner": session_cookie(owner)}}
for t in range(2):
    people = [person(f"sib-{{seed}}-{{t}}-{{s}}") for s in range(4)]
    for p in people:
        Membership.objects.get_or_create(club=club, user=p)
    table = tables.open_table(
        owner, club, variant="bao2", sit=False, competition=True,
        time_limit_seconds={limit} if t else 0, deal_group="e2e-" + seed,
    )
    tables.seat_players(table, people, seed=seed)
    match = Match.objects.get(table=table)
    out["tables"].append({{
        "table": table.pk, "match": match.pk, "seed": match.seed, "spectators": [],
        "cookies": [session_cookie(p) for p in people],
    }})
"""

FORFEIT = """
from clubs.models import User
from matches.services import play
play.referee_sanction(User.objects.get(username="sib-owner"), {match}, "forfeit", 1, "弃权")
out = True
"""


async def sibling_frames(stack, table, cookie):
    """Every frame one socket of ``table`` gets with ``cookie`` until the server closes it."""
    import json

    import websockets

    frames = []
    async with websockets.connect(
        f"{stack.ws}/ws/tables/{table['table']}/",
        additional_headers={"Cookie": cookie, "Origin": stack.http},
        open_timeout=10,
    ) as ws:
        try:
            while True:
                frames.append(json.loads(await asyncio.wait_for(ws.recv(), timeout=10)))
        except websockets.ConnectionClosed:
            pass
    return frames


def replay_status(stack, table, cookie):
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        f"{stack.http}/matches/tables/{table['table']}/replay/", headers={"Cookie": cookie}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


def test_sibling_tables_show_nothing_of_each_other(stack):
    """A player of one sibling table is refused at the other's socket and gets no card
    there; the first table forfeited, its replay stays closed to its own players and the
    referee until the second ends, whose frames pass the hidden-information check; then it
    opens."""
    # the second table's clock is long: with a short one, on a loaded machine, auto-play could
    # finish it before its players connect, and the first table's replay would rightly open
    setup = stack.query(SIBLINGS.format(limit=60))
    one, two = setup["tables"]
    assert one["seed"] == two["seed"]

    async def refusals():
        return [await sibling_frames(stack, one, cookie) for cookie in two["cookies"]]

    for frames in asyncio.run(refusals()):
        check_sibling_refusal(frames)
    stack.query(FORFEIT.format(match=one["match"]))
    for cookie in (one["cookies"][0], two["cookies"][0], setup["owner"]):
        assert replay_status(stack, one, cookie) == 403
    clients = clients_for(stack, two, record=True, spectators=False)
    asyncio.run(play(clients, timeout=400))
    data = check_match(stack, two["match"])
    assert data["status"] == "finished"
    frames = {c.you: c.frames for c in clients}
    actions = [e["action"] for e in data["events"]]
    assert check_frames(data["variant"], data["seed"], data["options"], actions, frames) > 0
    for cookie in (one["cookies"][0], two["cookies"][0], setup["owner"]):
        assert replay_status(stack, one, cookie) == 200
