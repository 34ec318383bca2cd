"""Settings of the Celery workers the outbox tests start: the project's settings, mail to the
test's SMTP server, short leases and backoffs, and beat running only the outbox sweep."""

import os

from config.settings import *  # noqa: F403

EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
EMAIL_HOST = "127.0.0.1"
EMAIL_PORT = int(os.environ["OUTBOX_TEST_SMTP_PORT"])
EMAIL_USE_TLS = False
EMAIL_USE_SSL = False
OUTBOX_LEASE_SECONDS = 3.0
OUTBOX_SMTP_TIMEOUT = 60.0  # the test holds sessions on purpose; the kill ends them
OUTBOX_BACKOFF_SECONDS = 0.2
OUTBOX_SWEEP_GRACE_SECONDS = 0.5
CELERY_BEAT_SCHEDULER = "celery.beat:PersistentScheduler"
CELERY_BEAT_SCHEDULE = {"outbox-sweep": {"task": "outbox.tasks.sweep", "schedule": 1.0}}
