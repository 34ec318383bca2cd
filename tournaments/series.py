"""Multi-game knockout ties (多局制淘汰赛, 第三十条), pure Python: no Django import.

第三十条 runs the second stage of 积分编排赛 + 多局制淘汰赛 as a knockout whose every tie (对阵,
the rules' "每轮比赛") is a series of games between the same two units, decided in one of two
ways (三):

1. **By grade points** (以级差分的高低决定胜负, :data:`SUM2`, :data:`SUM3`): 2 (or 3) games, each
   played 计时计副制; the side whose 26-point 级分 added up over the games is higher goes
   through. Every game is played, and a game may be drawn (13:13).
2. **By match points** (以场分的高低决定胜负, :data:`BEST3`, :data:`BEST5`): best of three (or
   five): the first side to win 2 (or 3) games goes through. A drawn game plays one more deal
   at a time from where it stands until the levels differ (the engine's ``play_on_tie``), so
   every game has a winner.

The text is silent on a tie in the added 级分. The platform then compares the series' 场分
(the games won, 2 a win and 1 a draw: the order of 第二十七条四 with its first two criteria
the other way round, as 三.1 puts 级分 first), and if they are equal too, plays one deciding
game (加赛) that plays on at a tie as 三.2 does, whose winner goes through.

:func:`series_state` reads a tie from its games' results in the order played and says who
leads, whether it is decided, and what is to be played next.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: One game per tie (every knockout without a series).
SINGLE = ""
#: Two games, their 级分 added up (第三十条三.1).
SUM2 = "sum2"
#: Three games, their 级分 added up (第三十条三.1).
SUM3 = "sum3"
#: Best of three games (三局二胜, 第三十条三.2).
BEST3 = "best3"
#: Best of five games (五局三胜, 第三十条三.2).
BEST5 = "best5"

#: The series modes, in the order the settings offer them.
MODES = (SINGLE, SUM2, SUM3, BEST3, BEST5)
#: The modes that add up 级分 (they need the national rules' scoring).
SUM_MODES = (SUM2, SUM3)
#: The modes decided by games won.
BEST_MODES = (BEST3, BEST5)

#: The most games a tie can take: best of five, or three added up and a deciding game.
MAX_GAMES = 5


@dataclass(frozen=True)
class SeriesGame:
    """One game of a tie as far as the series is concerned: ``finished`` (it has a result),
    ``winner`` (0 or 1, the tie's sides; None for a draw or none yet) and ``grades`` (the two
    sides' 级分; None when the event has none)."""

    finished: bool
    winner: int | None = None
    grades: tuple[int, int] | None = None


@dataclass(frozen=True)
class SeriesState:
    """Where a tie stands: ``games`` counted so far; each side's ``wins`` (games won),
    ``points`` (场分 over the games, 2/1/0) and ``grades`` (级分 added up; the deciding game's
    not counted); ``winner`` (0 or 1) once ``decided``; else ``next_game`` is what is played
    next — ``"game"`` (the next game of the series), ``"decider"`` (a deciding game after a
    tie in the sum: it must have a winner) or ``"wait"`` (the last game has no result yet, or
    a game that must have a winner has none: an organiser names it)."""

    mode: str
    games: int
    wins: tuple[int, int]
    points: tuple[int, int]
    grades: tuple[int, int]
    decided: bool
    winner: int | None
    next_game: str
    #: A deciding game was needed (a tie in the added 级分 and 场分).
    decider: bool = False


def planned_games(mode: str) -> int:
    """The games a tie plays at most before any deciding game: 1, 2, 3, 3 or 5."""
    return {SINGLE: 1, SUM2: 2, SUM3: 3, BEST3: 3, BEST5: 5}[mode]


def wins_needed(mode: str) -> int:
    """The games a side must win to take a best-of tie (1 for a single game)."""
    return planned_games(mode) // 2 + 1


def must_have_winner(mode: str, index: int) -> bool:
    """Whether game ``index`` (0-based) of a tie must have a winner, so is played on at a tie
    (``play_on_tie``): every game of a best-of tie or of a single-game knockout, and the
    deciding game after a tied sum; not the games added up."""
    if mode in SUM_MODES:
        return index >= planned_games(mode)
    return True


def series_state(mode: str, games: Sequence[SeriesGame]) -> SeriesState:
    """The state of a tie played in ``mode`` from its ``games`` in the order played. Games
    after the one that decided it (left by a corrected result) do not count. Raises
    ``ValueError`` for an unknown mode."""
    if mode not in MODES:
        raise ValueError(f"unknown series mode {mode!r}")
    wins, points, grades = [0, 0], [0, 0], [0, 0]
    counted = 0
    planned = planned_games(mode)

    def state(
        decided: bool, winner: int | None, next_game: str, decider: bool = False
    ) -> SeriesState:
        return SeriesState(
            mode,
            counted,
            (wins[0], wins[1]),
            (points[0], points[1]),
            (grades[0], grades[1]),
            decided,
            winner,
            next_game,
            decider,
        )

    for index, game in enumerate(games):
        if not game.finished:
            return state(False, None, "wait", index >= planned and mode in SUM_MODES)
        if must_have_winner(mode, index) and game.winner is None:
            return state(False, None, "wait", index >= planned and mode in SUM_MODES)
        counted += 1
        if mode in SUM_MODES and index >= planned:  # the deciding game
            return state(True, game.winner, "", True)
        if game.winner is None:
            points[0] += 1
            points[1] += 1
        else:
            wins[game.winner] += 1
            points[game.winner] += 2
        if game.grades is not None and index < planned:
            grades[0] += game.grades[0]
            grades[1] += game.grades[1]
        if mode not in SUM_MODES and max(wins) >= wins_needed(mode):
            return state(True, 0 if wins[0] > wins[1] else 1, "")
        if mode in SUM_MODES and counted == planned:
            if grades[0] != grades[1]:
                return state(True, 0 if grades[0] > grades[1] else 1, "")
            if points[0] != points[1]:
                return state(True, 0 if points[0] > points[1] else 1, "")
            if index + 1 == len(games):
                return state(False, None, "decider", True)
            # a tie in the sum and the games won: the deciding game follows
    return state(False, None, "game")


@dataclass(frozen=True)
class Fed:
    """A tie of a knockout round as the next round reads it: ``winner`` (the unit going
    through; None while the tie is undecided — a correction reopened it, or it waits for its
    own entries) and ``loser`` (the unit out; None for a bye or while undecided); ``bye``:
    the tie had one unit only."""

    winner: int | None
    loser: int | None = None
    bye: bool = False


def next_ties(
    previous: Sequence[Fed], third_place: bool = False
) -> list[tuple[int | None, int | None]]:
    """The ties of a single elimination's next round, in bracket order, from the ties of the
    round before (``previous``, in bracket order, without its third-place tie): the winners
    of ties ``2k`` and ``2k + 1`` meet; when they are the last two (the final) and
    ``third_place`` is set, their losers play for third place (after the final) unless one of
    the two had a bye. A side is None while the tie feeding it is undecided: that tie of the
    next round waits for its entries. With every tie decided it is the pairing's own
    (:func:`tournaments.pairing.elimination_next_round`). Fewer than two ties: no next
    round (an empty list); an odd number raises ``ValueError``."""
    if len(previous) < 2:
        return []
    if len(previous) % 2:
        raise ValueError("an elimination round needs an even number of ties")
    out: list[tuple[int | None, int | None]] = [
        (previous[i].winner, previous[i + 1].winner) for i in range(0, len(previous), 2)
    ]
    if len(previous) == 2 and third_place and not any(fed.bye for fed in previous):
        out.append((previous[0].loser, previous[1].loser))
    return out
