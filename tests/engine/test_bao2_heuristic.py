"""The heuristic's Bao 2 line (engine/bots/bao2.py, docs/bots.md, "Bao 2 has its own line"):
with initiative it plays its natural 2s as its lowest cards instead of keeping them for a 保2
(a 2 left in the last hand is a level for the opponents, 关2), and it leads, follows and
returns by the hand plan (the fewest plays). The former line (``heuristic-v1``) is unchanged."""

from engine.actions import Action
from engine.bots import HeuristicBot
from engine.bots import bao2 as line
from engine.bots._moves import Moves
from engine.cards import card_str, parse_cards


def obs(hand, *, initiative=True, standing=None, counts=(None, None, None, None), phase="play"):
    """Seat 0 of a Bao 2 deal at level 3: to lead, or to answer ``standing``."""
    return {
        "variant": "bao2",
        "seat": 0,
        "phase": phase,
        "level": "3",
        "turn": 0,
        "lead": standing is None,
        "counts": list(counts),
        "initiative": [initiative, False, False, False],
        "hand": list(hand),
        "standing": standing,
        "trick": [] if standing is None else [standing],
        "deal_no": 1,
        "first_action": False,
    }


def play(seat, type_, key, cards):
    return {"seat": seat, "type": type_, "key": key, "cards": list(cards)}


def cards(action):
    return sorted(card_str(c) for c in action.cards) if action.kind == "play" else "pass"


def choose(observation, plan=True):
    return HeuristicBot(plan=plan).choose(observation, [])


def test_with_initiative_a_natural_two_is_led_as_the_lowest_card():
    # with initiative the 2 is playable; kept for a 保2 it is closed for the opponents (关2)
    # whenever the seat does not go out first: the line leads it like its lowest card
    hand = ["S2", "S7", "H7", "CK"]
    assert cards(choose(obs(hand))) == ["S2"]
    # the former line keeps it for the end and leads its lowest other play
    assert cards(choose(obs(hand), plan=False)) == ["H7", "S7"]


def test_without_initiative_the_twos_are_out_of_the_plan():
    # no initiative: a natural 2 cannot be played (§5); the plan leads the pair of 7s, a play
    # of the plan, rather than one 7 of it
    action = choose(obs(["S2", "S7", "H7", "CK"], initiative=False))
    assert cards(action) == ["H7", "S7"]


def test_a_hand_of_natural_twos_goes_out_on_them_as_a_bao2():
    # the whole hand in one lead of pure 2s: a 保2 (a level a 2) when it is led with initiative
    assert cards(choose(obs(["S2", "H2", "D2"]))) == ["D2", "H2", "S2"]


def test_the_lead_is_the_play_of_the_plan_not_the_lowest_card():
    # 4-8 is one straight and the king a single: two plays. The lowest single (the 4) would
    # leave 5 6 7 8 K in five plays; the straight keeps the plan
    hand = ["S4", "H5", "C6", "D7", "S8", "HK"]
    assert cards(choose(obs(hand, initiative=False))) == ["C6", "D7", "H5", "S4", "S8"]
    assert cards(choose(obs(hand, initiative=False), plan=False)) == ["S4"]


def test_a_follow_keeps_the_pairs_of_the_plan():
    # over a 5: the 9 is a single of the plan, the 6 would break the pair of 6s
    standing = play(3, "single", "5", ["S5"])
    hand = ["S6", "H6", "S9", "CK"]
    assert cards(choose(obs(hand, standing=standing))) == ["S9"]
    assert [c[1] for c in cards(choose(obs(hand, standing=standing), plan=False))] == ["6"]


def test_the_partners_play_stands():
    standing = play(2, "single", "5", ["S5"])
    assert choose(obs(["S6", "S9", "CK"], standing=standing)).kind == "pass"


def test_an_opponent_near_out_is_bombed_and_a_long_hand_keeps_its_bomb_otherwise():
    hand = ["S8", "H8", "C8", "D8", "S4", "H6", "C9", "DJ", "SQ", "HK", "CA", "D3"]
    standing = play(3, "pair", "A", ["SA", "HA"])
    # the opponent who played it shows 3 cards: the bomb (it may be going out next)
    near = obs(hand, standing=standing, counts=(12, None, None, 3))
    assert cards(choose(near)) == ["C8", "D8", "H8", "S8"]
    # 12 cards and no opponent shown near out: the bomb is kept
    assert choose(obs(hand, standing=standing)).kind == "pass"


def test_the_reduced_observation_of_the_search_playouts_is_enough():
    # the search bot's playouts give the line only seat, counts, lead and the standing seat
    full = obs(["S2", "S7", "H7", "CK"])
    moves = Moves(full, [])
    mini = {"variant": "bao2", "seat": 0, "counts": [4, 9, 9, 9], "lead": True, "standing": None}
    assert cards(line.lead(mini, moves)) == ["S2"]
    standing = play(3, "single", "5", ["S5"])
    moves = Moves(obs(["S6", "H6", "S9", "CK"], standing=standing), [])
    mini = {"variant": "bao2", "seat": 0, "counts": [4, 9, 9, 9], "lead": False}
    assert cards(line.follow({**mini, "standing": {"seat": 3}}, moves)) == ["S9"]
    assert line.follow({**mini, "standing": {"seat": 2}}, moves).kind == "pass"


def test_the_return_is_the_card_the_plan_misses_least():
    # returnable cards (3-10, not the level 3): the 4s are a pair, the 9 a lone card. The plan
    # gives the lone 9 (one play fewer), the former line the lowest card, a 4
    hand = ["S4", "H4", "C9", "SK", "HK", "SA", "S2"]
    legal = [Action("return", 0, (c,)) for c in parse_cards(["S4", "H4", "C9"])]
    observation = obs(hand, phase="return")
    assert card_str(HeuristicBot().choose(observation, legal).card) == "C9"
    assert card_str(HeuristicBot(plan=False).choose(observation, legal).card) == "S4"
