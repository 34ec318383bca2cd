"""Template tags of team events: the team standings in rows for the standings page."""

from __future__ import annotations

from typing import Any

from django import template

from tournaments import team_exports, team_selectors
from tournaments.models import Tournament

register = template.Library()


@register.simple_tag
def team_table(tournament: Tournament) -> dict[str, Any]:
    """The team standings (:func:`tournaments.team_selectors.team_standings`), the name of
    their second number and whether it is 级分; empty lines for a tournament without teams."""
    return {
        "lines": team_selectors.team_standings(tournament),
        "second": team_exports.second_label(tournament),
        "national": team_selectors.national(tournament),
    }
