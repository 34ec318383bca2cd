"""The refusal of a ladder operation: a :class:`games.errors.Refused` (``code`` for
programs, a translated ``message`` for people)."""

from __future__ import annotations

from games.errors import Refused


class LadderError(Refused):
    """A refused ladder operation: ``code`` is machine-readable, the message is translated."""
