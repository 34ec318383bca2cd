"""``{% text_size_attrs %}``: the text size attributes of ``<html>`` (clubs.textsize)."""

from django import template
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from clubs.models import TextSize
from clubs.textsize import css_class

register = template.Library()


@register.simple_tag(takes_context=True)
def text_size_attrs(context: template.Context) -> SafeString:
    """``class="text-…"`` for the page's request, and what static/js/textsize.js needs to
    change it: the address to remember it, the sizes' names, the menu's label."""
    request = context.get("request")
    return format_html(
        'class="{}" data-text-size-url="{}" data-text-size-names="{}" '
        'data-text-size-label="{}" data-text-size-short="{}"',
        css_class(request) if request is not None else "text-standard",
        reverse("text_size"),
        "|".join(str(label) for label in TextSize.labels),
        _("Text size"),
        _("Text size (short)"),
    )
