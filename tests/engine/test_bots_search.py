"""The search bot decides from its observation only, always legally, within its budget, in
every phase; the arena plays each deal set twice with the teams swapped."""

import random
from collections import Counter

import pytest

from engine.arena import mirrored_schedule, play_one, summarize, wilson
from engine.bots import HeuristicBot, SearchBot, make_bot
from engine.bots.search import (
    MATCH_WEIGHT,
    Reading,
    playout_score,
    sample_hands,
    world_deal,
)
from engine.cards import card_str
from engine.deal import Deal
from engine.match import Match
from engine.observation import deal_observation
from engine.variants import combo_rules, deal_rules


def advance(match, steps, bot=None):
    """Play ``steps`` actions with the heuristic (or stop at the end of the match)."""
    bot = bot or HeuristicBot()
    for _ in range(steps):
        if match.over:
            return
        seat = match.to_move()
        match.apply(bot.choose(match.observation(seat), match.legal_actions(seat)))


def swapped_hidden(deal, seat, rng):
    """A copy of ``deal`` whose hidden hands differ: two other seats swap one card each of
    different ids (their sizes, so every count shown, stay the same)."""
    others = [s for s in range(deal.n) if s != seat and deal.sizes[s]]
    for a in others:
        for b in others:
            if a < b:
                ha, hb = deal.hand(a), deal.hand(b)
                x = next((c for c in ha if c not in hb), None)
                y = next((c for c in hb if c not in ha), None)
                if x is not None and y is not None:
                    data = deal.to_json()
                    other = Deal.from_json(deal.rules, data)
                    other.remove_cards(a, [x])
                    other.remove_cards(b, [y])
                    other.add_cards(a, [y])
                    other.add_cards(b, [x])
                    return other
    if len(others) == 1:  # Shuangkou: the other hand takes a card no one holds (undealt)
        (a,) = others
        held = Counter(c for s in range(deal.n) for c in deal.hand(s))
        for trick in deal.history + [deal.trick]:
            held.update(c for _, combo in trick if combo is not None for c in combo.cards)
        x = deal.hand(a)[0]
        y = next(c for c in range(54) if held[c] < 2 and c != x)
        other = Deal.from_json(deal.rules, deal.to_json())
        other.remove_cards(a, [x])
        other.add_cards(a, [y])
        return other
    return None


@pytest.mark.parametrize("variant", ["bao2", "guandan", "honger", "shuangkou2"])
def test_same_observation_same_decision_whatever_the_hidden_hands(variant):
    rng = random.Random(5)
    checked = 0
    for seed in range(4):
        match = Match.new(variant, seed)
        advance(match, rng.randrange(4, 40))
        deal = match.deal
        seat = match.to_move()
        if deal.phase != "play" or seat is None:
            continue
        other = swapped_hidden(deal, seat, rng)
        if other is None:
            continue
        assert [deal.hand(s) for s in range(deal.n)] != [other.hand(s) for s in range(deal.n)]
        obs_a, obs_b = deal_observation(deal, seat), deal_observation(other, seat)
        assert obs_a == obs_b
        a = SearchBot(seed=3, playouts=24).choose(obs_a, deal.legal_actions(seat))
        b = SearchBot(seed=3, playouts=24).choose(obs_b, other.legal_actions(seat))
        assert a == b
        checked += 1
    assert checked >= 3


def suitless_two(card):
    """A card id, every natural 2 read as the ♠2."""
    return 0 if card < 52 and card % 13 == 0 else card


def test_sampled_worlds_deal_exactly_the_unseen_cards():
    """With a memory of the whole deal, every world gives the other seats the cards they hold
    between them, at their true sizes (deal 1 of a match: no tribute)."""
    match = Match.new("bao2", 11)
    bots = [SearchBot(seed=s, playouts=1) for s in range(4)]
    checked = 0
    while match.deal_no == 0 and not match.over:
        seat = match.to_move()
        obs = match.observation(seat)
        action = bots[seat].choose(obs, match.legal_actions(seat))
        if obs["phase"] == "play" and len(obs["hand"]) < 27:
            hands = sample_hands(obs, bots[seat].memory, random.Random(checked))
            deal = match.deal
            assert [len(h) for s, h in enumerate(hands) if s != seat] == [
                deal.sizes[s] for s in range(4) if s != seat
            ]
            # a 保2 made while this seat was not asked (the partner, after the immune window)
            # shows it natural 2s whose suits it never saw: natural 2s are compared by rank
            unseen = Counter(suitless_two(c) for s in range(4) if s != seat for c in hands[s])
            truth = Counter(suitless_two(c) for s in range(4) if s != seat for c in deal.hand(s))
            assert unseen == truth
            checked += 1
        match.apply(action)
    assert checked > 20


