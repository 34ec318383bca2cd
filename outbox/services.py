"""The outbox API: write an email with its cause, deliver it, sweep up lost tasks.

Guarantee: a message whose row committed is delivered to the SMTP server **at least once**, and
exactly once unless a worker dies (or the database fails) in the short window between the SMTP
server's acceptance and the commit of ``status=sent``, or a send outlasts its lease. A message sent again in that window carries
the same Message-ID, so the receiving side can recognise it. A rolled-back caller sends nothing.

- :func:`enqueue` inside the caller's transaction writes the row, one per ``key``; after the
  commit it publishes ``outbox.tasks.send_message`` by name. A failure to publish is logged and
  left to the sweep. :func:`email_user` / :func:`tell_user` also put the notice in the user's
  notification list (:mod:`outbox.notices`), skip the e-mail of a kind the user turned off and
  give the e-mail its one-click unsubscribe link.
- :func:`deliver` claims the row with a lease (a conditional UPDATE: one worker at a time; a lease
  left by a killed worker expires), sends it, marks it sent only after the server accepted it, or
  schedules a retry with exponential backoff (bounded; then ``failed``, logged).
- :func:`sweep` (beat) publishes again every due row that no task has taken care of.

Tunables (Django settings, with these defaults): ``OUTBOX_LEASE_SECONDS`` (300; must exceed the
longest send, i.e. several ``OUTBOX_SMTP_TIMEOUT``), ``OUTBOX_SMTP_TIMEOUT`` (20 s per SMTP
operation), ``OUTBOX_MAX_ATTEMPTS`` (8), ``OUTBOX_BACKOFF_SECONDS`` (30, doubled per failure),
``OUTBOX_BACKOFF_MAX_SECONDS`` (900; the longest countdown this app gives the broker),
``OUTBOX_SWEEP_GRACE_SECONDS`` (60: how long a due row may wait for its task before the sweep
publishes it again), ``OUTBOX_SWEEP_BATCH`` (500).
"""

from __future__ import annotations

import logging
import smtplib
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.utils import make_msgid
from typing import Any

from celery import current_app
from django.conf import settings
from django.core.mail import EmailMultiAlternatives, get_connection
from django.core.mail.backends.base import BaseEmailBackend
from django.db import OperationalError, transaction
from django.db.models import F, Q
from django.template import TemplateDoesNotExist
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.html import format_html
from django.utils.translation import gettext as _

from clubs.models import User
from outbox import notices
from outbox.models import Kind, OutboxMessage, OutboxStatus

log = logging.getLogger(__name__)

#: The task that sends one message, published by name (the services never import the tasks).
SEND_TASK = "outbox.tasks.send_message"

DEFAULTS = {
    "OUTBOX_LEASE_SECONDS": 300.0,
    "OUTBOX_SMTP_TIMEOUT": 20.0,
    "OUTBOX_MAX_ATTEMPTS": 8,
    "OUTBOX_BACKOFF_SECONDS": 30.0,
    "OUTBOX_BACKOFF_MAX_SECONDS": 900.0,
    "OUTBOX_SWEEP_GRACE_SECONDS": 60.0,
    "OUTBOX_SWEEP_BATCH": 500,
}
KEY_MAX = OutboxMessage._meta.get_field("key").max_length
SUBJECT_MAX = OutboxMessage._meta.get_field("subject").max_length
ADDRESS_MAX = OutboxMessage._meta.get_field("to").max_length
ERROR_MAX = OutboxMessage._meta.get_field("last_error").max_length


def _setting(name: str) -> Any:
    return getattr(settings, name, DEFAULTS[name])


@dataclass(frozen=True)
class Rendered:
    """An email rendered in one language: one-line subject, text body, optional HTML body."""

    subject: str
    body: str
    html: str = ""


def render(template: str, context: dict[str, Any], *, language: str | None) -> Rendered:
    """Render ``<template>_subject.txt``, ``<template>_body.txt`` and, if it exists,
    ``<template>_body.html`` in ``language`` (the site's default language when empty)."""
    with translation.override(language or settings.LANGUAGE_CODE):
        subject = render_to_string(f"{template}_subject.txt", context)
        body = render_to_string(f"{template}_body.txt", context)
        try:
            html = render_to_string(f"{template}_body.html", context)
        except TemplateDoesNotExist:
            html = ""
    return Rendered(subject=subject, body=body, html=html)


def site_url(path: str) -> str:
    """An absolute link for an e-mail: ``settings.SITE_URL`` (scheme, host and port) + ``path``
    (never the host of whatever request or worker happens to write the message)."""
    return settings.SITE_URL.rstrip("/") + path


