"""Reads of tournaments shared by the pages, the API and the iCalendar feed."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import icalendar
from django.db.models import Q, QuerySet
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs import permissions
from clubs.models import Club, User
from tournaments import standings as pure
from tournaments.models import (
    Entry,
    EntryStatus,
    Game,
    GameStatus,
    RoundStatus,
    Tournament,
    TournamentFormat,
    TournamentStatus,
)
from tournaments.services import rounds as round_services


def tournaments_of_club(club: Club, viewer: User | None) -> QuerySet[Tournament]:
    """The club's tournaments the viewer may see (drafts only for its organisers)."""
    qs = Tournament.objects.filter(club=club).select_related("club")
    if not permissions.is_club_admin(viewer, club):
        qs = qs.exclude(status=TournamentStatus.DRAFT)
    return qs


def entries(tournament: Tournament) -> list[Entry]:
    """Every entry (withdrawn and pending included) in seeding order, with its players."""
    return list(tournament.entries.select_related("player1", "player2").order_by("seed", "id"))


def tiebreaks_of(tournament: Tournament) -> list[str]:
    """The tournament's tie-breaks, match points always first."""
    chosen = list(tournament.tiebreaks or pure.DEFAULT_TIEBREAKS)
    if "match_points" in chosen:
        chosen.remove("match_points")
    return ["match_points", *chosen]


def all_games(tournament: Tournament) -> list[Game]:
    """Every game of every round, in order."""
    return list(
        Game.objects.filter(round__tournament=tournament)
        .select_related("round", "table")
        .order_by("round__number", "number")
    )


@dataclass
class StandingLine:
    """A row of the standings with its entry."""

    entry: Entry
    row: pure.Row


def standings(tournament: Tournament, through_round: int | None = None) -> list[StandingLine]:
    """Current standings with the tie-break numbers (computed from the games, so a corrected
    result shows at once), or those after round ``through_round``. A pending pair is not in
    them until its partner accepts."""
    by_id = {e.pk: e for e in entries(tournament) if e.status != EntryStatus.PENDING}
    games = all_games(tournament)
    if through_round is not None:
        games = [g for g in games if g.round.number <= through_round]
    records = round_services.records_of(games)
    rows = pure.standings(
        list(by_id), records, tiebreaks_of(tournament), round_services.points_of(tournament)
    )
    return [StandingLine(by_id[r.unit], r) for r in rows]


def rounds_schedule(tournament: Tournament) -> list[dict[str, Any]]:
    """Every round with its time and status (rounds not paired yet at their planned time)."""
    existing = {r.number: r for r in tournament.rounds.all()}
    out = []
    total = max(round_services.total_rounds(tournament), max(existing, default=0))
    for number in range(1, total + 1):
        rnd = existing.get(number)
        out.append(
            {
                "number": number,
                "scheduled_at": rnd.scheduled_at
                if rnd
                else round_services.round_time(tournament, number),
                "status": rnd.status if rnd else RoundStatus.PENDING,
                "status_display": rnd.get_status_display() if rnd else _("Not paired yet"),
                "round": rnd,
            }
        )
    return out


NOTE_TEXT = {
    "rematch": lambda d: (
        _("Rematch (meeting no. %(n)s): no other pairing was possible.") % {"n": d.get("times")}
    ),
    "repeat_opponent": lambda d: _("Opponents again (no. %(n)s).") % {"n": d.get("times")},
    "repeat_bye": lambda d: (
        _("Second bye: everyone left has had one.")
        if d.get("times") == 2
        else _("Bye no. %(n)s.") % {"n": d.get("times")}
    ),
    "bye_above_lowest": lambda d: (
        _("Bye at %(s)s points: the entries below have had theirs or had to play.")
        % {"s": d.get("score")}
    ),
    "score_gap": lambda d: (
        _("Different scores (%(a)s and %(b)s): paired across score groups.")
        % {"a": d["scores"][0], "b": d["scores"][1]}
    ),
    "repeat_partner": lambda d: _("Partners again (no. %(n)s).") % {"n": d.get("times")},
    "repeat_tablemate": lambda d: (
        _("At one table again (no. %(n)s): no other seating was possible.") % {"n": d.get("times")}
    ),
    "same_team": lambda d: _("Partners from the same team (%(t)s).") % {"t": d.get("team")},
    "edited": lambda d: _("Edited by an organiser."),
    "bracket_corrected": lambda d: (
        _("Changed after a corrected result in round %(r)s.") % {"r": d.get("round")}
    ),
}


def note_text(note: dict[str, Any]) -> str:
    """The translated sentence explaining a pairing note."""
    maker = NOTE_TEXT.get(note.get("code", ""))
    try:
        return maker(note.get("detail") or {}) if maker else str(note.get("code"))
    except (KeyError, IndexError, TypeError):
        return str(note.get("code"))


