"""Ladder pages: the list of ladders, a leaderboard, a player's page. Thin: reads come from
:mod:`ladder.selectors`; the views only parse the query string and render."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import formats

from games.variants import Variant
from ladder import selectors
from ladder.charts import history_chart
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
            "ladders": selectors.ladders(variant=variant or None),
            "variants": Variant.choices,
            "variant": variant,
        },
    )


def leaderboard(request: HttpRequest, ladder_id: int) -> HttpResponse:
    """A ladder's leaderboard: ``?q=`` searches names, ``?scope=all`` also lists provisional
    and inactive players, ``?page=`` pages."""
    ladder = get_object_or_404(Ladder.objects.select_related("club"), pk=ladder_id)
    board = selectors.leaderboard(
        ladder,
        scope=request.GET.get("scope", "ranked"),
        query=request.GET.get("q", ""),
        page=min(_int_param(request, "page", 1), MAX_PAGE),
        per_page=PER_PAGE,
    )
    return render(request, "ladder/leaderboard.html", {"ladder": ladder, "board": board})


def player(request: HttpRequest, ladder_id: int, user_id: int) -> HttpResponse:
    """A player's page in one ladder: rating, history chart, recent matches and partners."""
    ladder = get_object_or_404(Ladder.objects.select_related("club"), pk=ladder_id)
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
            "ratings": selectors.player_ratings(person.pk),
        },
    )
