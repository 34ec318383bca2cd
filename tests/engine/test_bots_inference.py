"""What the heuristic infers of each opponent's hand in Guandan (docs/bots.md, "Card memory"):
a pass on a play of its opponents, and the tribute it paid, say what it cannot beat."""

from engine.bots import HeuristicBot
from engine.bots.memory import DealMemory
from engine.variants import combo_rules

RULES = combo_rules("guandan", "2")


def obs_for(hand, trick, counts=(None, None, None, None), **extra):
    """Seat 0 to act at level 2 in Guandan with ``hand``, the current ``trick`` as shown."""
    standing = None
    for e in trick:
        if "cards" in e:
            standing = e
    obs = {
        "variant": "guandan",
        "seat": 0,
        "phase": "play",
        "level": "2",
        "turn": 0,
        "lead": standing is None,
        "counts": list(counts),
        "initiative": [True, True, True, True],
        "hand": list(hand),
        "standing": standing,
        "trick": list(trick),
        "deal_no": 0,
        "first_action": True,
    }
    obs.update(extra)
    return obs


def single(seat, card):
    return {"seat": seat, "type": "single", "key": card[1], "cards": [card]}


def test_a_pass_on_an_opponents_play_says_what_the_seat_cannot_beat():
    # seat 1 led a 5, our partner (2) put a king on it, seat 3 passed: seat 3 holds no single
    # above the king (but a bomb); seat 1 said nothing of its singles
    obs = obs_for(["S3", "S4"], [single(1, "S5"), single(2, "SK"), {"seat": 3, "pass": True}])
    mem = DealMemory()
    mem.update(obs)
    assert mem.passed[3] == [("single", "K")] and mem.passed[1] == []
    unseen = mem.unseen(obs, RULES)
    assert unseen.caps[3]["single"] == RULES.value[11]
    assert unseen.caps[3]["pair"] == RULES.value[11]  # no single above the king: no pair either
    assert unseen.opp_beats("single", "K")  # seat 1 may
    out1 = mem.unseen(dict(obs, counts=[None, 0, None, None]), RULES)  # seat 1 gone out
    assert not out1.opp_beats("single", "K")
    assert not out1.opp_beats("single", "A")
    assert out1.opp_beats("single", "Q")  # it passed on the king, not on a queen
    assert out1.opp_beats("triple", "3")  # a pass on a single says nothing of triples above it


def test_a_pass_on_the_partners_play_says_nothing():
    obs = obs_for(["S3", "S4"], [single(3, "SK"), {"seat": 1, "pass": True}])
    mem = DealMemory()
    mem.update(obs)
    assert mem.passed[1] == []
    assert mem.unseen(obs, RULES).caps[1] == {}


def test_the_tribute_paid_is_the_payers_highest_card():
    # seat 1 paid a queen to us and got a 3 back: no single above the queen but wild cards;
    # holding both wild cards (H2), we know it holds no ace, no 2, no joker
    tribute = {
        "anti": False,
        "double": False,
        "givers": [1],
        "receivers": [0],
        "paid": ["SQ"],
        "returned": ["S3"],
    }
    hand = ["H2", "H2", "S4", "SQ"]
    obs = obs_for(hand, [], counts=[None, None, None, 0], tribute=tribute)
    mem = DealMemory()
    mem.update(obs)
    unseen = mem.unseen(obs, RULES)
    assert not unseen.opp_beats("single", "Q")
    assert not unseen.opp_beats("pair", "Q")
    assert unseen.opp_beats("single", "J")
    # without the wild cards in hand it may hold one: a single of the level rank
    obs2 = obs_for(["S4", "SQ"], [], counts=[None, None, None, 0], tribute=tribute)
    mem2 = DealMemory()
    mem2.update(obs2)
    assert mem2.unseen(obs2, RULES).opp_beats("single", "A")
    assert not mem2.unseen(obs2, RULES).opp_beats("single", "2")


def test_whole_deals_record_the_other_seats_passes_never_the_seats_own():
    from engine.match import Match

    m = Match.new("guandan", 2)
    bots = [HeuristicBot() for _ in range(4)]
    seen = 0
    while not m.over and m.deal_no < 2:
        seat = m.to_move()
        obs = m.observation(seat)
        m.apply(bots[seat].choose(obs, lambda s=seat: m.legal_actions(s)))
        if obs["phase"] == "play":
            for s, passes in enumerate(bots[seat].memory.passed):
                seen += len(passes)
                assert s != seat or passes == []  # its own passes are not inferences
    assert seen > 100
