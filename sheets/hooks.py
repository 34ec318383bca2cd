"""Questions score sheets ask other apps, answered by whoever registers an answer.

Sheets sit below tournaments in the one-way order: they cannot ask the tournament code
whether a sheet's game is already rated. Instead an app above registers its check here (in
its ``AppConfig.ready``) and the sheet services ask :func:`rated_elsewhere`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: The registered checks: each tells whether the ladder already has a sheet's game.
_rated_elsewhere: list[Callable[[Any], bool]] = []


def register_rated_elsewhere(check: Callable[[Any], bool]) -> None:
    """Register ``check(sheet) -> bool``: True if the ladder already rated the game the
    confirmed ``sheet`` records (so the sheet is not rated again). Registering the same check
    twice keeps it once."""
    if check not in _rated_elsewhere:
        _rated_elsewhere.append(check)


def rated_elsewhere(sheet: Any) -> bool:
    """Whether a registered check says the ladder already rated ``sheet``'s game (every check
    runs until one says so: a check may also link the sheet to what it found)."""
    return any(check(sheet) for check in _rated_elsewhere)
