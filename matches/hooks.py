"""Questions live play asks other apps, answered by whoever registers an answer.

Matches sit below tournaments and leagues in the one-way order: they cannot ask the
tournament code who organises the tournament a table belongs to, or the league code which
team a player plays for. Instead an app above registers its checks here (in its
``AppConfig.ready``): :func:`referee_role` asks every registered referee check, and
:func:`registered_stake` every stake check. The decision itself — who may referee — is
:func:`matches.services.access.may_referee`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from clubs.models import User
from clubs.permissions import is_club_admin

#: The registered checks: each tells whether a user holds a referee's role at a table.
_referee_checks: list[Callable[[User, Any], bool]] = []
#: The registered checks: each tells whether a user has a stake in a table's result.
_stake_checks: list[Callable[[User, Any], bool]] = []


def register_referee_check(check: Callable[[User, Any], bool]) -> None:
    """Register ``check(user, table) -> bool``: True if ``user`` (signed in) holds a role
    that lets them referee the live ``table`` now (e.g. they organise the tournament it
    belongs to and are still a member of its club). Registering the same check twice keeps
    it once."""
    if check not in _referee_checks:
        _referee_checks.append(check)


def register_stake_check(check: Callable[[User, Any], bool]) -> None:
    """Register ``check(user, table) -> bool``: True if ``user`` (signed in) has a stake in
    the live ``table``'s result although they need not sit at it (their partner or a
    teammate plays it), so that they may not referee it. Registering the same check twice
    keeps it once."""
    if check not in _stake_checks:
        _stake_checks.append(check)


def referee_role(user: User | None, table: Any) -> bool:
    """Whether ``user`` holds a referee's role at ``table``: an admin of the table's club
    (a current membership), or someone a registered check allows. Says nothing of a stake
    in the table (:func:`matches.services.access.may_referee` asks both)."""
    if user is None or not user.is_authenticated:
        return False
    if table.club_id is not None and is_club_admin(user, table.club):
        return True  # a club-less table (practice, friends') has no club admin
    return any(check(user, table) for check in _referee_checks)


def registered_stake(user: User | None, table: Any) -> bool:
    """Whether a registered check says ``user`` has a stake in ``table`` (partner, teammate)."""
    if user is None or not user.is_authenticated:
        return False
    return any(check(user, table) for check in _stake_checks)


#: Who may sit at a club-less table besides its opener, by the table's kind (``friends``:
#: whoever came in by its link or code). A kind without a check seats its opener only.
_clubless_seating: dict[str, Callable[[User, Any], bool]] = {}


def register_clubless_seating(kind: str, check: Callable[[User, Any], bool]) -> None:
    """Register ``check(user, table) -> bool`` for the club-less tables of ``kind``: True if
    the signed-in ``user`` may sit at ``table``. One check per kind, the last kept."""
    _clubless_seating[kind] = check


def may_sit_clubless(user: User | None, table: Any) -> bool:
    """Whether the registered check of ``table``'s kind lets ``user`` sit there (never the
    anonymous user; False for a kind without a check)."""
    if user is None or not user.is_authenticated:
        return False
    check = _clubless_seating.get(table.kind)
    return check is not None and bool(check(user, table))


#: Sections an app above adds to a table's page (e.g. a friends' table's invitation).
_table_panels: list[Callable[[Any, Any, Any], dict[str, Any] | None]] = []


def register_table_panel(source: Callable[[Any, Any, Any], dict[str, Any] | None]) -> None:
    """Register ``source(request, table, match) -> panel or None`` for the table page: a dict
    with ``template`` (included with the dict as ``panel``) and whatever it reads. Once."""
    if source not in _table_panels:
        _table_panels.append(source)


def table_panels(request: Any, table: Any, match: Any) -> list[dict[str, Any]]:
    """Every registered source's panel for ``request``'s user at ``table``, in order."""
    panels = (source(request, table, match) for source in _table_panels)
    return [panel for panel in panels if panel]


#: Listeners told that a live match has finished (e.g. the statistics of issue 46).
_finished_listeners: list[Callable[[int], None]] = []


def register_match_finished(listener: Callable[[int], None]) -> None:
    """Register ``listener(match_id)``, called inside the transaction that finishes a live
    match (so a listener that publishes a task does it from ``transaction.on_commit``). Once."""
    if listener not in _finished_listeners:
        _finished_listeners.append(listener)


def match_finished(match_id: int) -> None:
    """Tell every registered listener that match ``match_id`` has finished."""
    for listener in _finished_listeners:
        listener(match_id)


#: Sections an app above adds to a finished match's replay page (e.g. the strong bot's review).
_replay_panels: list[Callable[[Any, Any, Any], dict[str, Any] | None]] = []


def register_replay_panel(source: Callable[[Any, Any, Any], dict[str, Any] | None]) -> None:
    """Register ``source(request, table, match) -> panel or None`` for the replay page (asked
    only once the viewer may see the replay): a dict with ``template`` (included with the dict
    as ``panel``) and whatever it reads. Once."""
    if source not in _replay_panels:
        _replay_panels.append(source)


def replay_panels(request: Any, table: Any, match: Any) -> list[dict[str, Any]]:
    """Every registered source's panel of ``table``'s replay for ``request``, in order."""
    panels = (source(request, table, match) for source in _replay_panels)
    return [panel for panel in panels if panel]