def test_a_stuck_seat_is_given_only_natural_twos():
    obs = {
        "variant": "bao2",
        "seat": 0,
        "counts": [3, 2, 5, 4],
        "hand": ["S3", "H4", "D5"],
        "trick": [],
        "stuck": [False, True, False, False],
    }

    class Memory:
        start = None
        complete = False
        played = [[], [], [], []]
        held = []

    for seed in range(5):
        hands = sample_hands(obs, Memory(), random.Random(seed))
        assert [len(h) for h in hands] == [3, 2, 5, 4]
        assert all(c < 52 and c % 13 == 0 for c in hands[1])


@pytest.mark.parametrize("variant", ["bao2", "guandan", "honger", "shuangkou2"])
def test_search_bots_play_legally_through_deals_with_tribute(variant):
    match = Match.new(variant, 2)
    bots = [SearchBot(seed=s, playouts=6) for s in range(match.rules.seats)]
    phases = set()
    while not match.over and match.deal_no < 2:
        seat = match.to_move()
        legal = match.legal_actions(seat)
        obs = match.observation(seat)
        phases.add(obs["phase"])
        action = bots[seat].choose(obs, legal)
        assert action in legal, (action, obs["phase"])
        match.apply(action)
    assert "play" in phases


def test_tribute_and_return_phases():
    for seed in range(10):
        match = Match.new("bao2", seed)
        bot = SearchBot(seed=1, playouts=4)
        seen = set()
        while not match.over and match.deal_no < 2:
            seat = match.to_move()
            legal = match.legal_actions(seat)
            obs = match.observation(seat)
            if obs["phase"] in ("tribute", "return"):
                seen.add(obs["phase"])
                assert bot.choose(obs, legal) in legal
            match.apply(HeuristicBot().choose(obs, legal))
        if seen == {"tribute", "return"}:
            return
    pytest.fail("no tribute and return found")


def test_immune_window_and_the_bao2_lead():
    hands = [
        ["ST", "S2", "D2"],
        ["S9", "S9", "D9", "D9", "C9", "C9", "H9", "H9", "H3", "H3", "SK"],
        ["D6", "D7"],
        ["H8", "C8"],
    ]
    d = Deal.from_position(
        deal_rules("bao2"),
        {
            "variant": "bao2",
            "level": "3",
            "hands": hands,
            "leader": 0,
            "lead_kind": "trick",
            "initiative": [True, False, False, False],
            "finished": [],
        },
    )
    bot = SearchBot(seed=1, playouts=20)
    assert bot.choose(deal_observation(d, 0), d.legal_actions(0)) in d.legal_actions(0)
    d.apply({"seat": 0, "play": ["ST"], "type": "single"})
    for seat in (1, 2, 3):
        d.apply({"seat": seat, "pass": True})
    action = bot.choose(deal_observation(d, 0), d.legal_actions(0))
    assert action.type == "pair"  # the 保2: going out on the two 2s
    d.apply(action)
    assert d.phase == "immune"
    seat = d.to_move()
    action = SearchBot(seed=2, playouts=8).choose(deal_observation(d, seat), d.legal_actions(seat))
    assert action.kind == "immune"


def test_red_two_choice():
    for seed in range(60):
        match = Match.new("honger", seed)
        if match.deal.phase == "choose":
            seat = match.to_move()
            legal = match.legal_actions(seat)
            action = SearchBot(seed=1, playouts=4).choose(match.observation(seat), legal)
            assert action.kind == "choose" and action in legal
            return
    pytest.fail("no Red Two choice found")


def test_playout_budget_is_respected_and_reported():
    match = Match.new("guandan", 4)
    advance(match, 9)
    bot = SearchBot(seed=1, playouts=30)
    for _ in range(12):
        seat = match.to_move()
        bot.memory = None
        action = bot.choose(match.observation(seat), match.legal_actions(seat))
        last = bot.last
        if last["candidates"] > 1 and not last["raced"]:
            assert 30 <= last["playouts"] < 30 + last["candidates"]
            assert last["worlds"] * last["candidates"] == last["playouts"]
        elif last["candidates"] > 1:  # the race dropped candidates: fewer playouts a world
            assert last["playouts"] < 30 + last["candidates"]
            assert last["worlds"] * last["candidates"] >= last["playouts"]
        else:
            assert last["playouts"] == 0
        match.apply(action)


