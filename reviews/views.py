"""Pages of the reviews app: a finished match's share page (Open Graph tags) and its card.

Thin: who may see them is the replay's rule (:func:`matches.services.access.
require_replay_visible`: a members-only club's match only to its members, nothing of a group
of sibling tables before all have finished); anyone else gets 404, so nothing — not even
that the match exists — reaches an anonymous visitor or a link preview.
"""

from __future__ import annotations

from django.conf import settings
from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import get_language
from django.views.decorators.http import require_GET

from clubs.models import Visibility
from matches.messages import MatchError
from matches.models import Match, Table
from reviews import services
from reviews.card import render_card, result_summary

#: How long a card's PNG stays cached (seconds); a finished match does not change.
CARD_CACHE_SECONDS = 24 * 3600


def _visible_match(request: HttpRequest, table_id: int) -> tuple[Table, Match]:
    try:
        return services.visible_match(request.user, table_id)
    except MatchError:
        raise Http404 from None


def _language(code: str | None) -> str:
    codes = [c for c, _ in settings.LANGUAGES]
    return code if code in codes else settings.LANGUAGE_CODE


@require_GET
def share(request: HttpRequest, table_id: int) -> HttpResponse:
    """The share page of a finished match: its result, the card, and the Open Graph tags a
    chat app reads for its preview (the card in the viewer's language)."""
    table, match = _visible_match(request, table_id)
    language = _language(get_language())
    summary = result_summary(match)
    description = " · ".join(f"{r['place']} {r['names']} {r['value']}" for r in summary["rows"])
    return render(
        request,
        "reviews/share.html",
        {
            "table": table,
            "match": match,
            "summary": summary,
            "description": description,
            "card_url": request.build_absolute_uri(
                reverse("reviews:card", args=[table.pk, language])
            ),
            "page_url": request.build_absolute_uri(reverse("reviews:share", args=[table.pk])),
        },
    )


@require_GET
def card(request: HttpRequest, table_id: int, language: str) -> HttpResponse:
    """The result card of a finished match as a PNG, in ``language`` (one of the site's)."""
    if language not in [c for c, _ in settings.LANGUAGES]:
        raise Http404
    table, match = _visible_match(request, table_id)
    key = f"reviews:card:{match.pk}:{match.version}:{language}"
    try:
        png = cache.get(key)
    except Exception:  # a cache failure only costs the drawing
        png = None
    if png is None:
        png = render_card(match, language)
        try:
            cache.set(key, png, CARD_CACHE_SECONDS)
        except Exception:
            pass
    response = HttpResponse(png, content_type="image/png")
    # a members-only club's card only in the member's own cache, never a shared one
    private = table.club is not None and table.club.visibility != Visibility.PUBLIC
    response["Cache-Control"] = f"{'private' if private else 'public'}, max-age=3600"
    return response
