"""The conformance vectors of ../shared/conformance (Bao 2 and Guandan) all pass."""

import subprocess
import sys
from pathlib import Path

import pytest

from engine.conformance import main, run_file

VECTORS = Path(__file__).resolve().parents[2].parent / "shared" / "conformance"
FILES = ["bao2.jsonl", "guandan.jsonl"]
ALL_FILES = sorted(p.name for p in VECTORS.glob("*.jsonl"))


@pytest.mark.parametrize("name", ALL_FILES)
def test_vector_file_passes(name):
    passed, failed, lines = run_file(str(VECTORS / name))
    assert failed == 0, "\n".join(lines)
    assert passed > 0


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
