"""Closing the table sockets that no longer pass the access rule
(:func:`matches.services.access.watch`) when what it decided on changes: a member removed or
gone, a role changed (:func:`clubs.hooks.standing_changed`), an account deactivated (banned)
or deleted.

Every signed-in connection joins its user's group (:func:`user_group`); a change sends that
group an ``access.recheck`` message, after the commit, and each of the user's connections asks
``access.watch`` again and closes with :data:`matches.consumers.ACCESS_WITHDRAWN` if it no
longer passes (:meth:`matches.consumers.TableConsumer.access_recheck`). Registered in
:meth:`matches.apps.MatchesConfig.ready`.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from clubs.models import User

log = logging.getLogger(__name__)


def user_group(user_id: int) -> str:
    """The group of every table socket of user ``user_id`` (all tables, tabs and processes)."""
    return f"user.{user_id}"


def recheck_user(user_id: int) -> None:
    """Have every table socket of ``user_id`` ask the access rule again now (closing those
    that no longer pass). A channel layer that fails is logged, not raised: the change is
    committed, and a new connection is checked anyway."""
    try:
        async_to_sync(get_channel_layer().group_send)(
            user_group(user_id), {"type": "access.recheck"}
        )
    except Exception:
        log.exception("the sockets of user %s were not asked to check their access", user_id)


def standing_changed(club_id: int, user_id: int) -> None:
    """:func:`clubs.hooks.standing_changed`'s listener (called after the commit)."""
    recheck_user(user_id)


def user_saved(sender: Any, instance: User, created: bool = False, **kwargs: Any) -> None:
    """``post_save`` of a user: a deactivated (banned) account's sockets are checked again,
    once the change is committed (the access rule then sees an anonymous visitor)."""
    if not created and not instance.is_active:
        user_id = instance.pk
        transaction.on_commit(lambda: recheck_user(user_id))


def user_deleted(sender: Any, instance: User, **kwargs: Any) -> None:
    """``post_delete`` of a user: their sockets are checked again after the commit."""
    user_id = instance.pk
    if user_id is not None:
        transaction.on_commit(lambda: recheck_user(user_id))
