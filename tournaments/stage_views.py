"""The page of a multi-stage event's next stage (``/tournaments/<id>/next-stage/``): the
organiser chooses the format and how many go through, and the next stage is made from the
ranking by :func:`tournaments.services.stages.create_next_stage` (thin: the service checks
the role and every value)."""

from __future__ import annotations

from typing import cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from clubs import services as club_services
from clubs.models import User
from tournaments import selectors
from tournaments.models import SeriesMode, Tournament, TournamentFormat
from tournaments.permissions import can_manage, can_view
from tournaments.services import stages as stage_services
from tournaments.services.errors import TournamentError

#: The formats a next stage may take, in the order the form offers them.
FORMATS = (
    TournamentFormat.ELIMINATION,
    TournamentFormat.DOUBLE_ELIMINATION,
    TournamentFormat.SWISS,
    TournamentFormat.ROUND_ROBIN,
)


def _whole(value: str) -> int | str | None:
    """A whole number typed in the form (or the text as typed, for the service to refuse);
    None when empty."""
    value = value.strip()
    if not value:
        return None
    return int(value) if value.isdigit() and len(value) < 6 else value


@login_required
def next_stage(request: HttpRequest, pk: int) -> HttpResponse:
    """The form (GET) and its answer (POST): made, to the new stage's run page; refused, the
    form again with every problem beside its field. An organiser's page."""
    user = cast(User, request.user)  # signed in (login_required)
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=pk)
    club_services.require_club_visible(user, tournament.club)
    if not can_view(user, tournament):
        raise Http404
    if not can_manage(user, tournament):
        raise PermissionDenied
    grouped = len(selectors.group_standings(tournament)) > 1
    values = {
        "format": TournamentFormat.ELIMINATION.value,
        "qualifiers": "",
        "rounds": "",
        "name": "",
        "series": "",
    }
    errors: dict[str, list[str]] = {}
    if request.method == "POST":
        values = {key: request.POST.get(key, "")[:200] for key in values}
        try:
            stage = stage_services.create_next_stage(
                user,
                tournament,
                format=values["format"],
                qualifiers_count=_whole(values["qualifiers"]),
                rounds=_whole(values["rounds"]),
                name=values["name"],
                series=values["series"],
            )
        except TournamentError as error:
            errors = getattr(error, "fields", None) or {"stage": [error.message]}
        else:
            messages.success(request, _("The next stage is made: %(name)s.") % {"name": stage.name})
            return redirect("tournaments:run", pk=stage.pk)
    return render(
        request,
        "tournaments/next_stage.html",
        {
            "tournament": tournament,
            "made": tournament.next_stage,
            "ready": selectors.ranking_final(tournament),
            "grouped": grouped,
            "formats": [(f.value, f.label) for f in FORMATS],
            "series_modes": SeriesMode.choices,
            "values": values,
            "errors": errors,
        },
        status=400 if errors else 200,
    )
