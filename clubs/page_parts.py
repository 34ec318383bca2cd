"""Parts of a lower app's pages that an app above it adds: a link, a button, a section.

A page of clubs or matches may show what an app above offers (the friends' tables, the rules
guides, the score sheets) without naming it: the app above registers a template for a named
place from its ``AppConfig.ready`` and the page includes whatever is registered there
(``{% page_parts "clubs.home.links" as parts %}``, :mod:`clubs.templatetags.page_parts`), with
the page's whole context. A place a page needs as one address (an attribute) takes a URL name
instead (:func:`register_page_url`, ``{% page_url "matches.table.rules" %}``). With the app
above not installed, the page simply shows nothing there. The same pattern as the club page's
sections (``clubs.views.CLUB_PAGE_SECTIONS``), where the higher app holds the template.
"""

from __future__ import annotations

_parts: dict[str, list[str]] = {}
_urls: dict[str, str] = {}


def register_page_part(place: str, template: str) -> None:
    """Include ``template`` (with the page's context) at ``place`` of a page; once."""
    parts = _parts.setdefault(place, [])
    if template not in parts:
        parts.append(template)


def page_parts(place: str) -> list[str]:
    """The templates registered at ``place``, in the order registered (empty: none)."""
    return list(_parts.get(place, ()))


def register_page_url(place: str, url_name: str) -> None:
    """Give ``place`` of a page the address of the URL named ``url_name`` (the last one
    registered wins)."""
    _urls[place] = url_name


def page_url_name(place: str) -> str | None:
    """The URL name registered at ``place``, or ``None``."""
    return _urls.get(place)
