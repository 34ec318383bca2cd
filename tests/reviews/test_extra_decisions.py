"""The review of the decisions outside the play of tricks (reviews.analysis): the tribute (进贡)
and return (还贡) of Guandan and Bao 2, and Red Two's choice with both ♥2 (独打 / 投降 / 比炸弹).
From the seat's own observation only (the same review whatever the other seats' hidden cards),
a clearly bad return found costly, and the decisions in words on the API and the replay page."""

import random

import pytest
from django.urls import reverse
from django.utils import translation

from engine.actions import Action
from engine.bots.search import DECK2, sample_hands, world_deal
from engine.cards import card_str, parse_cards
from engine.deal import Deal
from engine.match import Match
from engine.observation import deal_observation
from engine.variants import deal_rules
from reviews.analysis import (
    Budget,
    Decision,
    SeatView,
    cost,
    cost_se,
    costliest,
    extra_candidates,
    review_seat,
    seat_view,
)
from reviews.models import MatchReview, ReviewStatus
from reviews.words import highlights, move_words
from tests.reviews.test_analysis import played_log, swapped

#: Deterministic: a fixed number of worlds and bot playouts instead of process time.
FIXED = Budget(worlds=6, bot_playouts=12, match_seconds=600)


def first_decision(variant, seed, log, phase, choice=True):
    """The step and seat of the first decision of ``phase`` in the log with more than one
    distinct legal action (with ``choice``)."""
    replay = Match.new(variant, seed)
    for i, raw in enumerate(log):
        act = Action.from_json(raw)
        if replay.deal.phase == phase and act.seat in replay.deal.actors():
            legal = replay.legal_actions(act.seat)
            if not choice or len({(a.cards, a.choice) for a in legal}) > 1:
                return i + 1, act.seat
        replay.apply(act)
    return None


def one_decision_view(variant, seed, log, step, seat):
    """The seat's view of the match up to ``step``, only that decision the person's own (the
    earlier ones still teach the bot the deal, as at the table)."""
    prefix = log[:step]
    return seat_view(variant, seed, None, prefix, seat, [i == step - 1 for i in range(step)])


CASES = [
    ("guandan", 4, "tribute"),
    ("guandan", 4, "return"),
    ("bao2", 2, "tribute"),
    ("bao2", 2, "return"),
    ("honger", 3, "choose"),
]


@pytest.mark.parametrize(("variant", "seed", "phase"), CASES)
def test_a_decision_outside_play_is_reviewed_from_the_seats_view_only(variant, seed, phase):
    """The other seats' hidden cards are permuted at the decision (two of them swap a card:
    every count and every tribute card shown is the same): the seat's observation is the same,
    and so is its review; the review compares the moves the seat could take."""
    match, log = played_log(variant, seed, 1500)
    found = first_decision(variant, seed, log, phase)
    assert found is not None
    step, seat = found
    view = one_decision_view(variant, seed, log, step, seat)
    decision = view.decisions[-1]
    assert decision.step == step and decision.observation["phase"] == phase
    prefix = Match.new(variant, seed)
    for raw in log[: step - 1]:
        prefix.apply(raw)
    other = swapped(prefix, seat)
    assert other is not None
    assert [prefix.deal.hand(s) for s in range(4)] != [other.deal.hand(s) for s in range(4)]
    obs_b = other.observation(seat)
    assert obs_b == decision.observation  # what the seat sees did not change
    twin = Decision(step, obs_b, tuple(other.legal_actions(seat)), decision.played, True)
    view_b = SeatView(variant, seat, view.options, view.decisions[:-1] + (twin,))
    a = review_seat(view, FIXED, seed="x")
    b = review_seat(view_b, FIXED, seed="x")
    for x, y in zip(a["decisions"], b["decisions"], strict=True):
        x.pop("ms"), y.pop("ms")
    assert a["decisions"] == b["decisions"]
    (item,) = a["decisions"]
    assert item["step"] == step and item["phase"] == phase and item["worlds"] == 6
    kinds = {"tribute": "tribute", "return": "return", "choose": "choose"}
    assert item["played"]["kind"] == item["best"]["kind"] == kinds[phase]
    legal = decision.legal
    assert any(describe_key(a) == describe_key_of(item["best"]) for a in legal)


def describe_key(action):
    return action.kind, tuple(card_str(c) for c in action.cards or ()), action.choice


def describe_key_of(move):
    return move["kind"], tuple(move["cards"]), move.get("choice")


