"""Deadline tasks are coalesced per match (the ETA of the queued task is kept in Redis), and a
task that finds its match moved on queues the task for the match's current version."""

import time

import pytest
from django.utils import timezone
from matchkit import full_match

from matches import schedule, store, tasks
from matches.models import Match
from matches.services import play


@pytest.fixture
def published(monkeypatch):
    """The deadline tasks published to the broker: (match, version, countdown)."""
    calls = []
    monkeypatch.setattr(
        schedule,
        "_send",
        lambda name, args, countdown=0: (
            calls.append((args[0], args[1], countdown)) if name == schedule.DEADLINE_TASK else None
        ),
    )
    monkeypatch.setattr(schedule, "schedule_time_limit", lambda *a: None)
    store._engines.clear()
    monkeypatch.setattr(schedule, "_published", {})
    monkeypatch.setattr(schedule, "_background", None)  # publish at once (an ASGI import sets it)
    monkeypatch.setattr(schedule, "_queued", {})
    return calls


def test_one_queued_task_per_match(club, players, published):
    match = full_match(club, players)
    assert [(m, v) for m, v, _ in published] == [(match.pk, 0)]  # the first clock
    published.clear()
    schedule.schedule_deadline(match.pk, 1, 40)  # later than the queued task: not published
    assert published == []
    schedule._published.clear()  # as in another server process: Redis says the task is queued,
    schedule.schedule_deadline(match.pk, 1, 40)  # and this process remembers it
    schedule._client().delete(schedule.pending_key(match.pk))
    schedule.schedule_deadline(match.pk, 1, 40)  # no Redis round trip: still not published
    assert published == []
    schedule.schedule_deadline(match.pk, 2, 1)  # earlier: published
    assert [(m, v) for m, v, _ in published] == [(match.pk, 2)]
    assert float(schedule._client().get(schedule.pending_key(match.pk))) > 0


def test_a_server_publishes_from_a_background_thread_the_newest_deadline(club, players, published):
    match = full_match(club, players)
    published.clear()
    schedule.schedule_in_background()
    with schedule._background:  # the thread waits while two deadlines of the match are queued
        schedule.schedule_deadline(match.pk, 5, 3)
        schedule.schedule_deadline(match.pk, 6, 2)
        assert published == []
    for _ in range(200):
        if published:
            break
        time.sleep(0.01)
    assert [(m, v) for m, v, _ in published] == [(match.pk, 6)]
    assert 0 < published[0][2] <= 2
    time.sleep(0.1)
    assert len(published) == 1


def test_task_of_an_old_version_queues_the_current_deadline(club, players, published):
    match = full_match(club, players)
    seat = match.to_move
    engine = store.engine_of(match)
    action = engine.legal_actions(seat)[0].to_json()
    play.submit_action(match.pk, action, seat=seat, user=players[seat], expected_version=0)
    match.refresh_from_db()
    assert match.version == 1 and match.deadline_version == 1
    published.clear()
    eta = timezone.now().timestamp()
    # the queued task of version 0 runs: version 0 is gone, so it queues version 1's task
    assert tasks.deadline_task(match.pk, 0, eta) == "stale"
    assert [(m, v) for m, v, _ in published] == [(match.pk, 1)]
    assert 0 < published[0][2] <= 30
    assert Match.objects.get(pk=match.pk).version == 1  # nothing was played
    # version 1's task before its deadline: nothing is played, the task is queued again
    published.clear()
    assert tasks.deadline_task(match.pk, 1, eta) == "early"
    assert [(m, v) for m, v, _ in published] == [(match.pk, 1)]
    # after the deadline the clock acts
    Match.objects.filter(pk=match.pk).update(deadline=timezone.now().replace(year=2000))
    assert tasks.deadline_task(match.pk, 1, eta) == "clock"
    assert Match.objects.get(pk=match.pk).version == 2


def test_countdowns_stay_under_the_visibility_timeout(club, players, published):
    """A deadline two hours away is queued as a 30-minute task that, run early, queues the
    rest: the broker (visibility timeout 3600 s) never holds a longer countdown."""
    match = full_match(club, players)
    far = timezone.now() + timezone.timedelta(hours=2)
    Match.objects.filter(pk=match.pk).update(deadline=far)
    published.clear()
    schedule.forget_pending(match.pk)
    schedule.schedule_deadline(match.pk, 0, 7200)
    assert [(m, v) for m, v, _ in published] == [(match.pk, 0)]
    assert published[0][2] == pytest.approx(schedule.MAX_COUNTDOWN, abs=1)
    published.clear()
    eta = time.time() + schedule.MAX_COUNTDOWN
    assert tasks.deadline_task(match.pk, 0, eta) == "early"
    assert [(m, v) for m, v, _ in published] == [(match.pk, 0)]
    assert published[0][2] == pytest.approx(schedule.MAX_COUNTDOWN, abs=1)
    assert Match.objects.get(pk=match.pk).version == 0
