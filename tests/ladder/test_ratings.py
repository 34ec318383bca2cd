"""Rating maths: Elo on team averages with a margin factor (ladder.ratings)."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.variants import GAMES
from ladder.apply import established_k
from ladder.ratings import (
    MAX_RATING_GAP,
    PlayerState,
    RatingInputError,
    RatingParams,
    expected_score,
    margin_multiplier,
    rate_match,
)

ESTABLISHED = 100  # a match count well past the provisional period


def side(*pairs, matches=ESTABLISHED):
    return [PlayerState(player, rating, matches) for player, rating in pairs]


def by_player(changes):
    return {c.player: c for c in changes}


def test_expected_score_is_the_elo_logistic():
    assert expected_score(1500, 1500) == pytest.approx(0.5)
    assert expected_score(1900, 1500) == pytest.approx(1 / (1 + 10 ** (-1)))
    assert expected_score(1500, 1900) == pytest.approx(1 / 11)
    assert expected_score(1600, 1500) + expected_score(1500, 1600) == pytest.approx(1.0)


def test_margin_multiplier_is_fivethirtyeights_form():
    assert margin_multiplier(5, 0) == pytest.approx(math.log(6))
    assert margin_multiplier(5, 200) == pytest.approx(math.log(6) * 2.2 / 2.4)
    assert margin_multiplier(5, -200) == pytest.approx(math.log(6) * 2.2 / 2.0)
    # An underdog's win counts for more than a favourite's win by the same margin.
    assert margin_multiplier(3, -100) > margin_multiplier(3, 100)
    # Bigger margins count for more.
    assert margin_multiplier(10, 0) > margin_multiplier(2, 0)


def test_margin_multiplier_clamps_absurd_gaps():
    assert margin_multiplier(1, -5000) == margin_multiplier(1, -MAX_RATING_GAP)
    assert margin_multiplier(1, 5000) == margin_multiplier(1, MAX_RATING_GAP)
    assert margin_multiplier(1, -5000) > 0


def test_team_average_change_worked_example():
    # Side 0 averages 1550, side 1 averages 1450; side 0 wins 7:2 (margin 5).
    changes = by_player(
        rate_match(
            (side(("a", 1600), ("b", 1500)), side(("c", 1400), ("d", 1500))),
            (7, 2),
        )
    )
    expected = 1 / (1 + 10 ** (-100 / 400))
    m = math.log(6) * 2.2 / (2.2 + 0.001 * 100)
    for name in "ab":
        assert changes[name].expected == pytest.approx(expected)
        assert changes[name].score == 1.0
        assert changes[name].k == 8
        assert changes[name].multiplier == pytest.approx(m)
        assert changes[name].delta == pytest.approx(8 * m * (1 - expected))
    for name in "cd":
        assert changes[name].expected == pytest.approx(1 - expected)
        assert changes[name].score == 0.0
        assert changes[name].delta == pytest.approx(8 * m * (0 - (1 - expected)))
    assert changes["a"].before == 1600 and changes["a"].after == pytest.approx(
        1600 + changes["a"].delta
    )


@given(
    ratings=st.lists(st.floats(min_value=600, max_value=2800), min_size=4, max_size=4),
    scores=st.tuples(st.integers(0, 23), st.integers(0, 23)),
)
def test_zero_sum_when_every_k_is_equal(ratings, scores):
    changes = rate_match(
        (side(("a", ratings[0]), ("b", ratings[1])), side(("c", ratings[2]), ("d", ratings[3]))),
        scores,
    )
    assert sum(c.delta for c in changes) == pytest.approx(0.0, abs=1e-9)


@given(
    ratings=st.lists(st.floats(min_value=600, max_value=2800), min_size=4, max_size=4),
    counts=st.lists(st.integers(0, 60), min_size=4, max_size=4),
    scores=st.tuples(st.integers(0, 23), st.integers(0, 23)),
)
def test_partners_never_exchange_rating(ratings, counts, scores):
    changes = rate_match(
        (
            [PlayerState("a", ratings[0], counts[0]), PlayerState("b", ratings[1], counts[1])],
            [PlayerState("c", ratings[2], counts[2]), PlayerState("d", ratings[3], counts[3])],
        ),
        scores,
    )
    c = by_player(changes)
    # Partners move in the same direction, by K times the same side surprise.
    assert c["a"].delta / c["a"].k == pytest.approx(c["b"].delta / c["b"].k, abs=1e-12)
    assert c["c"].delta / c["c"].k == pytest.approx(c["d"].delta / c["d"].k, abs=1e-12)
    if scores[0] != scores[1]:
        winners, losers = ("ab", "cd") if scores[0] > scores[1] else ("cd", "ab")
        assert all(c[w].delta > 0 for w in winners)
        assert all(c[loser].delta < 0 for loser in losers)


def test_draw_counts_half_and_uses_the_draw_multiplier():
    changes = by_player(
        rate_match((side(("fav", 1700)), side(("dog", 1500))), (4, 4), RatingParams())
    )
    e = expected_score(1700, 1500)
    assert changes["fav"].score == 0.5 and changes["dog"].score == 0.5
    assert changes["fav"].multiplier == 1.0
    assert changes["fav"].delta == pytest.approx(8 * (0.5 - e))
    assert changes["fav"].delta < 0 < changes["dog"].delta
    assert changes["fav"].delta == pytest.approx(-changes["dog"].delta)
    # Equal sides that draw do not move.
    equal = rate_match((side(("x", 1500)), side(("y", 1500))), (0, 0))
    assert [c.delta for c in equal] == [0.0, 0.0]
    # The draw factor is a ladder parameter.
    half = by_player(
        rate_match(
            (side(("fav", 1700)), side(("dog", 1500))), (4, 4), RatingParams(draw_multiplier=0.5)
        )
    )
    assert half["fav"].delta == pytest.approx(changes["fav"].delta / 2)


def test_provisional_players_move_with_the_larger_k():
    params = RatingParams(k_provisional=16, k_established=8, provisional_matches=30)
    changes = by_player(
        rate_match(
            (
                [PlayerState("new", 1500, 0), PlayerState("last_new", 1500, 29)],
                [PlayerState("old", 1500, 30), PlayerState("older", 1500, 500)],
            ),
            (10, 3),
            params,
        )
    )
    assert changes["new"].k == 16 and changes["last_new"].k == 16
    assert changes["old"].k == 8 and changes["older"].k == 8
    assert changes["new"].delta == pytest.approx(2 * -changes["old"].delta)
    assert params.is_provisional(29) and not params.is_provisional(30)
    assert params.k_factor(29) == 16 and params.k_factor(30) == 8


def test_bigger_margin_moves_ratings_more():
    small = rate_match((side(("a", 1500)), side(("b", 1500))), (1, 0))
    big = rate_match((side(("a", 1500)), side(("b", 1500))), (23, 0))
    assert big[0].delta > small[0].delta > 0
    assert big[0].delta == pytest.approx(8 * math.log(24) * 0.5)


def test_upset_moves_ratings_more_than_expected_win():
    fav_wins = by_player(rate_match((side(("fav", 1800)), side(("dog", 1500))), (5, 0)))
    dog_wins = by_player(rate_match((side(("fav", 1800)), side(("dog", 1500))), (0, 5)))
    assert dog_wins["dog"].delta > fav_wins["fav"].delta > 0
    assert dog_wins["dog"].multiplier > fav_wins["fav"].multiplier


def test_two_player_games_are_teams_of_one():
    changes = by_player(rate_match((side(("a", 1620)), side(("b", 1480))), (40, 90)))
    e = expected_score(1620, 1480)
    m = margin_multiplier(50, 1480 - 1620)
    assert changes["a"].delta == pytest.approx(8 * m * (0 - e))
    assert changes["b"].delta == pytest.approx(8 * m * (1 - (1 - e)))


def test_solo_against_three_rates_everyone_against_the_side_average():
    # Red Two solo deal (独打): one player against the other three, as revealed at the end.
    changes = by_player(
        rate_match(
            (side(("solo", 1600)), side(("x", 1500), ("y", 1400), ("z", 1600))),
            (12, 0),
        )
    )
    e = expected_score(1600, 1500)
    m = margin_multiplier(12, 100)
    assert changes["solo"].expected == pytest.approx(e)
    assert changes["solo"].delta == pytest.approx(8 * m * (1 - e))
    for name in "xyz":
        assert changes[name].expected == pytest.approx(1 - e)
        assert changes[name].delta == pytest.approx(-changes["solo"].delta)


def test_changes_are_listed_side_by_side_in_order():
    changes = rate_match((side(("a", 1500), ("b", 1500)), side(("c", 1500), ("d", 1500))), (1, 2))
    assert [(c.player, c.side) for c in changes] == [("a", 0), ("b", 0), ("c", 1), ("d", 1)]


@pytest.mark.parametrize(
    ("sides", "scores", "code"),
    [
        ((side(("a", 1500)),), (1, 0), "sides"),
        ((side(("a", 1500)), []), (1, 0), "sides"),
        ((side(("a", 1500)), side(("b", 1500)), side(("c", 1500))), (1, 0), "sides"),
        ((side(("a", 1500)), side(("b", 1500))), (1,), "sides"),
        ((side(("a", 1500)), side(("a", 1500))), (1, 0), "duplicate_player"),
        ((side(("a", 1500), ("a", 1400)), side(("b", 1500))), (1, 0), "duplicate_player"),
        ((side(("a", float("nan"))), side(("b", 1500))), (1, 0), "bad_rating"),
        ((side(("a", "1500")), side(("b", 1500))), (1, 0), "bad_rating"),
        (([PlayerState("a", 1500, -1)], side(("b", 1500))), (1, 0), "bad_matches"),
        ((side(("a", 1500)), side(("b", 1500))), (float("inf"), 0), "bad_score"),
        ((side(("a", 1500)), side(("b", 1500))), ("3", 0), "bad_score"),
        ((side(("a", 1500)), side(("b", 1500))), (None, 0), "bad_score"),
    ],
)
def test_malformed_matches_are_refused_with_a_reason(sides, scores, code):
    with pytest.raises(RatingInputError) as refused:
        rate_match(sides, scores)
    assert refused.value.code == code


def test_rating_maths_and_bench_never_import_django():
    import subprocess
    import sys

    code = (
        "import sys, ladder.ratings, bench.ratings, ladder.charts; "
        "assert not any(m == 'django' or m.startswith('django.') for m in sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_bench_rates_with_the_games_established_k():
    from bench.ratings import BAO2_PARAMS, MEASURED_GAMES

    assert BAO2_PARAMS.k_established == established_k("bao2")
    assert set(MEASURED_GAMES) == set(GAMES)


def test_bench_prints_the_figures_it_promises():
    from bench.ratings import simulate

    figures = simulate(players=20, matches=400, seed=3)
    for key in ("spearman", "log_loss", "oracle_log_loss", "updates_per_s"):
        assert key in figures
    assert -1 <= figures["spearman"] <= 1
    assert figures["log_loss"] > 0 and figures["oracle_log_loss"] > 0


def test_each_game_steps_about_8_points_per_unit_of_surprise():
    # the mean margin factors measured with the engine's bots (bench.ratings --margin-factors)
    measured = {"bao2": 2.46, "guandan": 1.58, "honger": 2.49, "shuangkou2": 3.49}
    assert set(GAMES) == set(measured)
    for variant, factor in measured.items():
        assert established_k(variant) == round(8 / factor)
        assert 6 <= established_k(variant) * factor <= 10
    assert established_k("a game with no measurement") == 8
