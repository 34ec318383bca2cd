"""The site header's unread-notice count."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest

from outbox import notices


def unread_notices(request: HttpRequest) -> dict[str, Callable[[], int]]:
    """``unread_notices``: the signed-in user's unread count, counted only when a template
    reads it (a callable: pages without the header run no query)."""
    return {"unread_notices": lambda: notices.unread_count(request.user)}
