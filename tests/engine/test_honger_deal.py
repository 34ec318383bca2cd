"""Red Two (honger) deals and matches: hidden partnerships, the choice, 接风, scoring, bots."""

import json
import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import Action, Refusal
from engine.bots import RandomBot
from engine.bots.points import PointsHeuristicBot, known_partners
from engine.cards import card_str, parse_cards
from engine.conformance import run_case
from engine.deal import Deal
from engine.match import Match
from engine.observation import deal_observation
from engine.variants import deal_rules
from engine.variants.honger import H2, big_bomb_rewards

VECTORS = Path(__file__).parent / "conformance" / "honger.jsonl"
CASES = [json.loads(line) for line in VECTORS.read_text().splitlines() if line.strip()]
RULES = deal_rules("honger")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["id"])
def test_every_conformance_vector(case):
    ok, expect, got = run_case(case)
    assert ok, (expect, got)


def both_h2_seed(want=True, start=0):
    """The first match seed whose first deal gives both H2 to one seat (or not)."""
    for seed in range(start, start + 500):
        hands, _ = RULES.deal_hands(seed, 0)
        holders = [s for s, h in enumerate(hands) if H2 in h]
        single = any(h.count(H2) == 2 for h in hands)
        if single == want:
            return seed, hands, holders
    raise AssertionError("no such seed")


def play_match(seed, bots=None, options=None, check=None):
    m = Match.new("honger", seed, options)
    bots = bots or [RandomBot(f"{seed}/{s}") for s in range(4)]
    while not m.over:
        seat = m.to_move()
        obs = m.observation(seat)
        action = bots[seat].choose(obs, lambda s=seat: m.legal_actions(s))
        if check is not None:
            check(m, action)
        m.apply(action)
    return m


def test_deal_hands_and_sides():
    seed, hands, holders = both_h2_seed(want=False)
    m = Match.new("honger", seed)
    assert [len(m.deal.hand(s)) for s in range(4)] == [26] * 4
    everything = Counter(c for s in range(4) for c in m.deal.hand(s))
    assert all(c < 52 for c in everything) and all(v == 2 for v in everything.values())
    assert len(everything) == 52
    assert m.deal.phase == "play"
    assert sorted(m.deal.extra["sides"][0]) == sorted(holders)


def test_choice_phase_refusals_and_solo():
    seed, hands, holders = both_h2_seed(want=True)
    m = Match.new("honger", seed)
    solo = holders[0]
    obs = m.observation(solo)
    assert m.to_move() == solo and obs["turn"] == solo and obs["lead"] is False
    assert obs["phase"] == "choose" and obs["solo"] == solo
    other = (solo + 1) % 4
    card = card_str(m.deal.hand(solo)[0])
    for bad, code in [
        ({"seat": solo, "play": [card], "type": "single"}, "wrong_phase"),
        ({"seat": other, "choose": "solo"}, "not_your_turn"),
        ({"seat": solo, "pass": True}, "wrong_phase"),
    ]:
        before = m.state_json()
        with pytest.raises(Refusal) as err:
            m.apply(bad)
        assert err.value.code == code
        assert m.state_json() == before
    legal = m.legal_actions()
    assert sorted(a.choice for a in legal) == ["compare", "solo", "surrender"]
    assert m.timeout_action(solo) == Action("choose", solo, choice="solo")
    m.apply({"seat": solo, "choose": "solo"})
    assert m.deal.phase == "play" and m.deal.leading
    assert m.deal.extra["sides"] == [[solo], [s for s in range(4) if s != solo]]
    with pytest.raises(Refusal) as err:
        m.apply({"seat": solo, "choose": "surrender"})
    assert err.value.code == "wrong_phase"


@pytest.mark.parametrize("choice", ["surrender", "compare"])
def test_surrender_and_compare_end_the_deal(choice):
    seed, hands, holders = both_h2_seed(want=True)
    m = Match.new("honger", seed)
    solo = holders[0]
    m.apply({"seat": solo, "choose": choice})
    assert m.deal_no == 1 and len(m.deals) == 1
    done = m.deals[0]
    assert done["mode"] == choice
    assert sum(done["points"]) == 0
    assert done["points"][solo] <= 0
    # the solo player leads the next deal
    nxt = m.deal
    assert nxt.extra["leader"] == solo


def test_jiefeng_goes_to_the_next_player_not_the_partner():
    deal = Deal.from_position(
        deal_rules("honger"),
        {
            "variant": "honger",
            "hands": [["SK"], ["C5", "C6"], ["S4", "D4"], ["C8", "DA"]],
            "leader": 2,
            "sides": [[0, 2], [1, 3]],
        },
    )
    deal.apply({"seat": 2, "play": ["S4", "D4"], "type": "pair"})
    for seat in (3, 0, 1):
        deal.apply({"seat": seat, "pass": True})
    assert deal.finished == [2]
    assert deal.to_move() == 3 and deal.leading and deal.lead_kind == "jiefeng"


