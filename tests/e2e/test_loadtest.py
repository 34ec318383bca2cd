"""The load test (``python -m bench.loadtest``, through the stack script) measures what it says: a
short run against the real stack delivers every update and every broadcast, and measures the
tables for ``--seconds`` and each bare broadcast for as long, half before the tables and half
after."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from stack import run_load  # noqa: E402

pytestmark = pytest.mark.timing  # its figures are bounded: ./test runs it alone


def test_the_tables_and_both_baselines_are_measured_and_nothing_is_lost():
    figures = run_load(
        asgi=1,
        stacks=1,
        loadtest=["--tables", "4", "--seconds", "4", "--think", "0.05"],
    )
    assert figures["failed_connects"] == 0
    assert figures["lost"] == 0
    assert figures["baseline_lost"] == 0
    assert figures["actions_per_s"] > 0
    # each kind of load was measured for its 4 s, and only then
    assert 4.0 <= figures["measured_s"] < 4.5
    for name in ("baseline", "baseline_thinking"):
        assert figures[f"{name}_actions_per_s"] > 0
        assert 4.0 <= figures[f"{name}_measured_s"] < 4.5
    # four groups answering at once outrun four groups that think 25-75 ms per answer
    assert figures["baseline_actions_per_s"] > figures["baseline_thinking_actions_per_s"]
    assert figures["cpu_ms_client"] > 0
    assert figures["resyncs"] == 0
