"""A user's notifications and e-mail preferences: one list of every notice the platform gives
a user (e-mailed or not), the kinds of notice they get no e-mail for, and the signed one-click
link in every e-mail that turns its kind off (no login needed: the signature is the proof).

A notice is written in the caller's transaction, one per ``key`` (recipient and cause), like an
outbox message; :func:`outbox.services.email_user` writes both.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.core import signing
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.models import User
from games.errors import Refused
from outbox.models import Kind, MutedKind, Notification

TEXT_MAX = Notification._meta.get_field("text").max_length
URL_MAX = Notification._meta.get_field("url").max_length
#: Keeps an unsubscribe signature from being valid for anything else signed by this site.
UNSUBSCRIBE_SALT = "outbox.unsubscribe"


class NoticeError(Refused):
    """A refused preference change or unsubscribe link."""


def record(*, user: User, key: str, kind: str, text: str, url: str = "") -> None:
    """Write the notice ``text`` (made one line, cut to 300 characters) linking ``url`` (a
    path on this site) to ``user``'s list, once per ``key``: a key already written is kept
    unchanged. Raises ``ValueError`` for an unknown kind or an empty key (a programming
    error)."""
    if kind not in Kind.values or not key.strip():
        raise ValueError(f"notice needs a key and one of the kinds {Kind.values}")
    Notification.objects.bulk_create(
        [
            Notification(
                key=key.strip()[:200],
                user=user,
                kind=kind,
                text=" ".join(text.split())[:TEXT_MAX],
                url=url[:URL_MAX],
            )
        ],
        ignore_conflicts=True,
    )


def record_first(*, user: User, key: str, kind: str, text: str, url: str = "") -> bool:
    """Like :func:`record`, and say whether this call wrote the notice: False when ``key`` was
    used before (also under concurrency: the second writer waits for the first and finds its
    row), so a cause told once is not told again."""
    if kind not in Kind.values or not key.strip():
        raise ValueError(f"notice needs a key and one of the kinds {Kind.values}")
    try:
        with transaction.atomic():  # a savepoint: a used key leaves the caller's work intact
            Notification.objects.create(
                key=key.strip()[:200],
                user=user,
                kind=kind,
                text=" ".join(text.split())[:TEXT_MAX],
                url=url[:URL_MAX],
            )
    except IntegrityError:
        return False
    return True


def has_notices(key_prefix: str) -> bool:
    """Whether any notice has a key starting with ``key_prefix`` (a cause told before)."""
    return Notification.objects.filter(key__startswith=key_prefix).exists()


def notices_of(user: User) -> QuerySet[Notification]:
    """``user``'s notices, newest first."""
    return Notification.objects.filter(user=user).order_by("-created_at", "-id")


def unread_count(user: User) -> int:
    """How many of ``user``'s notices are unread (0 for an anonymous visitor)."""
    if not user.is_authenticated:
        return 0
    return Notification.objects.filter(user=user, read_at__isnull=True).count()


def mark_read(user: User, ids: Iterable[int] | None = None) -> int:
    """Mark ``user``'s unread notices read (only those of ``ids`` when given; another user's
    ids are ignored). Returns how many were marked."""
    unread = Notification.objects.filter(user=user, read_at__isnull=True)
    if ids is not None:
        unread = unread.filter(pk__in=list(ids))
    return unread.update(read_at=timezone.now())


def email_preferences(user: User) -> dict[str, bool]:
    """Every kind of notice with whether ``user`` gets it by e-mail (on unless turned off)."""
    muted = set(MutedKind.objects.filter(user=user).values_list("kind", flat=True))
    return {kind: kind not in muted for kind in Kind.values}


def set_email_preferences(user: User, changes: dict[str, object]) -> dict[str, bool]:
    """Turn e-mails of the kinds in ``changes`` on (True) or off (False); kinds not named keep
    their setting. An unknown kind or a value that is not a boolean refuses the whole change
    (``bad_kind``, nothing changed). Returns the preferences after the change."""
    if not isinstance(changes, dict) or any(
        kind not in Kind.values or not isinstance(on, bool) for kind, on in changes.items()
    ):
        raise NoticeError(
            "bad_kind",
            _("Choose on or off for these kinds only: %(kinds)s.")
            % {"kinds": ", ".join(Kind.values)},
        )
    off = [kind for kind, on in changes.items() if not on]
    MutedKind.objects.bulk_create(
        [MutedKind(user=user, kind=kind) for kind in off], ignore_conflicts=True
    )
    MutedKind.objects.filter(user=user, kind__in=[k for k, on in changes.items() if on]).delete()
    return email_preferences(user)


def emails_wanted(user: User, kind: str) -> bool:
    """Whether ``user`` gets notices of ``kind`` by e-mail."""
    return not MutedKind.objects.filter(user=user, kind=kind).exists()


def unsubscribe_token(user: User, kind: str) -> str:
    """A signed token that turns ``kind`` off for ``user`` (it does not expire: an old
    e-mail's link keeps working)."""
    return signing.dumps({"u": user.pk, "k": kind}, salt=UNSUBSCRIBE_SALT, compress=True)


def read_unsubscribe_token(token: str) -> tuple[User, str]:
    """The user and kind a token of :func:`unsubscribe_token` names. A tampered or unknown
    token, a kind that does not exist or a user who is gone refuses with ``bad_link``."""
    refused = NoticeError(
        "bad_link",
        _("This unsubscribe link is not valid (it may be cut or changed). Nothing was changed."),
    )
    try:
        data = signing.loads(str(token)[:500], salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature as error:
        raise refused from error
    if not isinstance(data, dict) or data.get("k") not in Kind.values:
        raise refused
    user = (
        User.objects.filter(pk=data.get("u"), is_active=True).first()
        if isinstance(data.get("u"), int)
        else None
    )
    if user is None:
        raise refused
    return user, data["k"]


def unsubscribe(token: str) -> tuple[User, str]:
    """Turn e-mails off for the user and kind that ``token`` names (see
    :func:`read_unsubscribe_token`); doing it twice changes nothing more."""
    user, kind = read_unsubscribe_token(token)
    set_email_preferences(user, {kind: False})
    return user, kind
