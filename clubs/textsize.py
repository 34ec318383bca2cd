"""Every page's text size (issue 43, point 2): 标准 / 大 / 特大.

A signed-in person's size (a guest's too: guests are user rows) lives on ``User.text_size``;
a visitor without an account keeps it in the ``text_size`` cookie. ``templates/base.html`` puts
the class :func:`css_class` names on ``<html>``, and ``static/css/site.css`` sizes every page
(the live table included) from it.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from clubs.models import TextSize

COOKIE = "text_size"
COOKIE_AGE = 365 * 24 * 3600
SIZES = tuple(TextSize.values)


def size_of(request: HttpRequest) -> str:
    """The request's text size: the user's own, else the cookie's, else the standard size."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        value = getattr(user, "text_size", "")
    else:
        value = request.COOKIES.get(COOKIE, "")
    return value if value in SIZES else TextSize.STANDARD


def css_class(request: HttpRequest) -> str:
    """The class on ``<html>``: ``text-standard``, ``text-large`` or ``text-xlarge``."""
    return f"text-{size_of(request)}"


def set_text_size(user: object, size: str) -> None:
    """Remember ``size`` for a signed-in user (a guest too); a bad size raises ``ValueError``
    and changes nothing."""
    if size not in SIZES:
        raise ValueError(size)
    if getattr(user, "is_authenticated", False) and user.text_size != size:  # type: ignore[attr-defined]
        user.text_size = size  # type: ignore[attr-defined]
        user.save(update_fields=["text_size"])  # type: ignore[attr-defined]


@require_POST
def set_text_size_view(request: HttpRequest) -> HttpResponse:
    """POST ``size`` (and ``next``): remember the text size for this person and this browser.

    A script's request (``Accept: application/json``) gets ``{"size": ...}``; a form is sent
    back to ``next`` (a page of this site only). A size that does not exist answers 400 with a
    translated message and changes nothing.
    """
    size = request.POST.get("size", "")
    wants_json = "application/json" in request.headers.get("Accept", "")
    try:
        set_text_size(request.user, size)
    except ValueError:
        message = _("There is no such text size.")
        if wants_json:
            return JsonResponse({"code": "bad_text_size", "message": message}, status=400)
        return HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")
    if wants_json:
        response: HttpResponse = JsonResponse({"size": size})
    else:
        target = request.POST.get("next", "")
        if not url_has_allowed_host_and_scheme(
            target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        ):
            target = "/"
        response = HttpResponseRedirect(target)
    response.set_cookie(
        COOKIE, size, max_age=COOKIE_AGE, samesite="Lax", secure=request.is_secure()
    )
    return response