@pytest.mark.parametrize(("variant", "seed", "phase"), CASES)
def test_the_worlds_of_a_decision_outside_play_hold_only_what_the_seat_knew(variant, seed, phase):
    """The sampled worlds at the decision: the seat's own hand as it saw it, every other
    hand at the size the rules gave it, a tribute card shown in its receiver's hand once
    handed over; dealt from the observation only (the same worlds from the swapped match)."""
    match, log = played_log(variant, seed, 1500)
    step, seat = first_decision(variant, seed, log, phase)
    prefix = Match.new(variant, seed)
    for raw in log[: step - 1]:
        prefix.apply(raw)
    obs = prefix.observation(seat)
    other = swapped(prefix, seat)
    memory = type("M", (), {"start": None, "played": [[] for _ in range(4)], "held": None})()
    worlds_a = [sample_hands(obs, memory, random.Random(k)) for k in range(5)]
    worlds_b = [sample_hands(other.observation(seat), memory, random.Random(k)) for k in range(5)]
    assert worlds_a == worlds_b
    deal = prefix.deal
    sizes = [deal.sizes[s] for s in range(4)]
    for hands in worlds_a:
        assert sorted(hands[seat]) == sorted(deal.hand(seat))
        assert [len(h) for h in hands] == sizes
        world = world_deal(obs, hands, prefix.options)
        assert world.phase == deal.phase and seat in world.actors()
        assert {a.kind for a in world.legal_actions(seat)} == {
            a.kind for a in deal.legal_actions(seat)
        }
        if phase == "return":  # the tribute card shown is in its receiver's hand
            trib = obs["tribute"]
            for r, paid in zip(trib["receivers"], trib["paid"], strict=True):
                assert parse_cards([paid])[0] in hands[r]
    # the worlds differ from one another: the hidden hands are drawn, not read
    assert len({tuple(tuple(sorted(h)) for h in w) for w in worlds_a}) == 5


#: The receiver's hand (27 cards): four bombs (K, Q, J, 10) and odd low cards.
BOMBS_HAND = "SK HK CK DK SQ HQ CQ DQ SJ HJ CJ DJ ST HT CT DT S3 H4 C5 D6 S7 S8 H8 C8 S9 H9 D3"
#: The same with the K bomb made of three Ks and the wild card (♥2 at level 2).
WILD_BOMB_HAND = BOMBS_HAND.replace("DK", "H2")


def return_position(seed, hand=BOMBS_HAND):
    """A Guandan deal at level 2 in its return phase: seat 0 came 1st, seat 3 last and has
    paid its tribute; seat 0 holds ``hand`` and the tribute card. Returns the deal and seat
    0's observation (with the match's facts a match would add)."""
    mine = parse_cards(hand.split())
    rest = list(DECK2)
    for c in mine:
        rest.remove(c)
    random.Random(seed).shuffle(rest)
    hands = [mine, rest[:27], rest[27:54], rest[54:81]]
    deal = Deal.with_tribute(deal_rules("guandan"), hands, "2", [0, 1, 2, 3], {3: 10})
    deal.apply(deal.legal_actions(3)[0])
    assert deal.phase == "return"
    obs = deal_observation(deal, 0)
    obs.update(
        deal_no=1,
        levels=[0, 0],
        level_team=0,
        attempts=[0, 0],
        previous={"finish": [0, 1, 2, 3], "cards_left": [0, 0, 3, 10]},
    )
    return deal, obs


@pytest.mark.parametrize(
    ("hand", "bad", "seed"),
    [(BOMBS_HAND, "SK", 2), (WILD_BOMB_HAND, "H2", 1), (WILD_BOMB_HAND, "H2", 3)],
)
def test_a_return_that_breaks_a_bomb_is_found_costly(hand, bad, seed):
    """Giving back a card of the K bomb (a natural K: the bomb becomes a triple; the wild ♥2:
    the opponent gets a wild card too) against the review's choice: a clear loss of levels
    (more than its standard error), the seat's costliest moment, and the review's own return
    breaks no bomb."""
    deal, obs = return_position(seed, hand)
    legal = tuple(deal.legal_actions(0))
    played = next(a for a in legal if card_str(a.card) == bad)
    view = SeatView("guandan", 0, {}, (Decision(2, obs, legal, played, True),))
    result = review_seat(view, Budget(worlds=60, bot_playouts=12, match_seconds=600), seed="r")
    (item,) = result["decisions"]
    assert item["phase"] == "return" and item["played"] == {"kind": "return", "cards": [bad]}
    assert not item["same"] and item["worlds"] == 60
    best = item["best"]["cards"][0]
    assert best[1] not in "KQJT" and best != "H2"  # no bomb broken, no wild card given
    assert item["levels"] < 0 and cost(item) > cost_se(item) > 0
    assert costliest(result["decisions"]) == [item]
    shown = {"SK": "♠K", "H2": "♥2"}[bad]
    with translation.override("zh-hans"):
        (moment,) = highlights(result)
        assert moment["phase_name"] == "还贡"
        assert (
            moment["text"].startswith("这里还贡")
            and f"比还贡{shown}更好：预计多升" in moment["text"]
        )
    with translation.override("en"):
        assert f"was better than returning {shown}" in highlights(result)[0]["text"]