def game_json(game: Game, names: dict[int, str], per_seat: bool = False) -> dict[str, Any]:
    """A game as the API and pages show it; ``per_seat`` (Nanping Red Two): also ``seats``,
    its four players in seat order, each with their points, outcome and forfeit once it has
    a result."""
    data = {
        "id": game.pk,
        "round": game.round.number,
        "number": game.number,
        "sides": [[{"entry": e, "name": names.get(e, "")} for e in side] for side in game.sides],
        "status": game.status,
        "status_text": str(GameStatus(game.status).label),
        "score": None if game.score0 is None else [game.score0, game.score1],
        "winner": game.winner,
        "source": game.source,
        "third_place": game.third_place,
        "table": game.table_id,
        "sheet": game.sheet_id,
        "notes": [{**n, "text": note_text(n)} for n in game.notes],
    }
    if per_seat and not game.is_bye:
        entries = game.seat_entries
        records = round_services.table_records(game)
        data["seats"] = [
            {
                "seat": i,
                "entry": e,
                "name": names.get(e, ""),
                "score": records[e].score_for if e in records else None,
                "outcome": records[e].outcome if e in records else None,
                "forfeit": i in game.seat_forfeits,
            }
            for i, e in enumerate(entries)
        ]
    return data


def bracket(tournament: Tournament) -> list[list[Game]]:
    """Elimination rounds, each its games in bracket order (the third-place game last)."""
    if tournament.format != TournamentFormat.ELIMINATION:
        return []
    rounds: dict[int, list[Game]] = {}
    for game in all_games(tournament):
        rounds.setdefault(game.round.number, []).append(game)
    return [sorted(rounds[n], key=lambda g: (g.third_place, g.slot)) for n in sorted(rounds)]


def player_results(tournament: Tournament, entry: Entry) -> list[dict[str, Any]]:
    """One entry's games, round by round: opponents, partners, score and outcome."""
    names = {e.pk: e.name for e in entries(tournament)}
    out = []
    for game in all_games(tournament):
        if entry.pk not in game.side0 + game.side1:
            continue
        mine = 0 if entry.pk in game.side0 else 1
        score = None
        outcome = "bye" if game.is_bye else ""
        if tournament.per_seat and not game.is_bye:
            others = [names[e] for e in game.seat_entries if e != entry.pk]
            record = round_services.table_records(game).get(entry.pk)
            out.append(
                {
                    "round": game.round.number,
                    "game": game,
                    "partners": [],
                    "opponents": others,
                    "score": (record.score_for,) if record else None,
                    "outcome": record.outcome if record else "",
                }
            )
            continue
        if game.score0 is not None:
            score = [game.score0, game.score1][mine], [game.score0, game.score1][1 - mine]
            if game.winner is None:
                outcome = "loss" if game.source == "forfeit" else "draw"
            else:
                outcome = "win" if game.winner == mine else "loss"
        out.append(
            {
                "round": game.round.number,
                "game": game,
                "partners": [names[e] for e in game.sides[mine] if e != entry.pk],
                "opponents": [names[e] for e in game.sides[1 - mine]],
                "score": score,
                "outcome": outcome,
            }
        )
    return out


def notices_of(user: User, limit: int = 20, tournament: Tournament | None = None) -> list[Any]:
    """The user's latest tournament notices (of ``tournament`` only, when given)."""
    qs = user.tournament_notices.select_related("tournament")
    if tournament is not None:
        qs = qs.filter(tournament=tournament)
    return list(qs[:limit])


def upcoming_rounds(club: Club, now: datetime | None = None) -> list[tuple[Tournament, dict]]:
    """Scheduled rounds of the club's published tournaments (the iCalendar feed)."""
    now = now or timezone.now()
    qs = Tournament.objects.filter(club=club).filter(
        ~Q(status__in=[TournamentStatus.DRAFT, TournamentStatus.CANCELLED])
    )
    out = []
    for tournament in qs.order_by("starts_at"):
        for item in rounds_schedule(tournament):
            out.append((tournament, item))
    return out


def ical_feed(club: Club, base_url: str, now: datetime | None = None) -> str:
    """The club's scheduled rounds as an RFC 5545 calendar (one VEVENT per round);
    ``base_url`` (scheme and host) makes the links and the event UIDs. The text is written by
    the ``icalendar`` library, so any character of a name (a bare CR or LF, a comma, a
    semicolon) is escaped and every line folded to 75 octets."""
    now = now or timezone.now()
    host = base_url.split("://", 1)[-1].rstrip("/")
    calendar = icalendar.Calendar()
    calendar.add("prodid", "-//bao2club//tournaments//ZH")
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("x-wr-calname", _one_line(club.name))
    stamp = now.astimezone(UTC)
    for tournament, item in upcoming_rounds(club, now):
        start = item["scheduled_at"].astimezone(UTC)
        summary = _("%(t)s · round %(n)d") % {"t": _one_line(tournament.name), "n": item["number"]}
        event = icalendar.Event()
        event.add("uid", f"tournament-{tournament.pk}-round-{item['number']}@{host}")
        event.add("dtstamp", stamp)
        event.add("dtstart", start)
        event.add("dtend", start + timedelta(minutes=tournament.round_minutes))
        event.add("summary", summary)
        page = reverse("tournaments:detail", args=[tournament.pk])
        event.add("url", f"{base_url.rstrip('/')}{page}")
        event.add("status", "CONFIRMED")
        calendar.add_component(event)
    return calendar.to_ical().decode("utf-8")


def _one_line(value: str) -> str:
    # a calendar title is one line: line breaks of any kind (a bare CR too) become spaces
    return " ".join(value.split())
