"""The one root of the platform's refusals: a stable ``code`` for programs and a translated
``message`` for people. Every app's error (clubs, ladder, matches, sheets, tournaments)
derives from :class:`Refused`, so views, the API and consumers answer all of them alike."""

from __future__ import annotations


class Refused(Exception):
    """A refused operation: ``code`` is machine-readable, ``message`` is translated;
    ``status`` is the HTTP status a view or the API answers it with."""

    status = 400

    def __init__(self, code: str, message: str) -> None:
        """Keep the reason ``code`` beside the translated ``message``."""
        super().__init__(message)
        self.code = code
        self.message = message


class NotAllowed(Refused):
    """The acting user lacks the role the operation needs."""

    status = 403


class NotFound(Refused):
    """The object named does not exist (or is not visible to the user)."""

    status = 404