def test_a_return_compares_a_few_cards_never_a_wild_one():
    deal, obs = return_position(1)
    legal = tuple(deal.legal_actions(0))
    bad = next(a for a in legal if card_str(a.card) == "SK")
    moves = extra_candidates(obs, legal, bad, legal[0])
    assert moves[:2] == [legal[0], bad] and 2 < len(moves) <= 6
    assert len({a.card for a in moves}) == len(moves)
    assert all(card_str(a.card) != "H2" for a in moves[2:])  # ♥2: the wild card at level 2


def test_a_forced_tribute_is_not_reviewed():
    """A giver holding one card of the highest rank pays it: no choice, no review."""
    match, log = played_log("guandan", 4, 1500)
    replay = Match.new("guandan", 4)
    for i, raw in enumerate(log):
        act = Action.from_json(raw)
        if replay.deal.phase == "tribute" and act.kind == "tribute":
            if len(replay.legal_actions(act.seat)) == 1:
                view = one_decision_view("guandan", 4, log, i + 1, act.seat)
                assert review_seat(view, FIXED, seed="f")["decisions"] == []
                return
        replay.apply(act)
    pytest.fail("no forced tribute in this match")


def test_the_moves_outside_play_in_words():
    with translation.override("zh-hans"):
        assert move_words({"kind": "tribute", "cards": ["SA"]}, "tribute") == "进贡♠A"
        assert move_words({"kind": "return", "cards": ["CT"]}, "return") == "还贡♣10"
        assert move_words({"kind": "pass", "cards": []}, "immune") == "不打免疫炸"
        assert move_words({"kind": "choose", "cards": [], "choice": "compare"}) == "比炸弹"
    with translation.override("en"):
        assert move_words({"kind": "tribute", "cards": ["SA"]}) == "paying ♠A as tribute"
        assert move_words({"kind": "choose", "cards": [], "choice": "solo"}) == "playing solo"
        assert move_words({"kind": "pass", "cards": []}, "play") == "passing"


def tribute_item(step):
    """A costly tribute decision as the review stores it: ♥A paid where ♠A was better."""
    return {
        "step": step,
        "deal_no": 1,
        "phase": "tribute",
        "played": {"kind": "tribute", "cards": ["HA"]},
        "best": {"kind": "tribute", "cards": ["SA"]},
        "same": False,
        "levels": -0.8,
        "levels_se": 0.2,
        "win": 0.0,
        "win_se": 0.0,
        "worlds": 30,
    }


def test_the_api_and_the_replay_page_show_a_tribute_decision(finished, people, client):
    MatchReview.objects.create(
        match=finished,
        status=ReviewStatus.DONE,
        complete=True,
        cpu_ms=12.5,
        seats=[{"seat": 0, "decisions": [tribute_item(5)], "complete": True}],
    )
    client.force_login(people[0])
    url = reverse("table-review", args=[finished.table_id])
    body = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").json()
    (seat,) = body["seats"]
    (decision,) = seat["decisions"]
    assert decision["phase"] == "tribute" and decision["phase_name"] == "进贡"
    assert decision["played_text"] == "进贡♥A" and decision["best_text"] == "进贡♠A"
    (moment,) = seat["highlights"]
    assert moment["phase"] == "tribute" and moment["phase_name"] == "进贡"
    assert moment["text"] == "这里进贡♠A比进贡♥A更好：预计多升 0.8 级（± 0.2）。"
    client.cookies["django_language"] = "en"
    type(people[0]).objects.filter(pk=people[0].pk).update(language="en")
    body = client.get(url, HTTP_ACCEPT_LANGUAGE="en").json()
    decision = body["seats"][0]["decisions"][0]
    assert decision["phase_name"] == "Tribute" and decision["played_text"] == "paying ♥A as tribute"
    assert body["seats"][0]["highlights"][0]["text"].startswith(
        "Here paying ♠A as tribute was better than paying ♥A as tribute"
    )
    page = client.get(reverse("matches:replay", args=[finished.table_id])).content.decode()
    assert 'data-review-phase="tribute">Tribute</span>' in page
    assert "Here paying ♠A as tribute was better than paying ♥A as tribute" in page
    type(people[0]).objects.filter(pk=people[0].pk).update(language="zh-hans")
    client.cookies["django_language"] = "zh-hans"
    page = client.get(
        reverse("matches:replay", args=[finished.table_id]), HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).content.decode()
    assert 'data-review-phase="tribute">进贡</span>' in page
    assert "这里进贡♠A比进贡♥A更好：预计多升 0.8 级（± 0.2）。" in page


