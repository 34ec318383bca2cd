"""``{% quick_phrases table %}``: what the table page needs for its quick phrases (the list in
the viewer's language, the words of the 💬 menu, their style), or nothing at a table that
takes none (:func:`matches.services.phrases.casual`)."""

from __future__ import annotations

from typing import Any

from django import template

from matches.models import Table
from matches.services.phrases import offered

register = template.Library()


@register.inclusion_tag("matches/_phrases.html")
def quick_phrases(table: Table) -> dict[str, Any]:
    """The phrases offered at ``table`` as ``[key, words]`` pairs (empty: none offered)."""
    return {"phrases": [list(pair) for pair in offered(table)]}
