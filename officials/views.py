"""Officials pages: a club's events, an event's officials (appoint, remove, the appeal time,
announcements, its appeals), filing an appeal, an appeal and the committee's votes. Thin: every
change goes through :mod:`officials.services` (which checks the actor's current role), every
shared read through :mod:`officials.selectors`."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from clubs import services as club_services
from clubs.models import Club, Membership, User
from games.errors import Refused
from games.variants import game as game_facts
from games.variants import level_names
from leagues import permissions as league_permissions
from leagues.models import FixtureTable, Season
from officials import permissions, selectors, services
from officials.models import (
    MAX_APPEAL_FEE,
    Appeal,
    AppealSubject,
    Audience,
    FeeState,
    Official,
    OfficialRole,
    Panel,
    Verdict,
)
from tournaments.models import Game, Tournament
from tournaments.permissions import can_view


def _viewer(request: HttpRequest) -> User | None:
    """The signed-in user, or None."""
    return request.user if isinstance(request.user, User) else None


def _actor(request: HttpRequest) -> User:
    """The signed-in user of a page only they reach (``login_required``)."""
    user = _viewer(request)
    if user is None:
        raise PermissionDenied
    return user


def _tournament(request: HttpRequest, pk: int) -> Tournament:
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=pk)
    club_services.require_club_visible(_viewer(request), tournament.club)
    if not can_view(_viewer(request), tournament):
        raise Http404
    return tournament


def _season(request: HttpRequest, pk: int) -> Season:
    season = get_object_or_404(Season.objects.select_related("league__host"), pk=pk)
    league_permissions.require_league_visible(_viewer(request), season.league)
    return season


def club_events(request: HttpRequest, slug: str) -> HttpResponse:
    """The club's tournaments and seasons, each linking to its officials page."""
    club = get_object_or_404(Club, slug=slug)
    club_services.require_club_visible(_viewer(request), club)
    tournaments, seasons = selectors.club_events(club)
    return render(
        request,
        "officials/club.html",
        {"club": club, "tournaments": tournaments, "seasons": seasons},
    )


def _members(panel: Any) -> list[User]:
    club = selectors.event_club(panel)
    ids = Membership.objects.filter(club=club).values_list("user_id", flat=True)
    return list(User.objects.filter(pk__in=ids).order_by("username"))


def _event_page(request: HttpRequest, event: Tournament | Season) -> HttpResponse:
    panel = selectors.panel_of(event)
    user = _viewer(request)
    probe = panel or (
        Panel(tournament=event) if isinstance(event, Tournament) else Panel(season=event)
    )
    organiser = permissions.is_organiser(user, probe)
    lines = selectors.officials_of(panel)
    appealable: list[Game] | list[FixtureTable] = []
    if isinstance(event, Tournament):
        appealable = selectors.appealable_games(user, event, timezone.now())
    else:
        appealable = selectors.appealable_tables(user, event, timezone.now())
    context = {
        "event": event,
        "is_tournament": isinstance(event, Tournament),
        "name": selectors.event_name(probe),
        "event_url": selectors.event_url(probe),
        "panel": probe,
        "lines": [
            {
                "line": line,
                "can_remove": user is not None and permissions.can_dismiss(user, line.official),
            }
            for line in lines
        ],
        "organiser": organiser,
        "my_role": permissions.role_of(user, probe) if panel is not None else None,
        "members": _members(probe) if organiser else [],
        "roles": OfficialRole.choices,
        "appeals": list(selectors.appeals_for(user, panel)[:50]),
        "now": timezone.now(),
        "can_appeal": bool(appealable),
        "appeal_new_url": reverse(
            "officials:appeal_new" if isinstance(event, Tournament) else "officials:season_appeal",
            args=[event.pk],
        ),
        "audiences": Audience.choices,
        "divisions": selectors.divisions(probe) if organiser else [],
        "teams": selectors.teams(probe) if organiser else [],
        "announcements": list(panel.announcements.all()[:10]) if panel and organiser else [],
        "committee_size": len(selectors.committee(panel)) if panel else 0,
        "max_fee": MAX_APPEAL_FEE,
        "action_url": "officials:tournament_action"
        if isinstance(event, Tournament)
        else "officials:season_action",
    }
    return render(request, "officials/event.html", context)


def tournament_page(request: HttpRequest, pk: int) -> HttpResponse:
    """A tournament's officials, its appeals and (for the organiser) appointments and
    announcements."""
    return _event_page(request, _tournament(request, pk))


def season_page(request: HttpRequest, pk: int) -> HttpResponse:
    """A league season's officials and (for the organiser) appointments and announcements."""
    return _event_page(request, _season(request, pk))


def _int(value: object) -> int | None:
    try:
        number = int(str(value))
    except ValueError:
        return None
    return number if abs(number) <= 10**9 else None


