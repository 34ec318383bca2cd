"""Pages of friends' tables (好友房): open one, join by code, the invitation link (with its
chat preview), the host taking someone off a seat. Thin: :mod:`friends.services` decides."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.templatetags.static import static
from django.urls import reverse
from django.views.decorators.http import require_POST

from clubs.client_ip import client_ip
from friends import links, services
from friends.errors import FriendsError
from games.errors import Refused
from games.variants import Variant
from matches.models import Table


def _home(request: HttpRequest, error: str = "", code: str = "", status: int = 200) -> HttpResponse:
    return render(
        request,
        "friends/home.html",
        {
            "games": Variant.choices,
            "guest": services.is_guest(request.user),
            "error": error,
            "code": code,
        },
        status=status,
    )


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """好友房: one button per game opens a friends' table; a form joins one by its code."""
    return _home(request)


@login_required
@require_POST
def open_room(request: HttpRequest) -> HttpResponse:
    """Open a friends' table of the posted game and go to it."""
    try:
        room = services.open_room(request.user, variant=request.POST.get("variant", ""))
    except Refused as error:
        return _home(request, error=error.message, status=error.status)
    return redirect("matches:table", table_id=room.table_id)


@login_required
@require_POST
def join(request: HttpRequest) -> HttpResponse:
    """Join a friends' table by its 6-digit code (look-ups rate-limited per user and client
    address); a wrong code shows the form again with the reason."""
    code = request.POST.get("code", "")[:32]
    try:
        table = services.join_by_code(request.user, code, client_ip(request))
    except Refused as error:
        return _home(request, error=error.message, code=code, status=error.status)
    return redirect("matches:table", table_id=table.pk)


def invitation(request: HttpRequest, token: str) -> HttpResponse:
    """The page behind an invitation link. Signed in: come in (seated while the table waits)
    and go to the table. Otherwise — and for a chat app fetching the link's preview — a
    page with the Open Graph title, description and image in the viewer's language, and
    log-in and sign-up buttons that come back here."""
    room = services.room_by_token(token)
    error = ""
    if room is not None and request.user.is_authenticated and not services.is_guest(request.user):
        try:
            table = services.join_by_link(request.user, token)
        except FriendsError as refused:
            error = refused.message
        else:
            return redirect("matches:table", table_id=table.pk)
    if room is None:
        error = FriendsError("bad_link").message
    ended = room is not None and room.table.status not in services.ACTIVE
    if ended and not error:
        error = FriendsError("ended").message
    return render(
        request,
        "friends/invitation.html",
        {
            "room": room,
            "ended": ended,
            "error": error,
            "guest": services.is_guest(request.user),
            "title": links.invitation_title(room) if room else "",
            "description": links.invitation_text(room) if room else "",
            "page_url": links.absolute(request, request.path),
            "image_url": links.absolute(request, static("img/friends-og.png")),
        },
        status=404 if room is None else 200,
    )


@login_required
@require_POST
def remove(request: HttpRequest, table_id: int) -> HttpResponse:
    """The host takes the occupant off a seat before the first deal."""
    table = get_object_or_404(Table, pk=table_id)
    try:
        seat = int(request.POST.get("seat", ""))
    except ValueError:
        seat = -1
    try:
        services.remove_occupant(request.user, table, seat)
    except Refused as error:
        messages.error(request, error.message)
    return redirect(reverse("matches:table", kwargs={"table_id": table.pk}))
