"""The heuristic's card memory in Guandan (docs/bots.md, "Card memory"): a hand that runs out
leads its unbeatable plays first."""

import pytest

from engine.bots import HeuristicBot
from engine.cards import card_str
from engine.match import Match


def lead_obs(hand, counts=(None, None, None, None)):
    """Seat 0 to lead at level 2 in Guandan with ``hand`` (card strings), its first action."""
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
        "deal_no": 0,
        "first_action": True,
    }


def choose(obs, memory=True, played=None):
    """The heuristic's choice, with its card memory or not, after it saw ``played`` (seat ->
    card strings) earlier in the deal."""
    bot = HeuristicBot()
    bot.use_memory = memory
    if played:
        bot.memory.update(obs)
        for seat, cards in played.items():
            bot.memory.played[seat].extend(cards)
    return bot.choose(obs, [])


def cards(action):
    return sorted(card_str(c) for c in action.cards)


def test_a_hand_that_runs_out_leads_its_unbeatable_play_first():
    hand = ["S3", "HR", "HR"]  # a low single and a pair nothing can beat: two plays
    assert cards(choose(lead_obs(hand), memory=False)) == ["S3"]  # before: the lowest first
    # the pair keeps the lead, then the 3 goes out
    assert cards(choose(lead_obs(hand))) == ["HR", "HR"]


def test_what_was_played_makes_a_play_unbeatable():
    # a pair of aces and a low single: with every pair above the aces (the 2s, the level rank,
    # and the jokers) seen played, the aces keep the lead and the 3 goes out after them
    hand = ["S3", "SA", "DA"]
    above = [card_str(c) for c in (0, 13, 26, 39) for _ in range(2)] + ["SB", "SB", "HR", "HR"]
    assert cards(choose(lead_obs(hand))) == ["S3"]  # nothing seen: the aces can be beaten
    led = choose(lead_obs(hand), played={1: above[:6], 3: above[6:]})
    assert cards(led) == ["DA", "SA"]


def test_a_hand_that_does_not_run_out_leads_its_lowest_play():
    hand = ["S3", "S6", "HR", "HR"]  # two low singles: one unbeatable pair is not enough
    assert cards(choose(lead_obs(hand))) == ["S3"]


@pytest.mark.parametrize("variant", ["bao2", "honger", "shuangkou2"])
def test_the_other_games_never_use_the_memory(variant):
    m = Match.new(variant, 4)
    bot = HeuristicBot()
    for _ in range(200):
        if m.over:
            break
        seat = m.to_move()
        m.apply(bot.choose(m.observation(seat), lambda s=seat: m.legal_actions(s)))
    assert bot.memory.key is None
