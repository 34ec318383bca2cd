"""What a table connection asks of the database and the engine (run on the threads of
:mod:`matches.live.threads`, never on the loop).

Contract: each function takes the connection's :class:`Viewer` and returns the frame to send
(or the refusal's code), in the viewer's language; permissions are
:func:`matches.services.access.watch`'s, the rules :mod:`matches.services`'. A refused request
changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.utils import translation

from clubs.models import User
from matches import selectors, store
from matches.messages import MatchError, refusal_message
from matches.models import MatchStatus
from matches.services import access, play, presence


@dataclass
class Viewer:
    """Who a connection is: its table, user and language, and once the match exists, the
    match and the user's seat (None: a spectator or referee)."""

    table_id: int
    user: Any
    language: str
    match_id: int | None = None
    seat: int | None = None


def language_of(scope: dict[str, Any]) -> str:
    """The language of a connection: its user's, else the language cookie's, else the site's."""
    user = scope.get("user")
    if user is not None and user.is_authenticated and getattr(user, "language", ""):
        return user.language
    code = (scope.get("cookies") or {}).get(settings.LANGUAGE_COOKIE_NAME, "")
    return code if code in {c for c, _ in settings.LANGUAGES} else settings.LANGUAGE_CODE


def refused(data: Any, code: str, language: str) -> dict[str, Any]:
    """The ``refused`` frame answering message ``data`` (its ``id``) with ``code``."""
    data = data if isinstance(data, dict) else {}
    with translation.override(language):
        message = refusal_message(code)
    return {"type": "refused", "id": data.get("id"), "code": code, "message": message}


def open_viewer(viewer: Viewer, channel_name: str) -> tuple[str | None, int | None, int | None]:
    """``(refusal, match id, seat)``: the reason code to refuse the connection (None: it may
    stay, as :func:`matches.services.access.watch` decides), and once its table's match
    exists, the match and the user's seat, the connection recorded as present."""
    try:
        _, match = access.watch(viewer.user, viewer.table_id)
    except MatchError as error:
        return error.code, None, None
    if match is None:
        return None, None, None
    seat = selectors.seat_of(match, viewer.user)
    if match.status == MatchStatus.PLAYING:
        presence.connected(match.pk, seat, channel_name, autoplay=match.autoplay)
    return None, match.pk, seat


def recheck(viewer: Viewer) -> str | None:
    """The reason code to close the connection now (None: it may stay), asking
    :func:`matches.services.access.watch` again with its user as stored now (a deactivated
    or deleted account is an anonymous visitor; ``viewer.user`` is updated)."""
    user = viewer.user
    if user is not None and user.is_authenticated:
        fresh = User.objects.filter(pk=user.pk, is_active=True).first()
        viewer.user = fresh if fresh is not None else AnonymousUser()
    try:
        access.watch(viewer.user, viewer.table_id)
    except MatchError as error:
        return error.code
    return None


def state(viewer: Viewer, version: Any) -> dict[str, Any] | None:
    """The answer to ``hello``: the events after ``version`` and the current state
    (``events``), or a ``snapshot``; None if the match is gone."""
    match = store.read(viewer.match_id)
    if match is None:
        return None
    engine = store.engine_of(match)
    try:
        if (
            isinstance(version, int)
            and not isinstance(version, bool)
            and 0 <= version <= match.version
            and match.version - version <= selectors.MAX_MISSING_EVENTS
        ):
            events = selectors.events_after(match, version)
            return selectors.frame(match, engine, viewer.seat, kind="events", events=events)
        return selectors.frame(match, engine, viewer.seat, kind="snapshot")
    finally:
        store.keep_engine(match.pk, match.version, engine)


def action_request(viewer: Viewer, data: dict[str, Any]) -> play.ActionRequest | str:
    """The request of action message ``data``, or the code to refuse it at once."""
    seq = data.get("seq")
    if seq is not None and (not isinstance(seq, int) or isinstance(seq, bool)):
        return "bad_message"
    if viewer.match_id is None:
        return "not_started"
    if viewer.seat is None:
        return "spectator"
    if not isinstance(data.get("action"), dict):
        return "invalid_action"
    return play.ActionRequest(
        viewer.match_id, data["action"], viewer.seat, user=viewer.user, expected_version=seq
    )


