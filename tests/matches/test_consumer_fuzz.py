"""Bad frames on the table websocket, as the seated player and as a spectator.

Every bad frame (NUL characters or lone surrogates in any string, huge integers, floats and
NaN/Infinity literals, nested garbage, non-object JSON, binary frames) gets a ``refused``
answer with a reason code and a translated message; the match (version, event log, snapshot,
auto-play) is unchanged, the connection still answers, and a legal action is then accepted.
A ``hello`` whose version is unusable (but otherwise clean) gets a snapshot, as documented.
Runs on PostgreSQL too (``integration``): JSONB refuses ``\\u0000`` where SQLite stores it.
"""

import asyncio
import json
import random

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from django.conf import settings
from django.utils import translation
from hypothesis import HealthCheck, given
from hypothesis import settings as settings_
from hypothesis import strategies as st
from matchkit import make_user
from test_consumers import connect, login, receive, receive_type

from engine.match import Match as EngineMatch
from matches import consumers, limits
from matches.live import answers, intake
from matches.messages import refusal_message
from matches.models import Match
from matches.services import tables

pytestmark = pytest.mark.integration

BAD = ("\u0000", "\ud800", "\udfff")
#: Expected answer of a hello whose version is unusable but harmless: a snapshot (protocol).
SNAP = "snapshot"


@pytest.fixture
def table(club, players, scheduled, monkeypatch, settings):
    # hundreds of frames a second: lift the rate limits (per connection, per user, per
    # address) for these tests
    monkeypatch.setattr(intake, "RATE", 1e9)
    for name in ("USER", "READ", "ANONYMOUS", "IP"):
        setattr(settings, f"MATCHES_WS_{name}_RATE", 10**9)
    table = tables.open_table(players[0], club, variant="bao2")
    for i in (1, 2, 3):
        tables.take_seat(players[i], table, i)
    table.refresh_from_db()
    return table


