"""The Celery application; configuration comes from Django settings (``CELERY_*``).

It also makes kombu's Redis channel survive closing a lost connection
(:func:`close_redis_channels_completely`): without that, a worker holding unacknowledged
messages died for good when Redis restarted (issue 40).
"""

import os

from celery import Celery
from kombu.transport import redis as kombu_redis
from kombu.transport.virtual import Empty

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def close_redis_channels_completely() -> bool:
    """Make ``kombu.transport.redis.Channel.close`` finish even when the connection is lost.

    Promises: after the patched ``close`` returns or raises a broker connection error, the
    channel is marked closed, so closing it again does nothing. Returns False (and patches
    nothing) if kombu's channel no longer has the shape this relies on. Idempotent.

    Why: a channel waiting for a BRPOP reply reads that reply first when it closes. When Redis
    went away, the read raises a connection error and ``close`` stops there: the channel is
    neither marked closed nor its unacknowledged messages restored (kombu 5.7.0, and its
    main branch as of 2026-08). Celery 5.7.0's consumer, on a lost connection, first
    ``collect()``s the connection: that closes the default channel (which stops half-way; the
    error is swallowed), then the transport's other channels (stopping at the first whose close
    fails while Redis is down, so the default one may not be closed there either), and
    detaches the transport. Then it ``close()``s the connection, which closes the default
    channel again: that one now restores its unacknowledged messages through a transport with
    no client any more and raises ``AttributeError: 'NoneType' object has no attribute
    'hostname'``. That is not a connection error, so the worker logs "Unrecoverable error" and
    exits. Every worker of this project holds unacknowledged messages (tasks with a countdown:
    bots, clocks, retries), so every Redis restart killed every worker.

    With the reply's connection error ignored (the reply is gone with the connection: a
    message Redis popped for it is lost either way, as before), the first ``close`` goes on:
    it tries to restore the unacknowledged messages (which fails while Redis is down: they
    stay in Redis' unacked set and come back after the visibility timeout; the sweeps do not
    wait for that), marks the channel closed, and the second ``close`` is a no-op.
    """
    channel_class = kombu_redis.Channel
    original = channel_class.close
    if getattr(original, "_reads_lost_reply", False):
        return True
    if not all(hasattr(channel_class, name) for name in ("_in_poll", "_brpop_read")):
        return False

    def close(self: kombu_redis.Channel) -> None:
        if self._in_poll:
            try:
                self._brpop_read()  # sets _in_poll to None whatever happens
            except Empty:
                pass
            except self.connection_errors:
                pass  # the connection is gone, and the reply with it: close the rest
        original(self)

    close._reads_lost_reply = True  # type: ignore[attr-defined]
    close.__doc__ = original.__doc__
    channel_class.close = close
    return True


close_redis_channels_completely()

app = Celery("bao2club")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
