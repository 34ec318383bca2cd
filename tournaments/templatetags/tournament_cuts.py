"""Template filters of low-position elimination (第二十九条): a tournament's plan in words."""

from __future__ import annotations

from django import template

from tournaments import cuts, selectors
from tournaments.models import Tournament

register = template.Library()


@register.filter
def cut_plan(tournament: Tournament) -> str:
    """The tournament's cuts in the reader's language ("after round 3 the best 12 play on;
    …"), empty when it has none."""
    return cuts.describe_plan(selectors.cuts_of(tournament))
