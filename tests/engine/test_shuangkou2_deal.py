"""Two-player Shuangkou deals and matches: dealing, hidden cards, scoring, abandonment, bots."""

import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import Refusal
from engine.bots import RandomBot
from engine.bots.points import PointsHeuristicBot
from engine.cards import card_str, parse_cards
from engine.conformance import run_case
from engine.match import Match
from engine.variants import deal_rules
from engine.variants.shuangkou2 import Shuangkou2Rules, score_abandon, score_deal

VECTORS = Path(__file__).parent / "conformance" / "shuangkou2.jsonl"
CASES = [json.loads(line) for line in VECTORS.read_text().splitlines() if line.strip()]
RULES = deal_rules("shuangkou2")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["id"])
def test_every_conformance_vector(case):
    ok, expect, got = run_case(case)
    assert ok, (expect, got)


def play_match(seed, bots=None, options=None, check=None):
    m = Match.new("shuangkou2", seed, options)
    bots = bots or [RandomBot(f"{seed}/{s}") for s in range(2)]
    while not m.over:
        seat = m.to_move()
        action = bots[seat].choose(m.observation(seat), lambda s=seat: m.legal_actions(s))
        if check is not None:
            check(m, action)
        m.apply(action)
    return m


def all_cards(obs):
    """Every card shown anywhere in an observation."""
    out = Counter()

    def walk(x):
        if isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
        elif isinstance(x, str) and len(x) == 2:
            try:
                out[parse_cards([x])[0]] += 1
            except Exception:
                pass

    walk(obs)
    return out


@pytest.mark.parametrize("seed", range(5))
def test_dealing_and_the_marked_card(seed):
    hands, card, seat = RULES.deal_hands(seed, 0)
    assert [len(h) for h in hands] == [27, 27]
    m = Match.new("shuangkou2", seed)
    assert [m.deal.hand(s) for s in range(2)] == [sorted(h) for h in hands]
    assert card in hands[seat]
    assert m.to_move() == seat and m.deal.leading
    assert m.observation(1 - seat)["marked_card"] == card_str(card)
    # the four hands of the shuffle: the played two are two of them, the rest is nowhere
    everything = Counter(c for h in hands for c in h)
    assert sum(everything.values()) == 54
    assert "hands" not in m.to_json()


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000))
def test_unplayed_cards_never_shown(seed):
    m = Match.new("shuangkou2", seed, {"deals": 2})
    bots = [RandomBot(s) for s in range(2)]
    while not m.over:
        dealt = Counter(c for s in range(2) for c in m.deal.hand(s))
        for h in m.deal.history + [m.deal.trick]:
            for _, c in h:
                if c:
                    dealt.update(c.cards)
        for viewer in (0, 1, None):
            obs = m.observation(viewer)
            # as a set: nothing shown anywhere is outside the 54 cards in play
            assert set(all_cards(obs)) <= set(dealt)
            # as a multiset: the hand and the plays of this deal
            shown = Counter(parse_cards(obs.get("hand", [])))
            for entry in obs["trick"] + [e for t in obs.get("history", []) for e in t]:
                shown.update(parse_cards(entry.get("cards", [])))
            assert not shown - dealt
        seat = m.to_move()
        m.apply(bots[seat].choose(m.observation(seat), lambda s=seat: m.legal_actions(s)))


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 10_000))
def test_random_matches_conserve_cards_and_points(seed):
    def check(m, action):
        if action.kind == "play":
            assert action in m.legal_actions(action.seat)
        total = sum(len(m.deal.hand(s)) for s in range(2))
        gone = sum(len(c.cards) for t in m.deal.history + [m.deal.trick] for _, c in t if c)
        assert total + gone == 54

    m = play_match(seed, options={"deals": 3}, check=check)
    assert m.over and len(m.deals) == 3
    for d in m.deals:
        assert sum(d["points"]) == 0
        assert d["points"] == score_deal(d["winner"], d["cards_left"], d["bombs"])
        assert d["cards_left"][d["winner"]] == 0
    assert sum(m.score) == 0


