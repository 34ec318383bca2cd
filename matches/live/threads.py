"""The threads that do live play's database and engine work, off the server's event loop.

Contract: :func:`run` runs ``func(*args)`` on the named pool's thread(s) and returns (or
raises) what it did, with stale database connections closed before and after, as
``database_sync_to_async`` does. Three pools, each made on its first use:

- :data:`ACTIONS`: the batches of actions (:mod:`matches.live.batching`); setting
  ``MATCHES_THREADS`` threads (default 1: the work holds the GIL, and every busy thread takes
  it from the loop that reads and writes the sockets; measured in docs/benchmarks.md).
- :data:`READS`: what only reads (``hello``, ``check``, ``hint``, quick phrases), one thread, so
  a flood of hints waits there, not in front of every table's actions.
- :data:`BOOKKEEPING`: the connections' own writes (who may connect, presence, auto-play, the
  summary's dismissal), one thread when the setting ``MATCHES_BOOKKEEPING_THREAD`` is on (a
  burst of reconnections then queues there, not in front of the session lookups of new
  handshakes); off, this work stays on Django's one thread (``database_sync_to_async``).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import close_old_connections

ACTIONS = "actions"
READS = "reads"
BOOKKEEPING = "bookkeeping"

T = TypeVar("T")

_pools: dict[str, ThreadPoolExecutor | None] = {}
_making = threading.Lock()


def action_threads() -> int:
    """How many threads apply actions (setting ``MATCHES_THREADS``): the most batches of a
    process in flight at once."""
    return max(1, int(getattr(settings, "MATCHES_THREADS", 1)))


def _pool(name: str) -> ThreadPoolExecutor | None:
    """The pool called ``name``, made now if it is the first use (None: Django's thread)."""
    try:
        return _pools[name]
    except KeyError:
        pass
    with _making:
        if name not in _pools:
            if name == ACTIONS:
                _pools[name] = ThreadPoolExecutor(action_threads(), thread_name_prefix="matches")
            elif name == READS:
                _pools[name] = ThreadPoolExecutor(1, thread_name_prefix="matches-read")
            elif getattr(settings, "MATCHES_BOOKKEEPING_THREAD", False):
                _pools[name] = ThreadPoolExecutor(1, thread_name_prefix="matches-connections")
            else:
                _pools[name] = None
        return _pools[name]


async def run(name: str, func: Callable[..., T], *args: Any) -> T:
    """``func(*args)`` on pool ``name``'s thread (see the module). A plain
    ``run_in_executor``: asgiref's context copies and thread bookkeeping cost more than the hop
    itself, on every action."""
    pool = _pool(name)
    if pool is None:
        return await database_sync_to_async(func)(*args)
    return await asyncio.get_running_loop().run_in_executor(pool, _closing, func, args)


def _closing(func: Callable[..., T], args: tuple[Any, ...]) -> T:
    close_old_connections()
    try:
        return func(*args)
    finally:
        close_old_connections()
