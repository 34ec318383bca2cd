"""The clubs and teams page of a tournament (``/tournaments/<id>/teams/``): the clubs invited
(the organisers invite and take back), a captain's form entering a club's team (an
organiser's names the captain), the teams and the waiting list; a team's roster page
(``teams/<team>/roster/``: its pairs, the form changing them, its history); and the team
standings as CSV (``teams.csv``). Thin: every change goes
through :mod:`tournaments.services.eligibility` and :mod:`tournaments.services.teams`, which
check the roles and every value."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs import services as club_services
from clubs.models import Club, Membership, User
from tournaments import team_exports, team_selectors
from tournaments.models import ClubTeam, Tournament
from tournaments.permissions import can_manage, can_view
from tournaments.services import eligibility
from tournaments.services import teams as team_services
from tournaments.services.errors import NotAllowed, TournamentError
from tournaments.windows import registration_open

#: Most members offered in each player list of the team form.
CANDIDATES_MAX = 500


def _viewer(request: HttpRequest) -> User | None:
    """The signed-in user, or None."""
    return request.user if request.user.is_authenticated else None


def _tournament(request: HttpRequest, pk: int) -> Tournament:
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=pk)
    if not can_view(_viewer(request), tournament):
        club_services.require_club_visible(_viewer(request), tournament.club)
        raise Http404
    return tournament


def _whole(value: str) -> int | None:
    value = (value or "").strip()
    return int(value) if value.isdigit() and len(value) < 10 else None


def _user(value: str) -> User | None:
    number = _whole(value)
    return User.objects.filter(pk=number).first() if number else None


def _club(request: HttpRequest, clubs: list[Club]) -> Club | None:
    """The club chosen in the form (among ``clubs``), else the first."""
    chosen = _whole(request.POST.get("club", "") or request.GET.get("club", ""))
    return next((c for c in clubs if c.pk == chosen), clubs[0] if clubs else None)


def _posted(request: HttpRequest) -> dict[str, str]:
    """The form's posted fields (each cut to 200 characters), to show again beside its
    errors."""
    return {k: request.POST.get(k, "")[:200] for k in request.POST if k != "csrfmiddlewaretoken"}


def _units(request: HttpRequest, tournament: Tournament) -> list[list[User]]:
    """The pairs (or players) chosen in a team form's selects ``unit<i>_<j>``; a pair with
    nobody chosen is left out (the service counts the pairs and refuses a short team)."""
    size = team_services.unit_size(tournament)
    units = []
    for i in range(1, tournament.team_size + 1):
        picked = [_user(request.POST.get(f"unit{i}_{j}", "")) for j in range(1, size + 1)]
        chosen = [p for p in picked if p is not None]
        if chosen:
            units.append(chosen)
    return units


def _enter(request: HttpRequest, tournament: Tournament, club: Club | None) -> None:
    """Read the team form and enter the team (the service refuses every problem at once);
    an organiser names the captain (``captain``: empty, themselves)."""
    if club is None:
        raise TournamentError("not_allowed", _("You are not allowed to do this."))
    team_services.enter_team(
        request.user,  # type: ignore[arg-type]
        tournament,
        club=club,
        name=request.POST.get("name", "")[:200],
        units=_units(request, tournament),
        captain=_user(request.POST.get("captain", "")),
    )


def _act(request: HttpRequest, tournament: Tournament, clubs: list[Club]) -> str:
    """Carry out the POST's ``action``; returns the success message."""
    user: Any = request.user
    action = request.POST.get("action", "")
    if action == "invite":
        club = eligibility.find_club(request.POST.get("slug", ""))
        eligibility.invite_club(user, tournament, club)
        return _("%(club)s is invited.") % {"club": club.name}
    if action == "uninvite":
        club = get_object_or_404(Club, pk=_whole(request.POST.get("club", "")) or 0)
        eligibility.uninvite_club(user, tournament, club)
        return _("The invitation of %(club)s is taken back.") % {"club": club.name}
    if action == "enter_team":
        _enter(request, tournament, _club(request, clubs))
        return _("The team is entered.")
    if action == "withdraw_team":
        team = get_object_or_404(
            ClubTeam, tournament=tournament, pk=_whole(request.POST.get("team", "")) or 0
        )
        team_services.withdraw_team(user, tournament, team)
        return _("The team has withdrawn.")
    raise Http404