def test_deal_end_rules():
    deal = Deal.from_position(
        deal_rules("honger"),
        {
            "variant": "honger",
            "hands": [["SK"], ["C5", "C6"], ["S4"], ["C8", "DA"]],
            "leader": 0,
            "sides": [[0, 2], [1, 3]],
        },
    )
    deal.apply({"seat": 0, "play": ["SK"], "type": "single"})
    for seat in (1, 2, 3):
        deal.apply({"seat": seat, "pass": True})
    assert deal.to_move() == 1
    deal.apply({"seat": 1, "play": ["C5"], "type": "single"})
    deal.apply({"seat": 2, "pass": True})
    deal.apply({"seat": 3, "pass": True})
    deal.apply({"seat": 1, "play": ["C6"], "type": "single"})
    assert deal.finished == [0, 1]
    assert not deal.over  # 1st and 2nd on different sides: play on
    deal.apply({"seat": 2, "pass": True})
    deal.apply({"seat": 3, "pass": True})
    assert deal.to_move() == 2 and deal.lead_kind == "jiefeng"
    deal.apply({"seat": 2, "play": ["S4"], "type": "single"})
    assert deal.over  # only one player holds cards
    assert deal.result["finish"] == [0, 1, 2, 3]
    assert deal.result["points"] == [1, -1, 1, -1]  # 1st and 3rd: 单抓
    # a side out (1st and 2nd of one side) ends the deal at once: 双抓
    deal = Deal.from_position(
        deal_rules("honger"),
        {
            "variant": "honger",
            "hands": [["SK"], ["C5", "C6"], ["S4"], ["C8", "DA"]],
            "leader": 0,
            "sides": [[0, 1], [2, 3]],
        },
    )
    deal.apply({"seat": 0, "play": ["SK"], "type": "single"})
    for seat in (1, 2, 3):
        deal.apply({"seat": seat, "pass": True})
    deal.apply({"seat": 1, "play": ["C5"], "type": "single"})
    deal.apply({"seat": 2, "pass": True})
    deal.apply({"seat": 3, "pass": True})
    deal.apply({"seat": 1, "play": ["C6"], "type": "single"})
    assert deal.over and deal.finished == [0, 1]
    assert deal.result["points"] == [2, 2, -2, -2]


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000))
def test_random_matches_conserve_cards_and_points(seed):
    played = []

    def check(m, action):
        if action.kind == "play":
            assert action in m.legal_actions(action.seat)
            played.append(action)
        total = sum(len(m.deal.hand(s)) for s in range(4))
        gone = sum(len(c.cards) for t in m.deal.history + [m.deal.trick] for _, c in t if c)
        assert total + gone == 104

    m = play_match(seed, options={"deals": 3}, check=check)
    assert m.over and len(m.deals) == 3
    for d in m.deals:
        assert sum(d["points"]) == 0
    assert sum(m.score) == 0
    assert m.result()["score"] == m.score


def counterfactual(deal, seat, rng):
    """The same deal with one unplayed H2 moved to another hidden hand (a card of that hand
    moved back), the sides changed to match; ``None`` if no such swap exists for ``seat``."""
    if deal.extra["mode"] != "partnership" or deal.over:
        return None
    others = [s for s in range(4) if s != seat]
    holders = [s for s in others if deal.hands[s][H2]]
    rng.shuffle(holders)
    for x in holders:
        for y in others:
            if y == x or deal.hands[y][H2] or not deal.sizes[y]:
                continue
            data = deal.to_json()
            hx, hy = parse_cards(data["hands"][x]), parse_cards(data["hands"][y])
            give = rng.choice([c for c in hy if c != H2])
            hx.remove(H2)
            hx.append(give)
            hy.remove(give)
            hy.append(H2)
            data["hands"][x] = [card_str(c) for c in sorted(hx)]
            data["hands"][y] = [card_str(c) for c in sorted(hy)]
            side = [s for s in deal.extra["sides"][0] if s != x] + [y]
            if len(set(side)) < 2:
                continue
            data["extra"]["sides"] = [sorted(side), sorted(set(range(4)) - set(side))]
            return Deal.from_json(deal.rules, data)
    return None


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_no_observation_reveals_a_partnership(seed):
    """Moving an unplayed H2 between two hidden hands (which changes the sides) changes no
    observation of any other seat or of a spectator, and neither does the next action: turn
    order, 接风, card counts and clocks do not depend on the sides."""
    rng = random.Random(seed)
    m = Match.new("honger", seed, {"deals": 2})
    bots = [RandomBot(f"{seed}/{s}") for s in range(4)]
    checked = 0
    while not m.over:
        deal = m.deal
        actor = m.to_move()
        for viewer in (0, 1, 2, 3, None):
            twin = counterfactual(deal, viewer if viewer is not None else actor, rng)
            if twin is None:
                continue
            assert deal_observation(twin, viewer) == deal_observation(deal, viewer)
            checked += 1
        action = bots[actor].choose(m.observation(actor), lambda a=actor: m.legal_actions(a))
        twin = counterfactual(deal, actor, rng)
        if twin is not None and action.kind != "choose":
            twin.apply(action)
            m.apply(action)
            if not m.deal.over and m.deal is deal:
                for viewer in (actor, None):
                    assert deal_observation(twin, viewer) == deal_observation(deal, viewer)
                assert twin.is_first_action(actor) == deal.is_first_action(actor)
            continue
        m.apply(action)
    # every partnership deal gave something to check
    assert checked > 0 or all(d["mode"] != "partnership" for d in m.deals)


