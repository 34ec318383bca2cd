"""What the clubs pages ask apps above them, answered by whoever registers an answer.

The home page belongs to clubs, the lowest app with pages, but a player's games live in the
apps above it (live tables, score sheets, tournaments). They register a source here from their
``AppConfig.ready`` and :func:`my_games` asks every source.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from clubs.models import User

#: Each source gives a signed-in user's games as dicts with ``title``, ``detail``, ``url``,
#: ``action`` (the button's text), ``kind`` and ``when`` (a datetime or None, for ordering).
_my_games: list[Callable[[User], list[dict[str, Any]]]] = []


def register_my_games(source: Callable[[User], list[dict[str, Any]]]) -> None:
    """Register ``source(user) -> [item, ...]`` for the home page's "my games" (once)."""
    if source not in _my_games:
        _my_games.append(source)


def my_games(user: User) -> list[dict[str, Any]]:
    """Every registered source's items for ``user``, in the order the sources give them."""
    return [item for source in _my_games for item in source(user)]
