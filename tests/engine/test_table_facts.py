"""What the table shows from the engine (issue 19): hint order, the settlement breakdown, asking
a card count, the marked card and the match limits in the observation."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import Refusal
from engine.cards import cards_str
from engine.deal import Deal
from engine.match import Match
from engine.observation import deal_observation
from engine.variants import deal_rules


def at_position(variant, hands, level="3", leader=0, initiative=None, standing=None):
    """A match whose current deal is this position (seat ``leader`` leads; with ``standing``
    = (seat, cards, type) that play stands and ``leader`` follows it)."""
    match = Match.new(variant, 1)
    case = {"variant": variant, "level": level, "hands": hands, "leader": leader}
    if variant in ("honger", "shuangkou2"):
        case.pop("level")
    if initiative is not None:
        case["initiative"] = initiative
    if standing is not None:
        seat, cards, type_ = standing
        case["leader"] = seat
        case["hands"] = [list(h) for h in hands]
        case["hands"][seat] = list(hands[seat]) + cards
    match.deal = Deal.from_position(deal_rules(variant), case)
    if standing is not None:
        seat, cards, type_ = standing
        match.apply({"seat": seat, "play": cards, "type": type_})
        while match.to_move() != leader:
            match.apply({"pass": True, "seat": match.to_move()})
    return match


def hints(match):
    """The plays the hint button cycles through, as (type, cards) in order."""
    out = []
    for act in match.hint_order(match.legal_actions()):
        if act.kind == "play":
            out.append((act.type, " ".join(cards_str(act.cards))))
    return out


FILL = ["C6"], ["D7"], ["C8"]


def test_lead_hints_start_from_the_weakest_card_and_keep_level_and_wild_cards_after_a():
    # Bao 2 at level 3: S3 is a level card (above A), H3 the wild card
    m = at_position("bao2", [["S4", "D4", "S7", "SA", "S3", "H3", "SB"], *FILL])
    order = hints(m)
    assert order[0] == ("pair", "S4 D4")
    singles = [cards for t, cards in order if t == "single"]
    assert singles == ["S4", "S7", "SA", "S3", "H3", "SB"]
    # a play that spends the wild card comes after every play of natural cards up to A
    first_wild = min(i for i, (_, cards) in enumerate(order) if "H3" in cards.split())
    assert order.index(("single", "SA")) < first_wild
    assert order.index(("single", "S3")) < order.index(("single", "SB"))


def test_a_wild_card_is_not_spent_while_natural_cards_make_the_play():
    # Guandan at level 2: H2 is wild; the pair of 9s comes before 5 + wild (key 5, but a wild)
    m = at_position("guandan", [["S5", "H2", "S9", "D9"], *FILL], level="2")
    pairs = [cards for t, cards in hints(m) if t == "pair"]
    assert pairs[0] == "S9 D9"
    assert "H2" in pairs[-1]


def test_following_hints_offer_bombs_last_in_the_bomb_order():
    hand = ["S6", "SK", "S9", "H9", "C9", "D9", "SJ", "HJ", "CJ", "DJ", "DJ", "SA"]
    m = at_position(
        "bao2", [["C5"], hand, ["C7"], ["C8"]], leader=1, standing=(0, ["D5"], "single")
    )
    assert m.to_move() == 1 and not m.deal.leading
    order = hints(m)
    types = [t for t, _ in order]
    first_bomb = types.index("bomb")
    assert set(types[:first_bomb]) == {"single"}
    assert all(t == "bomb" for t in types[first_bomb:])
    assert [c for _, c in order[:first_bomb]] == ["S6", "S9", "SJ", "SK", "SA"]
    bombs = [c for _, c in order[first_bomb:]]
    # four 9s < four Js < five Js (bomb size before rank)
    assert bombs.index("S9 H9 C9 D9") < bombs.index("SJ HJ CJ DJ") < bombs.index("SJ HJ CJ DJ DJ")
    # a pass stays available after the plays (the page offers 不要 when nothing beats)
    assert m.hint_order(m.legal_actions())[-1].kind == "pass"


def test_hints_respect_the_little_2_restriction():
    hand = ["C2", "S2", "S5", "S8"]
    without = at_position("bao2", [hand, *FILL])
    assert all("2" not in c for _, cards in hints(without) for c in cards.split())
    assert hints(without)[0] == ("single", "S5")
    # with initiative a natural 2 may be played, and it is the weakest card (bao2.md §2)
    holder = at_position("bao2", [hand, *FILL], initiative=[True, False, False, False])
    assert hints(holder)[0] == ("pair", "S2 C2")


def test_red_two_hints_put_the_2_above_a():
    m = at_position("honger", [["S2", "SA", "S3"], ["C6", "H2"], ["D7", "H2"], ["C8"]])
    assert [c for t, c in hints(m) if t == "single"] == ["S3", "SA", "S2"]


def test_plays_that_differ_only_in_suits_are_offered_once():
    m = at_position("guandan", [["S5", "D5", "C5", "S9"], *FILL], level="2")
    pairs = [cards for t, cards in hints(m) if t == "pair"]
    assert len(pairs) == 1 and pairs[0].count("5") == 2


# ---------------------------------------------------------------- the settlement breakdown
def total(items, unit="levels"):
    return sum(item[unit] for item in items)


@settings(max_examples=300, deadline=None)
@given(
    variant=st.sampled_from(["bao2", "guandan"]),
    data=st.data(),
)
def test_breakdown_sums_to_the_level_change_of_the_settlement(variant, data):
    rules = deal_rules(variant)
    top = rules.max_level
    levels = [data.draw(st.integers(0, top)) for _ in range(2)]
    level_team = data.draw(st.sampled_from([None, 0, 1]))
    attempts = [data.draw(st.integers(0, 3)) for _ in range(2)]
    finish = data.draw(st.permutations(range(4)))
    w = finish[0] % 2
    bao2 = [0, 0]
    closed = [0, 0]
    if variant == "bao2":
        bao2[w] = data.draw(st.integers(0, 8))
        closed[data.draw(st.integers(0, 1))] = data.draw(st.integers(0, 8))
    options = {"a_attempts": data.draw(st.integers(0, 3))}
    out = rules.settle_levels(levels, level_team, attempts, finish, bao2, closed, options)
    for t in (0, 1):
        assert total(out["breakdown"][t]) == out["levels"][t] - levels[t]
        reasons = [item["reason"] for item in out["breakdown"][t]]
        assert set(reasons) <= {"base", "bao2", "guan2", "cap", "excess", "attempt"}
        assert all(item["levels"] for item in out["breakdown"][t])
    if out["winner"] is None and levels[w] + 1 < top and level_team != w:
        assert out["breakdown"][w][0]["reason"] == "base"


@settings(max_examples=25, deadline=None)
@given(
    variant=st.sampled_from(["bao2", "guandan"]),
    seed=st.integers(0, 10**6),
    cards=st.lists(st.sampled_from(["yellow", "red"]), max_size=3),
)
def test_every_deal_summary_explains_its_level_change(variant, seed, cards):
    """Random deals (with referee cards shown now and then): each summary's breakdown sums to
    the change of each team's level since the deal began."""
    m = Match.new(variant, seed)
    rng = random.Random(seed)
    start = m.levels[:]
    pending = list(cards)
    while not m.over and len(m.deals) < 3:
        if pending and rng.random() < 0.02:
            m.apply({"sanction": pending.pop(), "target": rng.randrange(4)})
            continue
        deals = len(m.deals)
        m.apply(rng.choice(m.legal_actions()))
        if len(m.deals) > deals:
            summary = m.deals[-1]
            for t in (0, 1):
                assert total(summary["breakdown"][t]) == summary["levels"][t] - start[t]
            assert m.observation(0)["previous"]["breakdown"] == summary["breakdown"]
            start = m.levels[:]


