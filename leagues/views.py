"""League pages (phone-first): leagues, a league, a season with its divisions' standings, a
round's fixtures, a fixture (times, line-ups, tables, corrections), a team, "my next
fixture", the iCalendar feeds and CSV exports. Thin: every change is a service call (which
checks the permission), every shared read a selector."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_date
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from django.views.decorators.http import require_POST

from clubs.forms import show_refusal
from clubs.models import Club, Membership, User
from clubs.permissions import is_club_admin
from clubs.views import club_page_sections
from games import endings
from leagues import bridge, exports, selectors
from leagues.forms import (
    InviteForm,
    LeagueForm,
    LineUpForm,
    NextSeasonForm,
    ProposeForm,
    RosterForm,
    SeasonForm,
    TableResultForm,
    TeamForm,
)
from leagues.models import (
    Entry,
    EntryKind,
    Fixture,
    FixtureStatus,
    FixtureTable,
    League,
    Round,
    RoundStatus,
    Season,
    SeasonStatus,
)
from leagues.permissions import (
    acts_for,
    can_manage,
    can_manage_entry,
    may_enter,
    require_league_visible,
    visible_leagues_filter,
)
from leagues.services import entries, fixtures, play, setup
from leagues.services.errors import LeagueError


def _refused(request: HttpRequest, error: LeagueError) -> None:
    messages.error(request, error.message)


def _run(request: HttpRequest, action: Callable[[], Any], done: str) -> bool:
    """Call a service; say what happened (its refusal, translated, or ``done``)."""
    try:
        action()
    except LeagueError as error:
        _refused(request, error)
        return False
    messages.success(request, done)
    return True


def _admin_clubs(user: Any) -> list[Club]:
    """The clubs ``user`` is an owner or admin of."""
    if not user.is_authenticated:
        return []
    memberships = Membership.objects.filter(user=user).select_related("club")
    return [m.club for m in memberships if is_club_admin(user, m.club)]


def league_list(request: HttpRequest) -> HttpResponse:
    """Every league, the clubs the user may start one for, and the user's next fixture."""
    admin_clubs = _admin_clubs(request.user)
    return render(
        request,
        "leagues/league_list.html",
        {
            "leagues": League.objects.filter(visible_leagues_filter(request.user)).select_related(
                "host"
            )[:100],
            "admin_clubs": admin_clubs,
            "next": selectors.next_fixture(request.user),
        },
    )


@login_required
def league_create(request: HttpRequest, slug: str) -> HttpResponse:
    """A club admin starts a league of their club."""
    club = get_object_or_404(Club, slug=slug)
    form = LeagueForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            league = setup.create_league(request.user, club, **form.cleaned_data)
        except LeagueError as error:
            show_refusal(form, error)
        else:
            return redirect("leagues:league", league.pk)
    return render(request, "leagues/form.html", {"form": form, "title": _("New league")})


def league_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A league: its seasons, invited clubs and (for its organisers) the invitation form."""
    league = get_object_or_404(League.objects.select_related("host"), pk=pk)
    require_league_visible(request.user, league)
    invite = InviteForm(request.POST or None)
    if request.method == "POST" and invite.is_valid():
        club = invite.cleaned_data["slug"]
        _run(
            request,
            lambda: setup.invite_club(request.user, league, club),
            _("%(club)s is invited.") % {"club": club.name},
        )
        return redirect("leagues:league", league.pk)
    return render(
        request,
        "leagues/league.html",
        {
            "league": league,
            "seasons": league.seasons.all(),
            "invited": league.invited_clubs.all(),
            "manage": can_manage(request.user, league),
            "invite": invite,
        },
    )


@login_required
def season_create(request: HttpRequest, pk: int) -> HttpResponse:
    """The league's organisers create a season."""
    league = get_object_or_404(League, pk=pk)
    if not can_manage(request.user, league):
        raise Http404
    form = SeasonForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            season = setup.create_season(request.user, league, **form.cleaned_data)
        except LeagueError as error:
            show_refusal(form, error)
        else:
            return redirect("leagues:season", season.pk)
    return render(request, "leagues/form.html", {"form": form, "title": _("New season")})


def _season(request: HttpRequest, pk: int) -> Season:
    """Season ``pk``, if the user may see its league (else 404)."""
    season = get_object_or_404(Season.objects.select_related("league__host"), pk=pk)
    require_league_visible(request.user, season.league)
    return season


