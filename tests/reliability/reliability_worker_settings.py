"""Settings of the Celery workers the result worker-kill test starts: the outbox tests' worker
settings (mail to the test's SMTP server, short leases), a cache that can hold a worker between
two ladders' commits, and beat running the ladder and outbox sweeps every second."""

from outbox_worker_settings import *  # noqa: F403

CACHES = {"default": {"BACKEND": "holding_cache.HoldingCache"}}
LADDER_SWEEP_GRACE_SECONDS = 1.0
CELERY_BEAT_SCHEDULE = {
    "ladder-sweep": {"task": "ladder.tasks.sweep_results_task", "schedule": 1.0},
    "outbox-sweep": {"task": "outbox.tasks.sweep", "schedule": 1.0},
}