def test_bot_factory():
    assert isinstance(make_bot("search", "s", 50_000), SearchBot)
    assert make_bot("search", "s", 50_000).budget_ms == 1000.0
    assert isinstance(make_bot("heuristic"), HeuristicBot)
    with pytest.raises(ValueError):
        make_bot("oracle")


def test_arena_plays_each_deal_set_twice_with_the_teams_swapped():
    schedule = mirrored_schedule(5, 3)
    assert len(schedule) == 6
    for i in range(0, 6, 2):
        assert schedule[i][0] == schedule[i + 1][0]
        assert (schedule[i][1], schedule[i + 1][1]) == (0, 1)
    assert len({s for s, _ in schedule}) == 3
    seed = schedule[0][0]
    results = [play_one("guandan", seed, team, "heuristic", "random") for team in (0, 1)]
    assert [r["a_team"] for r in results] == [0, 1]
    assert results[0]["seed"] == results[1]["seed"]
    for r in results:
        assert r["times"]["a"] and r["times"]["b"]
    out = summarize(results)
    assert out["matches"] == 2
    assert out["a_wins"] + out["draws"] + out["a_losses"] == 2


def test_wilson_interval():
    lo, hi = wilson(0.5, 30)
    assert lo < 0.5 < hi
    lo, hi = wilson(0.9, 40)
    assert lo > 0.5


def test_red_two_worlds_put_the_red_twos_where_the_sides_allow():
    """Worlds give every ♥2 not seen to one seat: the solo player holds both; otherwise no seat
    holds both (counting those played), and the other hands have their true sizes."""
    checked = 0
    for seed in range(3):
        match = Match.new("honger", seed)
        bots = [SearchBot(seed=s, playouts=1) for s in range(4)]
        while match.deal_no == 0 and not match.over:
            seat = match.to_move()
            obs = match.observation(seat)
            action = bots[seat].choose(obs, match.legal_actions(seat))
            if obs["phase"] == "play":
                hands = sample_hands(obs, bots[seat].memory, random.Random(checked))
                held = [h.count(13) + obs["h2_played"][s] for s, h in enumerate(hands)]
                assert sum(held) == 2
                if obs["solo"] is not None:
                    assert held[obs["solo"]] == 2
                else:
                    assert max(held) == 1
                assert [len(h) for h in hands] == match.deal.sizes
                checked += 1
            match.apply(action)
    assert checked > 50


def test_shuangkou_worlds_deal_the_other_hand_from_every_card_unseen():
    """The other hand is any of the cards the seat has not seen (the undealt half included),
    at its true size."""
    match = Match.new("shuangkou2", 4)
    bots = [SearchBot(seed=s, playouts=1) for s in range(2)]
    seen_outside = 0
    while match.deal_no == 0 and not match.over:
        seat = match.to_move()
        obs = match.observation(seat)
        action = bots[seat].choose(obs, match.legal_actions(seat))
        hands = sample_hands(obs, bots[seat].memory, random.Random(seen_outside))
        other = 1 - seat
        assert len(hands[other]) == match.deal.sizes[other]
        truth = Counter(match.deal.hand(other))
        seen_outside += sum((Counter(hands[other]) - truth).values())
        match.apply(action)
    assert seen_outside > 0


def test_the_race_drops_clearly_worse_candidates():
    """Candidates clearly worse than the heuristic's choice (or the leader) get no more
    playouts: the worlds after that cost fewer playouts than there are candidates."""
    match = Match.new("bao2", 6)
    advance(match, 30)
    bot = SearchBot(seed=2, playouts=120)
    raced = 0
    for _ in range(10):
        seat = match.to_move()
        bot.memory = None
        action = bot.choose(match.observation(seat), match.legal_actions(seat))
        last = bot.last
        if last["raced"]:
            assert last["raced"] < last["candidates"]
            assert last["playouts"] < last["worlds"] * last["candidates"]
            raced += 1
        match.apply(action)
    assert raced >= 3


