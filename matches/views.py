"""Pages of live play: a club's lobby of tables, a table (live), a finished match's replay.

Thin: forms in, :mod:`matches.services` for changes, :mod:`matches.selectors` for reads.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.functional import SimpleLazyObject
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from clubs import selectors as club_selectors
from clubs import services as club_services
from clubs.client_ip import client_ip
from clubs.models import Club
from clubs.permissions import is_club_admin
from games.variants import DEFAULT_GAME, Variant, page_facts
from matches import selectors
from matches.forms import RefereeForm, SeatForm, TableForm
from matches.hooks import may_sit_clubless, replay_panels, table_panels
from matches.messages import SANCTION_LABELS, TABLE_WORDS, MatchError, refusal_message
from matches.models import Match, MatchStatus, Table
from matches.services import access, play, tables

log = logging.getLogger(__name__)


def lobby(request: HttpRequest, slug: str) -> HttpResponse:
    """A club's tables: open and playing ones with their free seats, recent finished ones,
    and (for members) the form to open a table."""
    club = get_object_or_404(Club, slug=slug)
    club_services.require_club_visible(request.user, club)
    membership = club_selectors.membership_of(request.user, club)
    chosen = request.GET.get("game", DEFAULT_GAME)
    form = TableForm(request.POST or None, variant=chosen) if membership else None
    if request.method == "POST":
        if membership is None or form is None:
            raise PermissionDenied
        if form.is_valid():
            try:
                table = tables.open_table(request.user, club, **form.service_kwargs())
            except MatchError as error:
                form.add_error(None, error.message)
            else:
                return redirect("matches:table", table_id=table.pk)
    return render(
        request,
        "matches/lobby.html",
        {
            "club": club,
            "membership": membership,
            "tables": selectors.lobby_tables(club),
            "finished": selectors.finished_tables(club),
            "form": form,
            "games": Variant.choices,
            "chosen": form.game.variant if form else chosen,
        },
    )


def table(request: HttpRequest, table_id: int) -> HttpResponse:
    """A table: its seats before the match starts, then the live table (static/js/table.js)."""
    table = get_object_or_404(Table.objects.select_related("club"), pk=table_id)
    match = selectors.match_of_table(table)
    try:
        access.require_table_visible(request.user, table, match)
    except MatchError as error:  # seated at a sibling table (the same deals)
        return _refused(request, error)
    seated = request.user.is_authenticated and table.seats.filter(user=request.user).exists()
    if table.club_id is None:  # a club-less table seats its opener and its kind's invitees
        is_member = request.user.is_authenticated and (
            table.created_by_id == request.user.pk or may_sit_clubless(request.user, table)
        )
    else:
        is_member = club_selectors.membership_of(request.user, table.club) is not None
    referee = match is not None and match.status == MatchStatus.PLAYING
    referee = referee and access.may_referee(request.user, table, match)
    return render(
        request,
        "matches/table.html",
        {
            "table": table,
            "match": match,
            "seats": table.seats.select_related("user").order_by("index"),
            "seated": seated,
            "is_member": is_member,
            "can_add_bots": request.user.is_authenticated
            and (table.created_by_id == request.user.pk or _is_admin(request, table)),
            "bot_choices": SeatForm.base_fields["bot"].choices,
            "words": {key: str(value) for key, value in TABLE_WORDS.items()},
            "variant_facts": page_facts(table.variant),
            "referee": _referee_context(match) if referee else None,
            "replay_open": access.replay_open(table, match),
            "panels": table_panels(request, table, match),
        },
    )


def _refused(request: HttpRequest, error: MatchError) -> HttpResponse:
    """The error page (403) with a refusal's translated message."""
    return render(request, "error.html", {"status": 403, "message": error.message}, status=403)


def _seat_names(match: Match) -> list[str]:
    """Each seat's player name; bots by seat ("Bot 2"), so that each is told apart."""
    return [
        info.get("name") or _("Bot {n}").format(n=index + 1)
        for index, info in enumerate(match.seats)
    ]


def _referee_context(match: Match) -> dict[str, Any]:
    """What the referee console offers: the game's sanctions and the seats."""
    return {
        "sanctions": [(s, SANCTION_LABELS[s]) for s in play.referee_sanctions(match.variant)],
        "seats": list(enumerate(_seat_names(match))),
        "reason_length": play.REASON_LENGTH,
    }


