"""``{% practice_form %}``: the practice form (game, bots' strength, one start button), for
the practice page and the home page (through ``matches/_home_practice.html``, which the clubs
home page includes when it exists, so clubs never names live play)."""

from __future__ import annotations

from typing import Any

from django import template

from matches.practice_views import practice_context

register = template.Library()


@register.inclusion_tag("matches/_practice_form.html", takes_context=True)
def practice_form(context: template.Context, heading: bool = True) -> dict[str, Any]:
    """The form for the context's user, with the defaults chosen (保2, 普通); ``heading``:
    whether the form shows its own title."""
    request = context.get("request")
    user = getattr(request, "user", None) or context.get("user")
    return {
        **practice_context(user),
        "csrf_token": context.get("csrf_token"),
        "heading": heading,
        "user": user,
    }
