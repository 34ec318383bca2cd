"""The one way a league tells a player something: :func:`notify`.

The message goes through the platform's outbox (:func:`outbox.services.enqueue`): written in
the caller's transaction, sent once it commits. ``key`` is unique per recipient and cause
(e.g. ``league:round-open:12:user:7``): a key already used sends nothing, so a repeated tick
or a retried task never sends a notice twice.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction

from clubs.models import User
from leagues.models import Notice
from outbox import services as outbox


def notify(key: str, user: User, subject: str, body: str) -> bool:
    """Send ``subject`` / ``body`` to ``user`` once per ``key`` (through the outbox, after the
    caller's transaction commits). Returns False when the key was used before or the user has no
    e-mail address."""
    if not user.email:
        return False
    try:
        with transaction.atomic():
            Notice.objects.create(key=key[:200])
    except IntegrityError:
        return False
    outbox.enqueue(key=key, to=user.email, subject=subject, body=body, user=user)
    return True