def _act(request: HttpRequest, event: Tournament | Season, action: str) -> HttpResponse:
    user = _actor(request)
    post = request.POST
    handlers: dict[str, Any] = {
        "appoint": lambda: services.appoint(
            user,
            event,
            User.objects.filter(pk=_int(post.get("user")) or 0).first(),
            post.get("role", ""),
        ),
        "dismiss": lambda: services.dismiss(
            user,
            get_object_or_404(
                Official,
                pk=_int(post.get("official")) or 0,
                panel=selectors.panel_of(event),
            ),
        ),
        "minutes": lambda: (
            services.set_appeal_settings(
                user, event, _int(post.get("appeal_minutes")), _int(post.get("appeal_fee"))
            )
            if "appeal_fee" in post
            else services.set_appeal_minutes(user, event, _int(post.get("appeal_minutes")))
        ),
        "announce": lambda: services.announce(
            user,
            event,
            post.get("audience", ""),
            post.get("subject", ""),
            post.get("text", ""),
            target=post.get("target", ""),
        ),
    }
    handler = handlers.get(action)
    if handler is None:
        raise Http404
    try:
        handler()
    except Refused as error:
        for message in getattr(error, "fields", {}).values() or [error.message]:
            messages.error(request, message)
    else:
        messages.success(request, _("Done."))
    if isinstance(event, Tournament):
        return redirect("officials:tournament", pk=event.pk)
    return redirect("officials:season", pk=event.pk)


@login_required
@require_POST
def tournament_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    """Every button of a tournament's officials page: a POST naming the action."""
    return _act(request, _tournament(request, pk), action)


@login_required
@require_POST
def season_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    """Every button of a season's officials page: a POST naming the action."""
    return _act(request, _season(request, pk), action)


def _appeal_form(
    request: HttpRequest,
    panel: Panel,
    targets: list[tuple[Game | FixtureTable, str]],
    label: str,
) -> HttpResponse:
    """The written appeal's page: one of ``targets`` (the viewer's games or tables still open
    to appeal, with their labels), what it is about, the text; filed through the service."""
    errors: dict[str, str] = {}
    chosen = request.POST.get("target") if request.method == "POST" else request.GET.get("table")
    if request.method == "POST":
        target = next((t for t, _label in targets if t.pk == _int(chosen)), None)
        if target is None:
            errors["target"] = _("Choose one of your games that may still be appealed.")
        else:
            try:
                appeal = services.file_appeal(
                    _actor(request),
                    target,
                    request.POST.get("subject", ""),
                    request.POST.get("text", ""),
                )
            except services.OfficialsError as error:
                errors = error.fields or {"text": error.message}
            else:
                messages.success(request, _("Your appeal was filed with the appeals committee."))
                return redirect("officials:appeal", pk=appeal.pk)
    return render(
        request,
        "officials/appeal_form.html",
        {
            "name": selectors.event_name(panel),
            "officials_url": selectors.officials_url(panel),
            "targets": targets,
            "target_label": label,
            "chosen": str(chosen or ""),
            "subjects": AppealSubject.choices,
            "fee": panel.appeal_fee,
            "errors": errors,
            "posted": request.POST,
        },
        status=400 if errors else 200,
    )


@login_required
def appeal_new(request: HttpRequest, pk: int) -> HttpResponse:
    """A player's written appeal about one of their finished tournament games."""
    tournament = _tournament(request, pk)
    games = selectors.appealable_games(_viewer(request), tournament, timezone.now())
    names = selectors.entry_names(tournament)
    panel = selectors.panel_of(tournament) or Panel(tournament=tournament)
    targets: list[tuple[Game | FixtureTable, str]] = [
        (g, selectors.game_label(g, names)) for g in games
    ]
    return _appeal_form(request, panel, targets, _("Game"))


@login_required
def season_appeal(request: HttpRequest, pk: int) -> HttpResponse:
    """A player's written appeal about a league table they sat at, its fixture finished
    (``?table=<id>`` chooses it: the fixture's page links here)."""
    season = _season(request, pk)
    tables = selectors.appealable_tables(_viewer(request), season, timezone.now())
    panel = selectors.panel_of(season) or Panel(season=season)
    targets: list[tuple[Game | FixtureTable, str]] = [(t, selectors.table_label(t)) for t in tables]
    return _appeal_form(request, panel, targets, _("Table"))


def _score_choices(variant: str) -> list[tuple[int, str]] | None:
    facts = game_facts(variant)
    if not facts.levels:
        return None
    return list(enumerate(level_names(variant)))