def teams_page(request: HttpRequest, pk: int) -> HttpResponse:
    """The page (GET) and its forms (POST): done, the page again with a message; refused,
    the page with every problem beside its field."""
    tournament = _tournament(request, pk)
    user = _viewer(request)
    clubs = team_services.may_captain(user, tournament)
    errors: dict[str, list[str]] = {}
    values: dict[str, str] = {}
    if request.method == "POST":
        if user is None:
            return redirect_to_login(request.get_full_path())
        values = _posted(request)
        try:
            done = _act(request, tournament, clubs)
        except TournamentError as error:
            errors = getattr(error, "fields", None) or {"form": [error.message]}
        else:
            messages.success(request, done)
            return redirect("tournaments:teams", pk=tournament.pk)
    club = _club(request, clubs)
    candidates = _members(club)
    slots = _slots(tournament, values)
    manager = can_manage(user, tournament)
    teams = team_selectors.club_teams(tournament)
    if user is not None and manager and "captain" not in values and club is not None:
        # the organiser captains by default when a member of the club
        values["captain"] = str(user.pk) if any(m.pk == user.pk for m in candidates) else ""
    return render(
        request,
        "tournaments/teams.html",
        {
            "tournament": tournament,
            "can_manage": manager,
            "invited": list(tournament.invited_clubs.order_by("name")),
            "teams": teams,
            "my_teams": [t for t in teams if user is not None and t.captain_id == user.pk],
            "waiting": team_selectors.waiting(tournament),
            "clubs": clubs,
            "club": club,
            "candidates": candidates,
            "slots": slots,
            "pairs": team_services.unit_size(tournament) == 2,
            "may_enter": bool(clubs) and (manager or registration_open(tournament, timezone.now())),
            "errors": errors,
            "values": values,
            "user_id": user.pk if user else None,
            "paired": tournament.rounds.exists(),
        },
        status=400 if errors else 200,
    )


def _members(club: Club | None) -> list[User]:
    """The members of ``club`` offered in a team form's lists, by name (at most
    :data:`CANDIDATES_MAX`)."""
    if club is None:
        return []
    return [
        m.user
        for m in Membership.objects.filter(club=club)
        .select_related("user")
        .order_by("user__display_name", "user__username")[:CANDIDATES_MAX]
    ]


def _slots(tournament: Tournament, values: dict[str, str]) -> list[list[tuple[str, str]]]:
    """A team form's selects, pair by pair: each one's name and the user id chosen."""
    size = team_services.unit_size(tournament)
    return [
        [(f"unit{i}_{j}", values.get(f"unit{i}_{j}", "")) for j in range(1, size + 1)]
        for i in range(1, tournament.team_size + 1)
    ]


def roster_page(request: HttpRequest, pk: int, team: int) -> HttpResponse:
    """A team's roster and its history (whoever sees the tournament), with the form that
    changes the roster for its captain and the organisers (POST: done, the teams page with a
    message; refused, this page with every problem beside its field). The service checks
    the roles and every value."""
    tournament = _tournament(request, pk)
    found = get_object_or_404(
        ClubTeam.objects.select_related("club", "captain"), tournament=tournament, pk=team
    )
    user = _viewer(request)
    errors: dict[str, list[str]] = {}
    current = [e for e in found.entries.order_by("seed", "id") if e.status != "withdrawn"]
    values = {
        f"unit{i}_{j}": str(uid)
        for i, entry in enumerate(current, start=1)
        for j, uid in enumerate(entry.user_ids, start=1)
    }
    if request.method == "POST":
        if user is None:
            return redirect_to_login(request.get_full_path())
        values = _posted(request)
        try:
            change = team_services.change_roster(
                user, tournament, found, _units(request, tournament)
            )
        except NotAllowed as error:
            raise PermissionDenied(error.message) from error
        except TournamentError as error:
            errors = getattr(error, "fields", None) or {"form": [error.message]}
        else:
            messages.success(
                request,
                _("The roster of %(team)s is changed.") % {"team": found.name}
                if change.number
                else _("The roster is as it was: nothing changed."),
            )
            return redirect(
                reverse("tournaments:teams", args=[tournament.pk]) + f"#team-{found.pk}"
            )
    return render(
        request,
        "tournaments/team_roster.html",
        {
            "tournament": tournament,
            "team": found,
            "entries": current,
            "may_change": team_services.may_change(user, found),
            "paired": tournament.rounds.exists(),
            "candidates": _members(found.club),
            "slots": _slots(tournament, values),
            "pairs": team_services.unit_size(tournament) == 2,
            "history": team_selectors.roster_history(found),
            "errors": errors,
        },
        status=400 if errors else 200,
    )


def teams_csv(request: HttpRequest, pk: int) -> HttpResponse:
    """The team standings as a CSV file (UTF-8 with BOM, for Excel)."""
    tournament = _tournament(request, pk)
    text = team_exports.team_standings_csv(tournament)
    response = HttpResponse(text.encode("utf-8"), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="tournament-{tournament.pk}-teams.csv"'
    return response
