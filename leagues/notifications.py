"""The one way a league tells a player something: :func:`notify`.

The message goes through the platform's outbox (:func:`outbox.services.tell_user_once`):
written in the caller's transaction, sent once it commits. ``key`` is unique per recipient and
cause (e.g. ``league:round-open:12:user:7``): a key already used sends nothing, so a repeated
tick or a retried task never sends a notice twice (the outbox keeps the rule: one notice per
key).
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from clubs.models import User
from outbox import services as outbox
from outbox.models import Kind


def notify(key: str, user: User, subject: str, body: str, url: str) -> bool:
    """Put ``subject`` in ``user``'s notifications, linking the site path ``url`` (the page
    where the player acts on it), and e-mail ``subject`` / ``body`` with that page's link
    (through the outbox, after the caller's transaction commits, unless the user turned
    league e-mails off), once per ``key``. Returns whether an e-mail was queued: False when
    the key was used before, the user has no e-mail address or wants no league e-mail."""
    body = f"{body}\n\n" + _("Open the page: %(link)s") % {"link": outbox.site_url(url)}
    message = outbox.tell_user_once(
        key=key[:200],
        user=user,
        kind=Kind.LEAGUES,
        rendered=outbox.Rendered(subject, body),
        url=url,
    )
    return message is not None