def _number(value: float) -> str:
    """A standings number: whole numbers without decimals, halves with one."""
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def _columns(season: Season) -> list[str]:
    """The numbers a season's standings show after the place and the name: games played,
    wins when they break ties, match points, and the difference when it does."""
    tiebreaks = season.tiebreaks
    shown = {"wins": "wins" in tiebreaks, "diff": "level_diff" in tiebreaks}
    return [c for c in ("played", "wins", "points", "diff") if shown.get(c, True)]


def _standings_tables(season: Season) -> list[dict[str, Any]]:
    """Each division's name and the HTML of its standings lines. The lines are written here
    with ``format_html``, not by the template: for a season of 240 entries a template loop
    costs many times more."""
    entry_url = reverse("leagues:entry", args=[0])[:-2]  # one reverse for every line
    withdrawn = format_html(' <span class="badge">{}</span>', _("withdrawn"))
    columns = _columns(season)
    line_html = (
        '<tr><td class="num">{}</td><td class="names"><a href="{}">{}</a>{}</td>'
        + '<td class="num">{}</td>' * len(columns)
        + "</tr>\n"
    )

    def cells(line: dict[str, Any]) -> tuple[Any, ...]:
        values = {
            "played": line["played"],
            "wins": line["wins"],
            "points": _number(line["values"].get("match_points", 0)),
            "diff": _number(line["values"].get("level_diff", 0)),
        }
        badge = withdrawn if line["withdrawn"] else ""
        url = f"{entry_url}{line['entry']}/"
        return (line["place"], url, line["name"], badge, *(values[c] for c in columns))

    return [
        {
            "name": table["name"],
            "lines": format_html_join("", line_html, map(cells, table["lines"])),
        }
        for table in selectors.season_table(season)
    ]


def round_status(status: str) -> str:
    """A round's state in the glossary's words: a round whose fixtures are drawn but whose
    window has not opened is 已编排 (scheduled), never 平 (the model's label "Drawn" shares
    its msgid with a drawn game)."""
    if status == RoundStatus.DRAWN:
        return pgettext("league round status", "Drawn")
    return str(RoundStatus(status).label)


def _round_rows(season: Season) -> list[dict[str, Any]]:
    """The season's rounds as its page lists them (one reverse for all)."""
    round_url = reverse("leagues:round", args=[season.pk, 0])[:-2]
    return [
        {
            "number": r.number,
            "url": f"{round_url}{r.number}/",
            "window": f"{r.opens_on:%Y-%m-%d} – {r.closes_on:%Y-%m-%d}",
            "status": round_status(r.status),
        }
        for r in season.rounds.all()
    ]


def _setup_divisions(season: Season, user: Any) -> list[dict[str, Any]]:
    """A draft season's divisions with their entries, for its organisers to remove an empty
    division or move entries between them (nothing otherwise)."""
    if season.status != SeasonStatus.DRAFT or not can_manage(user, season.league):
        return []
    divisions = list(season.divisions.all())
    entries_of: dict[int, list[Entry]] = {d.pk: [] for d in divisions}
    for entry in Entry.objects.filter(season=season).order_by("seed", "id"):
        entries_of.setdefault(entry.division_id, []).append(entry)
    return [
        {
            "division": d,
            "entries": entries_of[d.pk],
            "others": [o for o in divisions if o.pk != d.pk],
        }
        for d in divisions
    ]


