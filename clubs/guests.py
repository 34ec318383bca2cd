"""Guest accounts: a visitor plays practice tables before signing up.

A guest is an ordinary :class:`~clubs.models.User` row with ``is_guest`` set, an unusable
password and a made-up username, signed in through the session like anyone else. What a guest
may not do is refused where it is decided: no club (``clubs.services.require_full_account``
in creating, joining and invitation links — so no members-only page and no rated table, which
are a club's members' only), no API writes (``clubs.authentication``), no API tokens. Apps
above ask :func:`is_guest`.

- :func:`create_guest` makes one, at most ``GUESTS_PER_ADDRESS_PER_HOUR`` an hour per client
  address (:func:`clubs.client_ip.client_ip`'s rule, so a forged ``X-Forwarded-For`` does not
  reset the count).
- :func:`convert_guest` is signing up in place: the same row gets a username, a password and an
  e-mail address and loses the flag, so its games, tutorial progress and settings stay.
- :func:`touch` records a guest's use (its ``last_login``: a guest never logs in again with a
  password, so the field is free to mean its last use); :func:`remove_unused_guests`, run by
  beat, deletes guests unused for ``GUESTS_EXPIRE_DAYS``, and never an account that signed up:
  the delete's own query says ``is_guest``, so a guest converted meanwhile is kept.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.password_validation import validate_password
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.db.models.deletion import ProtectedError, RestrictedError
from django.db.models.functions import Coalesce
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from clubs.models import Language, User
from clubs.services import ClubError

logger = logging.getLogger(__name__)


class GuestLimit(ClubError):
    """Too many guests made from one client address in the hour (HTTP 429)."""

    status = 429


#: Guests' usernames start with this; sign-up refuses it for a chosen username, so a name
#: alone never passes for a guest's.
USERNAME_PREFIX = "guest-"


def is_guest(user: User | None) -> bool:
    """Whether ``user`` is a signed-in guest account (never the anonymous user)."""
    return bool(user is not None and user.is_authenticated and getattr(user, "is_guest", False))


def _allow_creation(address: str | None) -> bool:
    """Count one guest made for client ``address``; False once it is over the hour's limit.
    The cache away: allowed (logged), as the password-reset limit does."""
    key = f"guests:created:{address or '-'}"
    try:
        cache.add(key, 0, timeout=3600)
        return cache.incr(key) <= settings.GUESTS_PER_ADDRESS_PER_HOUR
    except Exception as error:  # Redis down: do not refuse every visitor
        logger.warning("guest creation limit not applied, the cache failed: %r", error)
        return True


def create_guest(address: str | None, *, language: str = Language.ZH_HANS) -> User:
    """Make a guest account for a visitor at client ``address`` (speaking ``language``), for
    the caller to log in. Raises :class:`ClubError` ``guest_limit`` (429) when that address
    made ``GUESTS_PER_ADDRESS_PER_HOUR`` guests in the last hour; then nothing is created."""
    if not _allow_creation(address):
        raise GuestLimit(
            "guest_limit",
            _("Too many guest accounts were made from your network. Sign up, or try later."),
        )
    if language not in Language.values:
        language = Language.ZH_HANS
    number = secrets.randbelow(9000) + 1000
    with translation.override(language):  # the made-up name in the visitor's language
        name = _("Guest %(number)s") % {"number": number}
    for _attempt in range(5):
        user = User(
            username=f"{USERNAME_PREFIX}{secrets.token_hex(6)}",
            display_name=name,
            language=language,
            is_guest=True,
            last_login=timezone.now(),
        )
        user.set_unusable_password()
        try:
            with transaction.atomic():
                user.save()
        except IntegrityError:  # the random username was taken: draw again
            continue
        return user
    raise ClubError("guest_failed", _("No guest account could be made. Try again."))


def touch(user: User) -> None:
    """Record that guest ``user`` is in use, so :func:`remove_unused_guests` keeps it for
    another ``GUESTS_EXPIRE_DAYS``; at most one write an hour. Does nothing for a full account."""
    if not is_guest(user):
        return
    now = timezone.now()
    if user.last_login is not None and now - user.last_login < timedelta(hours=1):
        return
    User.objects.filter(pk=user.pk, is_guest=True).update(last_login=now)
    user.last_login = now


@transaction.atomic
def convert_guest(
    user: User,
    *,
    username: str,
    password: str,
    email: str = "",
    display_name: str = "",
    language: str | None = None,
) -> User:
    """Sign guest ``user`` up in place: the same row gets ``username``, ``password``,
    ``email`` and (when given) ``display_name`` and ``language``, and stops being a guest, so
    its tables, matches and settings are kept. Raises :class:`ClubError` (``not_guest``,
    ``invalid``, ``username_taken``) having changed nothing; the caller logs the user in
    again (the new password ends the guest's session)."""
    locked = User.objects.select_for_update().filter(pk=user.pk, is_guest=True).first()
    if locked is None:
        raise ClubError("not_guest", _("This account has already signed up."))
    if username.lower().startswith(USERNAME_PREFIX):
        raise ClubError("invalid", _("Choose a username that does not start with “guest-”."))
    locked.username = username
    locked.email = email
    locked.display_name = display_name.strip()  # the made-up "Guest 1234" goes with the guest
    if language:
        locked.language = language
    locked.is_guest = False
    try:
        locked.full_clean(exclude=["password"])
        validate_password(password, locked)
    except ValidationError as error:
        raise ClubError("invalid", " ".join(error.messages)) from error
    locked.set_password(password)
    try:
        with transaction.atomic():
            locked.save()
    except IntegrityError as error:
        raise ClubError("username_taken", _("This username is already taken.")) from error
    return locked


#: Told the ids of guests about to be removed, in the transaction that removes them (e.g.
#: live play deletes their practice tables).
_removal_listeners: list[Callable[[Sequence[int]], None]] = []


def register_guests_removed(listener: Callable[[Sequence[int]], None]) -> None:
    """Register ``listener(user_ids)``, called before those guests are deleted (once)."""
    if listener not in _removal_listeners:
        _removal_listeners.append(listener)


def _unused(cutoff: datetime) -> Q:
    """Guests whose last use (their last log-in, else when they were made) is before
    ``cutoff``: the one condition of the sweep, also on its delete."""
    return Q(is_guest=True, last_used__lt=cutoff)


def remove_unused_guests(now: datetime | None = None, batch: int = 200) -> int:
    """Delete the guest accounts unused for ``GUESTS_EXPIRE_DAYS`` (and, through the
    listeners, what only they used); return how many. Never an account that signed up: each
    delete repeats the guest condition on rows locked in its own transaction, so a guest
    converted while the sweep runs is kept. A guest whose rows another app protects is left
    (logged). Idempotent: a second run finds nothing more."""
    cutoff = (now or timezone.now()) - timedelta(days=settings.GUESTS_EXPIRE_DAYS)
    guests = User.objects.annotate(last_used=Coalesce("last_login", "date_joined"))
    removed = 0
    skipped: set[int] = set()
    while True:
        ids = list(
            guests.filter(_unused(cutoff))
            .exclude(pk__in=skipped)
            .values_list("pk", flat=True)[:batch]
        )
        if not ids:
            return removed
        for pk in ids:
            try:
                with transaction.atomic():
                    row = (
                        guests.select_for_update(of=("self",))
                        .filter(_unused(cutoff), pk=pk)
                        .first()
                    )
                    if row is None:  # converted or used meanwhile
                        continue
                    for listener in _removal_listeners:
                        listener([pk])
                    row.delete()
                    removed += 1
            except (ProtectedError, RestrictedError):
                logger.warning("guest %s is kept: other rows protect it", pk)
            skipped.add(pk)  # each guest is looked at once per run
