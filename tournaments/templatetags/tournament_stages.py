"""Template tags of multi-stage events and group round robins: whether a tournament's
ranking is final (its next stage can be made), and each group's standings in rows."""

from __future__ import annotations

from typing import Any

from django import template

from tournaments import selectors
from tournaments.models import Tournament

register = template.Library()


@register.filter
def ranking_final(tournament: Tournament) -> bool:
    """:func:`tournaments.selectors.ranking_final`."""
    return selectors.ranking_final(tournament)


@register.simple_tag
def group_tables(tournament: Tournament, headers: list[Any]) -> list[dict[str, Any]]:
    """Each group's name and rows (its line and each tie-break's label, from ``headers``, the
    standings page's column headings in :func:`~tournaments.selectors.tiebreaks_of` order, and
    value), as the standings page shows the whole field; empty without groups."""
    tiebreaks = selectors.tiebreaks_of(tournament)
    return [
        {
            "name": group.name,
            "rows": [
                {
                    "line": line,
                    "values": [
                        (label, line.row.values.get(t, ""))
                        for label, t in zip(headers, tiebreaks, strict=False)
                    ],
                }
                for line in group.lines
            ],
        }
        for group in selectors.group_standings(tournament)
    ]
