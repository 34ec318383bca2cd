"""Web pages of score sheets: start a sheet, the sheet itself (a phone page driven by
``static/js/scoresheet.js`` over the REST API), and a club's sheets with its disputes."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext_lazy as _

from clubs import selectors as club_selectors
from clubs.models import Club
from clubs.services import NotFound
from games.variants import GAMES, Variant, game, page_facts
from sheets import permissions as perms
from sheets import selectors, services

#: The Cache Storage the service worker keeps sheet pages in (the page adds itself to it).
SHEET_CACHE = "bao2-sheets-v1"
#: Seats the start form offers: as many as the largest game has.
FORM_SEATS = max(g.seats for g in GAMES.values())


class StartSheetForm(forms.Form):
    """The game, four seats (member or guest name; two-player Shuangkou uses the first two),
    and the options."""

    variant = forms.ChoiceField(label=_("Game"), choices=Variant.choices)
    colour_twos = forms.BooleanField(
        label=_("Colour 2s (red 2s count two levels; Bao 2)"), required=False
    )
    time_limit_minutes = forms.IntegerField(
        label=_("Time limit in minutes (0: none)"), min_value=0, max_value=600, initial=60
    )
    deals = forms.IntegerField(
        label=_("Deals (Red Two, Shuangkou)"), min_value=1, max_value=100, initial=8
    )
    rated = forms.BooleanField(label=_("Counts for the ladder"), required=False, initial=True)

    def __init__(self, *args: Any, club: Club, **kwargs: Any) -> None:
        """Add the seats (as many as the largest game has), offering the club's members."""
        super().__init__(*args, **kwargs)
        members = [("", "—")] + [
            (str(m.user_id), m.user.name) for m in club_selectors.members_of(club)
        ]
        for seat in range(FORM_SEATS):
            self.fields[f"seat{seat}_user"] = forms.ChoiceField(
                label=_("Seat %(n)d: member") % {"n": seat + 1}, choices=members, required=False
            )
            self.fields[f"seat{seat}_guest"] = forms.CharField(
                label=_("or guest name"), max_length=60, required=False
            )

    def players(self) -> list[services.PlayerSpec]:
        """The seats the chosen game uses."""
        out = []
        for seat in range(game(self.cleaned_data["variant"]).seats):
            user = self.cleaned_data.get(f"seat{seat}_user") or ""
            guest = self.cleaned_data.get(f"seat{seat}_guest") or ""
            out.append(services.PlayerSpec(int(user) if user else None, guest))
        return out

    def options(self) -> dict[str, Any]:
        """The engine options of the chosen game."""
        variant = self.cleaned_data["variant"]
        wanted = game(variant).sheet_options
        out: dict[str, Any] = {}
        if "colour_twos" in wanted:
            out["colour_twos"] = bool(self.cleaned_data.get("colour_twos"))
        if "time_limit_minutes" in wanted:
            out["time_limit_minutes"] = self.cleaned_data["time_limit_minutes"]
        if "deals" in wanted:
            out["deals"] = self.cleaned_data["deals"]
        return out


@login_required
def sheet_new(request: HttpRequest, slug: str) -> HttpResponse:
    """Start a score sheet for a club (members)."""
    club = get_object_or_404(Club, slug=slug)
    if not perms.can_start(request.user, club):
        raise PermissionDenied
    form = StartSheetForm(request.POST or None, club=club)
    if request.method == "POST" and form.is_valid():
        try:
            sheet = services.start_sheet(
                request.user,
                club,
                variant=form.cleaned_data["variant"],
                players=form.players(),
                options=form.options(),
                rated=form.cleaned_data["rated"],
            )
        except services.SheetError as error:
            form.add_error(None, error.message)
        else:
            return redirect("scoresheet:sheet", pk=sheet.pk)
    return render(request, "sheets/new.html", {"club": club, "form": form})


@login_required
def sheet_page(request: HttpRequest, pk: int) -> HttpResponse:
    """The score sheet: both sides' levels large, the next level card, the clock, deal entry,
    undo, the record, confirmation and dispute."""
    try:
        sheet = services.get_sheet(request.user, pk)
    except NotFound:
        raise Http404 from None
    return render(
        request,
        "sheets/sheet.html",
        {
            "sheet": sheet,
            "data": selectors.sheet_json(sheet, request.user),
            "facts": page_facts(sheet.variant),
            "cache": SHEET_CACHE,
        },
    )


@login_required
def club_sheets(request: HttpRequest, slug: str) -> HttpResponse:
    """A club's score sheets (members); disputed ones first, for the admins to settle."""
    club = get_object_or_404(Club, slug=slug)
    if not perms.is_member(request.user, club):
        raise PermissionDenied
    return render(
        request,
        "sheets/club_sheets.html",
        {
            "club": club,
            "disputed": selectors.disputed_sheets(club),
            "sheets": selectors.sheets_of_club(club)[:100],
            "is_admin": club_selectors.role_of(request.user, club) in ("owner", "admin"),
        },
    )


def service_worker(request: HttpRequest) -> HttpResponse:
    """The score sheets' service worker (public: it holds no data). Its scope is
    ``/matches/sheets/``: a sheet page and the files it uses are kept on the phone and served
    from there when the network fails, so a sheet reloads at a table without signal."""
    response = render(
        request,
        "sheets/sw.js",
        {"cache": SHEET_CACHE},
        content_type="text/javascript; charset=utf-8",
    )
    response["Cache-Control"] = "no-cache"  # a new release's worker is picked up at once
    return response
