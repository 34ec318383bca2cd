"""Settings of the worker test_match_end.py starts: the reviews' worker settings with no beat
sweep at all, so only the task published at the match's end can review it."""

from reviews_worker_settings import *  # noqa: F403

CELERY_BEAT_SCHEDULE: dict = {}
