"""The bench's engine margin model: margins measured by playing Bao 2 with the engine's bots."""

import json
import math

from bench import ratings as bench


def test_engine_margins_are_level_margins_as_the_ladder_rates_them():
    margins = bench.engine_margins(2, seed="test")
    assert sum(margins.values()) == 2 * len(bench.ENGINE_PAIRINGS)
    assert all(1 <= margin <= bench.MAX_LEVEL_MARGIN for margin in margins)


def test_embedded_distribution_is_the_documented_measurement():
    assert sum(bench.ENGINE_MARGINS.values()) == 1200
    assert set(bench.ENGINE_MARGINS) <= set(range(1, bench.MAX_LEVEL_MARGIN + 1))


def test_bench_uses_a_fresh_measurement_when_asked(capsys):
    bench.main(["--players", "12", "--matches", "300", "--margins-from-engine", "1"])
    figures = json.loads(capsys.readouterr().out)
    assert figures["margin_model"] == "engine"
    assert figures["engine_matches"] == len(bench.ENGINE_PAIRINGS)
    assert sum(figures["margin_distribution"].values()) == figures["engine_matches"]
    assert 1 <= figures["mean_margin"] <= bench.MAX_LEVEL_MARGIN


def test_every_game_has_its_margins_measured_as_the_ladder_rates_them():
    for variant in ("guandan", "honger", "shuangkou2"):
        margins = bench.engine_margins(1, seed="test", variant=variant)
        assert 1 <= sum(margins.values()) <= len(bench.ENGINE_PAIRINGS)
        assert all(margin >= 0 for margin in margins)  # a Red Two draw has margin 0


def test_margin_factors_give_the_k_that_makes_k_times_m_eight(capsys):
    bench.main(["--margin-factors", "1"])
    figures = json.loads(capsys.readouterr().out)
    assert set(figures) == {"bao2", "guandan", "honger", "shuangkou2"}
    for game in figures.values():
        assert game["mean_margin"] >= 1 and game["mean_factor"] >= math.log(2)
        assert game["k_for_8"] == round(8 / game["mean_factor"])
