"""A cache for the worker-kill test's Celery workers: a local-memory cache whose
``delete_many`` (what applying a result calls after each ladder's commit) waits while the file
``$VAR_DIR/hold-cache`` exists, and counts the waiting calls in ``$VAR_DIR/held``. The test
holds the workers there, between the platform ladder's commit and the club ladder's, and
SIGKILLs them."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from django.core.cache.backends.locmem import LocMemCache


class HoldingCache(LocMemCache):
    """``LocMemCache`` whose ``delete_many`` waits while the hold file exists."""

    def delete_many(self, keys: Any, version: int | None = None) -> None:
        """Wait while held (recording the wait), then delete."""
        var = Path(os.environ["VAR_DIR"])
        if (var / "hold-cache").exists():
            with open(var / "held", "a") as held:
                held.write("held\n")
            while (var / "hold-cache").exists():
                time.sleep(0.05)
        super().delete_many(keys, version)
