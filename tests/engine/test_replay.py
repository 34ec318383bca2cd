"""Stored form of a match: the action stream, JSON round trips and replay."""

import json
import random

import pytest

from engine.actions import Action, Refusal, decode_stream, encode_stream
from engine.bots import RandomBot
from engine.cards import parse_cards
from engine.match import Match

ACTIONS = [
    Action("pass", 1),
    Action.play(0, parse_cards(["S3", "S4", "S5", "S6", "H7"]), "straight"),
    Action.play(2, parse_cards(["SB", "SB", "HR", "HR"]), "joker_bomb"),
    Action(
        "immune",
        3,
        tuple(sorted(parse_cards(["S9", "S9", "D9", "D9", "C9", "C9", "H9", "H9", "H3", "H3"]))),
        "immune",
    ),
    Action("tribute", 3, (parse_cards(["HR"])[0],)),
    Action("return", 0, (parse_cards(["S4"])[0],)),
    Action("ask", 2, target=1),
    Action("choose", 0, choice="compare"),
    Action("time_up"),
    Action("sanction", target=3, sanction="yellow"),
    Action("sanction", target=0, sanction="red"),
    Action("sanction", target=1, sanction="suspend_follow"),
    Action("sanction", target=2, sanction="revoke_initiative"),
    Action("sanction", target=2, sanction="forfeit"),
]


def test_stream_round_trip_of_every_kind():
    text = encode_stream(ACTIONS)
    back = list(decode_stream(text))
    implicit = {"play", "pass", "immune"}
    assert len(back) == len(ACTIONS)
    for a, b in zip(ACTIONS, back, strict=True):
        if a.kind in implicit:
            assert b.seat is None and (b.kind, b.cards, b.type) == (a.kind, a.cards, a.type)
        else:
            assert b == a


def test_json_and_compact_round_trip_of_every_kind():
    for a in ACTIONS:
        assert Action.from_json(a.to_json()) == a
        assert Action.from_json(json.loads(json.dumps(a.to_json()))) == a
        assert Action.from_compact(a.to_compact()) == a


@pytest.mark.parametrize("bad", ["S3", "S3Q", "Z", "T9", "Xq1", "{nope", "S3S4", "I"])
def test_malformed_stream_is_refused(bad):
    with pytest.raises(Refusal) as exc:
        list(decode_stream(bad))
    assert exc.value.code in ("invalid_action", "invalid_card")


def test_replay_with_asks_sanctions_and_time_up_reproduces_the_state():
    rng = random.Random(4)
    m = Match.new("bao2", "club-7", {"colour_twos": True, "show_history": True})
    bots = [RandomBot(s) for s in range(4)]
    step = 0
    while not m.over:
        seat = m.to_move()
        if step == 30:
            m.apply({"sanction": "suspend_follow", "target": (seat + 1) % 4})
        if step == 45:
            m.apply({"sanction": "yellow", "target": 1})
        if step % 20 == 7:
            for t in range(4):
                if 7 <= m.deal.sizes[t] <= 10 and m.deal.phase == "play":
                    m.apply({"seat": (t + 2) % 4, "ask": t})
                    break
        if step == 400:
            m.apply({"time_up": True})
        m.apply(bots[seat].choose(m.observation(seat), m.legal_actions(seat)))
        step += 1
        if rng.random() < 0.02:
            assert Match.from_json(json.loads(json.dumps(m.to_json()))) == m
    assert m.reason in ("time", "last_level")
    data = json.loads(json.dumps(m.to_json()))
    again = Match.from_json(data)
    assert again == m and again.result() == m.result()
    for seat in (None, 0, 1, 2, 3):
        assert again.observation(seat) == m.observation(seat)


def test_finished_match_json_is_small():
    bots = [RandomBot(s) for s in range(4)]
    m = Match.new("bao2", 21)
    while not m.over:
        seat = m.to_move()
        m.apply(bots[seat].choose(m.observation(seat), lambda s=seat: m.legal_actions(s)))
    size = len(json.dumps(m.to_json()))
    assert size < 20_000
    assert size < 400 * len(m.deals) + 500


def test_long_streams_are_stored_compressed_and_replay_exactly():
    from bench.engine_speed import play_random_match

    m = play_random_match("bao2", 26)
    data = json.loads(json.dumps(m.to_json()))
    assert "actions_z" in data and "actions" not in data
    assert len(json.dumps(data)) < 12_000
    assert Match.from_json(data) == m
    data["actions_z"] = "not base64!"
    with pytest.raises(Refusal):
        Match.from_json(data)