def test_observations_hide_hands_and_sides():
    seed, hands, holders = both_h2_seed(want=False)
    m = Match.new("honger", seed)
    spectator = m.observation(None)
    assert "hand" not in spectator
    text = json.dumps(spectator)
    assert "sides" not in text
    for seat in range(4):
        obs = m.observation(seat)
        assert parse_cards(obs["hand"]) == m.deal.hand(seat)
        assert "sides" not in json.dumps(obs)


def test_json_round_trip_and_replay():
    m = play_match(7, options={"deals": 2})
    again = Match.from_json(json.loads(json.dumps(m.to_json())))
    assert again == m and again.result() == m.result()
    # mid-deal
    m2 = Match.new("honger", 3)
    bots = [RandomBot(s) for s in range(4)]
    for _ in range(30):
        seat = m2.to_move()
        m2.apply(bots[seat].choose(m2.observation(seat), lambda s=seat: m2.legal_actions(s)))
    copy = Match.replay("honger", 3, None, [a.to_json() for a in m2.log])
    assert copy.state_json() == m2.state_json()


def test_refusals():
    seed, hands, holders = both_h2_seed(want=False)
    m = Match.new("honger", seed)
    leader = m.to_move()
    nxt = (leader + 1) % 4
    mine = m.deal.hand(leader)
    not_mine = next(c for c in range(52) if mine.count(c) == 0)
    cases = [
        ({"seat": nxt, "play": [card_str(m.deal.hand(nxt)[0])], "type": "single"}, "not_your_turn"),
        ({"seat": leader, "play": [card_str(not_mine)], "type": "single"}, "not_in_hand"),
        ({"seat": leader, "play": [card_str(mine[0])], "type": "pair"}, "invalid_combo"),
        ({"seat": leader, "pass": True}, "must_lead"),
    ]
    for action, code in cases:
        with pytest.raises(Refusal) as err:
            m.check(action)
        assert err.value.code == code
    low = min(mine, key=lambda c: (c % 13 + 12) % 13)
    m.apply({"seat": leader, "play": [card_str(low)], "type": "single"})
    follower_hand = m.deal.hand(nxt)
    lower = [c for c in follower_hand if (c % 13 + 12) % 13 < (low % 13 + 12) % 13]
    if lower:
        with pytest.raises(Refusal) as err:
            m.check({"seat": nxt, "play": [card_str(lower[0])], "type": "single"})
        assert err.value.code == "does_not_beat"


def test_match_length_and_next_leader():
    m = play_match(11, options={"deals": 3})
    assert len(m.deals) == 3 and m.result()["deals"] == 3
    first = m.deals[0]
    if first["mode"] in ("partnership", "solo"):
        # deal 2 was led by deal 1's first player
        assert first["leader_next"] == first["finish"][0]


def test_big_bomb_rewards_are_scored():
    hands = [parse_cards(["S2", "S2", "H2", "H2", "C2", "C2"]), [], [], []]
    assert big_bomb_rewards(hands) == [3, -1, -1, -1]


def test_known_partners_from_public_facts_only():
    obs = {"seat": 0, "counts": [None] * 4, "variant": "honger", "h2_played": [0, 0, 1, 0]}
    assert known_partners(obs, [H2]) == ({2}, {1, 3})
    assert known_partners(obs, [5]) == (set(), {2})
    obs["h2_played"] = [0, 1, 1, 0]
    assert known_partners(obs, [5]) == ({3}, {1, 2})


