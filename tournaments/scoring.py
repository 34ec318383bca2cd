"""Scoring a game as the national competition rules score it, pure Python: no Django import.

《掼蛋（国家）竞赛规则（2017版）》 scores each game (局) twice (第十三条):

* **场分** (match points): 2 for a win, 1 each for equal levels, 0 for a loss;
* **级分** (grade points, the "26-point level-difference score"): the two sides' levels read
  from the conversion table of 附录四. Levels run 2 … A and 过A (passed A), fourteen in all; the
  table gives side A ``13 + d`` and side B ``13 - d`` where ``d`` is A's level minus B's (so
  过A against 2 is 26:0, equal levels 13:13). :func:`grade_points` is that table.

A game lost by a ruling or a forfeit (第十六条四、五) or by a withdrawal (第二十四条) scores 2:0
场分 and 18:0 级分 for the other side; "if its 级分 already exceeds 18, by its actual 级分":
:func:`forfeit_grades`.

Bao 2 keeps its own scale: a Bao 2 result is its two levels 0–23 (3 … 2A), never converted to
the 26-point table; its 级分 is the level difference on that scale (:data:`BAO2`), and a
forfeit is Bao 2's own 23:0 (its rules' 十七).

A :class:`Scale` turns a stored result (the two sides' levels, the winner, whether the winner
passed the last level, whether it was a forfeit) into the pair of grade points the standings
add up (:func:`grades_of`).
"""

from __future__ import annotations

from dataclasses import dataclass

#: 场分 of a win, a draw (equal levels) and a loss (第十三条三).
WIN, DRAW, LOSS = 2, 1, 0

#: The Guandan levels of the 26-point table, 0 (2) to 13 (过A).
GUANDAN_LEVELS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "过A")
#: Index of 过A (passed A): a match won by passing A.
PASSED_A = 13
#: Grade points of the side that wins by a ruling, a forfeit or a withdrawal.
FORFEIT_GRADE = 18


def grade_points(level_a: int, level_b: int) -> tuple[int, int]:
    """The 26-point table (附录四): side A at level index ``level_a`` and side B at
    ``level_b`` (0 = 2 … 12 = A, 13 = 过A) score ``(13 + d, 13 - d)`` with ``d = a - b``.
    Raises ``ValueError`` outside 0…13."""
    for level in (level_a, level_b):
        if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= PASSED_A:
            raise ValueError("a Guandan level index is 0 (2) to 13 (过A)")
    d = level_a - level_b
    return 13 + d, 13 - d


def match_points(grade_for: int, grade_against: int) -> int:
    """场分 of a side from the game's outcome (第十三条三): 2, 1 or 0."""
    if grade_for > grade_against:
        return WIN
    return DRAW if grade_for == grade_against else LOSS


def forfeit_grades(actual: tuple[int, int] | None = None) -> tuple[int, int]:
    """级分 of a game the loser forfeits (第十六条四、五; 第二十四条: a withdrawal): the
    winner 18, the loser 0 — unless the winner's actual 级分 at the stop (``actual``: winner's,
    loser's, from :func:`grade_points`) already exceeds 18, when the game counts as it stood.

    The rule's words are "如果其对手的级分差已超过18分的，按其实际级分计算": the 级分 here is
    the 26-point 级差分 (第十三条二 calls it so), compared with the 18 it would be given; the
    actual score is then kept for both sides."""
    if actual is not None and actual[0] > FORFEIT_GRADE:
        return actual
    return FORFEIT_GRADE, 0


def forfeit_levels(top: int, winner: int) -> tuple[int, int]:
    """The levels stored for a game won by a forfeit before any of it was played (a
    withdrawal, 第二十四条): the winner at the top level ``top``, the loser at the lowest, as
    a live match ended by a forfeit leaves them (Bao 2's 23:0, Guandan's A:2). Its 级分 are
    then :func:`forfeit_grades` (18:0) on the 26-point table. Raises ``ValueError`` for a
    winner other than side 0 or 1."""
    if winner not in (0, 1):
        raise ValueError("the winner is side 0 or 1")
    return (top, 0) if winner == 0 else (0, top)