def season_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A season: each division's standings, the rounds with their windows, and the forms
    its organisers and the entering clubs' admins use. The standings' HTML is cached per
    language under the season's standings key (renewed by every change they show): a read
    of unchanged standings neither queries nor renders them."""
    season = _season(request, pk)
    clubs = []
    if season.status != SeasonStatus.CLOSED:
        clubs = [c for c in _admin_clubs(request.user) if may_enter(c, season.league)]
    return render(
        request,
        "leagues/season.html",
        {
            "season": season,
            "ending": endings.ending_text(
                season.variant, season.deals or None, season.time_limit_minutes
            ),
            # called by the template only when its cached standings fragment is missing
            "divisions": lambda: _standings_tables(season),
            "standings_seconds": selectors.STANDINGS_SECONDS,
            "columns": _columns(season),
            "rounds": _round_rows(season),
            "manage": can_manage(request.user, season.league),
            "setup_divisions": _setup_divisions(season, request.user),
            "next_form": NextSeasonForm(),
            "clubs": clubs,
            # only a pair season has partners to wait for: a team season's page spares the query
            "pending": selectors.pending_pairs(season)
            if season.entry_kind == EntryKind.PAIR
            else [],
        },
    )


@require_POST
@login_required
def season_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    """Start or close a season, add or remove a division, move an entry to another division,
    or propose the next season from a closed one (organisers)."""
    season = _season(request, pk)
    actions = {
        "start": (lambda: setup.start_season(request.user, season), _("The season has started.")),
        "close": (lambda: setup.close_season(request.user, season), _("The season is closed.")),
        "division": (
            lambda: setup.add_division(request.user, season, request.POST.get("name", "")),
            _("The division is added."),
        ),
    }
    if action in ("remove_division", "move_entry"):
        division = get_object_or_404(season.divisions, pk=request.POST.get("division") or 0)
        if action == "remove_division":
            _run(
                request,
                lambda: setup.remove_division(request.user, season, division),
                _("%(division)s is removed.") % {"division": division.name},
            )
        else:
            entry = get_object_or_404(Entry, season=season, pk=request.POST.get("entry") or 0)
            _run(
                request,
                lambda: setup.move_entry(request.user, entry, division),
                _("%(entry)s is moved to %(division)s.")
                % {"entry": entry.name, "division": division.name},
            )
        return redirect("leagues:season", season.pk)
    if action == "next":
        form = NextSeasonForm(request.POST)
        if not form.is_valid():
            messages.error(request, _("Give the next season a name and its first day."))
            return redirect("leagues:season", season.pk)
        made: list[Season] = []
        data = form.cleaned_data
        if _run(
            request,
            lambda: made.append(setup.next_season(request.user, season, **data)),
            _("The next season is proposed: change anything before you start it."),
        ):
            return redirect("leagues:season", made[0].pk)
        return redirect("leagues:season", season.pk)
    if action not in actions:
        raise Http404
    call, done = actions[action]
    _run(request, call, done)
    return redirect("leagues:season", season.pk)


@login_required
def team_create(request: HttpRequest, pk: int, slug: str) -> HttpResponse:
    """An entering club's admin enters a team (or, in a pair / single season, players)."""
    season = _season(request, pk)
    club = get_object_or_404(Club, slug=slug)
    members = entries.entry_candidates(request.user, season, club)
    form = TeamForm(request.POST or None, members=members, divisions=list(season.divisions.all()))
    if season.entry_kind != EntryKind.TEAM:
        form.fields["players"].help_text = _("Choose the pair's two players, or one player.")
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        users = {u.pk: u for u in members}
        chosen = [users[i] for i in data["players"]]
        division = season.divisions.filter(pk=data["division"]).first()

        def enter() -> Entry:
            if season.entry_kind == EntryKind.TEAM:
                return entries.enter_team(
                    request.user,
                    season,
                    club,
                    name=data["name"],
                    captain=users[data["captain"]],
                    players=chosen,
                    division=division,
                )
            return entries.enter_players(
                request.user, season, club, players=chosen, division=division
            )

        if _run(request, enter, _("The entry is in.")):
            return redirect("leagues:season", season.pk)
    return render(
        request,
        "leagues/form.html",
        {"form": form, "title": _("Enter a team of %(club)s") % {"club": club.name}},
    )


