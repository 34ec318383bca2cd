"""Conformance runner: ``python -m engine.conformance FILE...``.

Runs the test vectors of ``*.jsonl`` files (the repository's copy is ``tests/engine/conformance``;
format in that folder's README) against the engine: ``classify`` and ``beats`` through
:func:`engine.variants.combo_rules`, ``deal`` through :class:`engine.deal.Deal` (positions,
actions, refusals with their reason code, expectations), ``settle`` through the variant's
``settle_levels``; ``score`` and ``fan`` (Red Two, Shuangkou) through the variant's
:meth:`~engine.deal.DealRules.conformance_case`; a case the variant does not provide is
reported as failed "not implemented". Prints one line per failing case (id, expected, got), then exactly
``N passed, M failed``; the exit status is non-zero when any case failed.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import Any

from engine.actions import Refusal, parse_action
from engine.cards import cards_str, parse_cards
from engine.deal import Deal, DealRules
from engine.variants import combo_rules, deal_rules


class NotImplementedCase(Exception):
    """The variant does not provide what this case needs."""


def _norm_readings(readings: Iterable[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(r, sort_keys=True) for r in readings)


def _rules(variant: str) -> DealRules:
    try:
        return deal_rules(variant)
    except ValueError as exc:
        raise NotImplementedCase(str(exc)) from None


def run_case(case: dict[str, Any]) -> tuple[bool, Any, Any]:
    """Run one case; returns ``(passed, expected, got)``."""
    kind = case["kind"]
    expect = case["expect"]
    if kind == "classify":
        rules = combo_rules(case["variant"], case.get("level"))
        readings = [c.reading() for c in rules.readings(parse_cards(case["cards"]))]
        return _norm_readings(readings) == _norm_readings(expect), expect, readings
    if kind == "beats":
        rules = combo_rules(case["variant"], case.get("level"))
        combos = []
        for name in ("play", "standing"):
            spec = case[name]
            combo = rules.read_as(parse_cards(spec["cards"]), spec["type"])
            if combo is None:
                return False, expect, f"{name} is not a valid {spec['type']}"
            combos.append(combo)
        got = rules.beats(combos[0], combos[1])
        return got == expect, expect, got
    if kind == "deal":
        return _run_deal(case)
    if kind == "settle":
        settling = _rules(case["variant"])
        options = dict(settling.defaults)
        options.update(case.get("options", {}))
        out = settling.settle_levels(
            case["levels"],
            case["level_team"],
            case["attempts"],
            case["finish"],
            case["bao2"],
            case["closed"],
            options,
        )
        settled = {k: out[k] for k in expect}
        return settled == expect, expect, settled
    try:
        got = _rules(case["variant"]).conformance_case(case)
    except ValueError as exc:
        raise NotImplementedCase(str(exc)) from None
    return got == expect, expect, got


def _run_deal(case: dict[str, Any]) -> tuple[bool, Any, Any]:
    expect = case["expect"]
    rules = _rules(case["variant"])
    try:
        deal = Deal.from_position(rules, case)
    except ValueError as exc:
        raise NotImplementedCase(str(exc)) from None
    for i, raw in enumerate(case["actions"]):
        reject = raw.get("reject")
        before = deal.to_json()
        try:
            deal.apply(parse_action(raw))
        except Refusal as exc:
            if reject is None:
                return False, expect, f"action {i} refused: {exc.code} ({exc.message})"
            if exc.code != reject:
                return False, expect, f"action {i} refused with {exc.code}, not {reject}"
            if deal.to_json() != before:
                return False, expect, f"action {i} refused but the state changed"
            continue
        if reject is not None:
            return False, expect, f"action {i} accepted, expected {reject}"
    got: dict[str, Any] = {}
    result = deal.result or {}
    for key, want in expect.items():
        if key == "turn":
            got[key] = deal.to_move()
        elif key == "lead":
            got[key] = deal.phase == "play" and deal.leading and deal.turn is not None
        elif key == "finish":
            got[key] = list(deal.finished)
        elif key == "initiative":
            got[key] = list(deal.initiative)
        elif key == "over":
            got[key] = deal.over
        elif key == "bao2":
            got[key] = list(deal.bao2)
        elif key == "hands":
            got[key] = {
                s: sorted(deal.hand(int(s)))
                for s in want  # compared as multisets below
            }
            want_sorted = {s: sorted(parse_cards(v)) for s, v in want.items()}
            if got[key] != want_sorted:
                got[key] = {s: cards_str(v) for s, v in got[key].items()}
            else:
                got[key] = want
        elif key in ("base", "closed", "points"):
            got[key] = result.get(key)
        else:
            got[key] = f"unknown expectation {key!r}"
    ok = all(
        json.dumps(got[k], sort_keys=True) == json.dumps(v, sort_keys=True)
        for k, v in expect.items()
    )
    return ok, expect, got


def run_file(path: str) -> tuple[int, int, list[str]]:
    """Run every case of one ``.jsonl`` file: ``(passed, failed, failure lines)``."""
    passed = failed = 0
    lines: list[str] = []
    with open(path, encoding="utf-8") as fh:
        for raw in fh:
            raw = raw.strip()
            if not raw:
                continue
            case = json.loads(raw)
            try:
                ok, expect, got = run_case(case)
            except NotImplementedCase as exc:
                ok, expect, got = False, case.get("expect"), f"not implemented ({exc})"
            except Exception as exc:  # a crash is a failure of that case, not of the run
                ok, expect, got = False, case.get("expect"), f"error {type(exc).__name__}: {exc}"
            if ok:
                passed += 1
            else:
                failed += 1
                lines.append(
                    f"{case.get('id')}: expected {json.dumps(expect, ensure_ascii=False)}, "
                    f"got {json.dumps(got, ensure_ascii=False, default=str)}"
                )
    return passed, failed, lines


def main(argv: list[str] | None = None) -> int:
    """Run the files named on the command line; print failures and the ``N passed, M failed``
    line; return the exit status (1 if any case failed or no file was given)."""
    paths = sys.argv[1:] if argv is None else argv
    if not paths:
        print("usage: python -m engine.conformance FILE...", file=sys.stderr)
        return 2
    total_pass = total_fail = 0
    for path in paths:
        p, f, lines = run_file(path)
        total_pass += p
        total_fail += f
        for line in lines:
            print(line)
    print(f"{total_pass} passed, {total_fail} failed")
    return 1 if total_fail else 0


if __name__ == "__main__":
    sys.exit(main())
