"""Write tests/cpu.json: the CPU seconds of the tests that cost at least ``--floor`` (1) CPU-s,
from what the runs on this machine measured (``var/test-cache/cpu-*.json``, written by
tests/conftest.py). ``./test --quick`` leaves out the tests over ``QUICK_MAX_CPU_SECONDS``
there, beside those over ``QUICK_MAX_SECONDS`` in tests/durations.json. Each test's figure
is the least the passes measured: on a loaded machine its CPU-s are higher too.

A test's CPU is that of its own process and of the child processes it waited for; a child
left behind by an earlier test and reaped during a later one counts in the later one. Such
figures are left out: a test whose CPU is more than twice its seconds (it cannot have used
more than the machine's two cores) is not written.

    .venv/bin/python tests/cpu_figures.py [--floor SECONDS]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "var" / "test-cache"
OUT = ROOT / "tests" / "cpu.json"


def _read(path: Path) -> dict[str, float]:
    try:
        return {k: float(v) for k, v in json.loads(path.read_text()).items()}
    except (OSError, ValueError, AttributeError, TypeError):
        return {}


def figures(floor: float) -> dict[str, float]:
    """The CPU seconds of each test measured here (the least of the passes' figures: a
    loaded machine's CPU-s are higher too), over ``floor``, without the figures a reaped
    stranger's CPU inflated."""
    cpu: dict[str, float] = {}
    for path in CACHE.glob("cpu-*.json"):
        seconds = _read(path.with_name(path.name.replace("cpu-", "durations-", 1)))
        for test, value in _read(path).items():
            if value <= 2 * seconds.get(test, float("inf")):
                cpu[test] = min(value, cpu.get(test, value))
    return {test: round(value, 1) for test, value in sorted(cpu.items()) if value >= floor}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--floor", type=float, default=1.0, help="CPU-s a test must reach")
    args = parser.parse_args()
    found = figures(args.floor)
    OUT.write_text(json.dumps(found, indent=0, sort_keys=True) + "\n")
    print(f"{OUT.relative_to(ROOT)}: {len(found)} tests of at least {args.floor} CPU-s")


if __name__ == "__main__":
    main()
