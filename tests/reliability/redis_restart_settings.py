"""Settings of the Redis-restart test's processes (web, worker, beat): the outbox tests' worker
settings (mail to the test's SMTP server, short leases) and beat running the live-play, ladder
and outbox sweeps every second."""

from outbox_worker_settings import *  # noqa: F403

LADDER_SWEEP_GRACE_SECONDS = 1.0
CELERY_BEAT_SCHEDULE = {
    "matches-sweep": {"task": "matches.tasks.sweep_task", "schedule": 1.0},
    "ladder-sweep": {"task": "ladder.tasks.sweep_results_task", "schedule": 1.0},
    "outbox-sweep": {"task": "outbox.tasks.sweep", "schedule": 1.0},
}
