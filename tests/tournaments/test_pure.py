"""Pairing and standings are pure Python: importing them (and the pairing bench) loads no
Django, so they stay testable and benchmarkable on their own."""

import subprocess
import sys


def test_pairing_standings_scoring_brackets_and_bench_never_import_django():
    code = (
        "import sys, tournaments.pairing, tournaments.standings, tournaments.scoring, "
        "tournaments.brackets, bench.pairing; "
        "assert not any(m == 'django' or m.startswith('django.') for m in sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
