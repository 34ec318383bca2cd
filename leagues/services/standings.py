"""The one way a change reaches the cached standings: :func:`changed`."""

from __future__ import annotations

import uuid

from leagues.models import Season


def changed(season_id: int) -> None:
    """The season's standings changed (a result, an entry, a withdrawal, a division): give it
    a new ``standings_key``, so every cached table of its standings is stale at once. Called
    in the changing transaction, so a reader sees the new key only with the new rows (a
    reader that computed from the old rows stored them under the old key)."""
    Season.objects.filter(pk=season_id).update(standings_key=uuid.uuid4())
