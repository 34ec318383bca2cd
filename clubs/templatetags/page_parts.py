"""``{% page_parts PLACE as parts %}`` and ``{% page_url PLACE %}``: what apps above registered
for a place of a page (:mod:`clubs.page_parts`)."""

from __future__ import annotations

from django import template
from django.urls import reverse

from clubs import page_parts as registry

register = template.Library()


@register.simple_tag
def page_parts(place: str) -> list[str]:
    """The templates to include at ``place`` (``{% for part in parts %}{% include part %}``)."""
    return registry.page_parts(place)


@register.simple_tag
def page_url(place: str) -> str:
    """The address registered for ``place``, or an empty string when none is."""
    name = registry.page_url_name(place)
    return reverse(name) if name else ""
