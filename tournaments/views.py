"""Tournament pages: a club's list and iCalendar feed, the tournament page (schedule,
entries, registration), pairings of a round, bracket, standings, an entry's results, and the
organisers' pages to create, edit and run a tournament. Thin: every change goes through
:mod:`tournaments.services`, every shared read through
:mod:`tournaments.selectors`; permissions are the services' (same as the API)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from clubs import permissions
from clubs import selectors as club_selectors
from clubs import services as club_services
from clubs.models import Club, User
from games import endings
from games.variants import level_names
from tournaments import comparisons, exports, selectors
from tournaments import series as tie_series
from tournaments.forms import TIEBREAK_LABELS, TournamentForm
from tournaments.models import (
    Entry,
    EntryStatus,
    Game,
    Round,
    Tournament,
    TournamentFormat,
)
from tournaments.permissions import can_manage, can_view
from tournaments.services import eligibility
from tournaments.services import entries as entry_services
from tournaments.services import forfeits as forfeit_services
from tournaments.services import results as result_services
from tournaments.services import rounds as round_services
from tournaments.services import setup as setup_services
from tournaments.services.errors import TournamentError
from tournaments.windows import checkin_open, registration_open


def _tournament(request: HttpRequest, pk: int) -> Tournament:
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=pk)
    if not can_view(request.user, tournament):  # an invited club's members see it too
        club_services.require_club_visible(request.user, tournament.club)
        raise Http404
    return tournament


def _manage(request: HttpRequest, pk: int) -> Tournament:
    tournament = _tournament(request, pk)
    if not can_manage(request.user, tournament):
        raise PermissionDenied
    return tournament


def _names(tournament: Tournament) -> dict[int, str]:
    return {e.pk: e.name for e in selectors.entries(tournament)}


def club_tournaments(request: HttpRequest, slug: str) -> HttpResponse:
    """A club's tournaments (drafts only for its organisers) and its calendar feed."""
    club = get_object_or_404(Club, slug=slug)
    club_services.require_club_visible(request.user, club)
    return render(
        request,
        "tournaments/list.html",
        {
            "club": club,
            "tournaments": selectors.tournaments_of_club(club, request.user),
            "is_admin": permissions.is_club_admin(request.user, club),
        },
    )


