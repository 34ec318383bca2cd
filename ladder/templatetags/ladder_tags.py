"""Template filters for ratings: signed changes and the provisional "?"."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def signed(value: float | None) -> str:
    """Format a rating change as a whole number with its sign: ``+12``, ``-5``, ``0``."""
    if value is None:
        return ""
    number = round(float(value))
    return f"+{number}" if number > 0 else f"{number}".replace("-", "−")


@register.filter
def rating_display(rating: object) -> str:
    """A :class:`~ladder.models.Rating` as shown to players: ``1523``, or ``1523?`` while
    provisional."""
    value = round(rating.rating)  # type: ignore[attr-defined]
    return f"{value}?" if rating.provisional else str(value)  # type: ignore[attr-defined]


@register.filter
def percent(value: float | None) -> str:
    """A share 0..1 as a whole percentage (``57%``); an em dash when unknown."""
    if value is None:
        return "—"
    return f"{round(value * 100)}%"
