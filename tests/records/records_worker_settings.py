"""Settings of the Celery workers the statistics' worker test starts: the outbox tests' worker
settings, and beat running only the statistics' sweep, every second."""

from outbox_worker_settings import *  # noqa: F403

CELERY_BEAT_SCHEDULE = {
    "records-sweep": {"task": "records.tasks.sweep_records_task", "schedule": 1.0},
}
