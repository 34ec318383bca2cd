"""The conformance vectors all pass: the repository's copy (``tests/engine/conformance``) and,
when a ``shared/conformance`` folder sits beside the repository, the vectors there too (so
vectors added there are picked up before they are copied in)."""

import subprocess
import sys
from pathlib import Path

import pytest

from engine.conformance import main, run_file

VECTORS = Path(__file__).resolve().parent / "conformance"
#: The rules' own vectors beside the repository (absent in a fresh clone).
SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "conformance"
FILES = ["bao2.jsonl", "guandan.jsonl"]
ALL_FILES = ["bao2.jsonl", "guandan.jsonl", "honger.jsonl", "shuangkou2.jsonl"]


@pytest.mark.parametrize("name", ALL_FILES)
def test_vector_file_passes(name):
    passed, failed, lines = run_file(str(VECTORS / name))
    assert failed == 0, "\n".join(lines)
    assert passed > 0


def test_the_repository_holds_every_game_s_vectors():
    assert sorted(p.name for p in VECTORS.glob("*.jsonl")) == ALL_FILES


def test_vectors_beside_the_repository_pass():
    """Every ``*.jsonl`` of ``../shared/conformance`` passes, when that folder exists."""
    for path in sorted(SHARED.glob("*.jsonl")) if SHARED.is_dir() else []:
        passed, failed, lines = run_file(str(path))
        assert failed == 0, f"{path.name}:\n" + "\n".join(lines)
        assert passed > 0, path.name


def test_deal_and_settle_cases_are_run():
    import json

    kinds = set()
    for name in FILES:
        for line in (VECTORS / name).read_text().splitlines():
            if line.strip():
                kinds.add(json.loads(line)["kind"])
    assert {"classify", "beats", "deal", "settle"} <= kinds


def test_cli_last_line_and_exit_status(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"id": "x-wrong", "variant": "bao2", "kind": "classify", "level": "7",'
        ' "cards": ["S3"], "expect": []}\n'
        '{"id": "x-right", "variant": "bao2", "kind": "classify", "level": "7",'
        ' "cards": ["S3"], "expect": [{"type": "single", "key": "3"}]}\n'
        '{"id": "x-missing", "variant": "nosuch", "kind": "score", "expect": {}}\n'
    )
    out = subprocess.run(
        [sys.executable, "-m", "engine.conformance", str(bad)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    lines = out.stdout.strip().splitlines()
    assert lines[-1] == "1 passed, 2 failed"
    assert lines[0].startswith("x-wrong: expected []")
    assert "not implemented" in lines[1]
    assert out.returncode != 0
    assert main([str(VECTORS / "guandan.jsonl")]) == 0
