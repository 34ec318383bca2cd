"""Web pages of accounts and clubs (filled in below the skeleton)."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.i18n import set_language as django_set_language

from clubs import selectors, services


def set_language(request: HttpRequest) -> HttpResponse:
    """Switch the interface language; a signed-in user's profile remembers the choice."""
    response = django_set_language(request)
    language = request.POST.get("language")
    if request.method == "POST" and request.user.is_authenticated and language:
        try:
            services.update_profile(request.user, language=language)
        except services.ClubError:
            pass
    return response


def home(request: HttpRequest) -> HttpResponse:
    """The start page: the user's clubs and the clubs to discover."""
    my_clubs = selectors.clubs_of_user(request.user) if request.user.is_authenticated else []
    return render(
        request,
        "clubs/home.html",
        {"my_clubs": my_clubs, "clubs": selectors.search_clubs()[:20]},
    )


def invitation(request: HttpRequest, token: str) -> HttpResponse:
    """The page behind an invitation link."""
    return render(request, "clubs/home.html", {"clubs": []})