def _about(appeal: Appeal) -> tuple[str, str, list[str]]:
    """The appealed game's or table's label, its game variant and its sides' names (a
    league table: home, away)."""
    if appeal.game is not None:
        tournament = appeal.game.round.tournament
        names = selectors.entry_names(tournament)
        sides = [" + ".join(names.get(e, "?") for e in s) for s in appeal.game.sides]
        return selectors.game_label(appeal.game, names), tournament.variant, sides
    assert appeal.table is not None
    fixture = appeal.table.fixture
    sides = [fixture.home.name, fixture.away.name if fixture.away is not None else "–"]
    return selectors.table_label(appeal.table), fixture.round.season.variant, sides


@login_required
def appeal_page(request: HttpRequest, pk: int) -> HttpResponse:
    """An appeal: what was asked, the result before and after, the chief referee's ruling,
    the committee's votes and reasons; the chief referee's ruling form while it may rule, a
    player's form to take a ruling to the committee while in time, a committee member's vote
    form while it is open (the POST's ``form``: ``rule``, ``escalate``, else a vote)."""
    appeal = get_object_or_404(
        Appeal.objects.select_related(
            "panel",
            "filed_by",
            "game__round__tournament__club",
            "table__fixture__round__season",
            "table__fixture__home",
            "table__fixture__away",
        ),
        pk=pk,
    )
    if not permissions.can_read_appeal(_viewer(request), appeal):
        raise Http404
    errors: dict[str, str] = {}
    if request.method == "POST":
        post = request.POST
        try:
            if post.get("form") == "escalate":
                services.escalate(_actor(request), appeal, post.get("text", ""))
                done = _("The ruling goes to the appeals committee.")
            elif post.get("form") == "fee":
                services.mark_fee_received(_actor(request), appeal)
                done = _("The appeal fee is recorded as received.")
            else:
                ruling = post.get("form") == "rule"
                decide = services.rule if ruling else services.cast_vote
                decide(
                    _actor(request),
                    appeal,
                    post.get("verdict", ""),
                    post.get("reason", ""),
                    score0=_int(post.get("score0")),
                    score1=_int(post.get("score1")),
                    winner=_int(post.get("winner")) if post.get("winner") else None,
                )
                done = (
                    _("Your ruling is recorded; the players are told.")
                    if ruling
                    else _("Your vote is recorded.")
                )
        except Refused as error:
            errors = getattr(error, "fields", {}) or {"verdict": error.message}
        else:
            messages.success(request, done)
            return redirect("officials:appeal", pk=appeal.pk)
        appeal.refresh_from_db()
    label, variant, sides = _about(appeal)
    choices = _score_choices(variant)
    labels = dict(choices) if choices else {}

    def shown(score: int | None) -> str:
        return "" if score is None else str(labels.get(score, score))

    votes = [
        {
            "vote": v,
            "score": f"{shown(v.score0)} : {shown(v.score1)}" if v.score0 is not None else "",
        }
        for v in appeal.votes.select_related("member")
    ]
    return render(
        request,
        "officials/appeal.html",
        {
            "appeal": appeal,
            "name": selectors.event_name(appeal.panel),
            "officials_url": selectors.officials_url(appeal.panel),
            "fixture_url": reverse("leagues:fixture", args=[appeal.table.fixture_id])
            if appeal.table is not None
            else "",
            "game_label": label,
            "sides": sides,
            "before": f"{shown(appeal.before0)} : {shown(appeal.before1)}",
            "after": f"{shown(appeal.after0)} : {shown(appeal.after1)}"
            if appeal.after0 is not None
            else "",
            "votes": votes,
            "overdue": appeal.overdue(timezone.now()),
            "ruling_score": f"{shown(appeal.ruling0)} : {shown(appeal.ruling1)}"
            if appeal.ruling0 is not None
            else "",
            "may_rule": permissions.may_rule(_viewer(request), appeal)
            and appeal.status == "open"
            and appeal.fee_state != FeeState.DUE
            and appeal.escalated_at is None
            and not appeal.votes.exists(),
            "may_escalate": appeal.status == "ruled"
            and _viewer(request) is not None
            and _actor(request).pk in permissions.appellants(appeal)
            and timezone.now() <= selectors.escalation_deadline(appeal),
            "escalate_by": selectors.escalation_deadline(appeal) if appeal.ruled_at else None,
            "may_vote": permissions.may_vote(_viewer(request), appeal)
            and appeal.status == "open"
            and appeal.fee_state != FeeState.DUE
            and not appeal.votes.filter(member_id=_actor(request).pk).exists(),
            "committee_size": len(selectors.committee(appeal.panel)),
            "may_mark_fee": appeal.fee_state == FeeState.DUE
            and permissions.may_mark_fee(_viewer(request), appeal),
            "history": selectors.appeal_history(appeal),
            "verdicts": Verdict.choices,
            "score_choices": choices,
            "errors": errors,
            "posted": request.POST,
        },
        status=400 if errors else 200,
    )