def test_a_reading_counts_what_a_world_contradicts():
    """A seat that passed on an opponent's single 9 is unlikely to hold a loose single above
    it (a rank of exactly one card); one that paid tribute holds nothing above its tribute
    but the card it got back and the wild cards."""
    rules = combo_rules("guandan", "2")
    ids = {t: c for c, t in enumerate(card_str(c) for c in range(54))}

    def hand(*cards):
        return [ids[t] for t in cards]

    reading = Reading([[], [("single", "9")], [], []], [None, None, None, ("SQ", "D3")])
    mine = hand("S3")
    # a lone K above the 9 passed on: one contradiction; a pair of Ks is not loose
    assert reading.violations([mine, hand("SK", "S5"), [], []], 0, rules) == 1
    assert reading.violations([mine, hand("SK", "HK", "S5"), [], []], 0, rules) == 0
    # the lone 8 is below the 9
    assert reading.violations([mine, hand("S8"), [], []], 0, rules) == 0
    # the tribute Q: an A above it counts three times, the wild ♥2 and the 3 got back none
    assert reading.violations([mine, [], [], hand("SA", "SJ")], 0, rules) == 3
    assert reading.violations([mine, [], [], hand("H2", "D3", "SJ")], 0, rules) == 0
    # the seat's own hand is never read
    assert reading.violations([hand("SA"), [], [], []], 3, rules) == 0


def test_worlds_are_weighted_by_what_passes_and_tributes_show():
    """With a reading, sampled worlds contradict it less often than plain uniform ones, and
    every world still deals exactly the unseen cards at the known sizes."""
    obs = {
        "variant": "guandan",
        "level": "2",
        "seat": 0,
        "counts": [10, 10, 10, 10],
        "hand": ["S3", "S4", "S5", "S6", "S7", "H3", "H4", "H5", "H6", "H7"],
        "trick": [],
        "stuck": [False] * 4,
    }

    class Memory:
        start = None
        complete = False
        played = [[], [], [], []]
        held = []

    rules = combo_rules("guandan", "2")
    reading = Reading([[], [("single", "Q")], [], [("pair", "T")]], [None] * 4)
    plain = SearchBot(seed=4, infer=1.0)
    weighted = SearchBot(seed=4, infer=0.3)
    bad_plain = bad_weighted = 0
    for _ in range(150):
        a = plain._sample(obs, Memory(), reading)
        b = weighted._sample(obs, Memory(), reading)
        for hands in (a, b):
            assert [len(h) for h in hands] == [10, 10, 10, 10]
        bad_plain += reading.violations(a, 0, rules)
        bad_weighted += reading.violations(b, 0, rules)
    assert bad_weighted < 0.8 * bad_plain


def test_a_departure_from_the_heuristic_needs_enough_worlds():
    """In Guandan a candidate replaces the heuristic's choice only after it was played in
    ``min_pick`` worlds: with fewer playouts the search plays the heuristic's choice."""
    match = Match.new("guandan", 7)
    advance(match, 12)
    searched = 0
    for _ in range(30):
        if match.over:
            break
        seat = match.to_move()
        obs = match.observation(seat)
        bot = SearchBot(seed=5, playouts=6)
        action = bot.choose(obs, match.legal_actions(seat))
        if bot.last["candidates"] > 1:
            assert bot.last["worlds"] < 8
            assert bot.last["picked"] == 0
            assert action == HeuristicBot().choose(obs, match.legal_actions(seat))
            searched += 1
        match.apply(action)
    assert searched >= 5


def test_playouts_read_the_others_as_the_heuristic_does():
    """Guandan playouts with the seat's reading (card memory in every seat) finish, score
    within the level game's range, and are deterministic for a world."""
    match = Match.new("guandan", 3)
    advance(match, 20)
    seat = match.to_move()
    obs = match.observation(seat)
    bot = SearchBot(seed=1, playouts=12)
    bot.choose(obs, match.legal_actions(seat))
    reading = bot._reading(obs)
    assert reading is not None
    options = dict(deal_rules("guandan").defaults)
    hands = sample_hands(obs, bot.memory, random.Random(2))
    scores = [
        playout_score(world_deal(obs, hands, options), obs, options, bot.heuristic, reading)
        for _ in range(2)
    ]
    assert scores[0] == scores[1]
    assert abs(scores[0]) <= MATCH_WEIGHT + 6
