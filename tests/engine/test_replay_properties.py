"""Property tests: random deals played to the end keep every invariant; JSON and replay are exact."""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.actions import Action, Refusal
from engine.cards import counts
from engine.deal import Deal
from engine.match import Match

TWOS = (0, 13, 26, 39)


def table_cards(deal):
    """Every card of the deal: hands, plays of this deal, tribute cards in transit."""
    cards = []
    for s in range(deal.n):
        cards.extend(deal.hand(s))
    for trick in deal.history + [deal.trick]:
        for _, combo in trick:
            if combo is not None:
                cards.extend(combo.cards)
    trib = deal.tribute
    if trib is not None and deal.phase == "tribute":
        cards.extend(c for c in trib["paid"] if c >= 0)
    return cards


def check_invariants(deal):
    all_cards = table_cards(deal)
    assert len(all_cards) == 108
    assert counts(all_cards) == [2] * 54
    assert sum(deal.sizes) == sum(sum(h) for h in deal.hands)
    assert all(k >= 0 for h in deal.hands for k in h)
    for s in deal.finished:
        assert deal.sizes[s] == 0


def check_settlement(deal, variant, colour):
    r = deal.result
    order = r["finish"]
    assert sorted(order) == [0, 1, 2, 3]
    w = order[0] % 2
    assert r["base"][1 - w] == 0 and r["base"][w] in (1, 2, 3)
    expected_base = 3 if order[1] % 2 == w else 2 if order[2] % 2 == w else 1
    assert r["base"][w] == expected_base
    if variant == "guandan":
        assert r["closed"] == [0, 0] and r["bao2"] == [0, 0]
    else:
        weight = {0: 1, 13: 2 if colour else 1, 26: 1, 39: 2 if colour else 1}
        twos_left = [sum(deal.hands[s][c] * weight[c] for c in TWOS) for s in range(4)]
        assert sum(r["closed"]) <= sum(twos_left)
        if expected_base == 3 and not any(deal.stuck):
            assert r["closed"][w] == twos_left[order[2]] + twos_left[order[3]]


def illegal_probe(deal, rng):
    """An action that is not legal now; it must be refused without change."""
    seat = deal.to_move()
    if seat is None:
        return Action("pass", 0)
    other = (seat + 1 + rng.randrange(3)) % 4
    return rng.choice(
        [
            Action("pass", other),
            Action("play", seat, (53, 53, 53), "triple"),
            Action("tribute", seat, (0,)) if deal.phase == "play" else Action("pass", other),
        ]
    )


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**9),
    variant=st.sampled_from(["bao2", "guandan"]),
    bot_seed=st.integers(0, 10**6),
)
def test_random_match_invariants_round_trip_and_replay(seed, variant, bot_seed):
    rng = random.Random(bot_seed)
    m = Match.new(variant, seed, {"colour_twos": True} if variant == "bao2" and seed % 2 else {})
    deals_seen = 0
    while not m.over and m.deal_no < 3:
        deal = m.deal
        check_invariants(deal)
        legal = m.legal_actions()
        assert legal, "the seat to act always has a legal action"
        if rng.random() < 0.1:
            probe = illegal_probe(deal, rng)
            if probe not in legal:
                before = m.state_json()
                try:
                    m.apply(probe)
                except Refusal:
                    assert m.state_json() == before
                else:
                    raise AssertionError(f"illegal {probe} accepted")
        if rng.random() < 0.05:
            assert Deal.from_json(deal.rules, deal.to_json()) == deal
        action = rng.choice(legal)
        if action.kind == "play":
            combo = deal.combos.read_as(action.cards, action.type)
            assert combo is not None
            if not deal.leading:
                assert deal.combos.beats(combo, deal.standing)
        m.apply(action)
        if m.deal is not deal:
            deals_seen += 1
            check_settlement(deal, variant, m.options.get("colour_twos", False))
            summary = m.deals[-1]
            top = 23 if variant == "bao2" else 12
            assert all(0 <= lv <= top for lv in summary["levels"])
    again = Match.from_json(m.to_json())
    assert again == m
    assert Match.replay(variant, seed, m.options, [a.to_json() for a in m.log]) == m
    assert Match.replay(variant, seed, m.options, [a.to_compact() for a in m.log]) == m
    assert deals_seen >= 1


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 60)
    | st.sampled_from(
        ["S3", "HR", "SB", "X9", "", "single", "pair", "immune", "yellow", "solo", "S"]
    ),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "seat",
                    "play",
                    "type",
                    "pass",
                    "immune",
                    "tribute",
                    "return",
                    "ask",
                    "choose",
                    "time_up",
                    "sanction",
                    "target",
                    "reject",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(data=json_values, steps=st.integers(0, 40), variant=st.sampled_from(["bao2", "guandan"]))
def test_arbitrary_input_is_refused_cleanly_or_applied(data, steps, variant):
    m = Match.new(variant, 77)
    rng = random.Random(steps)
    for _ in range(steps):
        m.apply(rng.choice(m.legal_actions()))
    before = m.state_json()
    try:
        m.apply(data)
    except Refusal as exc:
        assert exc.code and exc.message
        assert m.state_json() == before
    try:
        m.check("".join(str(x) for x in [data]))
    except Refusal:
        pass


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**9),
    variant=st.sampled_from(["bao2", "guandan"]),
    steps=st.integers(0, 120),
)
def test_legal_actions_agree_with_check(seed, variant, steps):
    """Every listed action passes ``check``; random card subsets read as any type pass
    ``check`` exactly when they are listed."""
    rng = random.Random(seed)
    m = Match.new(variant, seed)
    for _ in range(steps):
        if m.over:
            return
        m.apply(rng.choice(m.legal_actions()))
    seat = m.to_move()
    legal = m.legal_actions()
    for action in rng.sample(legal, min(40, len(legal))):
        m.check(action)
    if m.deal.phase != "play":
        return
    listed = {(a.cards, a.type) for a in legal if a.kind == "play"}
    hand = m.deal.hand(seat)
    for _ in range(60):
        k = rng.choice([1, 2, 3, 4, 5, 6])
        if k > len(hand):
            continue
        cards = tuple(sorted(rng.sample(hand, k)))
        for combo in m.deal.combos.readings(cards):
            action = Action("play", seat, cards, combo.type)
            try:
                m.check(action)
                accepted = True
            except Refusal:
                accepted = False
            assert accepted == ((cards, combo.type) in listed), (action, accepted)