def email_user(
    *,
    key: str,
    user: User,
    template: str,
    context: dict[str, Any],
    kind: str | None = None,
    url: str = "",
    notice: str = "",
) -> OutboxMessage | None:
    """Tell ``user`` about a cause: render ``template`` (see :func:`render`) in the user's
    language and hand it to :func:`tell_user` (``notice`` is the list's text, by default the
    subject). Every notice of the platform names its ``kind``; without one the message is
    only e-mailed, like :func:`enqueue` (no notice, no unsubscribe link; None if the user has
    no address)."""
    rendered = render(template, context, language=user.language)
    if kind is None:
        if not user.email:
            return None
        return enqueue(
            key=key,
            to=user.email,
            subject=rendered.subject,
            body=rendered.body,
            html=rendered.html,
            user=user,
        )
    return tell_user(key=key, user=user, kind=kind, rendered=rendered, url=url, notice=notice)


def tell_user(
    *, key: str, user: User, kind: str, rendered: Rendered, url: str = "", notice: str = ""
) -> OutboxMessage | None:
    """Put a notice in ``user``'s notification list (once per ``key``; ``notice`` or the
    subject, linking the site path ``url``) and, unless the user has no address or turned
    e-mails of ``kind`` off, queue the e-mail like :func:`enqueue`, with a footer and
    ``List-Unsubscribe`` headers whose signed link turns ``kind`` off. Returns the message,
    or None when no e-mail was written."""
    notices.record(user=user, key=key, kind=kind, text=notice or rendered.subject, url=url)
    return _email_notice(key=key, user=user, kind=kind, rendered=rendered)


def tell_user_once(
    *, key: str, user: User, kind: str, rendered: Rendered, url: str = "", notice: str = ""
) -> OutboxMessage | None:
    """Like :func:`tell_user`, but only the first time ``key`` is used: a cause whose notice
    is written already (e.g. a repeated tick) writes nothing, not even the e-mail of a user
    who has an address or wants these e-mails now and did not then. Returns the new message,
    or None when nothing was e-mailed."""
    text = notice or rendered.subject
    if not notices.record_first(user=user, key=key, kind=kind, text=text, url=url):
        return None
    return _email_notice(key=key, user=user, kind=kind, rendered=rendered)


def _email_notice(*, key: str, user: User, kind: str, rendered: Rendered) -> OutboxMessage | None:
    """Queue the e-mail of a notice (see :func:`tell_user`)."""
    if not user.email or not notices.emails_wanted(user, kind):
        return None
    link = site_url(reverse("outbox:unsubscribe", args=[notices.unsubscribe_token(user, kind)]))
    with translation.override(user.language or settings.LANGUAGE_CODE):
        footer = _("You get this e-mail about: %(kind)s. To stop these e-mails: %(link)s") % {
            "kind": Kind(kind).label,
            "link": link,
        }
        everything = _("All your notices: %(link)s") % {
            "link": site_url(reverse("outbox:notifications"))
        }
    html = rendered.html
    if html:
        html += format_html('<p style="font-size:small">{}<br>{}</p>', footer, everything)
    return enqueue(
        key=key,
        to=user.email,
        subject=rendered.subject,
        body=f"{rendered.body.rstrip()}\n\n-- \n{footer}\n{everything}\n",
        html=html,
        user=user,
        unsubscribe_url=link,
    )


def enqueue(
    *,
    key: str,
    to: str,
    subject: str,
    body: str,
    html: str = "",
    user: User | None = None,
    unsubscribe_url: str = "",
) -> OutboxMessage:
    """Write an email to ``to`` in the current transaction and have it sent after the commit.

    ``key`` names the recipient and the cause (e.g. ``result:42:user:7``): a message whose key
    is already written is not written again (also under concurrency, on SQLite and PostgreSQL),
    and the existing row is returned unchanged. The subject is made one line and cut to 255
    characters. If the transaction rolls back, nothing is written and nothing is sent. A broker
    that cannot be reached never fails the caller: the sweep sends the message later.
    ``unsubscribe_url`` is sent as the one-click ``List-Unsubscribe`` link (RFC 8058).
    Raises ``ValueError`` for an empty or overlong key or address (a programming error)."""
    key = key.strip()
    if not key or len(key) > KEY_MAX:
        raise ValueError(f"outbox key must be 1..{KEY_MAX} characters")
    to = to.strip()
    if not to or len(to) > ADDRESS_MAX or "\n" in to or "\r" in to:
        raise ValueError("outbox address must be one line of 1..254 characters")
    candidate = OutboxMessage(
        key=key,
        to=to,
        user=user,
        subject=" ".join(subject.split())[:SUBJECT_MAX],
        body=body,
        html=html,
        unsubscribe_url=unsubscribe_url,
        message_id=make_msgid(domain=_message_id_domain()),
        next_attempt_at=timezone.now(),
    )
    # INSERT ... ON CONFLICT DO NOTHING: a concurrent writer of the same key waits for ours
    # (PostgreSQL) or for the database lock (SQLite), and neither raises.
    OutboxMessage.objects.bulk_create([candidate], ignore_conflicts=True)
    message = OutboxMessage.objects.get(key=key)
    if message.message_id == candidate.message_id:  # ours: a new row
        pk = message.pk
        transaction.on_commit(lambda: _publish(pk), robust=True)
    return message


