"""The review reads one seat's observations only (reviews.analysis): its input cannot hold
another seat's cards, and its result is the same whatever the hidden hands are."""

import random

import pytest

from engine.actions import Action
from engine.bots import HeuristicBot
from engine.deal import Deal
from engine.match import Match
from reviews.analysis import (
    Budget,
    Decision,
    SeatView,
    compare,
    cost,
    costliest,
    review_seat,
    seat_view,
)

#: Deterministic: a fixed number of worlds and bot playouts instead of process time.
FIXED = Budget(worlds=6, bot_playouts=12, match_seconds=600)


def played_log(variant, seed, actions, first_mover_random=True):
    """A log of ``actions`` actions of a match played by the heuristic, seat 0 erring at
    random (a legal play or pass picked by a seeded draw), so it has decisions to review."""
    match = Match.new(variant, seed)
    heur = HeuristicBot()
    rng = random.Random(seed)
    log = []
    while len(log) < actions and not match.over:
        seat = match.to_move()
        legal = match.legal_actions(seat)
        if seat == 0 and first_mover_random and match.deal.phase == "play":
            act = rng.choice(legal)
        else:
            act = heur.choose(match.observation(seat), legal)
        log.append(match.apply(act).to_json())
    return match, log


def swapped(match, seat):
    """A copy of ``match`` whose hidden hands differ: two other seats swap a card each of
    different ids (sizes, and so every count shown, unchanged); None if none can."""
    deal = match.deal
    others = [s for s in range(deal.n) if s != seat and deal.sizes[s]]
    for a in others:
        for b in others:
            if a < b:
                ha, hb = deal.hand(a), deal.hand(b)
                x = next((c for c in ha if c not in hb), None)
                y = next((c for c in hb if c not in ha), None)
                if x is not None and y is not None:
                    other = match.copy()
                    new = Deal.from_json(deal.rules, deal.to_json())
                    new.remove_cards(a, [x])
                    new.remove_cards(b, [y])
                    new.add_cards(a, [y])
                    new.add_cards(b, [x])
                    other.deal = new
                    return other
    return None


def test_a_seat_view_refuses_what_is_not_the_seats_own():
    match = Match.new("guandan", 1)
    seat = match.to_move()
    obs = match.observation(seat)
    legal = tuple(match.legal_actions(seat))
    mine = Decision(1, obs, legal, legal[0], True)
    assert SeatView("guandan", seat, {}, (mine,)).decisions == (mine,)
    other = (seat + 1) % 4
    with pytest.raises(ValueError):  # another seat's observation
        SeatView("guandan", other, {}, (mine,))
    with pytest.raises(ValueError):  # an observation carrying every hand
        leaked = {**obs, "hands": [[] for _ in range(4)]}
        SeatView("guandan", seat, {}, (Decision(1, leaked, legal, legal[0], True),))
    with pytest.raises(ValueError):  # another seat's action
        SeatView("guandan", seat, {}, (Decision(1, obs, legal, Action("pass", other), True),))


def test_a_seat_view_holds_exactly_the_seats_observations():
    match, log = played_log("guandan", 4, 120)
    view = seat_view("guandan", 4, None, log, 0)
    replay = Match.new("guandan", 4)
    expected = []
    for i, raw in enumerate(log):
        act = Action.from_json(raw)
        if act.seat == 0 and replay.to_move() == 0:
            expected.append((i + 1, replay.observation(0)))
        replay.apply(act)
    assert [(d.step, d.observation) for d in view.decisions] == expected
    for d in view.decisions:
        assert d.observation["seat"] == 0
        assert "hands" not in d.observation


@pytest.mark.parametrize("variant", ["guandan", "bao2", "honger"])
def test_the_review_is_the_same_whatever_the_hidden_hands(variant):
    """At seat 0's decisions, the other seats' hidden cards are permuted (two of them swap a
    card): the seat's observation is the same, and so is its review, decision by decision."""
    match, log = played_log(variant, 7, 400)
    full = seat_view(variant, 7, None, log, 0)
    checked = 0
    for k, decision in enumerate(full.decisions):
        if checked >= 3:
            break
        prefix = Match.new(variant, 7)
        for raw in log[: decision.step - 1]:
            prefix.apply(raw)
        other = swapped(prefix, 0)
        if decision.observation["phase"] != "play" or other is None:
            continue
        assert [prefix.deal.hand(s) for s in range(prefix.deal.n)] != [
            other.deal.hand(s) for s in range(other.deal.n)
        ]
        obs_b = other.observation(0)
        assert obs_b == decision.observation  # what the seat sees did not change
        twin = Decision(decision.step, obs_b, tuple(other.legal_actions(0)), decision.played, True)
        view_a = SeatView(variant, 0, full.options, full.decisions[: k + 1])
        view_b = SeatView(variant, 0, full.options, full.decisions[:k] + (twin,))
        a = review_seat(view_a, FIXED, seed="t")
        b = review_seat(view_b, FIXED, seed="t")
        for x, y in zip(a["decisions"], b["decisions"], strict=True):
            x.pop("ms"), y.pop("ms")
        assert a["decisions"] == b["decisions"]
        checked += 1
    assert checked >= 1


def test_a_move_compared_with_itself_costs_nothing():
    """Both moves are played out in the same worlds: the same move differs by exactly 0, in
    as many worlds as asked."""
    match, log = played_log("guandan", 2, 200)
    view = seat_view("guandan", 2, None, log, 0)
    decision = next(d for d in view.decisions if d.observation["phase"] == "play")
    bot_memory = type("M", (), {})()
    bot_memory.start = None
    bot_memory.played = [[] for _ in range(4)]
    bot_memory.complete = False
    bot_memory.held = None
    act = decision.played
    same = compare(decision.observation, bot_memory, {}, act, act, random.Random(1), 50, 8, 8)
    assert same["levels"] == 0 and same["levels_se"] == 0 and same["worlds"] == 8


def test_costliest_leaves_out_agreement_and_noise():
    items = [
        {"step": 1, "same": True, "levels": 0.0, "levels_se": 0.0, "win": 0.0, "win_se": 0.0},
        {"step": 2, "same": False, "levels": -0.2, "levels_se": 0.5, "win": 0.0, "win_se": 0.0},
        {"step": 3, "same": False, "levels": -1.0, "levels_se": 0.2, "win": 0.0, "win_se": 0.0},
        {"step": 4, "same": False, "levels": -0.5, "levels_se": 0.1, "win": -0.5, "win_se": 0.1},
        {"step": 5, "same": False, "levels": 0.5, "levels_se": 0.1, "win": 0.0, "win_se": 0.0},
    ]
    assert [d["step"] for d in costliest(items)] == [4, 3]
    assert cost(items[3]) > cost(items[2]) > 0


def test_the_review_keeps_its_match_budget():
    """A match budget smaller than the decisions need: the review stops there, incomplete,
    within the budget and one decision's cost."""
    match, log = played_log("guandan", 5, 300)
    view = seat_view("guandan", 5, None, log, 0)
    budget = Budget(search_ms=20, eval_ms=20, match_seconds=0.05)
    result = review_seat(view, budget, seed="b")
    assert not result["complete"]
    assert result["cpu_ms"] <= 50 + 250  # the budget, one decision's overrun and the start
    full = review_seat(view, Budget(search_ms=5, eval_ms=5, match_seconds=600), seed="b")
    assert full["complete"] and len(full["decisions"]) > len(result["decisions"])