@require_POST
def referee(request: HttpRequest, table_id: int) -> HttpResponse:
    """Apply a referee's sanction (a POST from the referee console, static/js/referee.js):
    answers JSON ``{"ok": true, "version"}`` or ``{"detail", "code"}`` with the status."""
    table = get_object_or_404(Table, pk=table_id)
    match = selectors.match_of_table(table)
    form = RefereeForm(request.POST)
    try:
        if match is None:
            raise MatchError("not_started")
        if not form.is_valid():
            raise MatchError("reason_required" if "reason" in form.errors else "bad_sanction")
        data = form.cleaned_data
        accepted = play.referee_sanction(
            request.user, match.pk, data["sanction"], data["target"], data["reason"]
        )
    except MatchError as error:
        status = 403 if error.code == "not_referee" else 400
        return JsonResponse({"detail": error.message, "code": error.code}, status=status)
    return JsonResponse({"ok": True, "version": accepted.version})


def _is_admin(request: HttpRequest, table: Table) -> bool:
    return is_club_admin(request.user, table.club)


@login_required
@require_POST
def seat(request: HttpRequest, table_id: int) -> HttpResponse:
    """Sit down, stand up or add a bot (a POST from the table page)."""
    table = get_object_or_404(Table, pk=table_id)
    form = SeatForm(request.POST)
    if not form.is_valid():
        messages.error(request, MatchError("bad_message").message)
        return redirect("matches:table", table_id=table.pk)
    action, index = form.cleaned_data["action"], form.cleaned_data["seat"]
    try:
        if action == "sit":
            tables.take_seat(request.user, table, index if index is not None else -1)
        elif action == "leave":
            tables.leave_seat(request.user, table)
        else:
            bot = form.cleaned_data["bot"] or "heuristic"
            tables.add_bot(request.user, table, index if index is not None else -1, bot)
    except MatchError as error:
        messages.error(request, error.message)
    return redirect("matches:table", table_id=table.pk)


def replay(request: HttpRequest, table_id: int) -> HttpResponse:
    """Step through every action of a finished match with all hands shown, once every
    table playing the same deals has finished (:func:`access.require_replay_visible`; until
    then 403 with the reason, for everyone). Its steps are built and serialised once per
    match version (cached); a client asking for more than ``MATCHES_REPLAYS_PER_MINUTE``
    replay pages a minute gets 429."""
    if not _replay_allowed(request):
        return HttpResponse(
            refusal_message("rate_limited"), status=429, content_type="text/plain; charset=utf-8"
        )
    table = get_object_or_404(Table.objects.select_related("club"), pk=table_id)
    match = selectors.match_of_table(table)
    try:
        access.require_replay_visible(request.user, table, match)
    except MatchError as error:
        if error.code == "not_finished":
            raise Http404 from None
        return _refused(request, error)  # seated at a sibling, or a sibling still playing
    scripts = selectors.replay_scripts(match)
    # the steps as objects, built only if a caller of the context asks (the page does not)
    steps = SimpleLazyObject(lambda: selectors.replay_frames(match))
    return render(
        request,
        "matches/replay.html",
        {
            "table": table,
            "match": match,
            "steps_script": mark_safe(scripts["steps"]),  # json_script's escaped output
            "orders_script": mark_safe(scripts["orders"]),
            "steps": steps,
            "orders": SimpleLazyObject(lambda: selectors.replay_card_orders(match, steps)),
            "panels": replay_panels(request, table, match),
            "names": {
                **{key: str(TABLE_WORDS[key]) for key in TABLE_WORDS},
                "seats": _seat_names(match),
            },
        },
    )


def _replay_allowed(request: HttpRequest) -> bool:
    """Count a replay request of the client's address in this minute; False over the limit.
    The cache away: allowed (logged)."""
    key = f"matches:replays:{client_ip(request) or ''}:{int(time.time() // 60)}"
    try:
        cache.add(key, 0, 120)
        count = cache.incr(key)
    except Exception:  # a cache failure never stops a page
        log.warning("replay rate limit unavailable (cache)")
        return True
    return count <= settings.MATCHES_REPLAYS_PER_MINUTE
