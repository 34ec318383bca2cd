"""The national rules' scoring (pure, no database): the 26-point table checked cell by cell
against the rules' own appendix 四, 场分, forfeits (第十六、二十四条) and Bao 2's own scale."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments import scoring, standings

APPENDIX = Path(__file__).parent / "data" / "appendix4_26_point_table.txt"
ROWS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def appendix_table() -> dict[tuple[int, int], tuple[int, int] | None]:
    """The appendix read as printed: row (甲方's level) × column (乙方's level), 14 × 14 with the
    unlabelled last row and column 过A. The text extraction splits some cells over two lines
    (``12:1`` then ``4``); a cell always adds up to 26, which tells a split cell from a row
    label that follows a whole one. ``—`` is kept as None."""
    lines = [line for line in APPENDIX.read_text("utf-8").splitlines() if not line.startswith("#")]
    start = next(i for i, line in enumerate(lines) if line.startswith("2 3 4 5"))
    tokens = " ".join(lines[start + 1 :]).split()
    cells: list[list[object]] = []
    row: list[object] | None = None
    i = 0
    while i < len(tokens):
        token = tokens[i]
        match = re.fullmatch(r"(\d+):(\d+)", token)
        if match:
            a, b = int(match[1]), int(match[2])
            if a + b != 26 and i + 1 < len(tokens) and tokens[i + 1].isdigit():
                b = int(match[2] + tokens[i + 1])
                i += 1
            assert a + b == 26, token
            if row is None or len(row) == 14:  # the unlabelled last row (过A)
                row = []
                cells.append(row)
            row.append((a, b))
        elif token == "—":
            assert row is not None
            row.append(None)
        else:
            assert token in ROWS, token
            row = []
            cells.append(row)
        i += 1
    table = {}
    assert len(cells) == 14
    for r, values in enumerate(cells):
        assert len(values) == 14, (r, values)
        for c, value in enumerate(values):
            table[(r, c)] = value
    return table


def test_the_26_point_table_is_the_appendix_cell_by_cell():
    printed = appendix_table()
    for (a, b), cell in printed.items():
        if cell is None:
            # the one "—": 甲方 2 against 乙方 2, before anything was played. Every other
            # equal-level cell reads 13:13 and 第十三条三 scores equal levels alike.
            assert (a, b) == (0, 0)
            assert scoring.grade_points(a, b) == (13, 13)
            continue
        assert scoring.grade_points(a, b) == cell, (scoring.GUANDAN_LEVELS[a], b)
    assert printed[(13, 0)] == (26, 0) and printed[(0, 13)] == (0, 26)
    assert len(printed) == 14 * 14


@given(st.integers(0, 13), st.integers(0, 13))
def test_grade_points_add_up_to_26_and_mirror(a, b):
    mine, theirs = scoring.grade_points(a, b)
    assert mine + theirs == 26
    assert scoring.grade_points(b, a) == (theirs, mine)
    assert scoring.match_points(mine, theirs) + scoring.match_points(theirs, mine) == 2
    assert (mine > theirs) == (a > b)


@pytest.mark.parametrize("bad", [-1, 14, True, "3", 1.0])
def test_grade_points_refuse_levels_off_the_table(bad):
    with pytest.raises(ValueError):
        scoring.grade_points(bad, 0)


def test_match_points_are_2_1_0():
    assert [scoring.match_points(*g) for g in [(15, 11), (13, 13), (1, 25)]] == [2, 1, 0]


def test_a_won_match_passed_a_and_a_game_ended_by_time_did_not():
    # 过A against K: 14:12; A against K when the time ran out: 14:12 is not given, 13+1 is
    assert scoring.grades_of(scoring.GUANDAN, (12, 11), 0, passed_top=True) == (15, 11)
    assert scoring.grades_of(scoring.GUANDAN, (12, 11), 0) == (14, 12)
    assert scoring.grades_of(scoring.GUANDAN, (3, 12), 1, passed_top=True) == (3, 23)
    assert scoring.grades_of(scoring.GUANDAN, (5, 5), None) == (13, 13)
    # passing the top is only possible from it
    assert scoring.grades_of(scoring.GUANDAN, (10, 4), 0, passed_top=True) == (19, 7)


def test_forfeits_score_18_to_0_unless_the_winner_already_had_more():
    assert scoring.forfeit_grades() == (18, 0)
    assert scoring.forfeit_grades((16, 10)) == (18, 0)
    assert scoring.forfeit_grades((18, 8)) == (18, 0)
    assert scoring.forfeit_grades((21, 5)) == (21, 5)
    # at the stop side 1 led by 9 levels (22:4): more than 18, so the game counts as it stood
    assert scoring.grades_of(scoring.GUANDAN, (1, 10), 1, forfeit=True) == (4, 22)
    assert scoring.grades_of(scoring.GUANDAN, (0, 0), 0, forfeit=True) == (18, 0)
    # a forfeit winner may even be behind at the stop
    assert scoring.grades_of(scoring.GUANDAN, (2, 6), 0, forfeit=True) == (18, 0)
    assert scoring.grades_of(scoring.GUANDAN, (0, 0), None, forfeit=True) == (0, 0)


def test_bao2_keeps_its_own_scale():
    assert scoring.grades_of(scoring.BAO2, (23, 9), 0, passed_top=True) == (14, -14)
    assert scoring.grades_of(scoring.BAO2, (4, 4), None) == (0, 0)
    assert scoring.grades_of(scoring.BAO2, (7, 0), 1, forfeit=True) == (-23, 23)
    with pytest.raises(ValueError):
        scoring.grades_of(scoring.BAO2, (24, 0), 0)
    with pytest.raises(ValueError):
        scoring.grades_of(scoring.GUANDAN, (13, 0), 0)  # 过A is never stored: passed_top says it


def test_a_winner_behind_is_refused_outside_a_forfeit():
    with pytest.raises(ValueError):
        scoring.grades_of(scoring.GUANDAN, (3, 5), 0)


@given(
    st.sampled_from([scoring.GUANDAN, scoring.BAO2]),
    st.integers(0, 23),
    st.integers(0, 23),
    st.booleans(),
    st.booleans(),
)
def test_grades_are_zero_sum_around_the_scale(scale, a, b, passed, forfeit):
    a, b = min(a, scale.top), min(b, scale.top)
    winner = None if a == b and not forfeit else (0 if a >= b else 1)
    g0, g1 = scoring.grades_of(scale, (a, b), winner, passed_top=passed, forfeit=forfeit)
    if forfeit and winner is not None:
        assert scoring.match_points(*((g0, g1) if winner == 0 else (g1, g0))) == 2
    assert g0 + g1 == (26 if scale.table else 0) or (forfeit and scale.table)
    if not forfeit and winner is not None:
        assert [g0, g1][winner] >= [g0, g1][1 - winner]


def test_scoring_imports_no_django():
    code = (
        "import sys, tournaments.scoring; "
        "assert not any(m == 'django' or m.startswith('django.') for m in sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_national_tie_breaks_in_the_rules_order():
    """场分, then 级分, then 级分 between the tied, then the opponents' 级分 (第二十七条四)."""
    g = scoring.grade_points
    games = [
        ((1,), (2,), (12, 8), 0, g(13, 8)),  # 1 passes A against 10: 18:8
        ((3,), (4,), (6, 5), 0, g(6, 5)),  # 14:12
        ((2,), (3,), (9, 6), 0, g(9, 6)),  # 16:10
        ((4,), (1,), (7, 6), 0, g(7, 6)),  # 14:12
        ((1,), (3,), (4, 4), None, g(4, 4)),  # 13:13
        ((2,), (4,), (5, 5), None, g(5, 5)),  # 13:13
    ]
    records = []
    for side0, side1, levels, winner, grades in games:
        records += standings.records_of_game([side0, side1], levels, winner, grades)
    rows = standings.standings([1, 2, 3, 4], records, standings.NATIONAL_TIEBREAKS)
    values = {r.unit: r.values for r in rows}
    # everyone won one, drew one and lost one: 3 场分 each
    assert {v["match_points"] for v in values.values()} == {3}
    assert {u: v["grade_points"] for u, v in values.items()} == {1: 43, 2: 37, 3: 37, 4: 39}
    # 2 and 3 are equal on 级分: 2 beat 3 16:10, so 2 is ahead
    assert [r.unit for r in rows] == [1, 4, 2, 3]
    assert values[2]["head_to_head_grades"] == 16 and values[3]["head_to_head_grades"] == 10
    assert [r.place for r in rows] == [1, 2, 3, 4]


def test_a_cycle_shares_the_place_and_a_draw_more_breaks_it():
    records = []
    for side0, side1, winner in [((1,), (2,), 0), ((2,), (3,), 0), ((3,), (1,), 0)]:
        records += standings.records_of_game([side0, side1], (1, 0), winner, (14, 12))
    rows = standings.standings([1, 2, 3], records, standings.NATIONAL_TIEBREAKS)
    # equal on 场分, 级分, 级分 among them and the opponents' 级分: one shared place
    assert [r.place for r in rows] == [1, 1, 1]
    assert {r.values["opponent_grades"] for r in rows} == {52}
    records += standings.records_of_game([(4,), (1,)], (0, 0), None, (13, 13))
    records += standings.records_of_game([(4,), (2,)], (0, 0), None, (13, 13))
    rows = standings.standings([1, 2, 3], records, standings.NATIONAL_TIEBREAKS)
    assert [r.unit for r in rows] == [1, 2, 3]
    assert [r.values["head_to_head_grades"] for r in rows[:2]] == [14, 12]
