"""The practice page: play the bots at once, signed in or not (a guest account is made).

Thin: :mod:`matches.services.practice` opens the table, :mod:`clubs.guests` makes the guest.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from clubs import guests
from clubs.client_ip import client_ip
from clubs.services import ClubError
from games.variants import DEFAULT_GAME, Variant, is_game
from matches.messages import MatchError
from matches.services import practice as practice_services

#: How many of the person's unfinished practice tables the page offers to go back to.
RESUME_SHOWN = 3


def practice_context(user: Any, game: str = DEFAULT_GAME, strength: str = "") -> dict[str, Any]:
    """What the practice form shows (the page's, and the home page's through the
    ``practice_form`` tag): the games and strengths with the chosen ones, and ``user``'s
    unfinished practice tables to go back to."""
    resume = []
    if user is not None and user.is_authenticated:
        resume = list(practice_services.unfinished_practice(user)[:RESUME_SHOWN])
    return {
        "games": Variant.choices,
        "chosen_game": game if is_game(game) else DEFAULT_GAME,
        "strengths": [
            (
                value,
                practice_services.STRENGTH_LABELS[value],
                practice_services.STRENGTH_HINTS[value],
            )
            for value in practice_services.STRENGTHS
        ],
        "chosen_strength": strength
        if strength in practice_services.STRENGTHS
        else practice_services.DEFAULT_STRENGTH,
        "resume": resume,
        "signed_in": user is not None and user.is_authenticated,
    }


@require_http_methods(["GET", "POST"])
def practice(request: HttpRequest) -> HttpResponse:
    """GET: choose a game and the bots' strength. POST: start the practice table and go to
    it; a visitor who is not signed in gets a guest account first (``试玩``), logged in
    through the session. A refusal (too many guests from the address: 429; too many
    practice tables; bad input) shows the page again with the reason, having changed
    nothing."""
    game = request.POST.get("game") or request.GET.get("game") or DEFAULT_GAME
    strength = request.POST.get("strength") or request.GET.get("strength") or ""
    error, status = "", 200
    if request.method == "POST":
        try:
            user = request.user
            if not user.is_authenticated:
                user = guests.create_guest(
                    client_ip(request), language=getattr(request, "LANGUAGE_CODE", "")
                )
                login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            table = practice_services.start_practice(
                user,
                variant=game,
                strength=strength or practice_services.DEFAULT_STRENGTH,
            )
        except (ClubError, MatchError) as refusal:
            error, status = refusal.message, refusal.status
        else:
            return redirect("matches:table", table_id=table.pk)
    context = practice_context(request.user, game, strength)
    context["error"] = error
    return render(request, "matches/practice.html", context, status=status)
