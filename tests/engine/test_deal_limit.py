"""The deal limit of a level game (计副制, 第十四条一.2) and play on a tie in a match that must
have a winner (knockout, 第十四条三): option ``deals`` and ``play_on_tie`` of Bao 2 and
Guandan, in a played match (:class:`Match`) and a score sheet's (:class:`TableMatch`)."""

import random

import pytest

from engine.match import Match, TableMatch
from engine.variants import deal_rules

#: Guandan finishing orders (seats; team = seat % 2): team 0 or 1 takes 1st and 2nd (+3).
T0_DOUBLE = {"deal": {"finish": [0, 2]}}
T1_DOUBLE = {"deal": {"finish": [1, 3]}}
#: Team 0 takes 1st and 3rd (+2).
T0_FIRST_THIRD = {"deal": {"finish": [0, 1, 2]}}


def play_deal(match: Match, rng: random.Random) -> None:
    """Random legal actions until the deal in progress closes (or the match ends)."""
    deals = len(match.deals)
    while not match.over and len(match.deals) == deals:
        match.apply(rng.choice(match.legal_actions()))


def test_options_are_off_unless_set_and_the_stored_form_is_unchanged():
    for variant in ("bao2", "guandan"):
        plain = Match.new(variant, 7)
        assert "deals" not in plain.options and "play_on_tie" not in plain.options
        assert set(plain.options) == set(deal_rules(variant).defaults)
        assert "deals_limit" not in plain.observation(None)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"deals": 101}, "option deals must be a whole number from 0 to 100"),
        ({"deals": -1}, "option deals must be a whole number from 0 to 100"),
        ({"deals": "8"}, "option deals must be a whole number from 0 to 100"),
        ({"deals": True}, "option deals must be a whole number from 0 to 100"),
        ({"deals": 2.5}, "option deals must be a whole number from 0 to 100"),
        ({"play_on_tie": 1}, "option play_on_tie must be true or false"),
    ],
)
def test_bad_options_are_refused_naming_the_option(options, message):
    for variant in ("bao2", "guandan"):
        with pytest.raises(ValueError) as error:
            Match.new(variant, 1, options)
        assert str(error.value) == message
        assert error.value.option == next(iter(options))
        with pytest.raises(ValueError):
            TableMatch(variant, options)


def test_point_games_have_no_play_on_tie():
    with pytest.raises(ValueError, match="unknown option: 'play_on_tie'"):
        Match.new("honger", 1, {"play_on_tie": True})


@pytest.mark.parametrize("variant", ["bao2", "guandan"])
def test_the_match_ends_at_the_deal_limit_and_the_higher_level_wins(variant):
    match = Match.new(variant, 11, {"deals": 2})
    obs = match.observation(0)
    assert obs["deals_limit"] == 2 and obs["deal_no"] == 0
    rng = random.Random(3)
    play_deal(match, rng)
    if not match.over:  # one deal cannot pass the top level
        play_deal(match, rng)
    assert match.over and len(match.deals) == 2
    result = match.result()
    assert result["reason"] == "deals" and result["deals"] == 2
    a, b = match.levels
    assert result["score"] == [a, b]
    assert result["winner"] == (None if a == b else (0 if a > b else 1))
    assert match.to_move() is None and match.legal_actions() == []
    # the stored form replays to the same end
    assert Match.from_json(match.to_json()).result() == result


def _tied_after_two(variant: str) -> tuple[int, int]:
    """A seed and a play seed whose first two random deals leave the levels equal."""
    for seed in range(200):
        match = Match.new(variant, seed, {"deals": 2})
        rng = random.Random(seed)
        play_deal(match, rng)
        play_deal(match, rng)
        if match.levels[0] == match.levels[1]:
            return seed, seed
    raise AssertionError("no tie in 200 random matches")


