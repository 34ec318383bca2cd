"""The outbox in one process, against a real SMTP server (aiosmtpd): one row per key, nothing
sent for a rolled-back cause, a sent message never sent again, retries with backoff until the
server accepts, bounded attempts, the sweep, and rendering in the recipient's language."""

from __future__ import annotations

import logging
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import transaction
from django.test import override_settings
from django.utils import timezone

from outbox import services, tasks
from outbox.models import OutboxMessage, OutboxStatus

TEMPLATES_DIR = Path(__file__).resolve().parent / "templates"


def enqueue(key, to="p@example.com", **extra):
    extra.setdefault("subject", f"subject of {key}")
    extra.setdefault("body", f"body of {key}")
    return services.enqueue(key=key, to=to, **extra)


def wait_due(message):
    message.refresh_from_db()
    pause = (message.next_attempt_at - timezone.now()).total_seconds()
    if pause > 0:
        time.sleep(pause + 0.01)


@pytest.mark.django_db(transaction=True)
def test_duplicate_enqueue_keeps_one_row_and_sends_once(smtp, eager):
    with transaction.atomic():
        first = enqueue("dup:1", subject="first")
        again = enqueue("dup:1", subject="second", to="other@example.com")
        assert again.pk == first.pk and again.subject == "first"
        assert smtp.received == []  # nothing leaves before the commit
    with transaction.atomic():
        third = enqueue("dup:1", subject="third")
    assert third.pk == first.pk
    assert OutboxMessage.objects.filter(key="dup:1").count() == 1
    [received] = smtp.received
    assert (received.to, received.subject) == ("p@example.com", "first")
    assert received.message_id == first.message_id
    first.refresh_from_db()
    assert first.status == OutboxStatus.SENT and first.attempts == 1 and first.sent_at


@pytest.mark.django_db(transaction=True)
def test_a_rolled_back_cause_writes_and_sends_nothing(smtp, eager, make_user):
    user = make_user("rollback")
    with pytest.raises(RuntimeError), transaction.atomic():
        enqueue("rollback:1", to=user.email, user=user)
        raise RuntimeError("the caller fails after writing the email")
    assert not OutboxMessage.objects.filter(key="rollback:1").exists()
    assert services.sweep(timezone.now() + timedelta(hours=1)) == 0
    assert smtp.received == []


