"""The heuristic's tried options (issue 44): each changes the decision it is about, and the
defaults keep the measured line (docs/bots.md, "The heuristic's hand plan")."""

from engine.bots import HeuristicBot
from engine.bots import heuristic as heuristic_module


def lead_obs(hand, counts=(None, None, None, None)):
    """Seat 0 to lead at level 2 in Guandan with ``hand`` (card strings)."""
    return {
        "variant": "guandan",
        "seat": 0,
        "phase": "play",
        "level": "2",
        "turn": 0,
        "lead": True,
        "counts": list(counts),
        "initiative": [True, False, False, False],
        "hand": list(hand),
        "standing": None,
        "trick": [],
    }


def follow_obs(hand, standing, counts):
    obs = lead_obs(hand, counts)
    obs.update(lead=False, standing=standing)
    return obs


def played(action):
    return sorted(action.cards) if action.kind == "play" else None


def test_the_defaults_are_the_measured_line():
    bot = HeuristicBot()
    assert (bot.endgame_plays, bot.lead_big_first, bot.partner_near) == (0, False, 0)
    assert heuristic_module.ENDGAME_PLAYS == 0 and heuristic_module.PARTNER_NEAR == 0


def test_endgame_leads_the_strongest_play_of_a_two_play_hand_first():
    hand = ["S3", "SA", "DA"]  # a low single and a pair of aces: two plays
    low = HeuristicBot().choose(lead_obs(hand), [])
    assert low.cards and len(low.cards) == 1  # the measured line: the lowest first
    bot = HeuristicBot()
    bot.endgame_plays = 2
    strong = bot.choose(lead_obs(hand), [])
    assert len(strong.cards) == 2  # the aces first, to keep the lead for the 3


def test_lead_big_first_sheds_the_longest_play_of_the_plan_first():
    hand = ["S3", "H4", "C5", "D6", "S7", "SQ"]  # a straight and a single queen
    assert len(HeuristicBot().choose(lead_obs(hand), []).cards) == 5  # lowest first: 3-7 too
    hand = ["S3", "S9", "HT", "CJ", "DQ", "SK"]  # the single 3 is lower than the straight
    assert len(HeuristicBot().choose(lead_obs(hand), []).cards) == 1
    bot = HeuristicBot()
    bot.lead_big_first = True
    assert len(bot.choose(lead_obs(hand), []).cards) == 5


def test_partner_near_takes_the_lead_from_an_opponent_for_the_partner():
    # 17 cards; only an ace beats the K, and it breaks the pair of aces (not a play of the plan)
    hand = ["S3", "S4", "S5", "S7", "S8", "S9", "HJ", "DJ", "SA", "HA"] + ["C6"] * 2
    hand += ["D9", "DT", "CT", "HQ", "CQ"]  # no 2 (the level rank) and no joker
    standing = {"type": "single", "key": "K", "cards": ["SK"], "seat": 1}
    counts = (None, 12, 2, None)  # the partner shows two cards, the opponents more than 6
    quiet = HeuristicBot().choose(follow_obs(hand, standing, counts), [])
    bot = HeuristicBot()
    bot.partner_near = 2
    eager = bot.choose(follow_obs(hand, standing, counts), [])
    assert quiet.kind == "pass" and eager.kind == "play" and len(eager.cards) == 1
