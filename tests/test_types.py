"""The type checker's verdict on the project (issue 42): mypy, configured in pyproject.toml.

engine/ and games/ are checked strictly, the rest in mypy's standard mode, less the modules on
pyproject.toml's shrinking allow-list. mypy runs as a subprocess so that its incremental cache
(.mypy_cache/) keeps later runs to seconds; a first run takes a minute or two.
"""

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _mypy_config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]


def test_mypy_finds_no_error():
    result = subprocess.run(
        [sys.executable, "-m", "mypy"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_engine_and_games_are_strict_and_not_allow_listed():
    config = _mypy_config()
    strict = next(o for o in config["overrides"] if "engine.*" in o["module"])
    assert {"games", "games.*", "engine"} <= set(strict["module"])
    for flag in ("disallow_untyped_defs", "disallow_any_generics", "warn_return_any"):
        assert strict[flag] is True
    for override in config["overrides"]:
        if override.get("ignore_errors"):  # no module of engine/ (bots included) or games/
            assert not any(m.split(".")[0] in ("engine", "games") for m in override["module"])
