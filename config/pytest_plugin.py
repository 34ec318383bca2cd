"""A pytest plugin (loaded with ``-p config.pytest_plugin`` from pyproject.toml).

It runs before Django's settings are imported and gives every pytest session its own
embedded Redis socket directory, so parallel test runs and ``./run`` never share a server.
Under pytest-xdist every worker is a session of its own: its own embedded Redis (a directory
of the run's), or, on an external Redis (``REDIS_URL``, ./test's PostgreSQL pass), its own
database number and channel-layer prefix, so that one worker's ``cache.clear()``, queues and
group messages never reach another's.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile

_created_dir: str | None = None
_worker = os.environ.get("PYTEST_XDIST_WORKER", "")  # gw0, gw1, ... in xdist's workers

if not os.environ.get("EMBEDDED_REDIS_DIR") and not os.environ.get("REDIS_URL"):
    _created_dir = tempfile.mkdtemp(prefix="bao2-redis-")
    os.environ["EMBEDDED_REDIS_DIR"] = _created_dir
elif _worker and not os.environ.get("REDIS_URL"):
    _created_dir = os.path.join(os.environ["EMBEDDED_REDIS_DIR"], _worker)
    os.makedirs(_created_dir, exist_ok=True)
    os.environ["EMBEDDED_REDIS_DIR"] = _created_dir
elif _worker and os.environ["REDIS_URL"].startswith("redis://"):
    number = int(_worker.removeprefix("gw")) + 1  # database 0 stays the controller's
    os.environ["REDIS_URL"] = re.sub(r"(/\d+)?$", f"/{number}", os.environ["REDIS_URL"], count=1)
    os.environ["CHANNEL_LAYER_PREFIX"] = f"asgi-{_worker}"


def pytest_unconfigure(config: object) -> None:
    """Remove the socket directory this plugin created."""
    if _created_dir:
        shutil.rmtree(_created_dir, ignore_errors=True)