def _positions(value, path=()):
    """Every path to a string, number, bool or null in ``value``, and to every dict key."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*path, ("key", key))
            yield from _positions(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _positions(item, (*path, i))
    else:
        yield path


def _replace(value, path, make):
    """A copy of ``value`` with the leaf (or key) at ``path`` replaced by make(old)."""
    if not path:
        return make(value)
    step, rest = path[0], path[1:]
    if isinstance(step, tuple):  # ("key", key): rename the key
        _, key = step
        return {(make(k) if k == key else k): v for k, v in value.items()}
    if isinstance(value, dict):
        return {k: (_replace(v, rest, make) if k == step else v) for k, v in value.items()}
    return [_replace(v, rest, make) if i == step else v for i, v in enumerate(value)]


def _tainted(message):
    """``message`` with NUL / lone surrogates put in every string position (start, middle,
    end, alone) and in place of every non-string leaf."""
    out = []
    for path in _positions(message):
        for bad in BAD:
            makers = [lambda old, b=bad: b]
            makers += [
                lambda old, b=bad: b + old,
                lambda old, b=bad: old[:1] + b + old[1:],
                lambda old, b=bad: old + b,
            ]
            for make in makers:
                try:
                    out.append(_replace(message, path, make))
                except TypeError:  # prefix/suffix of a non-string leaf
                    continue
    return out


def _garbage(rng, depth=0):
    """A random JSON value: nested lists/dicts of odd scalars."""
    scalars = [None, True, False, 0, -1, 2**63, -(2**70), 10**40, 1.5, -0.0, 1e308, "", "S3", "Ω"]
    if depth > 3 or rng.random() < 0.4:
        return rng.choice(scalars)
    if rng.random() < 0.5:
        return [_garbage(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice(["play", "pass", "type", "seat", "x"]): _garbage(rng, depth + 1)}


def _beyond_64_bits(value):
    if isinstance(value, dict):
        return any(_beyond_64_bits(v) for v in value.values())
    if isinstance(value, list):
        return any(_beyond_64_bits(v) for v in value)
    return isinstance(value, int) and not -(2**63) <= value < 2**63


def _bad_frames(legal, seat):
    """(frame kwargs, expected code or None for "any refusal") for every bad frame tried."""
    cards = legal.get("play") or ["S3"]
    messages = [
        {"type": "action", "id": "a1", "seq": 0, "action": {**legal, "seat": seat}},
        {"type": "hello", "version": 0},
        {"type": "check", "id": "c1", "cards": list(cards)},
        {"type": "hint", "id": "h1"},
        {"type": "autoplay", "id": "p1", "on": True},
    ]
    frames = []
    for message in messages:
        for bad in _tainted(message):
            frames.append(({"text_data": json.dumps(bad)}, "bad_message"))
        # the same characters raw (not escaped) in the text
        frames.append(({"text_data": json.dumps(_tainted(message)[0], ensure_ascii=False)}, None))
    # huge integers (beyond 64 bits; beyond Python's digit limit) for seq / version / id
    for huge in (2**63, -(2**63) - 1, 10**40, -(10**300)):
        frames += [
            ({"text_data": json.dumps({**messages[0], "seq": huge})}, "bad_message"),
            ({"text_data": json.dumps({"type": "hello", "version": huge})}, "bad_message"),
            ({"text_data": json.dumps({**messages[3], "id": huge})}, "bad_message"),
        ]
    frames.append(({"text_data": '{"type": "hello", "version": ' + "9" * 5000 + "}"}, "bad_json"))
    frames.append(({"text_data": '{"type": "action", "seq": ' + "9" * 5000 + "}"}, "bad_json"))
    # floats and NaN / Infinity literals (not JSON)
    for literal in ("NaN", "Infinity", "-Infinity", "1e400", "-1e999"):
        for key, kind in (("seq", "action"), ("version", "hello"), ("id", "hint")):
            frames.append(({"text_data": f'{{"type": "{kind}", "{key}": {literal}}}'}, None))
        frames.append(({"text_data": f'{{"type": "check", "cards": ["S3", {literal}]}}'}, None))
    for number in (0.0, 1.5, 1e308, -2.5):
        frames += [
            ({"text_data": json.dumps({**messages[0], "seq": number})}, "bad_message"),
            ({"text_data": json.dumps({"type": "hello", "version": number})}, SNAP),
            ({"text_data": json.dumps({**messages[2], "cards": [number]})}, None),
            ({"text_data": json.dumps({**messages[4], "on": number})}, "bad_message"),
        ]
    # nested garbage, deep nesting, odd structure
    rng = random.Random(20261130)
    for _ in range(40):
        junk = _garbage(rng)
        frames += [
            ({"text_data": json.dumps({**messages[0], "action": junk})}, None),
            ({"text_data": json.dumps({**messages[0], "action": {**legal, "play": junk}})}, None),
            ({"text_data": json.dumps({**messages[2], "cards": junk})}, None),
        ]
        if junk is not None and not isinstance(junk, bool) and junk != 0:  # else a valid hello
            expected = "bad_message" if _beyond_64_bits(junk) else SNAP
            frames.append(({"text_data": json.dumps({"type": "hello", "version": junk})}, expected))
        if not isinstance(junk, bool):
            frames.append(({"text_data": json.dumps({**messages[4], "on": junk})}, "bad_message"))
    deep = [[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]
    frames += [
        ({"text_data": "[" * 3000 + "]" * 3000}, "bad_json"),
        ({"text_data": '{"type": "action", "action": ' + "[" * 3000 + "]" * 3000 + "}"}, None),
        ({"text_data": '{"type": "hint", "id": ' + '{"a":' * 1500 + "1" + "}" * 1500 + "}"}, None),
        # nesting deeper than any message needs, even around a legal action
        ({"text_data": json.dumps({**messages[0], "action": {**legal, "x": deep}})}, "bad_message"),
        ({"text_data": json.dumps({**messages[3], "id": deep})}, "bad_message"),
        ({"text_data": json.dumps({**messages[0], "action": {**legal, "seat": str(seat)}})}, None),
        ({"text_data": json.dumps({**messages[0], "action": {**legal, "seat": [seat]}})}, None),
        ({"text_data": json.dumps({"type": ["action"], "action": legal})}, "bad_message"),
        ({"text_data": json.dumps({"type": None})}, "bad_message"),
        ({"text_data": json.dumps({"type": {"action": 1}})}, "bad_message"),
        ({"text_data": json.dumps({"type": "action", "seq": True, "action": legal})}, None),
        ({"text_data": json.dumps({"type": "autoplay", "id": 1})}, "bad_message"),
        ({"text_data": json.dumps({"type": "hello", "version": "0"})}, SNAP),
        ({"text_data": json.dumps({"type": "hello", "version": -1})}, SNAP),
        ({"text_data": json.dumps({"type": "hello", "version": False})}, SNAP),
    ]
    # non-object JSON, empty and binary frames
    for text in ("[]", "[1, 2]", '"action"', "null", "true", "0", "1.5", '""', " ", "\u0000"):
        frames.append(({"text_data": text}, None))
    for data in (b"\x00", json.dumps(messages[0]).encode(), b"\xff\xfe\xd8\x00"):
        frames.append(({"bytes_data": data}, "bad_message"))
    return frames


def _state(match_id):
    match = Match.objects.get(pk=match_id)
    events = list(match.events.order_by("seq").values_list("seq", "seat", "action"))
    return match.version, match.snapshot, list(match.autoplay), events


def _expected_messages():
    with translation.override(settings.LANGUAGE_CODE):
        codes = ("bad_message", "bad_json", "invalid_action", "spectator", "invalid_card")
        return {code: refusal_message(code) for code in codes}


@pytest.mark.parametrize("role", ["player", "spectator"])
def test_bad_frames_are_refused_and_change_nothing(table, players, role):
    match = Match.objects.get(table=table)
    engine = EngineMatch.from_json(match.snapshot)
    seat = engine.to_move()
    legal = engine.legal_actions(seat)[0].to_json()
    legal.pop("seat", None)
    watcher = make_user("watcher")
    login(*players, watcher)
    frames = _bad_frames(legal, seat)
    assert len(frames) > 300
    before = _state(match.pk)
    translated = _expected_messages()
    with translation.override("en"):
        english = refusal_message("bad_message")
    state = database_sync_to_async(_state)

    async def scenario():
        me = connect(table.pk, players[seat])
        sender = me if role == "player" else connect(table.pk, watcher)
        for comm in {me, sender}:
            connected, _ = await comm.connect()
            assert connected
            await receive_type(comm, "snapshot")
        for n, (frame, code) in enumerate(frames):
            await sender.send_to(**frame)
            answer = await receive(sender)
            if code == SNAP:
                assert answer["type"] == "snapshot" and answer["version"] == 0, (frame, answer)
                assert await state(match.pk) == before, frame
                continue
            assert answer["type"] in ("error", "refused"), (frame, answer)
            assert isinstance(answer.get("code"), str) and answer["code"], (frame, answer)
            if code is not None:
                assert answer["code"] == code, (frame, answer)
            if answer["code"] in translated:
                assert answer["message"] == translated[answer["code"]], (frame, answer)
            else:
                assert answer["message"] and answer["message"] != answer["code"], answer
            # the connection still answers, and nothing changed
            await sender.send_to(text_data=json.dumps({"type": "ping", "id": n}))
            assert await receive(sender) == {"type": "pong", "id": n}, frame
            assert await state(match.pk) == before, frame
        assert translated["bad_message"] != english
        # a legal action is still accepted, and every connection sees it
        await me.send_to(
            text_data=json.dumps({"type": "action", "id": "ok", "seq": 0, "action": legal})
        )
        assert await receive_type(me, "ack") == {"type": "ack", "id": "ok", "version": 1}
        if sender is not me:
            assert (await receive_type(sender, "update"))["version"] == 1
        for comm in {me, sender}:
            await comm.disconnect()

    async_to_sync(scenario)()
    after = _state(match.pk)
    assert after[0] == 1 and len(after[3]) == 1


# --------------------------------------------------------------------------- the frame reader
# Issue 40, item 7: a ping whose id held a raw NUL raised in ``_frame_id`` (the socket closed
# 1006, "Exception in ASGI application"). No frame may raise: each gets its refusal or is
# queued for its handler.

#: Every code point: NUL, control characters and lone surrogates included.
_CHARS = st.characters(exclude_categories=())
_ODD = st.sampled_from(
    ["\x00", "\ud800", "\udfff", '"', "\\", "\\u0000", "\\ud800", "\\", "\n", "\x7f", "保"]
    + ["9" * 30, "-", ".", "e5", "NaN", "{", "}", "[", ":", ","]
)
_PIECE = st.text(_CHARS, max_size=12) | _ODD
_RAW = st.lists(_PIECE, max_size=5).map("".join)
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(_CHARS, max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(_CHARS, max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
_KINDS = ["ping", "hello", "action", "check", "hint", "autoplay", "dismiss_summary", "x"]
_CODES = {"bad_json", "bad_message", "too_large", "rate_limited"}


@st.composite
def _frames(draw):
    """A text frame: a message with a raw or encoded odd ``id``, or anything at all, perhaps
    with odd characters put in and padded beyond the size limit."""
    kind = draw(st.sampled_from(_KINDS))
    shape = draw(st.integers(0, 3))
    if shape == 0:
        text = f'{{"type": "{kind}", "id": "{draw(_RAW)}"}}'
    elif shape == 1:
        text = f'{{"type": "{kind}", "id": {draw(_RAW)}}}'
    elif shape == 2:
        message = {"type": kind, "id": draw(_VALUES), **draw(st.dictionaries(st.text(), _VALUES))}
        text = json.dumps(message, ensure_ascii=draw(st.booleans()), allow_nan=True)
    else:
        text = draw(st.text(_CHARS, max_size=300))
    if draw(st.booleans()):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(_PIECE) + text[at:]
    if draw(st.integers(0, 4)) == 0:
        text += " " * (intake.MAX_FRAME + 1)
    return text


def _reader():
    """A table consumer with no socket: what it sends, whether it closed, what it queued."""
    consumer = consumers.TableConsumer.__new__(consumers.TableConsumer)
    consumer.viewer = answers.Viewer(1, None, settings.LANGUAGE_CODE)
    consumer.allowance = intake.Allowance()
    consumer.limits = limits.Identity(1, "127.0.0.1")
    consumer.sent, consumer.closed = [], []

    async def send(text_data=None, bytes_data=None, close=False):
        assert not consumer.closed, "a frame sent after the close"
        consumer.sent.append(text_data)

    async def close(code=None, reason=None):
        consumer.closed.append(code)

    consumer.send, consumer.close = send, close
    return consumer


@settings_(
    max_examples=600,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(text=_frames(), state=st.sampled_from(["fresh", "limited", "flooding"]))
def test_no_frame_raises_in_the_reader(monkeypatch, text, state):
    async def always(*args, **kwargs):
        return True

    monkeypatch.setattr(limits, "allowed", always)
    consumer = _reader()
    consumer.allowance.tokens = {
        "fresh": consumer.allowance.tokens,
        "limited": 0.0,
        "flooding": -intake.FLOOD,
    }[state]

    async def read():
        consumer.inbox = asyncio.Queue()
        await consumer.websocket_receive({"type": "websocket.receive", "text": text})
        return consumer.inbox.qsize()

    with monkeypatch.context() as patch:
        if state != "fresh":  # no refill while the example runs, however slow the machine
            patch.setattr(intake, "RATE", 1e-9)
        queued = asyncio.run(read())
    assert len(consumer.sent) + queued == 1 or consumer.closed, (text, consumer.sent)
    for frame in consumer.sent:
        answer = json.loads(frame)
        assert answer["type"] == "refused" and answer["code"] in _CODES, answer
        assert answer["message"] and answer["message"] != answer["code"]
        assert answer["id"] is None or intake.clean(answer["id"]), answer
    if queued:
        assert state == "fresh"


@pytest.mark.parametrize(
    "text",
    [
        '{"type": "ping", "id": "e\x00"}',  # the frame of the issue: a raw NUL, not JSON
        '{"type": "ping", "id": "e\x01", "x": 1}',
        '{"type": "ping", "id": "\ud800", "pad": "' + "x" * 9000 + '"}',  # too large
        '{"type": "ping", "id": "\x00\ud800"}',
    ],
)
def test_odd_ids_get_a_refusal_over_the_socket(table, players, text):
    login(players[0])

    async def scenario():
        comm = connect(table.pk, players[0])
        connected, _ = await comm.connect()
        assert connected
        await receive_type(comm, "snapshot")
        await comm.send_to(text_data=text)
        answer = await receive(comm)
        assert answer["type"] == "refused" and answer["id"] is None, answer
        assert answer["code"] in ("bad_json", "too_large", "bad_message"), answer
        await comm.send_to(text_data=json.dumps({"type": "ping", "id": "after"}))
        assert await receive(comm) == {"type": "pong", "id": "after"}
        await comm.disconnect()

    async_to_sync(scenario)()


_MESSAGES = st.fixed_dictionaries(
    {"type": st.sampled_from([*_KINDS, "phrase"])},
    optional={
        "id": _VALUES,
        "version": _VALUES,
        "seq": _VALUES,
        "action": _VALUES,
        "cards": _VALUES,
        "on": _VALUES,
        "deal": _VALUES,
        "phrase": _VALUES,
    },
)


@settings_(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    frames=st.lists((_frames() | _MESSAGES.map(json.dumps)).filter(bool), min_size=1, max_size=8)
)
def test_no_frame_breaks_a_live_connection(table, players, settings, frames):
    """Whatever frames a player sends, the connection goes on: a ``ping`` after them is
    answered, and the server never closes it."""
    # a connection per example (and per shrinking step): lift the limits on connections
    settings.MATCHES_WS_CONNECTS_PER_MINUTE = 10**6
    settings.MATCHES_SOCKETS_PER_USER = 10**6
    login(players[1])

    async def scenario():
        comm = connect(table.pk, players[1])
        assert (await comm.connect())[0]
        try:
            await receive_type(comm, "snapshot")
            for n, text in enumerate(frames):
                await comm.send_to(text_data=text)
                await comm.send_to(text_data=json.dumps({"type": "ping", "id": f"after{n}"}))
                while True:
                    output = await comm.receive_output(timeout=5)
                    assert output["type"] == "websocket.send", (text, output)
                    if json.loads(output["text"]) == {"type": "pong", "id": f"after{n}"}:
                        break
        finally:
            await comm.disconnect()

    async_to_sync(scenario)()