#: Answers of ``hint`` / ``check`` by (match, version, seat, type, cards): see :func:`check`.
_reads: dict[tuple, tuple[int | None, Any]] = {}


def check(viewer: Viewer, data: dict[str, Any]) -> dict[str, Any]:
    """The answer to ``check`` / ``hint``. Their plays depend only on the match version, the
    seat and the cards asked about, so they are computed once per version and kept: a member
    asking again and again, from one socket or thirty, costs one small query each, not the
    legal plays of a full hand."""
    if viewer.match_id is None or viewer.seat is None:
        return refused(data, "spectator" if viewer.match_id else "not_started", viewer.language)
    with translation.override(viewer.language):
        version = store.version_of(viewer.match_id)
        kind, cards = data["type"], data.get("cards")
        if kind == "hint" and data.get("arrange") is True:
            kind = "arrange"  # 理牌: the groups of this seat's own hand (protocol)
        asked = tuple(cards) if isinstance(cards, list) and len(cards) <= 60 else None
        if asked is not None and not all(isinstance(c, str) for c in asked):
            asked = None
        key = (viewer.match_id, version, viewer.seat, kind, asked)
        outcome = _reads.get(key)
        if outcome is None or kind == "check" and asked is None:
            outcome = _read_plays(viewer, kind, cards)
            if outcome[0] is not None:
                if len(_reads) >= 10_000:
                    _reads.clear()
                _reads[(*key[:1], outcome[0], *key[2:])] = outcome  # its own version
        version, plays = outcome
        if isinstance(plays, MatchError):
            return {"type": "refused", "id": data.get("id"), **plays.to_json()}
        if kind == "arrange":
            return {"type": "arranged", "id": data.get("id"), "version": version, **plays}
        answer = "hints" if kind == "hint" else "checked"
        return {"type": answer, "id": data.get("id"), "version": version, "plays": plays}


def _read_plays(viewer: Viewer, kind: str, cards: Any) -> tuple[int | None, Any]:
    """``(version, plays)`` of a ``hint``, ``arrange`` or ``check`` from the match's engine
    (plays: the :class:`MatchError` refusing a selection)."""
    match = store.read(viewer.match_id)
    if match is None:
        return None, MatchError("not_started")
    engine = store.engine_of(match)
    try:
        if kind == "hint":
            return match.version, selectors.hints(engine, viewer.seat)
        if kind == "arrange":
            return match.version, selectors.arrangement(engine, viewer.seat)
        return match.version, selectors.check_selection(engine, viewer.seat, cards)
    except MatchError as error:
        return match.version, error
    finally:
        store.keep_engine(match.pk, match.version, engine)


def autoplay(viewer: Viewer, data: dict[str, Any]) -> dict[str, Any]:
    """Turn auto-play (托管) of the viewer's seat on or off (``data["on"]``, a bool)."""
    if viewer.match_id is None or viewer.seat is None:
        return refused(data, "spectator" if viewer.match_id else "not_started", viewer.language)
    presence.set_autoplay(viewer.match_id, viewer.seat, "timeout" if data.get("on") else "")
    return {"type": "ack", "id": data.get("id")}


def dismiss(viewer: Viewer, data: dict[str, Any]) -> dict[str, Any]:
    """The viewer's seat dismissed the summary of deal ``data["deal"]``."""
    if viewer.match_id is None or viewer.seat is None:
        return refused(data, "spectator" if viewer.match_id else "not_started", viewer.language)
    try:
        play.dismiss_summary(viewer.match_id, viewer.seat, data.get("deal"))
    except MatchError as error:
        with translation.override(viewer.language):
            return {"type": "refused", "id": data.get("id"), **error.to_json()}
    return {"type": "ack", "id": data.get("id")}
