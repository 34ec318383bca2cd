"""Card memory (engine.bots.memory, docs/bots.md "Card memory"): what a seat saw played in a
Guandan deal, what is left unseen, and what the unseen cards can still beat."""

from engine.bots import HeuristicBot
from engine.bots.memory import DealMemory
from engine.cards import card_str
from engine.match import Match
from engine.variants import combo_rules


def lead_obs(hand):
    """Seat 0 to lead at level 2 in Guandan with ``hand`` (card strings)."""
    return {
        "variant": "guandan",
        "seat": 0,
        "phase": "play",
        "level": "2",
        "turn": 0,
        "lead": True,
        "counts": [None, None, None, None],
        "hand": list(hand),
        "standing": None,
        "trick": [],
        "deal_no": 0,
        "first_action": True,
    }


def _unseen_truth(match, seat):
    """Copies per card id that the other three seats hold."""
    truth = [0] * 54
    for other in range(4):
        if other != seat:
            for c in match.deal.hand(other):
                truth[c] += 1
    return truth


def _play(match, bots, memories=None):
    """One action by the seat to move (its memory, if given, updated and told the action)."""
    seat = match.to_move()
    obs = match.observation(seat)
    if memories is not None:
        memories[seat].update(obs)
    action = bots[seat].choose(obs, lambda: match.legal_actions(seat))
    if memories is not None and obs["phase"] == "play":
        cards = [card_str(c) for c in action.cards] if action.kind == "play" else None
        memories[seat].record(seat, cards)
    match.apply(action)
    return seat, obs


def test_a_seat_from_its_first_action_knows_exactly_the_cards_the_others_hold():
    # every play of the deal is shown to a seat still in it: from its first action on, the
    # cards it has not seen are exactly the other three hands (tribute and return included)
    checked = 0
    for seed in (0, 1):
        m = Match.new("guandan", seed)
        bots = [HeuristicBot() for _ in range(4)]
        memories = [DealMemory() for _ in range(4)]
        while not m.over and m.deal_no < 4:
            seat = m.to_move()
            obs = m.observation(seat)
            if obs["phase"] == "play":
                mem = memories[seat]
                mem.update(obs)  # what _play does again: twice is the same as once
                unseen = mem.unseen(obs, combo_rules("guandan", obs["level"]))
                assert unseen.left == _unseen_truth(m, seat), (seed, m.deal_no, len(m.log))
                assert mem.complete
                checked += 1
            _play(m, bots, memories)
    assert checked > 500


def test_a_memory_made_mid_deal_counts_what_it_missed_as_unseen():
    m = Match.new("guandan", 3)
    bots = [HeuristicBot() for _ in range(4)]
    while m.deal.phase != "play" or len(m.deal.history) < 3:
        _play(m, bots)
    seat = m.to_move()
    obs = m.observation(seat)
    mem = DealMemory()
    mem.update(obs)
    assert not mem.complete
    left = mem.unseen(obs, combo_rules("guandan", obs["level"])).left
    truth = _unseen_truth(m, seat)
    assert all(a >= b for a, b in zip(left, truth, strict=True))
    assert sum(left) > sum(truth)  # the tricks it did not see: never fewer cards, only more


def test_a_new_deal_starts_a_fresh_memory():
    mem = DealMemory()
    obs = lead_obs(["S3", "S4"])
    mem.update(obs)
    mem.played[1].append("SA")
    mem.update(dict(obs, hand=["S3"]))  # it played S4: gone from its hand
    assert mem.played[0] == ["S4"] and mem.played[1] == ["SA"]
    mem.update(dict(obs, hand=["S3", "D9"], deal_no=1))  # a card it did not hold: a new deal
    assert mem.played == [[], [], [], []]


def test_unseen_cards_answer_what_can_still_beat_a_play():
    # level 2; the seat holds both big jokers: nothing beats its small joker as a single, nor
    # a pair of small jokers; an ace is beaten (by the 2s, the level rank, and small jokers)
    obs = lead_obs(["HR", "HR", "SB", "SB", "SA"])
    mem = DealMemory()
    mem.update(obs)
    unseen = mem.unseen(obs, combo_rules("guandan", "2"))
    assert not unseen.plain_beats("single", "SB")
    assert not unseen.plain_beats("pair", "SB")
    assert unseen.plain_beats("single", "A")
    assert unseen.plain_beats("pair", "A")
    assert not unseen.plain_beats("straight", "A")  # no straight above the ace-high one
    assert unseen.plain_beats("straight", "K")
    assert unseen.beats("bomb", "A", 4) == (False, True)  # bigger bombs are unseen
    assert unseen.beats("joker_bomb", None, 4) == (False, False)
    assert unseen.beats("single", "A", None) == (True, True)


def test_what_was_played_and_the_opponents_sizes_bound_what_can_beat():
    # the other seats played every card but twelve low ones that make no bomb, no straight
    # and no pair above the sevens
    hand = ["S5", "H5", "C5", "D5", "HR", "HR", "SB", "S3"]
    keep = ["S3", "H3", "C3", "S4", "H4", "C4", "S7", "H7", "C7", "S9", "H9", "C9"]
    pool = [card_str(c) for c in range(54) for _ in range(2)]
    for t in hand + keep:
        pool.remove(t)
    mem = DealMemory()
    obs = dict(lead_obs(hand), first_action=False)  # counts unknown: up to 27 cards a seat
    mem.update(obs)
    mem.played[1].extend(pool[: len(pool) // 2])
    mem.played[3].extend(pool[len(pool) // 2 :])
    unseen = mem.unseen(obs, combo_rules("guandan", "2"))
    assert sorted(card_str(c) for c in range(54) for _ in range(unseen.left[c])) == sorted(keep)
    assert unseen.best_bomb() is None
    assert unseen.beats("bomb", "5", 4) == (False, False)
    assert unseen.plain_beats("triple", "7")  # the nines
    assert not unseen.plain_beats("triple", "9")
    assert not unseen.plain_beats("straight", "7")
    # an opponent showing 2 cards (the other out) holds no triple, whatever is unseen
    short = dict(obs, counts=[None, 2, None, 0])
    assert not mem.unseen(short, combo_rules("guandan", "2")).plain_beats("triple", "7")
