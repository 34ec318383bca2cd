"""engine.arena_ruleai: our bots against a rule AI through the competition wire format.

The real AIs are not in the project (no licence); a stand-in client written here speaks the
same protocol (a ``ws4py`` ``WebSocketClient`` subclass answering ``{"actIndex": i}``) and
checks what it is sent."""

from __future__ import annotations

import json

from engine.arena_ruleai import deal_steps, play_one, wire_move
from engine.cards import parse_cards

CLIENT = """
import json, random
from ws4py.client.threadedclient import WebSocketClient

class ExampleClient(WebSocketClient):
    def received_message(self, message):
        msg = json.loads(str(message))
        if msg["type"] == "act":
            lst = msg["actionList"]
            assert msg["indexRange"] == len(lst) - 1
            for t, rank, cards in lst:
                assert t in ("PASS", "Single", "Pair", "Trips", "ThreeWithTwo", "Straight",
                             "ThreePair", "TwoTrips", "StraightFlush", "Bomb", "tribute", "back")
                if t != "PASS":
                    assert all(c in msg["handCards"] for c in cards), (cards, msg["handCards"])
            self.send(json.dumps({"actIndex": random.randint(0, msg["indexRange"])}))

if __name__ == "__main__":
    ws = ExampleClient("ws://127.0.0.1:23456/game/client%d")
"""


def test_a_stand_in_rule_ai_plays_whole_deals_through_the_wire(tmp_path):
    for seat in range(4):
        (tmp_path / f"client{seat}.py").write_text(CLIENT % seat)
    r = play_one(7, 0, "heuristic", str(tmp_path), max_deals=3)
    assert r["checks"].get("crashes", 0) == 0, r["notes"]
    assert r["checks"].get("illegal", 0) == 0, r["notes"]
    assert r["deals"] >= 3 or r["over"]
    assert len(r["deal_steps"]) == r["deals"]  # every deal ended with a finishing order
    assert all(v in (3, 2, 1, -1, -2, -3) for v in r["deal_steps"])
    json.dumps(r)


def test_a_deal_is_worth_its_levels_to_each_team():
    assert deal_steps([0, 2, 1, 3], 0) == 3 and deal_steps([0, 2, 1, 3], 1) == -3
    assert deal_steps([1, 0, 3, 2], 1) == 2 and deal_steps([1, 0, 3, 2], 0) == -2
    assert deal_steps([2, 1, 3, 0], 0) == 1 and deal_steps([2, 1, 3, 0], 1) == -1
    assert deal_steps([3, 1], 1) == 3  # a double win: the order may stop after two seats


def test_sequences_are_labelled_by_their_lowest_rank():
    cards = parse_cards("SA S2 S3 S4 S5".split())
    assert wire_move("straight_flush", "5", cards, "7")[:2] == ["StraightFlush", "A"]
    cards = parse_cards("ST SJ HQ SK SA".split())
    assert wire_move("straight", "A", cards, "2")[:2] == ["Straight", "T"]
    jokers = parse_cards("SB SB HR HR".split())
    assert wire_move("joker_bomb", None, jokers, "2") == ["Bomb", "JOKER", ["SB", "SB", "HR", "HR"]]
