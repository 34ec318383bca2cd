"""What the clubs pages ask apps above them, answered by whoever registers an answer, and
what clubs tell them (a new join request).

The home page belongs to clubs, the lowest app with pages, but a player's games live in the
apps above it (live tables, score sheets, tournaments). They register a source here from their
``AppConfig.ready`` and :func:`my_games` asks every source.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.db import transaction

from clubs.models import JoinRequest, User

log = logging.getLogger(__name__)

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


#: Sections an app above clubs adds to the profile page: each gives a dict with ``template``
#: (included with the dict as ``panel``) and whatever that template reads.
_profile_panels: list[Callable[[User], dict[str, Any]]] = []


def register_profile_panel(source: Callable[[User], dict[str, Any]]) -> None:
    """Register ``source(user) -> panel`` for a section of the profile page (once)."""
    if source not in _profile_panels:
        _profile_panels.append(source)


def profile_panels(user: User) -> list[dict[str, Any]]:
    """Every registered section of ``user``'s profile page, in the order registered."""
    return [source(user) for source in _profile_panels]


#: Who is told of a new join request (e.g. the outbox e-mails the club's admins).
_join_requested: list[Callable[[JoinRequest], None]] = []


def register_join_requested(listener: Callable[[JoinRequest], None]) -> None:
    """Register ``listener(join_request)``, called in the transaction that files it (once)."""
    if listener not in _join_requested:
        _join_requested.append(listener)


def join_requested(join_request: JoinRequest) -> None:
    """Tell every registered listener of the new pending ``join_request``."""
    for listener in _join_requested:
        listener(join_request)


#: Who is told that a join request was answered (e.g. the outbox tells the applicant).
_join_decided: list[Callable[[JoinRequest], None]] = []


def register_join_decided(listener: Callable[[JoinRequest], None]) -> None:
    """Register ``listener(join_request)``, called in the transaction that accepts or declines
    it (once)."""
    if listener not in _join_decided:
        _join_decided.append(listener)


def join_decided(join_request: JoinRequest) -> None:
    """Tell every registered listener that ``join_request`` was accepted or declined."""
    for listener in _join_decided:
        listener(join_request)


#: Who is told, once the change is committed, that a user's standing in a club changed: they
#: were removed or left, or their role changed (e.g. live play closes the sockets that no
#: longer pass its access rule).
_standing_changed: list[Callable[[int, int], None]] = []


def register_standing_changed(listener: Callable[[int, int], None]) -> None:
    """Register ``listener(club_id, user_id)``, called after the commit of a removal, a
    departure or a role change (once)."""
    if listener not in _standing_changed:
        _standing_changed.append(listener)


def standing_changed(club_id: int, user_id: int) -> None:
    """Tell every registered listener, once the current transaction commits (at once outside
    one), that ``user_id``'s standing in ``club_id`` changed. A listener that fails is logged
    and does not stop the others: the change itself is committed."""

    def tell() -> None:
        for listener in _standing_changed:
            try:
                listener(club_id, user_id)
            except Exception:
                log.exception("a listener of a changed standing in club %s failed", club_id)

    transaction.on_commit(tell)
