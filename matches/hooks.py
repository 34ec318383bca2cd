"""Questions live play asks other apps, answered by whoever registers an answer.

Matches sit below tournaments in the one-way order: they cannot ask the tournament code who
organises the tournament a table belongs to. Instead an app above registers its check here
(in its ``AppConfig.ready``) and :func:`may_referee` asks every registered check.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from clubs.models import User
from clubs.permissions import is_club_admin

#: The registered checks: each tells whether a user may referee a table.
_referee_checks: list[Callable[[User, Any], bool]] = []


def register_referee_check(check: Callable[[User, Any], bool]) -> None:
    """Register ``check(user, table) -> bool``: True if ``user`` (signed in) may referee the
    live ``table`` (e.g. they organise the tournament it belongs to). Registering the same
    check twice keeps it once."""
    if check not in _referee_checks:
        _referee_checks.append(check)


def may_referee(user: User | None, table: Any) -> bool:
    """Whether ``user`` may apply referee sanctions at ``table``: an admin of the table's club,
    or someone a registered check allows. Anonymous users never may."""
    if user is None or not user.is_authenticated:
        return False
    if is_club_admin(user, table.club):
        return True
    return any(check(user, table) for check in _referee_checks)
