"""Match progression: levels, attempts, excess, protection, time limit, sanctions, replay."""

import random

import pytest

from engine.actions import Refusal
from engine.cards import deal as deal_cards
from engine.match import Match
from engine.variants import deal_rules

BAO2 = deal_rules("bao2")
GD = deal_rules("guandan")
OPTS = dict(BAO2.defaults)


def settle(
    rules, levels, level_team, finish, bao2=(0, 0), closed=(0, 0), attempts=(0, 0), **options
):
    opts = dict(rules.defaults, **options)
    return rules.settle_levels(
        list(levels), level_team, list(attempts), list(finish), list(bao2), list(closed), opts
    )


def play_random(match, rng, limit=100000):
    steps = 0
    while not match.over and steps < limit:
        match.apply(rng.choice(match.legal_actions()))
        steps += 1
    return steps


def test_third_failed_2a_attempt_returns_to_zero_and_earns_nothing():
    out = settle(BAO2, [23, 5], 0, [0, 1, 3], closed=(0, 1), attempts=(2, 0))
    assert out["levels"] == [0, 6] and out["attempts"] == [0, 0] and out["winner"] is None


def test_a_attempts_option_changes_the_limit():
    out = settle(BAO2, [23, 5], 0, [0, 1, 3], attempts=(2, 0), a_attempts=0)
    assert out["attempts"] == [3, 0] and out["levels"][0] == 23


def test_two_a_protection_only_for_a_team_at_23():
    out = settle(BAO2, [22, 23], 1, [0, 2], bao2=(4, 0))
    # team 0: 22 + 7 = 29 -> 23, excess 6; team 1 at 23 is protected; team 1's attempt fails
    assert out["levels"] == [23, 23] and out["attempts"] == [0, 1]


def test_both_teams_rise_in_one_deal():
    out = settle(BAO2, [3, 4], 0, [0, 1, 3], closed=(0, 2))
    assert out["levels"] == [4, 6] and out["next_level_team"] == 0


def test_guandan_levels_cap_at_a_without_excess():
    out = settle(GD, [11, 11], 1, [0, 2])
    assert out["levels"] == [12, 11]


def test_guandan_third_failure_drops_to_two():
    out = settle(GD, [12, 3], 0, [1, 0, 3], attempts=(2, 0))
    assert out["levels"] == [0, 5] and out["attempts"] == [0, 0]


def test_new_match_first_deal_marked_card_leads():
    m = Match.new("bao2", 7)
    dealt = deal_cards("7/0")
    assert m.to_move() == dealt.marked_seat
    assert m.deal.level == "3" and m.deal.lead_kind == "first"
    assert m.marked_card == dealt.marked_card
    assert [sorted(m.deal.hand(s)) for s in range(4)] == [list(h) for h in dealt.hands]
    g = Match.new("guandan", 7)
    assert g.deal.level == "2"


def test_options_defaults_and_bad_options():
    m = Match.new("bao2", 1)
    assert m.options == OPTS
    assert m.options["time_limit_minutes"] == 60 and m.options["colour_twos"] is False
    assert Match.new("guandan", 1).options["time_limit_minutes"] == 0
    with pytest.raises(ValueError):
        Match.new("bao2", 1, {"colour_twos": 1})
    with pytest.raises(ValueError):
        Match.new("bao2", 1, {"nope": True})
    with pytest.raises(ValueError):
        Match.new("nosuch", 1)


def test_second_deal_starts_with_tribute_at_winners_level():
    rng = random.Random(3)
    m = Match.new("bao2", 3)
    while not m.deals:
        m.apply(rng.choice(m.legal_actions()))
    prev = m.deals[0]
    w = prev["finish"][0] % 2
    assert m.level_team == w
    assert m.deal.level == "3456789TJQKA"[m.levels[w] % 12]
    assert m.deal.tribute is not None
    assert m.deal.phase in ("tribute", "play")


@pytest.mark.parametrize("variant", ["bao2", "guandan"])
def test_full_random_match_json_round_trip_and_replay(variant):
    rng = random.Random(11)
    m = Match.new(variant, 11)
    play_random(m, rng)
    assert m.over and m.result()["winner"] in (0, 1)
    data = m.to_json()
    again = Match.from_json(data)
    assert again == m
    assert Match.replay(variant, 11, m.options, [a.to_json() for a in m.log]) == m
    assert m.result()["score"][m.winner] == GD.max_level if variant == "guandan" else 23


def test_time_up_ends_the_match_after_the_deal_in_progress():
    rng = random.Random(5)
    m = Match.new("bao2", 5)
    m.apply(rng.choice(m.legal_actions()))
    m.apply({"time_up": True})
    assert not m.over
    while not m.over:
        m.apply(rng.choice(m.legal_actions()))
    assert m.reason == "time" and len(m.deals) == 1
    a, b = m.levels
    assert m.winner == (None if a == b else (0 if a > b else 1))
    with pytest.raises(Refusal) as exc:
        m.apply({"seat": 0, "pass": True})
    assert exc.value.code == "match_over"
    assert Match.from_json(m.to_json()) == m


def test_time_up_before_anyone_acted_ends_at_once():
    m = Match.new("guandan", 5)
    m.apply({"time_up": True})
    assert m.over and m.winner is None and m.reason == "time" and m.to_move() is None


def test_referee_cards():
    m = Match.new("bao2", 2)
    m.levels = [10, 10]
    m.apply({"sanction": "yellow", "target": 1})
    assert m.levels == [10, 9]
    m.apply({"sanction": "yellow", "target": 3})
    assert m.levels == [10, 7] and m.reds == [0, 1]
    m.apply({"sanction": "red", "target": 1})
    assert m.levels == [10, 0] and m.reds == [0, 2]
    m.apply({"sanction": "yellow", "target": 1})
    assert m.over and m.winner == 0 and m.result()["score"] == [23, 0]
    assert m.reason == "forfeit"


def test_forfeit():
    m = Match.new("bao2", 2)
    m.apply({"sanction": "forfeit", "target": 0})
    assert m.result() == {
        "over": True,
        "winner": 1,
        "score": [0, 23],
        "reason": "forfeit",
        "deals": 0,
    }


def test_check_changes_nothing_and_refusals_are_atomic():
    m = Match.new("bao2", 9)
    before = m.state_json()
    legal = m.legal_actions()
    m.check(legal[0])
    assert m.state_json() == before
    with pytest.raises(Refusal):
        m.apply({"seat": (m.to_move() + 1) % 4, "pass": True})
    assert m.state_json() == before


def test_is_first_action_and_clock_seconds():
    m = Match.new("bao2", 4)
    seat = m.to_move()
    assert m.is_first_action(seat) and m.action_seconds(seat) == 30
    m.apply(m.legal_actions()[0])
    assert not m.is_first_action(seat) and m.action_seconds(seat) == 20


def test_bad_seats_are_handled_without_crashing():
    m = Match.new("bao2", 1)
    for bad in (-1, 4, 9, True, "1"):
        assert m.legal_actions(bad) == []
        assert m.timeout_action(bad) is None
        assert m.is_first_action(bad) is False
        with pytest.raises(ValueError):
            m.observation(bad)
    seat = m.to_move()
    assert m.timeout_action((seat + 1) % 4) is None
    assert m.legal_actions((seat + 1) % 4) == []
