"""Pages around a match's moments (issue 43): 再来一局 after it, and what auto-play did for a
player while they were away. Thin: :mod:`matches.services.again` and
:mod:`matches.services.away` decide."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_GET, require_POST

from matches import selectors
from matches.messages import MatchError
from matches.models import Table
from matches.services import access, again, away


@require_POST
@login_required
def play_again(request: HttpRequest, table_id: int) -> HttpResponse:
    """POST: 再来一局 — to the new table with the same seats; a refusal is told on the old
    table's page, which is unchanged."""
    table = get_object_or_404(Table, pk=table_id)
    try:
        new = again.play_again(request.user, table)
    except MatchError as error:
        messages.error(request, error.message)
        return redirect("matches:table", table_id=table.pk)
    return redirect("matches:table", table_id=new.pk)


@require_GET
def away_summary(request: HttpRequest, table_id: int) -> HttpResponse:
    """GET: JSON ``{"summary": …}``, what auto-play did for the asker's own seat since they
    last acted (``null``: nothing); 403 ``{"code", "message"}`` for anyone not playing here."""
    table = get_object_or_404(Table, pk=table_id)
    match = selectors.match_of_table(table)
    try:
        access.require_table_visible(request.user, table, match)
        summary = away.away_summary_for(request.user, match)
    except MatchError as error:
        return JsonResponse(error.to_json(), status=403)
    return JsonResponse({"summary": summary})
