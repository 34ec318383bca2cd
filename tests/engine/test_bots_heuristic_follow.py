"""The heuristic's follow in Guandan (docs/bots.md, "The heuristic's hand plan"): it blocks an
opponent close to out, takes a trick with a play no opponent can beat, and bombs with the bomb
that leaves its hand in the fewest plays."""

from engine.bots import HeuristicBot
from engine.cards import card_str


def follow_obs(hand, standing, counts=(None, None, None, None)):
    """Seat 0 to answer ``standing`` (a play of seat 3, the opponent before it) at level 2."""
    return {
        "variant": "guandan",
        "seat": 0,
        "phase": "play",
        "level": "2",
        "turn": 0,
        "lead": False,
        "counts": list(counts),
        "initiative": [True, True, True, True],
        "hand": list(hand),
        "standing": standing,
        "trick": [standing],
        "deal_no": 0,
        "first_action": False,
    }


def play(seat, type_, key, cards):
    return {"seat": seat, "type": type_, "key": key, "cards": list(cards)}


def cards(action):
    return sorted(card_str(c) for c in action.cards) if action.kind == "play" else "pass"


def choose(obs, memory=True, played=None):
    bot = HeuristicBot()
    bot.use_memory = memory
    if played:
        bot.memory.update(obs)
        for seat, shown in played.items():
            bot.memory.played[seat].extend(shown)
    return bot.choose(obs, [])


def test_an_opponent_close_to_out_is_blocked_with_the_highest_single():
    hand = ["S7", "SK", "S9", "H9", "D4", "C4"]
    standing = play(3, "single", "5", ["S5"])
    # no one close to out: the lowest single of the plan
    assert cards(choose(follow_obs(hand, standing, (None, None, None, 9)))) == ["S7"]
    # the opponent after us holds one card: our highest single, so its last card cannot top it
    assert cards(choose(follow_obs(hand, standing, (None, 1, None, 9)))) == ["SK"]
    # two cards left is a pair's worth: a pair is blocked too, a single is as well
    pair = play(3, "pair", "3", ["S3", "H3"])
    assert cards(choose(follow_obs(hand, pair, (None, 2, None, 9)))) == ["H9", "S9"]
    assert cards(choose(follow_obs(hand, pair, (None, None, None, 9)))) == ["C4", "D4"]


def test_a_pair_no_opponent_can_beat_takes_the_trick_when_it_keeps_the_plan():
    # the small jokers' pair is the pair of a full house (444 + jokers): playing it keeps the
    # hand's count of plays, so the plan alone passes; once both big jokers were seen played,
    # nothing but a bomb beats it, and it takes the lead
    hand = ["S4", "H4", "C4", "SB", "SB", "S3", "S6", "S8", "ST", "SQ", "SK"]
    standing = play(3, "pair", "T", ["CT", "DT"])
    obs = follow_obs(hand, standing)
    assert cards(choose(obs, memory=False)) == "pass"
    assert cards(choose(obs)) == "pass"  # a pair of big jokers may still be out there
    seen = {1: ["HR"], 3: ["HR"]}
    assert cards(choose(obs, played=seen)) == ["SB", "SB"]


def test_a_bomb_is_played_whole_rather_than_leaving_a_lone_card():
    # an opponent shows 5 cards after its ace: bomb it. Four of the five 5s would leave a
    # lone 5 to lose with; the five of them keep the hand's plays
    hand = ["S5", "S5", "H5", "C5", "D5", "S7", "H7"]
    standing = play(3, "single", "A", ["SA"])
    assert cards(choose(follow_obs(hand, standing, (None, None, None, 5)))) == [
        "C5",
        "D5",
        "H5",
        "S5",
        "S5",
    ]