def round_detail(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """A round's fixtures with their agreed times (and the host's club night form)."""
    season = _season(request, pk)
    rnd = get_object_or_404(Round, season=season, number=number)
    manage = can_manage(request.user, season.league)
    form = ProposeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        when = form.cleaned_data["when"]
        _run(
            request,
            lambda: fixtures.set_club_night(request.user, rnd, when),
            _("The club night is set for every fixture of the round."),
        )
        return redirect("leagues:round", season.pk, rnd.number)
    return render(
        request,
        "leagues/round.html",
        {
            "season": season,
            "round": rnd,
            "fixtures": rnd.fixtures.select_related("home", "away", "division"),
            "manage": manage,
            "form": form,
        },
    )


def _fixture(request: HttpRequest, pk: int) -> Fixture:
    """Fixture ``pk``, if the user may see its league (else 404)."""
    fixture = get_object_or_404(
        Fixture.objects.select_related(
            "round__season__league__host", "division", "home__team", "away__team"
        ),
        pk=pk,
    )
    require_league_visible(request.user, fixture.round.season.league)
    return fixture


def _table_link(table: FixtureTable) -> str:
    """The page playing a fixture's table: its live table, or its score sheet."""
    if table.table_ref:
        return bridge.table_url(table.table_ref)
    if table.sheet_ref:
        return bridge.sheet_url(table.sheet_ref)
    return ""


#: Sections apps above the leagues add to a fixture's page (the officials' appeals): a
#: template at one of these paths is included, with ``fixture`` in its context, when it exists.
FIXTURE_PAGE_SECTIONS = ("officials/_fixture_section.html",)


def fixture_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A fixture: its time (propose / accept), the line-ups the user may read, the
    captain's line-up form, its tables and result, and the organiser's corrections."""
    fixture = _fixture(request, pk)
    season = fixture.round.season
    mine = fixtures.side_of(request.user, fixture)
    lineup_form = None
    if mine is not None and season.entry_kind == EntryKind.TEAM and fixture.away_id:
        roster = [m.user for m in mine.team.members.select_related("user")]
        lineup_form = LineUpForm(roster=roster, tables=season.team_tables, prefix="lineup")
    return render(
        request,
        "leagues/fixture.html",
        {
            "fixture": fixture,
            "season": season,
            "mine": mine,
            "can_accept": mine is not None
            and fixture.status == FixtureStatus.PROPOSED
            and fixture.proposed_by_id != mine.pk,
            "propose": ProposeForm(prefix="time") if mine is not None else None,
            "lineup_form": lineup_form,
            "lineups": selectors.visible_lineups(request.user, fixture),
            "revealed": selectors.lineup_revealed(fixture),
            "tables": [(table, _table_link(table)) for table in fixture.tables.all()],
            "manage": can_manage(request.user, season.league),
            "sections": club_page_sections(FIXTURE_PAGE_SECTIONS),
        },
    )


@require_POST
@login_required
def fixture_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    """Propose or accept a time, submit a line-up (sides); correct a table, award a
    forfeit (organisers). Refusals come back as messages on the fixture's page."""
    fixture = _fixture(request, pk)
    user: User = request.user  # type: ignore[assignment]
    if action == "propose":
        form = ProposeForm(request.POST, prefix="time")
        if form.is_valid():
            when = form.cleaned_data["when"]
            _run(request, lambda: fixtures.propose_time(user, fixture, when), _("Time proposed."))
        else:
            messages.error(request, _("Give a date and time."))
    elif action == "accept":
        _run(request, lambda: fixtures.accept_time(user, fixture), _("Time agreed."))
    elif action == "lineup":
        mine = fixtures.side_of(user, fixture)
        if mine is None or not mine.team_id:
            raise Http404
        roster = {m.user_id: m.user for m in mine.team.members.select_related("user")}
        form = LineUpForm(
            request.POST,
            roster=list(roster.values()),
            tables=fixture.round.season.team_tables,
            prefix="lineup",
        )
        if form.is_valid():
            pairs = [[roster[a], roster[b]] for a, b in form.pairs()]
            _run(
                request,
                lambda: fixtures.submit_lineup(user, fixture, pairs),
                _("Line-up submitted."),
            )
        else:
            messages.error(request, _("Choose two players for every table."))
    elif action == "correct":
        form = TableResultForm(request.POST)
        table = fixture.tables.filter(number=request.POST.get("table") or 0).first()
        if form.is_valid() and table is not None:
            data = form.cleaned_data
            _run(
                request,
                lambda: play.correct_table(user, table, data["home_score"], data["away_score"]),
                _("The result is corrected."),
            )
        else:
            messages.error(request, _("A score is a whole number from 0 to 100000."))
    elif action == "extend":
        until = parse_date(request.POST.get("until", "") or "")
        if until is None:
            messages.error(request, _("Give a date."))
        else:
            _run(
                request,
                lambda: fixtures.extend(user, fixture, until),
                _("The fixture is extended."),
            )
    elif action == "award":
        winner = {"home": 0, "away": 1, "none": None}.get(request.POST.get("winner", ""), -1)
        _run(request, lambda: play.award(user, fixture, winner), _("The fixture is decided."))
    else:
        raise Http404
    return redirect("leagues:fixture", fixture.pk)


def entry_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A team (or pair): its roster, captain and results, and its calendar; a pending pair's
    partner answers its invitation here."""
    entry = get_object_or_404(
        Entry.objects.select_related("season__league", "team", "player1", "player2"), pk=pk
    )
    require_league_visible(request.user, entry.season.league)
    roster = []
    if entry.team_id:
        roster = [m.user for m in entry.team.members.select_related("user")]
    return render(
        request,
        "leagues/entry.html",
        {
            "entry": entry,
            "roster": roster,
            "fixtures": selectors.fixtures_of_entry(entry),
            "captain": acts_for(request.user, entry),
            "asked": entry.answer_by is not None and entry.player2_id == request.user.pk,
            "can_edit": bool(entry.team_id) and can_manage_entry(request.user, entry),
        },
    )


@require_POST
@login_required
def entry_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    """A pending pair's partner accepts or declines; a player withdraws the invitation."""
    entry = get_object_or_404(Entry.objects.select_related("season"), pk=pk)
    season = entry.season
    actions = {
        "accept": (
            lambda: entries.answer_invitation(request.user, entry, accept=True),
            _("You have accepted: the pair is entered."),
        ),
        "decline": (
            lambda: entries.answer_invitation(request.user, entry, accept=False),
            _("You have declined the invitation."),
        ),
        "withdraw": (
            lambda: entries.withdraw(request.user, entry),
            _("The entry is withdrawn."),
        ),
    }
    if action not in actions:
        raise Http404
    call, done = actions[action]
    if _run(request, call, done) and action != "accept":
        return redirect("leagues:season", season.pk)
    return redirect("leagues:entry", pk)


@login_required
def roster_edit(request: HttpRequest, pk: int) -> HttpResponse:
    """A team's roster: its captain, its club's admins and the host club's admins add and
    remove players and change the captain (``entries.set_roster`` checks every rule), or
    withdraw the team."""
    entry = get_object_or_404(
        Entry.objects.select_related("season__league__host", "team__captain", "club"),
        pk=pk,
        team__isnull=False,
    )
    user: User = request.user  # type: ignore[assignment]
    if not can_manage_entry(user, entry):
        raise Http404
    team = entry.team
    eligible = entries.eligible_players(team)
    roster = list(team.members.values_list("user_id", flat=True))
    withdrawing = request.method == "POST" and "withdraw" in request.POST
    form = RosterForm(
        request.POST if request.method == "POST" and not withdrawing else None,
        eligible=eligible,
        initial={"players": roster, "captain": team.captain_id},
    )
    if withdrawing:
        if request.POST.get("confirm") != "1":
            messages.error(request, _("Tick the box to confirm the withdrawal."))
        elif _run(request, lambda: entries.withdraw(user, entry), _("The entry has withdrawn.")):
            return redirect("leagues:season", entry.season_id)
    elif form.is_valid():
        by_pk = {u.pk: u for u in eligible}
        chosen = [by_pk[i] for i in form.cleaned_data["players"]]
        captain = by_pk[form.cleaned_data["captain"]]
        if _run(
            request,
            lambda: entries.set_roster(user, team, chosen, captain=captain),
            _("The roster is saved."),
        ):
            return redirect("leagues:entry", entry.pk)
    low, high = entries.roster_bounds(entry.season)
    return render(
        request,
        "leagues/roster.html",
        {"entry": entry, "form": form, "low": low, "high": high},
    )


@login_required
def my_fixtures(request: HttpRequest) -> HttpResponse:
    """The user's next fixture, every fixture of theirs, and their calendar's address."""
    user: User = request.user  # type: ignore[assignment]
    return render(
        request,
        "leagues/mine.html",
        {
            "next": selectors.next_fixture(user),
            "fixtures": selectors.fixtures_of_user(user)[:200],
            "calendar": request.build_absolute_uri(
                f"/leagues/players/{user.pk}/{exports.calendar_token(user)}.ics"
            ),
            "now": timezone.now(),
        },
    )


def _base(request: HttpRequest) -> str:
    return request.build_absolute_uri("/").rstrip("/")


def entry_calendar(request: HttpRequest, pk: int) -> HttpResponse:
    """An entry's fixtures as iCalendar (seen by whoever sees its page)."""
    entry = get_object_or_404(Entry.objects.select_related("season__league"), pk=pk)
    require_league_visible(request.user, entry.season.league)
    return HttpResponse(exports.team_calendar(entry, _base(request)), content_type="text/calendar")


def player_calendar(request: HttpRequest, user_id: int, token: str) -> HttpResponse:
    """A player's fixtures as iCalendar, at a secret address (calendar apps cannot log in)."""
    user = exports.user_of_token(user_id, token)
    if user is None:
        raise Http404
    return HttpResponse(exports.player_calendar(user, _base(request)), content_type="text/calendar")


def _csv(text: str, name: str) -> HttpResponse:
    response = HttpResponse("\ufeff" + text, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def standings_csv(request: HttpRequest, pk: int) -> HttpResponse:
    """Every division's standings as CSV (with a BOM, so spreadsheets read the Chinese)."""
    season = _season(request, pk)
    return _csv(exports.standings_csv(season), f"standings-{season.pk}.csv")


def results_csv(request: HttpRequest, pk: int) -> HttpResponse:
    """Every fixture's result as CSV."""
    season = _season(request, pk)
    return _csv(exports.results_csv(season), f"results-{season.pk}.csv")