@pytest.mark.django_db
def test_a_sent_message_is_never_sent_again(smtp, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        message = enqueue("twice:1")
    assert len(callbacks) == 1  # the send task is published after the commit
    assert tasks.send_message(message.pk) == "sent"
    assert tasks.send_message(message.pk) == "skipped"
    OutboxMessage.objects.filter(pk=message.pk).update(next_attempt_at=timezone.now())
    assert services.deliver(message.pk) == "skipped"
    assert services.deliver(10**12) == "skipped"  # unknown id
    assert [r.message_id for r in smtp.received] == [message.message_id]


@pytest.mark.django_db
def test_a_live_lease_blocks_a_second_worker_and_an_expired_one_does_not(smtp):
    message = enqueue("lease:1")
    now = timezone.now()
    OutboxMessage.objects.filter(pk=message.pk).update(lease_until=now + timedelta(minutes=5))
    assert services.deliver(message.pk) == "skipped"  # another worker is sending it
    assert services.due_messages(now + timedelta(minutes=2)) == []
    # that worker was SIGKILLed: once its lease expired the message is claimed and sent
    OutboxMessage.objects.filter(pk=message.pk).update(lease_until=now - timedelta(seconds=1))
    assert services.due_messages(now + timedelta(minutes=2)) == [message.pk]
    assert services.deliver(message.pk) == "sent"
    message.refresh_from_db()
    assert message.status == OutboxStatus.SENT and message.lease_until is None
    assert len(smtp.received) == 1


@pytest.mark.django_db(transaction=True)
def test_refusals_are_retried_with_backoff_until_accepted(smtp, eager, caplog):
    smtp.refuse(3)
    with transaction.atomic():
        message = enqueue("retry:1")
    delays = []
    for expected in ("retry", "retry", "sent"):
        message.refresh_from_db()
        assert message.status == OutboxStatus.PENDING and "451" in message.last_error
        delays.append(round((message.next_attempt_at - timezone.now()).total_seconds(), 1))
        assert services.deliver(message.pk) == "skipped"  # not due yet
        wait_due(message)
        assert services.deliver(message.pk) == expected
    message.refresh_from_db()
    assert message.status == OutboxStatus.SENT and message.attempts == 4
    assert message.last_error == ""
    assert smtp.recorder.refused == 3
    assert [r.message_id for r in smtp.received] == [message.message_id]
    # 0.2 s, doubling, capped at OUTBOX_BACKOFF_MAX_SECONDS = 1 s (minus the time elapsed)
    assert delays[0] <= 0.2 and 0.2 < delays[1] <= 0.4 and 0.5 < delays[2] <= 0.8
    assert [services.retry_delay(n) for n in (1, 2, 3, 4, 9)] == [0.2, 0.4, 0.8, 1.0, 1.0]
    assert "attempt 1 failed" in caplog.text


@pytest.mark.django_db
def test_attempts_are_bounded_then_the_message_fails_for_good(smtp, caplog):
    smtp.refuse(10)
    message = enqueue("bounded:1")
    with override_settings(OUTBOX_MAX_ATTEMPTS=3), caplog.at_level(logging.ERROR):
        outcomes = []
        for _ in range(3):
            wait_due(message)
            outcomes.append(services.deliver(message.pk))
    assert outcomes == ["retry", "retry", "failed"]
    message.refresh_from_db()
    assert message.status == OutboxStatus.FAILED and message.attempts == 3
    assert "failed for good after 3 attempts" in caplog.text
    assert services.due_messages(timezone.now() + timedelta(days=1)) == []
    assert services.deliver(message.pk) == "skipped"
    assert smtp.received == []


@pytest.mark.django_db(transaction=True)
def test_a_permanent_refusal_fails_at_once_and_an_operator_can_retry(smtp, eager):
    smtp.refuse(1, "550 5.1.1 No such mailbox")
    with transaction.atomic():
        message = enqueue("permanent:1")
    message.refresh_from_db()
    assert message.status == OutboxStatus.FAILED and message.attempts == 1
    assert message.last_error.startswith("SMTPDataError: 550")
    assert services.retry_failed([message.pk]) == 1  # delivered at once in eager mode
    message.refresh_from_db()
    assert message.status == OutboxStatus.SENT and message.attempts == 1
    assert services.retry_failed([message.pk]) == 0  # only failed rows
    assert [r.message_id for r in smtp.received] == [message.message_id]


@pytest.mark.django_db
def test_an_unreachable_server_is_retried_and_the_error_is_short(smtp):
    message = enqueue("down:1")
    smtp.stop()
    with override_settings(EMAIL_HOST_PASSWORD="do-not-log-me"):
        assert services.deliver(message.pk) == "retry"
    message.refresh_from_db()
    assert message.status == OutboxStatus.PENDING and message.attempts == 1
    assert message.last_error.startswith("ConnectionRefusedError")
    assert "do-not-log-me" not in message.last_error and len(message.last_error) <= 300


@pytest.mark.django_db(transaction=True)
def test_the_sweep_sends_what_no_task_took_care_of(smtp, eager):
    # written while no broker took the task (here: the publish never happened)
    lost = OutboxMessage.objects.create(
        key="sweep:lost",
        to="lost@example.com",
        subject="lost",
        body="b",
        message_id="<lost@example.com>",
        next_attempt_at=timezone.now() - timedelta(minutes=5),
    )
    fresh = OutboxMessage.objects.create(
        key="sweep:fresh", to="fresh@example.com", subject="s", body="b", message_id="<f@x>"
    )
    assert services.due_messages() == [lost.pk]  # a fresh one still has its own task
    assert tasks.sweep() == 1
    lost.refresh_from_db()
    fresh.refresh_from_db()
    assert (lost.status, fresh.status) == (OutboxStatus.SENT, OutboxStatus.PENDING)
    assert [r.message_id for r in smtp.received] == ["<lost@example.com>"]


@pytest.mark.django_db
def test_bad_keys_and_addresses_are_refused_and_subjects_are_one_line(smtp):
    for key, to in (("", "a@example.com"), ("k" * 201, "a@example.com"), ("k", "")):
        with pytest.raises(ValueError):
            services.enqueue(key=key, to=to, subject="s", body="b")
    with pytest.raises(ValueError):
        services.enqueue(key="k", to="a@example.com\r\nBcc: x@example.com", subject="s", body="b")
    message = enqueue("subject:1", subject="line one\r\nBcc: evil@example.com\n" + "x" * 400)
    assert message.subject.startswith("line one Bcc: evil@example.com x")
    assert len(message.subject) == 255
    assert services.deliver(message.pk) == "sent"
    [received] = smtp.received
    assert received.to == "p@example.com" and "\n" not in received.subject


@pytest.mark.django_db
@override_settings(
    TEMPLATES=[
        {
            "BACKEND": "django.template.backends.django.DjangoTemplates",
            "DIRS": [TEMPLATES_DIR],
        }
    ],
    DEFAULT_FROM_EMAIL="Club <noreply@club.example>",
)
def test_email_user_renders_in_the_recipients_language(smtp, make_user):
    zh = make_user("zh", language="zh-hans")
    en = make_user("en", language="en")
    nobody = make_user("nobody", email="")
    first = services.email_user(
        key="hello:zh", user=zh, template="outbox_test/hello", context={"name": "A"}
    )
    second = services.email_user(
        key="hello:en", user=en, template="outbox_test/hello", context={"name": "B"}
    )
    assert (
        services.email_user(
            key="hello:x", user=nobody, template="outbox_test/hello", context={"name": "C"}
        )
        is None
    )
    assert (first.subject, first.body.strip()) == ("已发送: A", "等待发送 A")
    assert (second.subject, second.body.strip()) == ("Sent: B", "Waiting to be sent B")
    assert first.html.strip() == "<p>A</p>" and first.user == zh
    assert first.message_id.endswith("@club.example>")
    for message in (first, second):
        assert services.deliver(message.pk) == "sent"
    assert {(r.to, r.subject) for r in smtp.received} == {
        ("zh@example.com", "已发送: A"),
        ("en@example.com", "Sent: B"),
    }


@pytest.mark.django_db(transaction=True)
def test_the_admin_lists_messages_and_sends_failed_ones_again(admin_client, smtp, eager):
    smtp.refuse(1, "550 5.1.1 No such mailbox")
    with transaction.atomic():
        message = enqueue("admin:1")
    page = admin_client.get("/admin/outbox/outboxmessage/")
    assert page.status_code == 200 and "admin:1" in page.content.decode()
    assert admin_client.get(f"/admin/outbox/outboxmessage/{message.pk}/change/").status_code == 200
    response = admin_client.post(
        "/admin/outbox/outboxmessage/",
        {"action": "retry", "_selected_action": [message.pk]},
        follow=True,
    )
    assert "将重新发送 1 封邮件。" in response.content.decode()  # the admin reads Chinese
    message.refresh_from_db()
    assert message.status == OutboxStatus.SENT
    assert [r.message_id for r in smtp.received] == [message.message_id]