@pytest.mark.parametrize("variant", ["honger", "shuangkou2"])
def test_point_breakdown_per_seat_sums_to_its_points(variant):
    for seed in range(8):
        m = Match.new(variant, seed, {"deals": 2, "base": 2})
        rng = random.Random(seed)
        while not m.over:
            m.apply(rng.choice(m.legal_actions()))
        for summary in m.deals:
            for seat, items in enumerate(summary["breakdown"]):
                assert total(items, "points") == summary["points"][seat]
            if variant == "shuangkou2":
                winner = summary["winner"]
                cards = summary["breakdown"][winner][0]
                assert cards["reason"] == "cards"
                assert cards["cards_left"] == summary["cards_left"][1 - winner]
            else:
                assert summary["breakdown"][0][0]["reason"] == summary["mode"]


# ---------------------------------------------------------------- asking a card count
def test_askable_while_7_to_10_cards_not_yet_told_and_never_above_10():
    eight = ["S3", "S4", "S5", "S6", "S7", "S8", "S9", "ST"]
    eleven = eight + ["SJ", "SQ", "SK"]
    m = at_position(
        "bao2",
        [eight, eleven, ["C4"], ["C8"]],
    )
    obs = m.observation(2)
    assert obs["askable"] == [True, False, False, False]
    assert obs["counts"][:2] == [None, None]
    assert m.observation(0)["askable"][0] is False  # never one's own
    with pytest.raises(Refusal) as refused:
        m.apply({"seat": 2, "ask": 1})
    # the refusal is the one of every refused ask: it says nothing about the count
    assert refused.value.code == "invalid_ask"
    assert not any(ch.isdigit() for ch in refused.value.message)
    with pytest.raises(Refusal) as own:
        m.apply({"seat": 2, "ask": 2})
    assert own.value.code == refused.value.code
    m.apply({"seat": 2, "ask": 0})
    for viewer in (None, 1, 2, 3):
        obs = m.observation(viewer)
        assert obs["counts"][0] == 8
        assert obs["askable"][0] is False


def test_nothing_is_askable_outside_play():
    m = Match.new("bao2", 7)
    rng = random.Random(7)
    while m.deal_no == 0:
        m.apply(rng.choice(m.legal_actions()))
    assert m.deal.phase == "tribute"
    assert deal_observation(m.deal, None)["askable"] == [False] * 4


# ---------------------------------------------------------------- match facts
@pytest.mark.parametrize("variant", ["bao2", "guandan"])
def test_marked_card_of_the_first_deal_and_the_attempt_limit(variant):
    m = Match.new(variant, 11, {"a_attempts": 2})
    obs = m.observation(None)
    assert obs["a_attempts"] == 2
    assert "base" not in obs
    marked = obs["marked_card"]
    leader = m.to_move()
    assert marked in m.observation(leader)["hand"]
    rng = random.Random(11)
    while m.deal_no == 0:
        m.apply(rng.choice(m.legal_actions()))
    assert m.observation(None)["marked_card"] is None


def test_point_games_show_their_base():
    assert Match.new("honger", 3, {"base": 5}).observation(0)["base"] == 5
    assert Match.new("shuangkou2", 3, {"base": 2}).observation(None)["base"] == 2
    assert "a_attempts" not in Match.new("honger", 3).observation(0)
