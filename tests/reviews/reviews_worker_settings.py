"""Settings of the Celery workers the reviews' worker test starts: the outbox tests' worker
settings, a short lease and a small budget, and beat running only the reviews' sweep, every
second."""

from outbox_worker_settings import *  # noqa: F403

REVIEWS_LEASE_SECONDS = 6.0
REVIEWS_SEARCH_MS = 5.0
REVIEWS_EVAL_MS = 5.0
REVIEWS_MATCH_SECONDS = 2.0  # partial reviews: the test is about claims
CELERY_BEAT_SCHEDULE = {
    "reviews-sweep": {"task": "reviews.tasks.sweep_reviews_task", "schedule": 1.0},
}
REVIEWS_SWEEP_GRACE_SECONDS = 0.0