@dataclass(frozen=True)
class Scale:
    """How one game's grade points are read from its stored result.

    ``top`` is the highest stored level index (Guandan: 12, A; Bao 2: 23, 2A); ``table``:
    the 26-point table applies (a winner that passed the top level is at 过A); otherwise the
    grade is the level difference on the game's own scale. ``forfeit`` is the grade pair of
    a forfeit won (winner, loser) on a scale without the table."""

    name: str
    top: int
    table: bool
    forfeit: tuple[int, int] = (FORFEIT_GRADE, 0)


#: Guandan: the 26-point table of 附录四.
GUANDAN = Scale("guandan_26", top=12, table=True)
#: Bao 2: its own 0–23 levels; 级分 is the level difference, a forfeit 23:0 (its 十七).
BAO2 = Scale("bao2_levels", top=23, table=False, forfeit=(23, -23))


def grades_of(
    scale: Scale,
    levels: tuple[int, int],
    winner: int | None,
    *,
    passed_top: bool = False,
    forfeit: bool = False,
) -> tuple[int, int]:
    """The two sides' 级分 of a finished game on ``scale``.

    ``levels``: each side's level index when the game ended (0…``scale.top``); ``winner``:
    the side that won (None: equal levels, or both sides lost by a double forfeit when
    ``forfeit``); ``passed_top``: the winner passed the top level (过A) rather than being
    ahead when the time or the deals ran out; ``forfeit``: the loser forfeited (for a table
    scale ``levels`` are those at the stop). A double forfeit scores 0:0 (both lose).
    Raises ``ValueError`` for levels outside the scale or a winner with fewer levels than
    the loser outside a forfeit."""
    a, b = levels
    for level in levels:
        if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= scale.top:
            raise ValueError("a level outside the scale")
    if winner not in (None, 0, 1):
        raise ValueError("the winner is side 0 or 1")
    if forfeit:
        if winner is None:
            return 0, 0
        if scale.table:
            mine, theirs = (a, b) if winner == 0 else (b, a)
            won = forfeit_grades(grade_points(mine, theirs))
        else:
            won = scale.forfeit
        return won if winner == 0 else (won[1], won[0])
    if winner is not None and levels[winner] < levels[1 - winner]:
        raise ValueError("the winner cannot have fewer levels")
    if scale.table:
        if passed_top and winner is not None and levels[winner] == scale.top:
            if winner == 0:
                a = PASSED_A
            else:
                b = PASSED_A
        return grade_points(a, b)
    return a - b, b - a


def scale_for(levels: bool, max_level: int) -> Scale | None:
    """The scale of a game: the 26-point table for one won by levels 2 … A (top level 12),
    the level difference on its own levels for another level game (Bao 2: 0–23; a forfeit
    counts the whole scale, its rules' 23:0); None for a game scored by points."""
    if not levels:
        return None
    if max_level == GUANDAN.top:
        return GUANDAN
    if max_level == BAO2.top:
        return BAO2
    return Scale(f"levels_{max_level}", top=max_level, table=False, forfeit=(max_level, -max_level))


@dataclass(frozen=True)
class Forfeit:
    """The result of a game decided by a withdrawal before it was played: the winning side
    (None: both sides lost), the two stored scores and, under national scoring, the two
    sides' 级分 (None under club scoring)."""

    winner: int | None
    scores: tuple[int, int]
    grades: tuple[int, int] | None


def withdrawal_forfeit(
    out: tuple[bool, bool], *, knockout: bool, top: int | None, scale: Scale | None
) -> Forfeit:
    """The result of a game not played because the entries of side 0 and/or side 1 withdrew
    (``out``), 第二十四条二: the other side wins by forfeit — stored as :func:`forfeit_levels`
    in a level game whose top level is ``top`` (None: a game scored by points, 0:0), 2:0
    场分 and on ``scale`` (None: club scoring) the forfeit's 级分 (18:0; Bao 2's 23:0).
    When both sides withdrew both lose (0:0) — but a knockout game needs a winner
    (``knockout``): side 0 goes through, to forfeit its next game in turn. Raises
    ``ValueError`` when neither side withdrew."""
    if out == (True, True) and not knockout:
        return Forfeit(None, (0, 0), (0, 0) if scale is not None else None)
    if not any(out):
        raise ValueError("neither side withdrew")
    winner = 0 if out[1] else 1
    scores = forfeit_levels(top, winner) if top is not None else (0, 0)
    grades = None
    if scale is not None:
        grades = grades_of(scale, (0, 0), winner, forfeit=True)
    return Forfeit(winner, scores, grades)