def test_heuristic_beats_random_sample():
    wins = 0
    for seed in range(10):
        heur = {seed % 2, seed % 2 + 2}
        bots = [PointsHeuristicBot() if s in heur else RandomBot(f"{seed}/{s}") for s in range(4)]
        m = play_match(seed, bots=bots)
        wins += sum(m.score[s] for s in heur) > 0
    assert wins >= 8


def test_timeout_leads_the_lowest_single():
    seed, hands, holders = both_h2_seed(want=False)
    m = Match.new("honger", seed)
    seat = m.to_move()
    action = m.timeout_action(seat)
    order = "3456789TJQKA2"
    lowest = min(order.index(card_str(c)[1]) for c in m.deal.hand(seat))
    assert action.kind == "play" and action.type == "single"
    assert order.index(card_str(action.cards[0])[1]) == lowest
    m.apply(action)
    follower = m.to_move()
    assert m.timeout_action(follower).kind == "pass"


@pytest.mark.parametrize("seed", range(12))
def test_a_plain_deal_sets_itself_up(seed):
    """A deal built with the generic ``Deal.new`` (no match) still settles by the rules; a
    seat holding both H2 then plays 1 against 3 (no choice was offered)."""
    from engine.cards import deal as deal_cards

    hands = deal_cards(seed, players=4, decks=2, jokers=False).hands
    deal = Deal.new(deal_rules("honger"), hands, None, 0)
    rng = random.Random(seed)
    while not deal.over:
        deal.apply(rng.choice(deal.legal_actions()))
    assert sum(deal.result["points"]) == 0
    holders = [s for s, h in enumerate(hands) for c in h if c == H2]
    if holders[0] == holders[1]:
        assert deal.result["mode"] == "solo"
    else:
        assert sorted(deal.result["sides"][0]) == sorted(holders)


@pytest.mark.parametrize("choice", ["solo", "surrender", "compare"])
def test_round_trip_through_a_choice(choice):
    seed, hands, holders = both_h2_seed(want=True)
    m = Match.new("honger", seed, {"deals": 2})
    m.apply({"seat": holders[0], "choose": choice})
    bots = [RandomBot(s) for s in range(4)]
    for _ in range(20):
        if m.over:
            break
        seat = m.to_move()
        m.apply(bots[seat].choose(m.observation(seat), lambda s=seat: m.legal_actions(s)))
    again = Match.from_json(json.loads(json.dumps(m.to_json())))
    assert again.state_json() == m.state_json()
    assert again.observation(None) == m.observation(None)


#: Two decks without jokers and without the ♥2: a position with given ``sides`` holds no ♥2.
NO_H2_DECK = [c for c in range(52) if c != H2] * 2


@st.composite
def sided_positions(draw):
    """A Red Two position with given ``sides``: two seats against two, or one against three,
    with some seats already out (never a whole side) and at least two seats holding cards."""
    one_seat = draw(st.booleans())
    seats = draw(st.permutations(range(4)))
    first = sorted(seats[:1] if one_seat else seats[:2])
    sides = [first, sorted(s for s in range(4) if s not in first)]
    out = draw(st.lists(st.sampled_from(range(4)), unique=True, max_size=2))
    if any(all(s in out for s in side) for side in sides):
        out = out[:1]
    holding = [s for s in range(4) if s not in out]
    deck = draw(st.permutations(NO_H2_DECK))
    hands, pos = [[] for _ in range(4)], 0
    for s in holding:
        k = draw(st.integers(1, 9))
        hands[s] = [card_str(c) for c in deck[pos : pos + k]]
        pos += k
    return {
        "id": "property",
        "variant": "honger",
        "kind": "deal",
        "hands": hands,
        "leader": draw(st.sampled_from(holding)),
        "lead_kind": draw(st.sampled_from(["first", "trick", "jiefeng"])),
        "finished": out,
        "sides": sides,
    }


@settings(max_examples=150, deadline=None)
@given(sided_positions(), st.randoms(use_true_random=False))
def test_positions_with_given_sides_play_to_a_zero_sum_end(case, rng):
    """Random positions with given sides (2 + 2 and 1 + 3) play to the end with random legal
    actions: no action raises anything but a refusal, and the points sum to zero."""
    deal = Deal.from_position(deal_rules(case["variant"]), case)
    solo = next((side[0] for side in case["sides"] if len(side) == 1), None)
    for _ in range(200):
        if deal.over:
            break
        deal.apply(rng.choice(deal.legal_actions()))
    assert deal.over
    assert deal.result["mode"] == ("solo" if solo is not None else "partnership")
    assert sum(deal.result["points"]) == 0
