"""Ladder pages: the list of ladders, a leaderboard, a player's page, a club ladder's settings.
Thin: reads come from :mod:`ladder.selectors`, the one change from
:mod:`ladder.club_settings`; the views only parse the request and render."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import formats
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from clubs.views import club_page_sections
from games.variants import Variant
from ladder import club_settings, selectors, services
from ladder.charts import history_chart
from ladder.errors import LadderError
from ladder.models import Ladder

PER_PAGE = 50
#: The highest page number read; a later one shows the last page, as any page past the end does.
MAX_PAGE = 100_000


def _int_param(request: HttpRequest, name: str, default: int) -> int:
    try:
        return int(request.GET.get(name, default))
    except (TypeError, ValueError):
        return default


def ladder_list(request: HttpRequest) -> HttpResponse:
    """Every ladder: the platform ladder of each game, then the clubs' ladders."""
    variant = request.GET.get("variant", "")
    if variant not in Variant.values:
        variant = ""
    return render(
        request,
        "ladder/ladder_list.html",
        {
            "ladders": selectors.ladders(request.user, variant=variant or None),
            "variants": Variant.choices,
            "variant": variant,
        },
    )


def leaderboard(request: HttpRequest, ladder_id: int) -> HttpResponse:
    """A ladder's leaderboard: ``?q=`` searches names, ``?scope=all`` also lists provisional
    and inactive players, ``?page=`` pages."""
    ladder = get_object_or_404(Ladder.objects.select_related("club"), pk=ladder_id)
    services.require_ladder_visible(request.user, ladder)
    board = selectors.leaderboard(
        ladder,
        scope=request.GET.get("scope", "ranked"),
        query=request.GET.get("q", ""),
        page=min(_int_param(request, "page", 1), MAX_PAGE),
        per_page=PER_PAGE,
    )
    return render(
        request,
        "ladder/leaderboard.html",
        {
            "ladder": ladder,
            "board": board,
            "can_change": services.can_rebuild(request.user, ladder),
        },
    )


class LadderSettingsForm(forms.Form):
    """A club ladder's settings its admins change on the web."""

    provisional_matches = forms.IntegerField(
        label=gettext_lazy("Provisional matches"),
        min_value=club_settings.PROVISIONAL_RANGE[0],
        max_value=club_settings.PROVISIONAL_RANGE[1],
        help_text=gettext_lazy(
            "A player's first rated matches: their rating is shown with “?” and moves faster."
        ),
    )
    k_established = forms.FloatField(
        label=gettext_lazy("K once established"),
        min_value=club_settings.K_RANGE[0],
        max_value=club_settings.K_RANGE[1],
        help_text=gettext_lazy("How far one match moves an established rating."),
    )


@login_required
def ladder_settings(request: HttpRequest, ladder_id: int) -> HttpResponse:
    """A club ladder's settings (its club's owner and admins); saving rebuilds the ladder."""
    ladder = get_object_or_404(Ladder.objects.select_related("club"), pk=ladder_id)
    if not services.can_rebuild(request.user, ladder):
        raise PermissionDenied
    form = LadderSettingsForm(
        request.POST or None,
        initial={
            "provisional_matches": ladder.provisional_matches,
            "k_established": ladder.k_established,
        },
    )
    if request.method == "POST" and form.is_valid():
        try:
            club_settings.update_ladder_settings(request.user, ladder, **form.cleaned_data)
        except LadderError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, _("Saved. The ladder is being recalculated."))
            return redirect("ladder:leaderboard", ladder_id=ladder.pk)
    return render(request, "ladder/settings.html", {"ladder": ladder, "form": form})


#: Sections other apps add to a player's page: a template at one of these paths is included
#: (with ``person`` in its context) when it exists (the statistics and honours of issue 46).
PLAYER_PAGE_SECTIONS = ("records/_player_section.html",)


def player(request: HttpRequest, ladder_id: int, user_id: int) -> HttpResponse:
    """A player's page in one ladder: rating, history chart, recent matches and partners."""
    ladder = get_object_or_404(Ladder.objects.select_related("club"), pk=ladder_id)
    services.require_ladder_visible(request.user, ladder)
    person = get_object_or_404(get_user_model(), pk=user_id)
    rating = selectors.player_rating(ladder, person.pk)
    history = list(selectors.rating_history(ladder, person.pk).values_list("ended_at", "after"))
    labels = ("", "")
    if history:
        labels = (
            formats.date_format(history[0][0], "SHORT_DATE_FORMAT"),
            formats.date_format(history[-1][0], "SHORT_DATE_FORMAT"),
        )
    chart = history_chart(ladder.initial_rating, [after for _, after in history], labels)
    recent = selectors.recent_matches(ladder, person.pk)
    for change in recent:
        players = list(change.result.players.all())
        change.partners = [
            p.user for p in players if p.side == change.side and p.user_id != person.pk
        ]
        change.opponents = [p.user for p in players if p.side != change.side]
        change.own_score = change.result.scores[change.side]
        change.other_score = change.result.scores[1 - change.side]
    return render(
        request,
        "ladder/player.html",
        {
            "ladder": ladder,
            "person": person,
            "rating": rating,
            "chart": chart,
            "recent": recent,
            "partners": selectors.partners(ladder, person.pk),
            "ratings": selectors.player_ratings(person.pk, request.user),
            "sections": club_page_sections(PLAYER_PAGE_SECTIONS),
        },
    )
