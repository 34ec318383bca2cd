"""Error pages: JSON under ``/api/``, translated HTML pages elsewhere. Never a bare 500 page."""

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from games.errors import Refused


def _wants_json(request: HttpRequest) -> bool:
    return request.path.startswith("/api/") or "application/json" in request.headers.get(
        "Accept", ""
    )


def _error(request: HttpRequest, status: int, code: str, message: str) -> HttpResponse:
    if _wants_json(request):
        return JsonResponse({"detail": message, "code": code}, status=status)
    return render(request, "error.html", {"status": status, "message": message}, status=status)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """400: the request could not be understood."""
    return _error(request, 400, "bad_request", _("The request could not be understood."))


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """403: signed in without the needed role, or the CSRF check failed."""
    return _error(request, 403, "not_allowed", _("You are not allowed to do this."))


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """404: no such page, or a refusal that is also a 404 (a members-only club's page to a
    non-member): then its own code and message."""
    if isinstance(exception, Refused):
        return _error(request, 404, exception.code, exception.message)
    return _error(request, 404, "not_found", _("This page does not exist."))


def server_error(request: HttpRequest) -> HttpResponse:
    """500: an unexpected failure (it is logged); the user gets a calm message."""
    return _error(
        request, 500, "server_error", _("Something went wrong on our side. Please try again.")
    )


def nul_character(request: HttpRequest) -> HttpResponse:
    """400: the request carries a NUL character, which no field of this site accepts."""
    return _error(
        request,
        400,
        "nul_character",
        _("The request contains a NUL character, which is not allowed. Remove it and try again."),
    )
