"""The statistics' pages: a player's statistics and honours (thin: selectors do the reading)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _

from records import periods, selectors
from records.errors import RecordsError, period_key


def player(request: HttpRequest, user_id: int) -> HttpResponse:
    """A player's statistics over this month, this season or all time (``?period=``), per
    game and rated or casual, with partners, opponents and honours; only what the viewer may
    see of members-only clubs."""
    person = get_object_or_404(get_user_model(), pk=user_id)
    viewer = selectors.viewer_of(request.user)
    choice = request.GET.get("period") or "month"
    try:
        key = period_key(choice)
    except RecordsError as error:
        return render(
            request,
            "records/player.html",
            {
                "person": person,
                "error": error.message,
                "choices": _choices(),
                "stats": [],
                "honours": [],
            },
            status=400,
        )
    return render(
        request,
        "records/player.html",
        {
            "person": person,
            "choice": choice,
            "period_label": periods.label(key),
            "choices": _choices(),
            "stats": selectors.player_statistics(viewer, person, key),
            "honours": selectors.player_honours(viewer, person),
        },
    )


def _choices() -> list[tuple[str, str]]:
    """The periods a reader may choose, in their language."""
    return [("month", _("This month")), ("season", _("This season")), ("all", _("All time"))]
