"""Reviews of finished matches (reviews.services, reviews.tasks): once per match, taken over
from a dead worker, only for clubs that keep them on, found by beat's sweep."""

import time
from datetime import timedelta

import pytest
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from matches.models import Match
from reviews import services, tasks
from reviews.analysis import Budget
from reviews.models import MatchReview, ReviewStatus
from tests.reviews.conftest import finish_match

CHEAP = override_settings(REVIEWS_SEARCH_MS=5, REVIEWS_EVAL_MS=5, REVIEWS_MATCH_SECONDS=20)


@pytest.fixture(autouse=True)
def no_grace(settings):
    """The sweep finds a match at once (its grace for the task published at the end: 0 s)."""
    settings.REVIEWS_SWEEP_GRACE_SECONDS = 0


def test_the_sweep_leaves_a_just_finished_match_to_its_task(finished, settings):
    settings.REVIEWS_SWEEP_GRACE_SECONDS = 60
    assert services.due_matches() == []
    Match.objects.filter(pk=finished.pk).update(finished_at=timezone.now() - timedelta(seconds=61))
    assert services.due_matches() == [finished.pk]  # its task was lost


@CHEAP
def test_a_finished_match_is_reviewed_once(finished):
    assert services.due_matches() == [finished.pk]
    assert tasks.review_match_task(finished.pk) == "done"
    review = MatchReview.objects.get(match=finished)
    assert review.status == ReviewStatus.DONE and review.attempts == 1
    assert [s["seat"] for s in review.seats] == [0, 1, 2, 3]
    mine = review.seats[0]["decisions"]
    assert mine and all(d["step"] >= 1 and "best" in d for d in mine)
    assert any(not d["same"] for d in mine)  # seat 0 erred at random
    assert review.budget["search_ms"] == 5 and review.cpu_ms > 0
    # again (a redelivered task): nothing recomputed
    assert tasks.review_match_task(finished.pk) == "done"
    again = MatchReview.objects.get(match=finished)
    assert again.attempts == 1 and again.finished_at == review.finished_at
    assert services.due_matches() == []


@CHEAP
def test_a_dead_workers_claim_is_taken_over_after_the_lease(finished):
    """A worker killed mid-review (SIGKILL) leaves a running claim: nobody else takes it while
    the lease holds; after it the sweep finds it and the task finishes it; after MAX_ATTEMPTS
    claims it is given up."""
    MatchReview.objects.create(match=finished, attempts=1, claimed_at=timezone.now())
    assert services.due_matches() == []
    assert tasks.review_match_task(finished.pk) == "skipped"
    MatchReview.objects.filter(match=finished).update(
        claimed_at=timezone.now() - timedelta(seconds=services.lease_seconds() + 1)
    )
    assert services.due_matches() == [finished.pk]
    assert tasks.review_match_task(finished.pk) == "done"
    review = MatchReview.objects.get(match=finished)
    assert review.status == ReviewStatus.DONE and review.attempts == 2
    # one that keeps killing its worker is given up
    review.status, review.attempts = ReviewStatus.RUNNING, services.MAX_ATTEMPTS
    review.claimed_at = timezone.now() - timedelta(days=1)
    review.save()
    assert tasks.review_match_task(finished.pk) == "skipped"
    assert MatchReview.objects.get(match=finished).status == ReviewStatus.FAILED


@CHEAP
def test_a_stale_worker_does_not_overwrite_a_later_claim(finished, monkeypatch):
    """The first worker's result arrives after its claim was taken over: it is dropped."""
    original = services.compute

    def slow(match, limits=None, tick=None):
        MatchReview.objects.filter(match=match).update(
            claimed_at=timezone.now() + timedelta(seconds=1), attempts=2
        )
        return original(match, limits, tick)

    monkeypatch.setattr(services, "compute", slow)
    assert services.review_match(finished.pk) is None
    assert MatchReview.objects.get(match=finished).status == ReviewStatus.RUNNING


@CHEAP
def test_no_review_where_the_club_keeps_them_off_or_no_person_plays(club, people):
    club.match_reviews = False
    club.save()
    off = finish_match(club, people, seed="off")
    assert services.due_matches() == []
    assert tasks.review_match_task(off.pk) == "skipped"
    assert not MatchReview.objects.exists()
    club.match_reviews = True
    club.save()
    bots = finish_match(club, people, seed="bots", bots=(0, 1, 2, 3))
    assert bots.pk not in services.due_matches()
    assert services.due_matches() == [off.pk]


@CHEAP
def test_only_the_persons_seats_and_decisions_are_reviewed(club, people):
    match = finish_match(club, people, seed="mixed", bots=(1, 3))
    review = services.review_match(match.pk)
    assert [s["seat"] for s in review.seats] == [0, 2]


@CHEAP
def test_the_sweep_publishes_the_due_reviews(finished, celery_eager):
    assert tasks.sweep_reviews_task() == 1
    assert MatchReview.objects.get(match=finished).status == ReviewStatus.DONE
    assert tasks.sweep_reviews_task() == 0


def test_the_club_option_is_set_by_its_admins(club, people, client):
    client.force_login(people[0])
    form = client.get(reverse("club_edit", args=[club.slug]), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "高手机器人为每场结束的比赛复盘" in form.content.decode()
    assert 'name="match_reviews"' in form.content.decode()
    response = client.post(
        reverse("club_edit", args=[club.slug]),
        {"name": club.name, "join_policy": club.join_policy, "visibility": club.visibility},
    )
    assert response.status_code == 302
    club.refresh_from_db()
    assert club.match_reviews is False  # the box left unticked
    client.post(
        reverse("club_edit", args=[club.slug]),
        {
            "name": club.name,
            "join_policy": club.join_policy,
            "visibility": club.visibility,
            "match_reviews": "on",
        },
    )
    club.refresh_from_db()
    assert club.match_reviews is True


def test_the_default_budget():
    assert services.budget() == Budget(search_ms=40, eval_ms=80, match_seconds=120)


@CHEAP
@override_settings(REVIEWS_LEASE_SECONDS=0.03)
def test_a_live_worker_renews_its_claim(finished, monkeypatch):
    """A review that takes longer than the lease keeps its claim while its worker lives: the
    heartbeat renews it, so the sweep does not hand it to another worker."""
    seen = []
    original = services.compute

    def watched(match, limits=None, tick=None):
        def beat():
            time.sleep(0.011)
            tick()
            seen.append(MatchReview.objects.get(match=match).claimed_at)

        return original(match, limits, beat)

    monkeypatch.setattr(services, "compute", watched)
    review = services.review_match(finished.pk)
    assert review is not None and review.status == ReviewStatus.DONE and review.attempts == 1
    assert len(set(seen)) > 3  # renewed again and again
