"""Run a side-by-side script of ``../shared/peers`` (e.g. ``deals_vs_danks.py``) against the
engine as it is now laid out: those scripts import ``engine.bench``, which is
:mod:`bench.engine_speed` since the benchmarks left the production packages.

``python -m bench.peer_speed ../shared/peers/deals_vs_danks.py 6 [--full]``: ``--full`` makes
the engine's bots read the full observation the platform sends instead of the light one.
"""

from __future__ import annotations

import runpy
import sys
from functools import partial

from bench import engine_speed


def main() -> None:
    """Alias ``engine.bench`` and run the script with the remaining arguments."""
    args = sys.argv[1:]
    if "--full" in args:
        args.remove("--full")
        engine_speed.play_random_match = partial(engine_speed.play_random_match, full=True)
    sys.modules["engine.bench"] = engine_speed
    sys.argv = args
    runpy.run_path(args[0], run_name="__main__")


if __name__ == "__main__":
    main()
