"""What goes on the wire: the compact JSON of every frame sent to clients (and the stored
snapshot's text). Transport only: no models, no services."""

from __future__ import annotations

from typing import Any

import orjson


def json_dumps(data: Any) -> str:
    """Compact JSON used on the wire (UTF-8, no spaces; orjson: the four frames of every
    action took a tenth of a server's time with the standard library's encoder); also the
    stored snapshot's text."""
    return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode()
