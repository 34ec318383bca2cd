"""The one way a league tells a player something: :func:`notify`.

For now the message is e-mailed with Django's ``send_mail`` once the transaction commits;
the platform's outbox will take its place here. ``key`` is unique per recipient and cause
(e.g. ``league:round-open:12:user:7``): a key already used sends nothing, so a repeated tick
or a retried task never sends a notice twice.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.mail import send_mail
from django.db import IntegrityError, transaction

from clubs.models import User
from leagues.models import Notice

log = logging.getLogger(__name__)


def notify(key: str, user: User, subject: str, body: str) -> bool:
    """Send ``subject`` / ``body`` to ``user`` once per ``key`` (after the caller's
    transaction commits). Returns False when the key was used before or the user has no
    e-mail address."""
    if not user.email:
        return False
    try:
        with transaction.atomic():
            Notice.objects.create(key=key[:200])
    except IntegrityError:
        return False
    address = user.email

    def send() -> None:
        try:
            send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [address])
        except OSError:
            log.exception("league notice %s could not be sent", key)

    transaction.on_commit(send)
    return True