def has_messages(key_prefix: str) -> bool:
    """Whether any message (pending, sent or failed) has a key starting with ``key_prefix``:
    e.g. whether a cause's recipients were written to before."""
    return OutboxMessage.objects.filter(key__startswith=key_prefix).exists()


def _message_id_domain() -> str:
    """The domain of the sender address: Message-IDs then name the site, not the worker host."""
    _name, at, domain = settings.DEFAULT_FROM_EMAIL.rpartition("@")
    return (domain.strip(" >") if at else "") or "localhost"


def _publish(pk: int, countdown: float | None = None) -> None:
    """Publish the send task of message ``pk``; never raises (the sweep is the fallback)."""
    app = current_app
    if app.conf.task_always_eager:
        # No broker: send now; a later retry is left to the sweep (run it by hand or by beat).
        if not countdown:
            deliver(pk)
        return
    try:
        app.send_task(SEND_TASK, args=[pk], countdown=countdown)
    except Exception:  # the broker away: the row is written, the sweep publishes it later
        log.warning("outbox message %s not published; the sweep will send it", pk, exc_info=True)


def deliver(pk: int) -> str:
    """Send message ``pk`` if it is pending, due and not claimed by another worker.

    Returns ``"sent"`` (the SMTP server accepted it; the row is marked sent), ``"retry"`` (the
    send failed; a retry is scheduled with exponential backoff), ``"failed"`` (refused for good,
    or the last allowed attempt failed; logged) or ``"skipped"`` (already sent or failed, not
    due, being sent by another worker, or unknown). A sent message is never sent again."""
    now = timezone.now()
    lease_until = now + timedelta(seconds=_setting("OUTBOX_LEASE_SECONDS"))
    claimed = (
        OutboxMessage.objects.filter(pk=pk, status=OutboxStatus.PENDING, next_attempt_at__lte=now)
        .filter(Q(lease_until__isnull=True) | Q(lease_until__lt=now))
        .update(lease_until=lease_until, attempts=F("attempts") + 1)
    )
    if not claimed:
        return "skipped"
    message = OutboxMessage.objects.get(pk=pk)
    # Opened here, so that send_messages() does not close it: QUIT comes after the row is marked
    # sent, which keeps the window in which a crash sends the message again short, and an error
    # at QUIT does not count as a failed send.
    connection = get_connection(fail_silently=False, timeout=_setting("OUTBOX_SMTP_TIMEOUT"))
    try:
        connection.open()
        _send(connection, message)
    except Exception as error:
        _close(connection)
        return _record_failure(message, lease_until, error)
    try:
        _mark_sent(pk)
    finally:
        _close(connection)
    return "sent"


def _send(connection: BaseEmailBackend, message: OutboxMessage) -> None:
    """Hand the message to the open mail connection; returns only once the server accepted it."""
    headers = {"Message-ID": message.message_id}
    if message.unsubscribe_url:
        headers["List-Unsubscribe"] = f"<{message.unsubscribe_url}>"
        headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    email = EmailMultiAlternatives(
        message.subject, message.body, settings.DEFAULT_FROM_EMAIL, [message.to], headers=headers
    )
    if message.html:
        email.attach_alternative(message.html, "text/html")
    if connection.send_messages([email]) != 1:
        raise smtplib.SMTPException("the mail backend sent nothing")


def _close(connection: BaseEmailBackend) -> None:
    try:
        connection.close()
    except Exception:  # the message's fate is settled: a failed QUIT changes nothing
        log.info("outbox: closing the SMTP connection failed", exc_info=True)


def _mark_sent(pk: int) -> None:
    """Mark the message sent; retried a few times, because a database hiccup here would make
    the message go out a second time once its lease expires."""
    for attempt in range(3):
        try:
            OutboxMessage.objects.filter(pk=pk, status=OutboxStatus.PENDING).update(
                status=OutboxStatus.SENT, sent_at=timezone.now(), lease_until=None, last_error=""
            )
            return
        except OperationalError:
            if attempt == 2:
                raise
            time.sleep(0.5 * (attempt + 1))


