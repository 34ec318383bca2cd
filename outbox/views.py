"""Pages of a user's notifications and e-mail preferences; thin, they call
:mod:`outbox.notices`."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from outbox import notices
from outbox.models import Kind

PAGE_SIZE = 20


@login_required
def notification_list(request: HttpRequest) -> HttpResponse:
    """The signed-in user's notices, newest first, 20 a page; the ones shown are marked read
    (after they are read from the database, so the page still shows which were new)."""
    page = Paginator(notices.notices_of(request.user), PAGE_SIZE).get_page(request.GET.get("page"))
    items = list(page.object_list)
    notices.mark_read(request.user, [n.pk for n in items if n.read_at is None])
    return render(request, "outbox/notifications.html", {"page": page, "items": items})


@login_required
@require_POST
def preferences(request: HttpRequest) -> HttpResponse:
    """Save the profile page's e-mail preferences: a ticked box is a kind e-mailed."""
    notices.set_email_preferences(
        request.user, {kind: f"email_{kind}" in request.POST for kind in Kind.values}
    )
    messages.success(request, _("Your e-mail preferences are saved."))
    return redirect("profile")


# The one-click POST of RFC 8058 comes from the mail client, with no session and no CSRF
# token: the signed token is the proof; a GET only asks, so a link scanner changes nothing.
@csrf_exempt
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """GET: ask to confirm turning the link's kind of e-mail off; POST: turn it off. A bad
    link answers 400 with a translated error and changes nothing."""
    try:
        if request.method == "POST":
            user, kind = notices.unsubscribe(token)
        else:
            user, kind = notices.read_unsubscribe_token(token)
    except notices.NoticeError as error:
        return render(request, "outbox/unsubscribe.html", {"error": error.message}, status=400)
    return render(
        request,
        "outbox/unsubscribe.html",
        {
            "kind": Kind(kind).label,
            "done": request.method == "POST",
            "name": user.name,
            "token": token,
        },
    )


def profile_panel(user: object) -> dict[str, object]:
    """The e-mail preferences section of the profile page (a hook of ``clubs``)."""
    wanted = notices.email_preferences(user)
    return {
        "template": "outbox/_preferences.html",
        "kinds": [(kind, Kind(kind).label, wanted[kind]) for kind in Kind.values],
    }
