"""A pytest plugin (loaded with ``-p config.pytest_plugin`` from pyproject.toml).

It runs before Django's settings are imported and gives every pytest session its own
embedded Redis socket directory, so parallel test runs and ``./run`` never share a server.
"""

from __future__ import annotations

import os
import shutil
import tempfile

_created_dir: str | None = None

if not os.environ.get("EMBEDDED_REDIS_DIR") and not os.environ.get("REDIS_URL"):
    _created_dir = tempfile.mkdtemp(prefix="bao2-redis-")
    os.environ["EMBEDDED_REDIS_DIR"] = _created_dir


def pytest_unconfigure(config: object) -> None:
    """Remove the socket directory this plugin created."""
    if _created_dir:
        shutil.rmtree(_created_dir, ignore_errors=True)