def _permanent(error: Exception) -> bool:
    """A refusal with a 5xx code will not change by trying again; everything else may."""
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        codes = [code for code, _text in error.recipients.values()]
        return bool(codes) and all(500 <= code < 600 for code in codes)
    if isinstance(error, smtplib.SMTPResponseException):
        return 500 <= error.smtp_code < 600
    return False


def _describe(error: Exception) -> str:
    """A short description of a send error for ``last_error``: its type and the server's
    answer, never the connection settings."""
    if isinstance(error, smtplib.SMTPResponseException):
        text = error.smtp_error
        detail = f"{error.smtp_code} {text.decode(errors='replace') if isinstance(text, bytes) else text}"
    elif isinstance(error, smtplib.SMTPRecipientsRefused):
        detail = " ".join(str(code) for code, _text in error.recipients.values())
    else:
        detail = str(error)
    return f"{type(error).__name__}: {detail}"[:ERROR_MAX]


def retry_delay(attempts: int) -> float:
    """Seconds to wait after the ``attempts``-th failed attempt: the backoff doubles from
    ``OUTBOX_BACKOFF_SECONDS`` and never exceeds ``OUTBOX_BACKOFF_MAX_SECONDS``."""
    base = float(_setting("OUTBOX_BACKOFF_SECONDS"))
    return min(base * 2 ** max(attempts - 1, 0), float(_setting("OUTBOX_BACKOFF_MAX_SECONDS")))


def _record_failure(message: OutboxMessage, lease_until: datetime, error: Exception) -> str:
    error_text = _describe(error)
    final = _permanent(error) or message.attempts >= int(_setting("OUTBOX_MAX_ATTEMPTS"))
    ours = OutboxMessage.objects.filter(
        pk=message.pk, status=OutboxStatus.PENDING, lease_until=lease_until
    )
    if final:
        ours.update(status=OutboxStatus.FAILED, lease_until=None, last_error=error_text)
        log.error(
            "outbox message %s (%s) failed for good after %d attempts: %s",
            message.pk,
            message.key,
            message.attempts,
            error_text,
        )
        return "failed"
    delay = retry_delay(message.attempts)
    # next_attempt_at is set before the countdown starts, so the retry task is never early on
    # this host's clock; a worker whose clock runs behind skips it and the sweep sends it.
    ours.update(
        next_attempt_at=timezone.now() + timedelta(seconds=delay),
        lease_until=None,
        last_error=error_text,
    )
    log.warning(
        "outbox message %s (%s) attempt %d failed, retrying in %.1f s: %s",
        message.pk,
        message.key,
        message.attempts,
        delay,
        error_text,
    )
    _publish(message.pk, countdown=delay)
    return "retry"


def due_messages(now: datetime | None = None) -> list[int]:
    """The ids of pending messages overdue by ``OUTBOX_SWEEP_GRACE_SECONDS`` and not claimed
    (or claimed by a worker whose lease expired), oldest first, at most ``OUTBOX_SWEEP_BATCH``."""
    now = now or timezone.now()
    overdue = now - timedelta(seconds=_setting("OUTBOX_SWEEP_GRACE_SECONDS"))
    return list(
        OutboxMessage.objects.filter(status=OutboxStatus.PENDING, next_attempt_at__lte=overdue)
        .filter(Q(lease_until__isnull=True) | Q(lease_until__lt=now))
        .order_by("next_attempt_at", "pk")
        .values_list("pk", flat=True)[: int(_setting("OUTBOX_SWEEP_BATCH"))]
    )


def sweep(now: datetime | None = None) -> int:
    """Beat: publish the send task of every message :func:`due_messages` finds (its task was
    lost: a broker outage, a killed worker). Returns how many were published. Publishing one
    twice is harmless: :func:`deliver` claims each message once."""
    ids = due_messages(now)
    for pk in ids:
        _publish(pk)
    return len(ids)


def retry_failed(ids: list[int]) -> int:
    """Give messages that failed for good a fresh set of attempts (an operator's action, e.g.
    after fixing the mail settings); returns how many were reset."""
    with transaction.atomic():
        chosen = list(
            OutboxMessage.objects.filter(pk__in=ids, status=OutboxStatus.FAILED).values_list(
                "pk", flat=True
            )
        )
        OutboxMessage.objects.filter(pk__in=chosen).update(
            status=OutboxStatus.PENDING, attempts=0, next_attempt_at=timezone.now()
        )
        for pk in chosen:
            transaction.on_commit(lambda pk=pk: _publish(pk), robust=True)
    return len(chosen)
