"""Template tags of events between clubs: the team standings for the standings page, and the
events a club is invited to for its tournaments page."""

from __future__ import annotations

from typing import Any

from django import template

from clubs.models import Club, User
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


@register.simple_tag
def invited_events(club: Club, viewer: User | None) -> list[Tournament]:
    """:func:`tournaments.team_selectors.invited_to`: other clubs' events ``club`` is invited
    to, as ``viewer`` may see them."""
    return team_selectors.invited_to(club, viewer if viewer and viewer.is_authenticated else None)
