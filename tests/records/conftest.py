"""Fixtures of the statistics' tests: a club of members, engine-made finished matches."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tests.ladder.conftest import club, make_users, members  # noqa: E402,F401