def test_abandonment():
    m = Match.new("shuangkou2", 5)
    bots = [RandomBot(s) for s in range(2)]
    for _ in range(10):
        seat = m.to_move()
        m.apply(bots[seat].choose(m.observation(seat), lambda s=seat: m.legal_actions(s)))
    deal = m.deal
    left = list(deal.sizes)
    bombs = [list(b) for b in deal.extra["bombs"]]
    held = Shuangkou2Rules.max_lines(Shuangkou2Rules.hand_counts(deal.hand(1)))
    before = list(m.score or [0, 0])
    m.apply({"sanction": "forfeit", "target": 0})
    assert m.over and m.result()["reason"] == "abandoned" and m.result()["winner"] == 1
    want = score_abandon(0, left, bombs, held)
    assert m.deals[-1]["points"] == want
    assert m.score == [before[0] + want[0], before[1] + want[1]]
    with pytest.raises(Refusal) as err:
        m.apply({"seat": 0, "pass": True})
    assert err.value.code == "match_over"


def test_refusals():
    m = Match.new("shuangkou2", 1)
    leader = m.to_move()
    other = 1 - leader
    mine = m.deal.hand(leader)
    not_mine = next(c for c in range(54) if c not in mine)
    cases = [
        (
            {"seat": other, "play": [card_str(m.deal.hand(other)[0])], "type": "single"},
            "not_your_turn",
        ),
        ({"seat": leader, "play": [card_str(not_mine)], "type": "single"}, "not_in_hand"),
        ({"seat": leader, "play": [card_str(mine[0])], "type": "bomb"}, "invalid_combo"),
        ({"seat": leader, "pass": True}, "must_lead"),
        ({"seat": leader, "choose": "solo"}, "wrong_phase"),
    ]
    for action, code in cases:
        before = m.state_json()
        with pytest.raises(Refusal) as err:
            m.apply(action)
        assert err.value.code == code
        assert m.state_json() == before


def test_json_round_trip_and_replay():
    m = play_match(3, options={"deals": 2})
    again = Match.from_json(json.loads(json.dumps(m.to_json())))
    assert again == m and again.result() == m.result()
    m2 = Match.new("shuangkou2", 9)
    bots = [RandomBot(s) for s in range(2)]
    for _ in range(25):
        seat = m2.to_move()
        m2.apply(bots[seat].choose(m2.observation(seat), lambda s=seat: m2.legal_actions(s)))
    copy = Match.replay("shuangkou2", 9, None, [a.to_json() for a in m2.log])
    assert copy.state_json() == m2.state_json()


def test_legal_actions_are_card_level():
    m = Match.new("shuangkou2", 4)
    seat = m.to_move()
    legal = m.legal_actions()
    hand = m.deal.hand(seat)
    assert len(legal) == len(set(legal))
    assert all(a.kind == "play" for a in legal)
    for action in legal[:: max(1, len(legal) // 50)]:
        m.check(action)
    singles = {a.cards for a in legal if a.type == "single"}
    assert singles == {(c,) for c in set(hand)}


def test_heuristic_beats_random_sample():
    wins = 0
    for seed in range(10):
        heur = seed % 2
        bots = [PointsHeuristicBot() if s == heur else RandomBot(f"{seed}/{s}") for s in range(2)]
        m = play_match(seed, bots=bots)
        wins += m.score[heur] > m.score[1 - heur]
    assert wins >= 8


def test_timeout_leads_the_lowest_single():
    m = Match.new("shuangkou2", 2)
    seat = m.to_move()
    action = m.timeout_action(seat)
    order = "3456789TJQKA2"
    naturals = [c for c in m.deal.hand(seat) if c < 52]
    lowest = min(order.index(card_str(c)[1]) for c in naturals)
    assert action.type == "single" and order.index(card_str(action.cards[0])[1]) == lowest


@pytest.mark.parametrize("variant", ["honger", "shuangkou2"])
def test_bad_options_are_refused(variant):
    for options in ({"deals": 0}, {"deals": "8"}, {"colour_twos": True}):
        with pytest.raises(ValueError):
            Match.new(variant, 1, options)
    assert Match.new(variant, 1, {"deals": 1, "base": 3}).options["base"] == 3
