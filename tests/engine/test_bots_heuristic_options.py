"""The heuristic's measured line on small hands (docs/bots.md, "The heuristic's hand plan"):
the choices the options tried against ai1 (issue 44) would have changed, kept as they are."""

from engine.bots import HeuristicBot


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


def test_a_two_play_hand_leads_its_lowest_play_first():
    hand = ["S3", "SA", "DA"]  # a low single and a pair of aces: two plays
    low = HeuristicBot().choose(lead_obs(hand), [])
    assert low.kind == "play" and len(low.cards) == 1


def test_the_lowest_play_of_the_plan_is_led_whatever_its_length():
    hand = ["S3", "H4", "C5", "D6", "S7", "SQ"]  # a straight and a single queen
    assert len(HeuristicBot().choose(lead_obs(hand), []).cards) == 5
    hand = ["S3", "S9", "HT", "CJ", "DQ", "SK"]  # the single 3 is lower than the straight
    assert len(HeuristicBot().choose(lead_obs(hand), []).cards) == 1


def test_a_long_hand_breaks_its_aces_only_as_the_last_chance_on_a_king():
    # 17 cards; only an ace beats the K, and it breaks the pair of aces (not a play of the plan)
    hand = ["S3", "S4", "S5", "S7", "S8", "S9", "HJ", "DJ", "SA", "HA"] + ["C6"] * 2
    hand += ["D9", "DT", "CT", "HQ", "CQ"]  # no 2 (the level rank) and no joker
    counts = (None, None, None, None)
    # the opponent before us played it: the partner may still take it
    standing = {"type": "single", "key": "K", "cards": ["SK"], "seat": 3}
    assert HeuristicBot().choose(follow_obs(hand, standing, counts), []).kind == "pass"
    # the opponent after us played it and the partner passed: pass, and the opponent leads
    standing = {"type": "single", "key": "K", "cards": ["SK"], "seat": 1}
    last = HeuristicBot().choose(follow_obs(hand, standing, counts), [])
    assert last.kind == "play" and len(last.cards) == 1


def test_a_short_hand_bombs_only_when_the_partner_cannot_take_the_trick():
    hand = ["S5", "H5", "C5", "D5", "S7", "D9", "CJ", "HQ"]  # a bomb and four low singles
    counts = (None, None, None, None)
    standing = {"type": "single", "key": "K", "cards": ["SK"], "seat": 3}
    assert HeuristicBot().choose(follow_obs(hand, standing, counts), []).kind == "pass"
    standing = {"type": "single", "key": "K", "cards": ["SK"], "seat": 1}
    bomb = HeuristicBot().choose(follow_obs(hand, standing, counts), [])
    assert bomb.kind == "play" and bomb.type == "bomb"


def test_a_hand_of_bombs_bombs_when_the_bombs_can_carry_it_out():
    # 16 cards: three bombs and three plain plays (33, 9, K); only a bomb beats the ace. After
    # the smallest bomb two bombs and three plays are left: each bomb takes the lead back for
    # one more play, so the hand goes out in a row of leads (issue 44, fourth session)
    hand = ["S5", "H5", "C5", "D5", "S8", "H8", "C8", "D8", "SJ", "HJ", "CJ", "DJ"]
    hand += ["S3", "H3", "S9", "SK"]
    standing = {"type": "single", "key": "A", "cards": ["SA"], "seat": 3}
    bomb = HeuristicBot().choose(follow_obs(hand, standing, (None, None, None, None)), [])
    assert bomb.kind == "play" and bomb.type == "bomb"
    assert sorted(c % 13 for c in bomb.cards) == [3, 3, 3, 3]  # the smallest, the fives
    # one bomb fewer (the jacks are a triple): two plays short of a row, and it keeps its bombs
    hand = [c for c in hand if c != "DJ"]
    keep = HeuristicBot().choose(follow_obs(hand, standing, (None, None, None, None)), [])
    assert keep.kind == "pass"


def test_an_opponent_one_card_from_out_is_led_a_single_rather_than_a_broken_bomb():
    # a bomb and an ace; the opponent after us shows one card. A triple out of the bomb (no
    # single) leaves a single to lose with; the ace, with the bomb over whatever beats it,
    # goes out (issue 44, fourth session)
    hand = ["S7", "H7", "C7", "D7", "SA"]
    lead = HeuristicBot().choose(lead_obs(hand, counts=(5, 1, None, None)), [])
    assert lead.kind == "play" and lead.type == "single"
    # with a plain play besides, the single is still avoided and no bomb is broken
    hand = ["S7", "H7", "C7", "D7", "SA", "S9", "H9"]
    lead = HeuristicBot().choose(lead_obs(hand, counts=(7, 1, None, None)), [])
    assert lead.kind == "play" and lead.type == "pair" and lead.cards[0] % 13 == 7
