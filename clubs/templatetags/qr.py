"""``{{ url|qr_svg:label }}``: a QR code of ``url`` as inline SVG, drawn by segno (a phone's
camera opens the link; no image request, so the page's Content-Security-Policy stays as is)."""

from __future__ import annotations

import segno
from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()


@register.filter
def qr_svg(value: str, label: str = "") -> SafeString:
    """The QR code of ``value`` (error correction M, 4 px modules with the quiet zone), an
    image named ``label`` for screen readers."""
    svg = segno.make(str(value), error="m").svg_inline(
        scale=4, light="#fff", title=escape(label) or None
    )
    return mark_safe(svg.replace("<svg ", f'<svg role="img" aria-label="{escape(label)}" ', 1))
