"""Template tags of the statistics: a player's honours and link on another app's page."""

from __future__ import annotations

from typing import Any

from django import template

from records import selectors

register = template.Library()


@register.inclusion_tag("records/_player_honours.html", takes_context=True)
def player_records(context: dict[str, Any], person: Any) -> dict[str, Any]:
    """The honours ``person`` holds that the viewer may see, and the link to their
    statistics (one query)."""
    request = context.get("request")
    viewer = selectors.viewer_of(getattr(request, "user", None))
    return {"person": person, "honours": selectors.player_honours(viewer, person, limit=6)}


@register.inclusion_tag("records/_club_honours.html", takes_context=True)
def club_records(context: dict[str, Any], club: Any) -> dict[str, Any]:
    """The club's honours of this month and this season (the club page checked visibility)."""
    return {"club": club, "honours": selectors.club_honours(club)}


@register.filter
def percent(value: float) -> str:
    """0.4567 → "46%"."""
    return f"{round(value * 100)}%"