def test_equal_levels_at_the_deal_limit_are_a_draw():
    seed, play = _tied_after_two("guandan")
    match = Match.new("guandan", seed, {"deals": 2})
    rng = random.Random(play)
    play_deal(match, rng)
    play_deal(match, rng)
    assert match.over
    assert match.result()["winner"] is None and match.result()["reason"] == "deals"
    assert match.levels[0] == match.levels[1] > 0


def test_a_match_that_must_have_a_winner_plays_one_more_deal_at_a_time():
    seed, play = _tied_after_two("guandan")
    match = Match.new("guandan", seed, {"deals": 2, "play_on_tie": True})
    rng = random.Random(play)
    play_deal(match, rng)
    play_deal(match, rng)
    assert not match.over and len(match.deals) == 2 and match.levels[0] == match.levels[1]
    assert match.observation(None)["deal_no"] == 2
    while not match.over:
        play_deal(match, rng)
        # it ends at the first deal after the limit that leaves the levels unequal
        assert match.over == (match.levels[0] != match.levels[1])
    assert len(match.deals) >= 3
    result = match.result()
    assert result["reason"] in ("deals", "last_level")
    assert result["winner"] == (0 if match.levels[0] > match.levels[1] else 1)


def test_time_up_on_a_tie_plays_on_when_the_match_must_have_a_winner():
    # the same rule for the time limit (计时制): one place, DealRules.end_at_limit
    for options, over in (({}, True), ({"play_on_tie": True}, False)):
        match = Match.new("guandan", 5, options)
        match.apply({"time_up": True})  # nobody has acted: levels 0:0
        assert match.over is over
    match = Match.new("guandan", 5, {"play_on_tie": True})
    match.apply({"time_up": True})
    play_deal(match, random.Random(1))
    assert match.over and match.result()["reason"] == "time"
    assert match.result()["winner"] == (0 if match.levels[0] > match.levels[1] else 1)


def test_score_sheet_deal_limit_higher_level_wins():
    sheet = TableMatch("guandan", {"deals": 2})
    sheet.apply(T0_DOUBLE)
    assert not sheet.over
    sheet.apply(T0_FIRST_THIRD)
    state = sheet.state()
    assert state["over"] and state["levels"] == [5, 0]
    assert state["result"] == {"winner": 0, "score": [5, 0], "reason": "deals"}


def test_score_sheet_tie_is_a_draw_or_plays_on():
    draw = TableMatch.replay("guandan", {"deals": 2}, [T0_DOUBLE, T1_DOUBLE])
    assert draw.state()["result"] == {"winner": None, "score": [3, 3], "reason": "deals"}
    knockout = TableMatch.replay("guandan", {"deals": 2, "play_on_tie": True}, [T0_DOUBLE])
    knockout.apply(T1_DOUBLE)
    assert not knockout.over and knockout.levels == [3, 3]
    record = knockout.apply(T0_FIRST_THIRD)
    assert knockout.over and record["after"]["result"]["winner"] == 0
    assert record["after"]["result"]["reason"] == "deals" and knockout.deals == 3


def test_score_sheet_time_up_on_a_tie_plays_on_when_the_match_must_have_a_winner():
    sheet = TableMatch("guandan", {"play_on_tie": True})
    sheet.apply({"time_up": True})
    assert not sheet.over
    sheet.apply(T1_DOUBLE)
    assert sheet.state()["result"] == {"winner": 1, "score": [0, 3], "reason": "time"}
    plain = TableMatch("guandan")
    plain.apply({"time_up": True})
    assert plain.state()["result"] == {"winner": None, "score": [0, 0], "reason": "time"}


def test_passing_the_top_level_before_the_limit_ends_the_match():
    sheet = TableMatch("guandan", {"deals": 10})
    entries = [T0_DOUBLE] * 4  # 2 → 5 → 8 → J → A
    for entry in entries:
        sheet.apply(entry)
    assert sheet.levels[0] == 12 and not sheet.over
    sheet.apply(T0_DOUBLE)  # A played, 1st and 2nd: passed A (第十四条一.1)
    assert sheet.over and sheet.reason == "last_level" and sheet.deals == 5
