"""Result emails through the outbox, a cache that fails mid-application, and beat's sweep of
results whose task was lost (issue 20, items 6, 9 and 10), in-process with eager Celery."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from celery import current_app
from django.conf import settings
from django.core import mail
from django.core.cache import caches
from django.test import override_settings
from django.utils import timezone
from kombu.exceptions import OperationalError

from ladder import services
from ladder.apply import apply_result, rebuild_ladder
from ladder.models import Ladder, RatedResult, Rating, RatingChange
from ladder.tasks import apply_result_task, sweep_results_task
from outbox import services as outbox
from outbox.models import OutboxMessage

pytestmark = pytest.mark.django_db

START = timezone.now() - timedelta(days=2)


def record(people, n, scores=(12, 3), *, enqueue=False, age=timedelta(minutes=5)):
    """Record result ``n`` of the club (the four people, 0+2 against 1+3), recorded ``age``
    ago (beat's sweep leaves a result alone while its own task may still run)."""
    club, users = people
    result = services.record_result(
        source="live",
        source_id=f"rel-{n}",
        variant="bao2",
        sides=[[users[0].pk, users[2].pk], [users[1].pk, users[3].pk]],
        scores=scores,
        ended_at=START + timedelta(minutes=n),
        club_id=club.pk,
        enqueue=enqueue,
    )
    RatedResult.objects.filter(pk=result.pk).update(recorded_at=timezone.now() - age)
    return result


def ladders_of(result):
    return set(RatingChange.objects.filter(result=result).values_list("ladder_id", flat=True))


def ratings(ladder):
    return sorted(Rating.objects.filter(ladder=ladder).values_list("user_id", "rating", "matches"))


def test_result_emails_are_outbox_rows_written_with_their_claim(
    people, celery_eager, django_capture_on_commit_callbacks
):
    club, users = people
    result = record(people, 1)
    with django_capture_on_commit_callbacks(execute=True):
        apply_result_task.apply(args=[result.pk])
    result.refresh_from_db()
    rows = list(OutboxMessage.objects.order_by("key"))
    stamp = f"{result.emails_sent_at:%Y%m%dT%H%M%S%f}"
    assert [r.key for r in rows] == sorted(f"result:{result.pk}:{stamp}:user:{u.pk}" for u in users)
    assert {r.status for r in rows} == {"sent"}
    assert sorted(m.to[0] for m in mail.outbox) == sorted(u.email for u in users)
    english = next(m for m in mail.outbox if m.to == [users[0].email])
    assert english.subject.startswith("Win 12:3") and "You won" in english.body
    # the task again (a redelivery) writes and sends nothing more
    with django_capture_on_commit_callbacks(execute=True):
        apply_result_task.apply(args=[result.pk])
    assert OutboxMessage.objects.count() == 4 and len(mail.outbox) == 4


def test_a_refusing_smtp_server_loses_no_result_email(
    people, smtp, celery_eager, django_capture_on_commit_callbacks
):
    """The SMTP server refuses the first attempts (451): the emails stay pending and are sent
    later, once each; before the outbox they were marked sent and lost."""
    club, users = people
    result = record(people, 1)
    smtp.refuse(4)
    with django_capture_on_commit_callbacks(execute=True):
        apply_result_task.apply(args=[result.pk])
    assert smtp.received == []
    assert set(OutboxMessage.objects.values_list("status", "attempts")) == {("pending", 1)}
    with override_settings(OUTBOX_SWEEP_GRACE_SECONDS=0):
        deadline = timezone.now() + timedelta(seconds=10)
        while OutboxMessage.objects.filter(status="pending").exists():
            assert timezone.now() < deadline
            outbox.sweep()  # what beat does: the retries are due after the backoff
    assert sorted(r.to for r in smtp.received) == sorted(u.email for u in users)
    assert smtp.recorder.refused == 4


def test_a_correction_is_emailed_under_new_keys(
    people, celery_eager, django_capture_on_commit_callbacks
):
    club, users = people
    result = record(people, 1)
    with django_capture_on_commit_callbacks(execute=True):
        apply_result_task.apply(args=[result.pk])
    first = set(OutboxMessage.objects.values_list("key", flat=True))
    with django_capture_on_commit_callbacks(execute=True):
        services.correct_result(source="live", source_id="rel-1", scores=(3, 12))
    keys = set(OutboxMessage.objects.values_list("key", flat=True))
    assert len(first) == 4 and len(keys - first) == 4
    assert all(re.fullmatch(rf"result:{result.pk}:\d{{8}}T\d{{12}}:user:\d+", k) for k in keys)
    english = [m for m in mail.outbox if m.to == [users[0].email]]
    assert [m.subject.split(" ·")[0] for m in english] == ["Win 12:3", "Corrected: Loss 3:12"]


@pytest.mark.django_db(transaction=True)
def test_a_cache_failure_after_a_ladder_commit_does_not_stop_the_others(
    people, celery_eager, monkeypatch
):
    """Applying commits ladder by ladder and then drops the cached counts: a cache that raises
    there (not a Redis error the cache itself absorbs) left the result on the platform ladder
    only, and its emails were never written."""
    calls = []

    def broken(*args, **kwargs):
        calls.append(args)
        raise ConnectionError("cache down")

    monkeypatch.setattr(caches["default"], "delete_many", broken)
    club, users = people
    result = record(people, 1)
    outcomes = apply_result_task.apply(args=[result.pk]).get()
    assert sorted(o.split(":")[1] for o in outcomes) == ["applied", "applied"]
    assert len(calls) == 2  # the cache was asked after each ladder, and failed each time
    assert ladders_of(result) == set(Ladder.objects.values_list("pk", flat=True))
    assert len(ladders_of(result)) == 2
    result.refresh_from_db()
    assert result.emails_sent_at is not None
    assert sorted(m.to[0] for m in mail.outbox) == sorted(u.email for u in users)


def test_the_sweep_applies_and_emails_a_result_whose_task_was_lost(
    people, celery_eager, django_capture_on_commit_callbacks
):
    club, users = people
    lost = record(people, 1)  # recorded, its task never ran
    fresh = record(people, 2, age=timedelta(0))  # its own task may still be on the way
    stale = record(people, 3, age=timedelta(days=3))  # applied, its emails lost long ago
    apply_result(stale)
    never = record(people, 4, age=timedelta(days=3))  # never applied: however old, it is due
    with django_capture_on_commit_callbacks(execute=True):
        assert sweep_results_task.apply().get() == 2
    assert len(ladders_of(lost)) == 2 and len(ladders_of(never)) == 2
    for left_alone in (fresh, stale):  # (the rebuilds put fresh on the ladders all the same)
        assert RatedResult.objects.get(pk=left_alone.pk).emails_sent_at is None
    keys = sorted(OutboxMessage.objects.values_list("key", flat=True))
    assert sorted(k.split(":")[1] for k in keys) == sorted([str(lost.pk)] * 4 + [str(never.pk)] * 4)
    assert sorted(m.to[0] for m in mail.outbox) == sorted(u.email for u in users * 2)
    with django_capture_on_commit_callbacks(execute=True):
        assert sweep_results_task.apply().get() == 0  # nothing left: the sweep is idempotent
    assert len(mail.outbox) == 8
    assert RatingChange.objects.filter(result=lost).count() == 8  # 4 players x 2 ladders


def test_a_broker_away_at_recording_fails_nothing_and_the_sweep_applies_it(
    people, celery_eager, django_capture_on_commit_callbacks, monkeypatch
):
    def unreachable(*args, **kwargs):
        raise OperationalError("broker away")

    with monkeypatch.context() as patch:
        patch.setattr(current_app, "signature", unreachable)
        with django_capture_on_commit_callbacks(execute=True):
            result = record(people, 1, enqueue=True)
    assert RatedResult.objects.filter(pk=result.pk).exists() and ladders_of(result) == set()
    with django_capture_on_commit_callbacks(execute=True):
        assert sweep_results_task.apply().get() == 1
    assert len(ladders_of(result)) == 2 and len(mail.outbox) == 4


@pytest.mark.parametrize("which", [0, -1], ids=["earliest", "last applied"])
def test_a_lost_correction_is_redone_by_the_sweep(
    people, celery_eager, django_capture_on_commit_callbacks, which
):
    """Also of the ladder's last applied result: applying it again must replay the ladder, not
    add its new changes on top of ratings that hold the old ones."""
    club, users = people
    results = [record(people, n, scores) for n, scores in enumerate([(12, 3), (5, 9), (23, 20)])]
    with django_capture_on_commit_callbacks(execute=True):
        for result in results:
            apply_result_task.apply(args=[result.pk])
    before = {ladder.pk: ratings(ladder) for ladder in Ladder.objects.all()}
    RatedResult.objects.update(recorded_at=timezone.now() - timedelta(days=30))  # old ones too
    with django_capture_on_commit_callbacks(execute=False):  # the correction's task is lost
        services.correct_result(source="live", source_id=results[which].source_id, scores=(3, 12))
    assert ladders_of(results[which]) == set()  # its old changes went with its old scores
    with django_capture_on_commit_callbacks(execute=True):
        assert sweep_results_task.apply().get() == 1
    for ladder in Ladder.objects.all():
        swept = ratings(ladder)
        assert swept != before[ladder.pk]
        rebuild_ladder(ladder)  # the sweep's ladder is the replay of the corrected results
        assert ratings(ladder) == swept
    assert len(ladders_of(results[which])) == 2
    english = [m.subject for m in mail.outbox if m.to == [users[0].email]]
    assert english[-1].startswith("Corrected: Loss 3:12")


def test_the_broker_redelivers_only_after_the_longest_countdown():
    timeout = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    assert timeout > 1800  # live play's longest countdown (30 minutes)
    assert timeout > outbox.retry_delay(100)  # the outbox's longest retry countdown
    assert current_app.conf.broker_transport_options["visibility_timeout"] == timeout
    sweep = settings.CELERY_BEAT_SCHEDULE["ladder-sweep"]
    assert sweep["task"] in current_app.tasks