def immune_position():
    """A Bao 2 deal in its immune window: seat 0 won a trick with ♠A and made its 保2 with its
    last two cards (a pair of natural 2s); seat 1, first to decide, holds an immune bomb (eight
    5s and the two wild ♥3). Returns the deal and seat 1's observation."""
    rules = deal_rules("bao2")
    s0 = parse_cards("SA S2 C2".split())
    s1 = parse_cards("S5 S5 H5 H5 C5 C5 D5 D5 H3 H3 S4 S6 S7 S8 S9".split())
    rest = list(DECK2)
    for c in s0 + s1:
        rest.remove(c)
    random.Random(1).shuffle(rest)
    s2 = [c for c in rest if c % 13 != 0][:14]
    for c in s2:
        rest.remove(c)
    s3 = [c for c in rest if c % 13 not in (0, 12) and c < 52][:14]
    deal = Deal.new(rules, [s0, s1, s2, s3], "3", 0, "first", {})
    deal.apply(Action("play", 0, (parse_cards(["SA"])[0],), "single"))
    for s in (1, 2, 3):
        deal.apply(Action("pass", s))
    deal.apply(next(a for a in deal.legal_actions(0) if len(a.cards) == 2))
    assert deal.phase == "immune" and deal.turn == 1
    obs = deal_observation(deal, 1)
    obs.update(deal_no=0, levels=[1, 1], level_team=None, attempts=[0, 0], previous=None)
    return deal, obs


def test_the_immune_window_is_reviewed_in_its_own_world():
    """Passing in the immune window against the bomb: reviewed as an immune-window decision;
    its worlds are in the window (the 保2 player out, seat 1 then seat 3 to decide)."""
    deal, obs = immune_position()
    legal = tuple(deal.legal_actions(1))
    assert {a.kind for a in legal} == {"pass", "immune"}
    memory = type("M", (), {"start": None, "played": [[] for _ in range(4)], "held": None})()
    memory.complete = False
    hands = sample_hands(obs, memory, random.Random(3))
    world = world_deal(obs, hands, {})
    assert world.phase == "immune" and world.window["queue"] == [1, 3]
    assert world.window["seat"] == 0 and world.bao2 == deal.bao2
    world.apply(Action("pass", 1))
    assert world.phase == "immune" and world.turn == 3
    view = SeatView("bao2", 1, {}, (Decision(9, obs, legal, Action("pass", 1), True),))
    (item,) = review_seat(view, FIXED, seed="i")["decisions"]
    assert item["phase"] == "immune" and item["played"]["kind"] == "pass"
    assert item["best"]["kind"] in ("pass", "immune") and item["worlds"] == 6
    with translation.override("zh-hans"):
        assert move_words(item["played"], "immune") == "不打免疫炸"
        bomb = {"kind": "immune", "cards": [card_str(c) for c in legal[1].cards]}
        assert move_words(bomb, "immune") == "打免疫炸（♠5 ♠5 ♥3 ♥3 ♥5 ♥5 ♣5 ♣5 ♦5 ♦5）"


#: A Red Two hand of the seat dealt both ♥2: eight As, eight Ks, eight Qs.
STRONG = "H2 H2 SA HA CA DA SA HA CA DA SK HK CK DK SK HK CK DK SQ HQ CQ DQ SQ HQ CQ DQ"


def test_red_twos_choice_is_reviewed_in_points():
    """Surrendering a hand of big bombs (独抱红二) against playing solo: found costly in
    points, the review's choice solo; the choice said in words."""
    rules = deal_rules("honger")
    good, bad = "solo", "surrender"
    mine = parse_cards(STRONG.split())
    rest = [c for c in range(52) for _ in range(2)]
    for c in mine:
        rest.remove(c)
    random.Random(1).shuffle(rest)
    deal = Deal(rules, [mine, rest[:26], rest[26:52], rest[52:78]], None, {})
    rules.setup_sides(deal, [deal.hand(s) for s in range(4)], None)
    rules.start(deal, 2)
    assert deal.phase == "choose" and deal.turn == 0
    obs = deal_observation(deal, 0)
    obs.update(deal_no=0, previous=None)
    legal = tuple(deal.legal_actions(0))
    played = next(a for a in legal if a.choice == bad)
    view = SeatView("honger", 0, {}, (Decision(1, obs, legal, played, True),))
    result = review_seat(view, Budget(worlds=20, bot_playouts=12, match_seconds=600), seed="c")
    (item,) = result["decisions"]
    assert item["phase"] == "choose" and item["played"]["choice"] == bad
    assert item["best"] == {"kind": "choose", "cards": [], "choice": good}
    assert item["points"] < 0 and cost(item) > 2 * cost_se(item)
    with translation.override("zh-hans"):
        (moment,) = highlights(result)
        assert moment["phase_name"] == "独抱红二的选择"
        assert moment["text"].startswith("这里独打比投降更好：预计多得")