def club_calendar(request: HttpRequest, slug: str) -> HttpResponse:
    """The club's scheduled rounds as an iCalendar (RFC 5545) feed (a members-only club's
    to its members: a calendar app signs in with the session it has, if any)."""
    club = get_object_or_404(Club, slug=slug)
    club_services.require_club_visible(request.user, club)
    text = selectors.ical_feed(club, request.build_absolute_uri("/"))
    response = HttpResponse(text, content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = f'inline; filename="{club.slug}-tournaments.ics"'
    return response


@login_required
def tournament_create(request: HttpRequest, slug: str) -> HttpResponse:
    """Create a draft tournament (club owner / admins)."""
    club = get_object_or_404(Club, slug=slug)
    if not permissions.is_club_admin(request.user, club):
        raise PermissionDenied
    form = TournamentForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            tournament = setup_services.create_tournament(request.user, club, **form.cleaned_data)
        except TournamentError as error:
            form.refused(error)
        else:
            messages.success(request, _("The tournament is created as a draft."))
            return redirect("tournaments:run", pk=tournament.pk)
    return render(request, "tournaments/form.html", {"form": form, "club": club})


@login_required
def tournament_edit(request: HttpRequest, pk: int) -> HttpResponse:
    """Edit a tournament's settings (organisers)."""
    tournament = _manage(request, pk)
    form = TournamentForm(request.POST or None, instance=tournament)
    if request.method == "POST" and form.is_valid():
        changed = form.changed_settings()
        fresh = Tournament.objects.get(pk=pk)
        try:
            setup_services.update_tournament(request.user, fresh, **changed)
        except TournamentError as error:
            form.refused(error)
        else:
            messages.success(request, _("Saved."))
            return redirect("tournaments:run", pk=pk)
    return render(
        request,
        "tournaments/form.html",
        {"form": form, "club": tournament.club, "tournament": tournament},
    )


def tournament_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """The public page: schedule, entries, the player's own registration and check-in."""
    tournament = _tournament(request, pk)
    now = timezone.now()
    user = request.user if request.user.is_authenticated else None
    own = entry_services.entry_of(user, tournament)
    current = None
    if own is not None:
        names = _names(tournament)
        for game in reversed(selectors.all_games(tournament)):
            if own.pk in game.side0 + game.side1:
                current = selectors.game_json(game, names, tournament.per_seat)
                break
    return render(
        request,
        "tournaments/detail.html",
        {
            "tournament": tournament,
            "schedule": selectors.rounds_schedule(tournament),
            "entries": selectors.entries(tournament),
            "own": own,
            "current": current,
            "registration_open": registration_open(tournament, now),
            "checkin_open": checkin_open(tournament, now),
            "can_manage": can_manage(user, tournament),
            "members": eligibility.partner_candidates(user, tournament),
            "notices": selectors.notices_of(user, 5, tournament) if user else [],
            "ending": ending_text(tournament),
        },
    )


def ending_text(tournament: Tournament) -> str:
    """How the tournament's matches end, for players (第十四条, e.g. 计副制：8 副)."""
    options = tournament.match_options or {}
    return endings.ending_text(
        tournament.variant, options.get("deals"), tournament.time_limit_minutes
    )


def _club_members(tournament: Tournament) -> list[User]:
    return [m.user for m in club_selectors.members_of(tournament.club)]


def round_pairings(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """The pairings (and results) of one round, with the reason for each broken preference."""
    tournament = _tournament(request, pk)
    rnd = get_object_or_404(Round, tournament=tournament, number=number)
    names = _names(tournament)
    groups = selectors.entry_groups(tournament)  # 分组循环赛: each game's group
    games = [
        selectors.game_json(g, names, tournament.per_seat, groups)
        for g in rnd.games.select_related("round")
    ]
    return render(
        request,
        "tournaments/round.html",
        {
            "tournament": tournament,
            "round": rnd,
            "games": games,
            "comparison": comparisons.round_view(rnd, names) if tournament.duplicate else None,
            "can_manage": can_manage(request.user, tournament),
            "rounds": selectors.rounds_schedule(tournament),
        },
    )


def _standing_rows(tournament: Tournament, through_round: int | None = None) -> dict[str, Any]:
    """The standings' rows with each tie-break's label and value, and the column headers."""
    tiebreaks = selectors.tiebreaks_of(tournament)
    withdrawn = selectors.withdrawals(tournament)
    rows = [
        {
            "line": line,
            "values": [(TIEBREAK_LABELS[t], line.row.values.get(t, "")) for t in tiebreaks],
            "withdrawal": withdrawn.get(line.entry.pk),
        }
        for line in selectors.standings(tournament, through_round)
    ]
    names = _names(tournament)
    return {
        "rows": rows,
        "headers": [TIEBREAK_LABELS[t] for t in tiebreaks],
        # withdrawals after the start (第二十四条二), the annulled ones not ranked above
        "withdrawals": [(names.get(w.entry, ""), w) for w in withdrawn.values()],
        # a knockout's placings (tournaments.placings): final once every round is played
        "placings": any(r["line"].placing for r in rows),
        "placings_final": selectors.ranking_final(tournament),
    }


def tournament_standings(request: HttpRequest, pk: int) -> HttpResponse:
    """Standings with the numbers behind each place."""
    tournament = _tournament(request, pk)
    return render(
        request,
        "tournaments/standings.html",
        {"tournament": tournament, **_standing_rows(tournament)},
    )


def tournament_print(request: HttpRequest, pk: int) -> HttpResponse:
    """A page to print on A4 (or save as PDF) for the notice board: after ``?round=n`` that
    round's results and the standings after it; without, every round's and the standings now.
    A round that is not paired answers 404."""
    tournament = _tournament(request, pk)
    rounds = list(tournament.rounds.order_by("number"))
    through = None
    if "round" in request.GET:
        wanted = request.GET["round"]
        through = next((r.number for r in rounds if wanted == str(r.number)), None)
        if through is None:
            raise Http404
    names = _names(tournament)
    groups = selectors.entry_groups(tournament)  # 分组循环赛: each game's group
    shown = [r for r in rounds if through is None or r.number == through]
    return render(
        request,
        "tournaments/print.html",
        {
            "tournament": tournament,
            "through": through,
            "rounds": [
                (
                    rnd,
                    [
                        selectors.game_json(g, names, tournament.per_seat, groups)
                        for g in rnd.games.select_related("round")
                    ],
                )
                for rnd in shown
            ],
            "printed_at": timezone.now(),
            **_standing_rows(tournament, through),
        },
    )


def _csv_response(text: str, filename: str) -> HttpResponse:
    response = HttpResponse(text.encode("utf-8"), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def standings_csv(request: HttpRequest, pk: int) -> HttpResponse:
    """The standings as a CSV file (UTF-8 with BOM, for Excel)."""
    tournament = _tournament(request, pk)
    labels = {k: str(v) for k, v in TIEBREAK_LABELS.items()}
    text = exports.standings_csv(tournament, labels)
    return _csv_response(text, f"tournament-{tournament.pk}-standings.csv")


def results_csv(request: HttpRequest, pk: int) -> HttpResponse:
    """Every game's result as a CSV file (UTF-8 with BOM, for Excel)."""
    tournament = _tournament(request, pk)
    return _csv_response(exports.results_csv(tournament), f"tournament-{tournament.pk}-results.csv")


def tournament_bracket(request: HttpRequest, pk: int) -> HttpResponse:
    """An elimination tournament's bracket, drawn as a bracket (one column per round); a
    double elimination's as its winners' and losers' brackets and the final, stage by stage."""
    tournament = _tournament(request, pk)
    names = _names(tournament)
    if tournament.format == TournamentFormat.DOUBLE_ELIMINATION:
        return render(
            request,
            "tournaments/double_bracket.html",
            {"tournament": tournament, "parts": _double_parts(tournament, names)},
        )
    if tournament.series:
        return render(
            request,
            "tournaments/series_bracket.html",
            {"tournament": tournament, "rounds": _series_rounds(tournament, names)},
        )
    columns = [
        [selectors.game_json(g, names, tournament.per_seat) for g in games]
        for games in selectors.bracket(tournament)
    ]
    return render(
        request, "tournaments/bracket.html", {"tournament": tournament, "columns": columns}
    )


def _series_rounds(tournament: Tournament, names: dict[int, str]) -> list[list[dict[str, Any]]]:
    """A knockout of multi-game ties (第三十条) as its page lists it, round by round: each
    tie's two sides with their games won (best of) or 级分 added up (sum), who goes through,
    and each game's levels by name and 级分."""
    levels = level_names(tournament.variant)
    summed = tournament.series in tie_series.SUM_MODES
    out: list[list[dict[str, Any]]] = []
    for tie in selectors.ties_of(tournament):
        if not out or out[-1][0]["round"] != tie.round:
            out.append([])
        state = tie.state
        games = []
        for index, game in enumerate(tie.games, start=1):
            shown = selectors.series_game(game, tie.sides)
            scores = [game.score0, game.score1]
            if game.sides != tie.sides:
                scores.reverse()
            games.append(
                {
                    "number": index,
                    "decider": summed and index > tie_series.planned_games(tournament.series),
                    "levels": [
                        levels[s] if s is not None and 0 <= s < len(levels) else None
                        for s in scores
                    ]
                    if game.status == "finished"
                    else None,
                    "grades": shown.grades,
                    "winner": shown.winner,
                    "status": game.get_status_display(),
                }
            )
        sides = []
        for i, side in enumerate(tie.sides):
            sides.append(
                {
                    "name": " / ".join(names.get(e, "") for e in side),
                    "total": (state.grades if summed else state.wins)[i],
                    "winner": state.decided and state.winner == i,
                }
            )
        out[-1].append(
            {
                "round": tie.round,
                "slot": tie.slot,
                "third_place": tie.third_place,
                "bye": bool(tie.sides[0]) and not tie.sides[1],
                "waiting": not tie.sides[0],  # for the tie before it (a correction reopened it)
                "sides": sides,
                "games": games,
                "decided": state.decided,
                "decider": state.decider,
                "winner": names.get(tie.winner_entry or 0, ""),
            }
        )
    return out


def _slot_code(bracket: str, stage: int, index: int) -> str:
    """A bracket game's short name: 胜2-1 (winners' round 2, game 1), 负3-2, 决赛."""
    if bracket == "F":
        return _("Final")
    letter = _("W") if bracket == "W" else _("L")
    return f"{letter}{stage}-{index + 1}"


def _double_parts(tournament: Tournament, names: dict[int, str]) -> list[dict[str, Any]]:
    """The double bracket as the page lists it: each part's stages, each game's two sides
    (a name, or where it comes from while undecided), scores, 级分 and winner."""
    parts = selectors.double_bracket(tournament)
    levels = level_names(tournament.variant)
    codes = {
        item["slot"].id: _slot_code(item["slot"].bracket, item["slot"].stage, item["slot"].index)
        for part in parts
        for stage in part["stages"]
        for item in stage
    }
    out = []
    for part in parts:
        stages = []
        for number, stage in enumerate(part["stages"], start=1):
            games = []
            for item in stage:
                slot, game, found = item["slot"], item["game"], item["resolved"]
                sides = []
                for i, source in enumerate(slot.sources):
                    unit = found.units[i] if found is not None else None
                    if unit is not None:
                        label = names.get(unit, "")
                    elif found is not None:
                        label = _("Bye")
                    elif source.kind == "winner":
                        label = _("Winner of %(g)s") % {"g": codes.get(source.ref, "")}
                    else:
                        label = _("Loser of %(g)s") % {"g": codes.get(source.ref, "")}
                    score = grade = None
                    if game is not None and game.score0 is not None and found is not None:
                        score = (game.score0, game.score1)[i]
                        if 0 <= score < len(levels):  # a level game's result in level names
                            score = levels[score]
                        if game.grade0 is not None:
                            grade = (game.grade0, game.grade1)[i]
                    won = found is not None and found.winner is not None and found.winner == unit
                    sides.append(
                        {
                            "label": label,
                            "known": unit is not None,
                            "score": score,
                            "grade": grade,
                            "winner": won,
                        }
                    )
                games.append(
                    {
                        "code": codes[slot.id],
                        "round": slot.round,
                        "sides": sides,
                        "bye": found is not None and found.kind == "bye",
                        "game": game,
                    }
                )
            if part["code"] == "F":
                title = _("Final")
            elif part["code"] == "W":
                title = _("Winners' round %(n)d") % {"n": number}
            else:
                title = _("Losers' round %(n)d") % {"n": number}
            stages.append({"title": title, "games": games})
        out.append({"code": part["code"], "title": part["title"], "stages": stages})
    return out


def entry_results(request: HttpRequest, pk: int, entry_id: int) -> HttpResponse:
    """One entry's (player's or pair's) games round by round."""
    tournament = _tournament(request, pk)
    entry = get_object_or_404(Entry, tournament=tournament, pk=entry_id)
    return render(
        request,
        "tournaments/entry.html",
        {
            "tournament": tournament,
            "entry": entry,
            "results": selectors.player_results(tournament, entry),
        },
    )


@login_required
def tournament_run(request: HttpRequest, pk: int) -> HttpResponse:
    """The organisers' page: status, the current round's games with result entry, swaps."""
    tournament = _manage(request, pk)
    names = _names(tournament)
    current = tournament.rounds.order_by("-number").first()
    entries = selectors.entries(tournament)
    withdrawn = selectors.withdrawals(tournament)
    for entry in entries:  # a withdrawal after the start: its round and reason
        entry.withdrawal = withdrawn.get(entry.pk)  # type: ignore[attr-defined]
    games = []
    if current is not None:
        groups = selectors.entry_groups(tournament)
        games = [
            selectors.game_json(g, names, tournament.per_seat, groups)
            for g in current.games.select_related("round")
        ]
    return render(
        request,
        "tournaments/run.html",
        {
            "tournament": tournament,
            "ending": ending_text(tournament),
            "current": current,
            "games": games,
            "entries": entries,
            "pending": sum(e.status == EntryStatus.PENDING for e in entries),
            "schedule": selectors.rounds_schedule(tournament),
            "total": selectors.total_rounds(tournament),
            "members": _club_members(tournament),
            "not_checked_in": selectors.not_checked_in(tournament),
            "checkin_opened": selectors.checkin_applies(tournament),
            # a level game's result is entered as the level each side reached, by name
            "level_names": list(enumerate(level_names(tournament.variant))),
            # finished tournaments of the club in this game: an earlier stage to seed from
            "stages": selectors.earlier_stages(tournament) if current is None else [],
        },
    )


def _user_param(request: HttpRequest, name: str) -> User | None:
    value = request.POST.get(name, "")
    if not value:
        return None
    try:
        return User.objects.get(pk=int(value))
    except (ValueError, User.DoesNotExist):
        raise TournamentError("bad_player", _("Unknown player.")) from None


def _post_result(request: HttpRequest, tournament: Tournament) -> Game:
    """The result form of the run page: two scores (and a winner), or for Red Two each seat's
    points (``seat0`` .. ``seat3``) and the seats that forfeited (``forfeit``)."""
    user = request.user
    game = get_object_or_404(Game, round__tournament=tournament, pk=_int_post(request, "game"))
    if tournament.per_seat:
        forfeits = [int(v) for v in request.POST.getlist("forfeit") if v in ("0", "1", "2", "3")]
        totals = [_int_post(request, f"seat{i}") for i in range(4)]
        return result_services.set_seat_result(user, game, totals, forfeits)
    return result_services.set_result(
        user,
        game,
        _int_post(request, "score0"),
        _int_post(request, "score1"),
        int(request.POST["winner"]) if request.POST.get("winner") in ("0", "1") else None,
    )


def _stage_post(request: HttpRequest) -> int:
    """The id of the earlier stage chosen (a bounded whole number)."""
    value = _int_post(request, "stage")
    if not 1 <= value <= 2**31 - 1:
        raise TournamentError(
            "bad_stage", _("Choose a finished tournament of this club in the same game.")
        )
    return value


def _int_post(request: HttpRequest, name: str) -> int:
    try:
        return int(request.POST.get(name, ""))
    except ValueError:
        raise TournamentError("bad_number", _("Enter a whole number.")) from None


def _unconfirmed() -> None:
    raise TournamentError("confirm", _("Tick the box to confirm."))


def _no_entry() -> Entry:
    raise TournamentError("not_registered", _("This entry is not in the tournament."))


def _entry_post(request: HttpRequest, tournament: Tournament) -> Entry | None:
    """The entry named by the form (organisers act for any entry), or None: the caller's."""
    if not request.POST.get("entry"):
        return None
    entry = Entry.objects.filter(tournament=tournament, pk=_int_post(request, "entry")).first()
    if entry is None:
        raise TournamentError("not_registered", _("This entry is not in the tournament."))
    return entry


@login_required
@require_POST
def tournament_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    """Every button of the pages: a POST naming the action; refusals become messages."""
    tournament = _tournament(request, pk)
    user = request.user
    back = request.POST.get("next") or ""
    if not back.startswith("/tournaments/"):
        back = ""
    handlers: dict[str, Any] = {
        "register": lambda: entry_services.register(
            user,
            tournament,
            partner=_user_param(request, "partner"),
            player=_user_param(request, "player"),
            team=request.POST.get("team", ""),
        ),
        "accept_partner": lambda: entry_services.answer_invitation(
            user, tournament, accept=True, entry=_entry_post(request, tournament)
        ),
        "decline_partner": lambda: entry_services.answer_invitation(
            user, tournament, accept=False, entry=_entry_post(request, tournament)
        ),
        "check_in": lambda: entry_services.check_in(
            user, tournament, _entry_post(request, tournament)
        ),
        "withdraw": lambda: entry_services.withdraw(
            user,
            tournament,
            _entry_post(request, tournament),
            reason=request.POST.get("reason", ""),
        ),
        "publish": lambda: setup_services.publish(user, tournament),
        "pause": lambda: setup_services.pause(user, tournament),
        "resume": lambda: setup_services.resume(user, tournament),
        "cancel": lambda: (
            setup_services.cancel(user, tournament)
            if request.POST.get("confirm") == "1"
            else _unconfirmed()
        ),
        "pair": lambda: round_services.pair_next_round(
            user, tournament, confirm_withdrawals=request.POST.get("confirm_withdrawals") == "1"
        ),
        "start_round": lambda: round_services.start_round(
            user, tournament, confirm_withdrawals=request.POST.get("confirm_withdrawals") == "1"
        ),
        "seed_by_rating": lambda: entry_services.seed_by_rating(user, tournament),
        "seed_by_stage": lambda: entry_services.seed_by_stage(
            user,
            tournament,
            get_object_or_404(Tournament, pk=_stage_post(request), club_id=tournament.club_id),
        ),
        "set_seed": lambda: entry_services.set_seed(
            user,
            tournament,
            _entry_post(request, tournament) or _no_entry(),
            _int_post(request, "seed"),
        ),
        "reinstate": lambda: entry_services.reinstate(
            user, tournament, _entry_post(request, tournament) or _no_entry()
        ),
        "swap": lambda: round_services.swap_entries(
            user,
            get_object_or_404(Round, tournament=tournament, number=_int_post(request, "round")),
            _int_post(request, "first"),
            _int_post(request, "second"),
        ),
        "result": lambda: _post_result(request, tournament),
        "forfeit": lambda: forfeit_services.rule_forfeit(
            user,
            get_object_or_404(Game, round__tournament=tournament, pk=_int_post(request, "game")),
            request.POST,
        ),
    }
    handler = handlers.get(action)
    if handler is None:
        raise Http404
    try:
        handler()
    except TournamentError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("Done."))
    return redirect(back or "tournaments:detail", pk=tournament.pk)
