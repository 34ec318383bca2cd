"""The checks of a frame a client sends, before it is decoded and queued.

Contract: :func:`read` turns a text frame into the decoded message, or the code of its refusal
(``too_large``, ``bad_json``, ``bad_message``), never raising; :func:`frame_id` reads the
``id`` of a frame that is not decoded, never raising, and only a value that may be echoed;
:class:`Allowance` is one connection's own rate limit. The limits shared by a user's and an
address's connections across processes are :mod:`matches.limits`.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

#: Largest text frame accepted, in bytes of UTF-8; larger ones are refused (``too_large``)
#: unparsed. The ASGI server itself reads frames up to ``config.serve.WEBSOCKET_MAX_MESSAGE``
#: (far more), so they reach this answer instead of a closed connection.
MAX_FRAME = 8192
#: Messages per second a connection may send (a burst of twice that is tolerated).
RATE = 50.0
#: Frames of one connection waiting to be handled; more are refused ``rate_limited`` at once.
BACKLOG = 16
#: A connection that went on sending this many frames past its own limit is closed (code
#: 4429): refusing each one still costs the server its reading and answering.
FLOOD = 2 * RATE
#: The frame types that only read (the reading thread, a lower limit per user).
READS = frozenset({"hint", "check", "hello"})


class Allowance:
    """One connection's frames: :data:`RATE` a second, bursts of twice that."""

    def __init__(self) -> None:
        self.tokens = RATE * 2
        self.last_check = time.monotonic()

    def take(self) -> bool:
        """Take one frame from the allowance; False when there was none. A refused frame
        still counts, down to ``-FLOOD``."""
        now = time.monotonic()
        self.tokens = min(RATE * 2, self.tokens + (now - self.last_check) * RATE)
        self.last_check = now
        self.tokens = max(-FLOOD, self.tokens - 1)
        return self.tokens >= 0

    @property
    def flooding(self) -> bool:
        """True once the connection went on past its limit by :data:`FLOOD` frames."""
        return self.tokens <= -FLOOD


def read(text: str) -> dict[str, Any] | str:
    """The message of text frame ``text``: a dict with a string ``type`` holding only what
    :func:`clean` accepts; else the refusal's code."""
    if utf8_size(text) > MAX_FRAME:
        return "too_large"
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nesting too deep to decode
        return "bad_json"
    if not isinstance(data, dict) or not isinstance(data.get("type"), str) or not clean(data):
        return "bad_message"
    return data


def clean(data: Any) -> bool:
    """True if decoded ``data`` holds only what a message may: no NUL character or lone
    surrogate in any string or key (PostgreSQL cannot store them; UTF-8 cannot encode a lone
    surrogate), no integer outside 64 bits, no NaN or infinity, nesting at most 16 deep."""
    stack = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            if "\x00" in value:
                return False
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate ("\ud800")
                return False
        elif isinstance(value, bool) or value is None:
            continue
        elif isinstance(value, int):
            if not -(2**63) <= value < 2**63:
                return False
        elif isinstance(value, float):
            if value != value or value in (float("inf"), float("-inf")):
                return False
        elif depth >= 16:
            return False
        elif isinstance(value, dict):
            stack.extend((item, depth + 1) for pair in value.items() for item in pair)
        else:
            stack.extend((item, depth + 1) for item in value)
    return True


def utf8_size(text: str) -> int:
    """The size of ``text`` in bytes of UTF-8 (a lone surrogate counted as three), without
    encoding what is surely too large or plain ASCII."""
    if len(text) > MAX_FRAME or text.isascii():
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


#: The ``id`` of a frame that is not decoded: a number or a short string after ``"id":``.
_ID = re.compile(r'"id"\s*:\s*(-?\d{1,18}(?![\d.eE])|"[^"\\]{0,64}")')


def frame_id(text: str) -> Any:
    """The ``id`` of an undecoded frame, when it can be read from its first 4 KiB and may be
    echoed (:func:`clean`), else None. Never raises: it is read for the refusals of frames
    that are malformed to begin with."""
    found = _ID.search(text, 0, 4096)
    if found is None:
        return None
    try:
        value = json.loads(found.group(1))
    except ValueError:  # a raw control character (a NUL) in the string: not JSON
        return None
    return value if clean(value) else None
