"""Reads of tournaments shared by the pages, the API, the iCalendar feed and the services: how
many rounds and when, who is paired, each game's records and seats, the standings.

Data flows one way: the services read through these functions and never the reverse (this
module imports no service; ``tests/test_architecture.py`` holds it to that)."""

from __future__ import annotations

from collections.abc import Sequence
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
from games.variants import game as game_facts
from tournaments import brackets, comparisons, cuts, duplicate, pairing, placings, scoring
from tournaments import series as tie_series
from tournaments import standings as pure
from tournaments.models import (
    ACCEPTED_STATUSES,
    KNOCKOUT_FORMATS,
    Entry,
    EntryStatus,
    Game,
    GameSource,
    GameStatus,
    Round,
    RoundStatus,
    Scoring,
    Tournament,
    TournamentFormat,
    TournamentStatus,
    UnitKind,
    WithdrawalRule,
)
from tournaments.windows import checkin_open


def tournaments_of_club(club: Club, viewer: User | None) -> QuerySet[Tournament]:
    """The club's tournaments the viewer may see (drafts only for its organisers)."""
    qs = Tournament.objects.filter(club=club).select_related("club")
    if not permissions.is_club_admin(viewer, club):
        qs = qs.exclude(status=TournamentStatus.DRAFT)
    return qs


def earlier_stages(tournament: Tournament, limit: int = 20) -> list[Tournament]:
    """The club's finished tournaments in the same game, latest first: the earlier stages a
    tournament may be seeded from (:func:`tournaments.services.entries.seed_by_stage`)."""
    return list(
        Tournament.objects.filter(
            club_id=tournament.club_id,
            variant=tournament.variant,
            status=TournamentStatus.FINISHED,
        )
        .exclude(pk=tournament.pk)
        .order_by("-finished_at")[:limit]
    )


#: Entries not (yet) taking part: a pair awaiting its partner, an entry over the cap.
NOT_TAKING_PART = (EntryStatus.PENDING, EntryStatus.WAITING)


def entries(tournament: Tournament) -> list[Entry]:
    """Every entry (withdrawn and pending included) in seeding order, with its players."""
    return list(tournament.entries.select_related("player1", "player2").order_by("seed", "id"))


def scale_of(tournament: Tournament) -> scoring.Scale | None:
    """The scale of a national-rules event's 级分 (:mod:`tournaments.scoring`): the 26-point
    table for a game of the table's thirteen levels (2 … A), the level difference on its own
    scale for another level game (Bao 2: 0–23); None for club scoring or a game scored by
    points."""
    if tournament.scoring != Scoring.NATIONAL:
        return None
    facts = game_facts(tournament.variant)
    return scoring.scale_for(facts.levels, facts.max_level)


def tiebreaks_of(tournament: Tournament) -> list[str]:
    """The tournament's tie-breaks, match points always first; a national-rules event
    without its own choice ranks as 第二十七、二十八条 say (场分, 级分, 级分 among the tied, the
    opponents' 级分)."""
    default = pure.DEFAULT_TIEBREAKS
    if scale_of(tournament) is not None:
        default = pure.NATIONAL_TIEBREAKS
    chosen = list(tournament.tiebreaks or default)
    if "match_points" in chosen:
        chosen.remove("match_points")
    if tournament.duplicate:  # 复式赛: the comparison of the tables ranks first
        return [duplicate.TIEBREAK, "match_points", *chosen]
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
    """A row of the standings with its entry; ``eliminated_after``: the round after which a
    low-position cut put it out (第二十九条), None while it plays on."""

    entry: Entry
    row: pure.Row
    eliminated_after: int | None = None
    #: A knockout's place band (:mod:`tournaments.placings`), None in other formats.
    placing: placings.Placing | None = None


def standings(tournament: Tournament, through_round: int | None = None) -> list[StandingLine]:
    """Current standings with the tie-break numbers (computed from the games, so a corrected
    result shows at once), or those after round ``through_round``. A pending pair is not in
    them until its partner accepts. Entries out by a low-position cut made by then are below
    every entry still playing, those out later first, with their points
    (:func:`tournaments.cuts.rank_with_cuts`)."""
    by_id = {e.pk: e for e in entries(tournament) if e.status not in NOT_TAKING_PART}
    for pk in [pk for pk, e in by_id.items() if e.withdrawal_rule == WithdrawalRule.ANNULLED]:
        by_id.pop(pk, None)  # left the event (第二十四条二.1): not ranked
    games = all_games(tournament)
    if through_round is not None:
        games = [g for g in games if g.round.number <= through_round]
    sealed = comparisons.sealed_rounds(tournament)  # 复式赛: withheld while a table plays
    games = [g for g in games if g.round.number not in sealed]
    rows = _standing_rows(tournament, list(by_id), games)
    out_after = {
        pk: e.eliminated_after_round
        for pk, e in by_id.items()
        if e.eliminated_after_round is not None
        and (through_round is None or e.eliminated_after_round < through_round)
    }
    if out_after:
        rows = cuts.rank_with_cuts(rows, out_after)
    lines = [StandingLine(by_id[r.unit], r, out_after.get(r.unit)) for r in rows]
    if tournament.format in KNOCKOUT_FORMATS:
        lines = _by_placings(tournament, lines, games)
    return lines


def _by_placings(
    tournament: Tournament, lines: list[StandingLine], games: list[Game]
) -> list[StandingLine]:
    """A knockout's standings ranked by where each entry went out (:mod:`tournaments.placings`),
    the games' order kept within a band; each line's place the first of its band (an entry
    not in the bracket after every placed one)."""
    found = knockout_placings(tournament, games)
    if not found:
        return lines
    by_unit = {line.entry.pk: line for line in lines}
    ordered = [by_unit[u] for u in placings.ranked(found, list(by_unit))]
    unplaced = 1 + sum(1 for line in lines if line.entry.pk in found)
    for line in ordered:
        line.placing = found.get(line.entry.pk)
        line.row.place = line.placing.first if line.placing else unplaced
    return ordered


def knockout_placings(
    tournament: Tournament, games: Sequence[Game] | None = None
) -> dict[int, placings.Placing]:
    """Each entry's place band in a single or double elimination from its bracket (the
    ``games`` given, or all): the winner 1, the final's loser 2, …; entries still in are in
    play (:mod:`tournaments.placings`). Empty for another format or before round 1."""
    games = all_games(tournament) if games is None else list(games)
    if tournament.format not in KNOCKOUT_FORMATS or not games:
        return {}
    order = tournament_order(tournament)
    if len(order) < 2:
        return {}
    if tournament.format == TournamentFormat.DOUBLE_ELIMINATION:
        won = {g.slot: w for g in games if (w := winner_entry(g)) is not None}
        return placings.double_elimination(order, won)
    ties = [
        placings.KnockoutTie(
            tie.round,
            (tie.sides[0][0], tie.sides[1][0] if tie.sides[1] else None),
            tie.winner_entry,
            tie.third_place,
        )
        for tie in ties_of(tournament, games)
        if tie.sides[0]
    ]
    return placings.single_elimination(len(order), ties, tournament.third_place)


def _standing_rows(tournament: Tournament, units: list[int], games: list[Game]) -> list[pure.Row]:
    records = records_of(games, scale_of(tournament))
    measured: dict[str, dict[int, float]] = {}
    if tournament.duplicate:
        through = max((g.round.number for g in games), default=0)
        measured[duplicate.TIEBREAK] = comparisons.scores(tournament, through)
    return pure.standings(units, records, tiebreaks_of(tournament), points_of(tournament), measured)


def cuts_of(tournament: Tournament) -> list[cuts.Cut]:
    """The tournament's low-position elimination plan (checked when it was set; a stored
    plan that cannot be read counts as none)."""
    try:
        return cuts.parse_plan(tournament.cuts or [])
    except cuts.PlanError:
        return []


@dataclass(frozen=True)
class CutOutcome:
    """What the cut after round ``cut.after_round`` does: the entries still playing, best
    first, split into those ``kept`` and those ``out``."""

    cut: cuts.Cut
    kept: list[int]
    out: list[int]


def cut_before(tournament: Tournament, number: int) -> CutOutcome | None:
    """The low-position cut due before round ``number`` is paired (the plan's cut after round
    ``number - 1``), with the entries it keeps and puts out: the entries still playing ranked
    by the standings after that round (the event's tie-breaks: 第二十七条's under the national
    rules), entries equal on every tie-break in seeding order. None when the plan has no cut
    there or it was made already."""
    cut = cuts.cut_after(cuts_of(tournament), number - 1)
    if cut is None or tournament.format != TournamentFormat.SWISS:
        return None
    if tournament.entries.filter(eliminated_after_round__gte=cut.after_round).exists():
        return None  # made already (exactly once, whoever asks again)
    everyone = [e for e in entries(tournament) if e.status not in NOT_TAKING_PART]
    games = [g for g in all_games(tournament) if g.round.number <= cut.after_round]
    rows = _standing_rows(tournament, [e.pk for e in everyone], games)
    playing = [e.pk for e in active_entries(tournament, first_round=False)]
    ranked = cuts.ranked_for_cut(rows, playing, [e.pk for e in everyone])
    kept, out = cuts.cut_line(ranked, cut.keep)
    return CutOutcome(cut, kept, out)


def rounds_schedule(tournament: Tournament) -> list[dict[str, Any]]:
    """Every round with its time and status (rounds not paired yet at their planned time)."""
    existing = {r.number: r for r in tournament.rounds.all()}
    out = []
    total = max(total_rounds(tournament), max(existing, default=0))
    for number in range(1, total + 1):
        rnd = existing.get(number)
        out.append(
            {
                "number": number,
                "scheduled_at": rnd.scheduled_at if rnd else round_time(tournament, number),
                "status": rnd.status if rnd else RoundStatus.PENDING,
                "status_display": rnd.get_status_display() if rnd else _("Not paired yet"),
                "round": rnd,
            }
        )
    return out


# Rounds, records and seats: what the services compute from (they never import back).


def total_rounds(tournament: Tournament) -> int:
    """How many rounds the tournament has (Swiss: as planned; round robin and elimination:
    from the entries of round 1, or the active entries before it; a double round robin twice
    a single one's)."""
    if tournament.format == TournamentFormat.SWISS:
        return tournament.rounds_planned
    order = tournament_order(tournament)
    if tournament.format == TournamentFormat.ROUND_ROBIN:
        # a group round robin plays as many rounds as its largest group needs, each cycle
        n = max((len(group) for group in groups_of(tournament, order)), default=0)
        return pairing.round_robin_rounds(n, tournament.round_robin_cycles)
    if tournament.format == TournamentFormat.DOUBLE_ELIMINATION:
        return brackets.rounds_of(len(order)) if len(order) >= 2 else 0
    return pairing.elimination_rounds(len(order)) if len(order) >= 2 else 0


def tournament_order(tournament: Tournament, now: datetime | None = None) -> list[int]:
    """Entry ids in seeding order: those of round 1 once it exists, else the active ones
    (at ``now``: see :func:`checkin_applies`)."""
    first = tournament.rounds.filter(number=1).first()
    if first is not None:
        games = list(first.games.order_by("number"))
        if tournament.format == TournamentFormat.ELIMINATION:
            # a tie of several games (第三十条) lists its entries once
            seen = [e for g in sorted(games, key=lambda g: g.slot) for e in g.side0 + g.side1]
            return list(dict.fromkeys(seen))
        ids = {e for g in games for e in g.side0 + g.side1}
        return [e.pk for e in tournament.entries.order_by("seed", "id") if e.pk in ids]
    return [e.pk for e in active_entries(tournament, first_round=True, now=now)]


def groups_of(tournament: Tournament, order: list[int] | None = None) -> list[list[int]]:
    """The entry ids of each group of a group round robin (分组循环赛, 第二十七条一), spread by
    serpentine seeding from the seeding order (:func:`tournament_order`, or ``order``), each
    in seeding order: fixed once round 1 is paired. In a team event a unit whose group already
    holds a teammate swaps with one of its tier (:func:`tournaments.pairing.serpentine_groups`).
    One group (every entry) for a round robin without groups; none for another format."""
    if tournament.format != TournamentFormat.ROUND_ROBIN:
        return []
    order = tournament_order(tournament) if order is None else order
    # a team event keeps teammates in different groups while the tiers allow it
    team: dict[int, str] = {}
    if tournament.team_size and tournament.groups > 1:
        team = dict(
            tournament.entries.filter(club_team__isnull=False).values_list("pk", "club_team__name")
        )
    return pairing.serpentine_groups(order, max(1, min(tournament.groups, len(order) or 1)), team)


def ranking_final(tournament: Tournament) -> bool:
    """Whether ``tournament``'s ranking is final, so a next stage can be made from it: it is
    finished, or every round has been played and finished (the schedule has only to mark it
    finished)."""
    if tournament.status == TournamentStatus.FINISHED:
        return True
    if tournament.status not in (TournamentStatus.RUNNING, TournamentStatus.PAUSED):
        return False
    last = tournament.rounds.order_by("-number").first()
    return (
        last is not None
        and last.status == RoundStatus.FINISHED
        and last.number >= total_rounds(tournament)
    )


def group_name(index: int) -> str:
    """A group's name: A, B, … (the rules' 组)."""
    return chr(ord("A") + index)


@dataclass
class GroupStandings:
    """One group's name and its standings (:func:`group_standings`)."""

    name: str
    lines: list[StandingLine]


def group_standings(tournament: Tournament) -> list[GroupStandings]:
    """The standings of each group of a group round robin, each ranked on its own games with
    the tournament's tie-breaks (so 相互间级分 compares entries of one group); empty for a
    tournament without groups."""
    if tournament.format != TournamentFormat.ROUND_ROBIN or tournament.groups < 2:
        return []
    lines = {line.entry.pk: line for line in standings(tournament)}
    games = [
        g
        for g in all_games(tournament)
        if g.round.number not in comparisons.sealed_rounds(tournament)
    ]
    out = []
    for index, group in enumerate(groups_of(tournament)):
        members = set(group)
        units = [pk for pk in group if pk in lines]
        own = [g for g in games if members & set(g.side0 + g.side1)]
        rows = _standing_rows(tournament, units, own)
        out.append(
            GroupStandings(group_name(index), [StandingLine(lines[r.unit].entry, r) for r in rows])
        )
    return out


def round_time(tournament: Tournament, number: int) -> datetime:
    """When round ``number`` is scheduled: the start, then every ``round_minutes``."""
    return tournament.starts_at + timedelta(minutes=tournament.round_minutes * (number - 1))


def checkin_applies(tournament: Tournament, now: datetime | None = None) -> bool:
    """Whether round 1 paired at ``now`` takes only checked-in entries: check-in is required
    and has opened. Before it opened nobody could check in, so nobody is left out then."""
    return tournament.checkin_required and checkin_open(tournament, now or timezone.now())


def not_checked_in(tournament: Tournament, now: datetime | None = None) -> list[Entry]:
    """The entries that pairing round 1 at ``now`` would withdraw for not checking in."""
    if tournament.rounds.exists() or not checkin_applies(tournament, now):
        return []
    return list(
        tournament.entries.filter(status=EntryStatus.REGISTERED)
        .select_related("player1", "player2")
        .order_by("seed", "id")
    )


def active_entries(
    tournament: Tournament, first_round: bool, now: datetime | None = None
) -> list[Entry]:
    """The entries a round pairs, in seeding order: accepted ones (a pending pair, whose
    partner has not accepted, is not paired) not out by a low-position cut; round 1 with
    check-in applying: the checked-in."""
    entries = tournament.entries.filter(
        status__in=ACCEPTED_STATUSES, eliminated_after_round__isnull=True
    ).order_by("seed", "id")
    if first_round and checkin_applies(tournament, now):
        entries = entries.filter(status=EntryStatus.CHECKED_IN)
    return list(entries)


def records_of(games: Sequence[Game], scale: scoring.Scale | None = None) -> list[pure.Record]:
    """Standings records of finished games and byes (a double forfeit: both sides lose; a
    Red Two game: each player on their own total, :func:`tournaments.pure.records_of_table`).
    With a national-rules ``scale`` each record carries its 级分 (the game's, stored with its
    result; a bye counts as a game won by forfeit, as 第二十四条 counts the rounds a withdrawn
    opponent does not play)."""
    out: list[pure.Record] = []
    for game in games:
        if game.status == GameStatus.BYE:
            bye = (scale.forfeit[0], 0) if scale is not None else None
            out += pure.records_of_game([game.side0, []], None, grades=bye)
        elif game.status == GameStatus.FINISHED and game.seat_scores:
            out += table_records(game).values()
        elif game.status == GameStatus.FINISHED and game.score0 is not None:
            if game.source == GameSource.FORFEIT and game.winner is None:
                for i, side in enumerate(game.sides):
                    for unit in side:
                        out.append(pure.Record(unit, tuple(game.sides[1 - i]), 0, 0, "loss"))
                continue
            grades = None
            if scale is not None and game.grade0 is not None and game.grade1 is not None:
                grades = (game.grade0, game.grade1)
            out += pure.records_of_game(game.sides, (game.score0, game.score1), game.winner, grades)
    return out


def table_records(game: Game) -> dict[int, pure.Record]:
    """A Red Two game's standings record of each entry
    (:func:`tournaments.pure.records_of_table`), or {} while it has no result."""
    if game.status != GameStatus.FINISHED or not game.seat_scores:
        return {}
    records = pure.records_of_table(game.seat_entries, game.seat_scores, game.seat_forfeits)
    return {r.unit: r for r in records}


def points_of(tournament: Tournament) -> pure.Points:
    """The tournament's match points (a bye counts as a win); a national-rules event's are
    the rules' 场分, 2 / 1 / 0 (第十三条三)."""
    if scale_of(tournament) is not None:
        return pure.Points(win=scoring.WIN, draw=scoring.DRAW, loss=scoring.LOSS, bye=scoring.WIN)
    return pure.Points(
        win=tournament.points_win,
        draw=tournament.points_draw,
        loss=0,
        bye=tournament.points_win,
    )


def winner_entry(game: Game) -> int | None:
    """The entry that won a two-entry game (a bye: its entry); None without a winner."""
    if game.status == GameStatus.BYE:
        return game.side0[0]
    if game.status != GameStatus.FINISHED or game.winner is None:
        return None
    return game.sides[game.winner][0]


def loser_entry(game: Game) -> int | None:
    """The entry that lost a two-entry game; None without a winner."""
    if game.status != GameStatus.FINISHED or game.winner is None:
        return None
    return game.sides[1 - game.winner][0]


def users_by_seat(tournament: Tournament, game: Game, entries: dict[int, Entry]) -> list[int]:
    """The user id of each seat: side 0 at seats 0 and 2, side 1 at seats 1 and 3."""
    if game_facts(tournament.variant).seats == 2:
        return [entries[game.side0[0]].player1_id, entries[game.side1[0]].player1_id]
    if tournament.unit_kind == UnitKind.INDIVIDUAL:
        return [entries[e].player1_id for e in game.seat_entries]
    ea, eb = entries[game.side0[0]], entries[game.side1[0]]
    return [ea.player1_id, eb.player1_id, ea.player2_id, eb.player2_id]


def game_users(tournament: Tournament, game: Game) -> list[list[int]]:
    """The user ids of the game's two sides (every player of each side's entries)."""
    entries = {e.pk: e for e in tournament.entries.filter(pk__in=game.side0 + game.side1)}
    return [[u for e in side for u in entries[e].user_ids] for side in game.sides]


@dataclass(frozen=True)
class Step:
    """What the schedule does next for a tournament: ``action`` is ``"wait"``, ``"start"``
    (round ``number`` is paired and due), ``"pair"`` (round ``number`` is due: pair and start
    it) or ``"finish"`` (every round has been played)."""

    action: str
    number: int


def next_step(tournament: Tournament, last: Round | None, now: datetime) -> Step:
    """What is due at ``now`` for a scheduled or running tournament whose latest round is
    ``last`` (None before round 1). A round is due at its time, or as soon as the previous one
    has finished when the tournament starts rounds when ready; round 1 never before the start.
    Reads only: :func:`tournaments.services.schedule.advance` does what it says."""
    if last is not None and last.status == RoundStatus.PAIRED:
        return Step("start" if now >= last.scheduled_at else "wait", last.number)
    if last is not None and last.status != RoundStatus.FINISHED:
        return Step("wait", last.number)
    number = last.number + 1 if last else 1
    if last is None and now < tournament.starts_at:
        return Step("wait", number)
    if number > total_rounds(tournament):
        # before round 1 with too few entries to pair: wait for more
        return Step("finish" if last is not None else "wait", number)
    ready = last is not None and tournament.start_when_ready
    if now < round_time(tournament, number) and not ready:
        return Step("wait", number)
    return Step("pair", number)


#: A game forfeited to the other side because an entry in it has withdrawn.
WITHDRAWAL_FORFEIT = "withdrawal_forfeit"
#: A game of a round-robin entry that withdrew having played fewer than half of its
#: opponents: its result no longer counts for that entry (the other side keeps it).
WITHDRAWAL_ANNULLED = "withdrawal_annulled"


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
    "forfeit_stop": lambda d: (
        _("%(name)s forfeited (第十六条四); levels at the stop %(levels)s.")
        % {"name": d.get("name"), "levels": d.get("shown")}
    ),
    "teammates": lambda d: (
        _("Two of team %(t)s meet: no other pairing was possible.") % {"t": d.get("team")}
    ),
    "edited": lambda d: _("Edited by an organiser."),
    "bracket_corrected": lambda d: (
        _("Changed after a corrected result in round %(r)s.") % {"r": d.get("round")}
    ),
    WITHDRAWAL_FORFEIT: lambda d: (
        _("%(name)s has withdrawn: the game is forfeited to the other side.") % {"name": d["name"]}
    ),
    WITHDRAWAL_ANNULLED: lambda d: (
        _(
            "Annulled for %(name)s, who withdrew in round %(n)s having played fewer than half "
            "of its opponents; the other side keeps this result."
        )
        % {"name": d["name"], "n": d["round"]}
    ),
    "series_game": lambda d: (
        _("Deciding game of the tie: its grade points and match points are equal.")
        if d.get("decider")
        else _("Game %(n)s of the tie.") % {"n": d.get("game")}
    ),
    "result_corrected": lambda d: (
        _("Result changed from %(before)s to %(after)s by %(by)s: %(reason)s")
        % {
            "before": d["shown"][0],
            "after": d["shown"][1],
            "by": d["by_name"],
            "reason": d["reason"],
        }
    ),
}


def note_text(note: dict[str, Any]) -> str:
    """The translated sentence explaining a pairing note."""
    maker = NOTE_TEXT.get(note.get("code", ""))
    try:
        return maker(note.get("detail") or {}) if maker else str(note.get("code"))
    except (KeyError, IndexError, TypeError):
        return str(note.get("code"))


def entry_groups(tournament: Tournament) -> dict[int, str]:
    """Each entry's group (A, B, …) in a group round robin (:func:`groups_of`); empty for an
    event without groups."""
    if tournament.format != TournamentFormat.ROUND_ROBIN or tournament.groups < 2:
        return {}
    return {pk: group_name(i) for i, group in enumerate(groups_of(tournament)) for pk in group}


def game_json(
    game: Game,
    names: dict[int, str],
    per_seat: bool = False,
    groups: dict[int, str] | None = None,
) -> dict[str, Any]:
    """A game as the API and pages show it; ``per_seat`` (Nanping Red Two): also ``seats``,
    its four players in seat order, each with their points, outcome and forfeit once it has
    a result. With ``groups`` (:func:`entry_groups`, a group round robin) also ``group``, the
    name of the group the game is played in."""
    data = {
        "id": game.pk,
        "round": game.round.number,
        "number": game.number,
        "sides": [[{"entry": e, "name": names.get(e, "")} for e in side] for side in game.sides],
        "status": game.status,
        "status_text": str(GameStatus(game.status).label),
        "score": None if game.score0 is None else [game.score0, game.score1],
        "grades": None if game.grade0 is None else [game.grade0, game.grade1],
        "winner": game.winner,
        "source": game.source,
        "third_place": game.third_place,
        "slot": game.slot,
        "table": game.table_id,
        "sheet": game.sheet_id,
        "notes": [{**n, "text": note_text(n)} for n in game.notes],
    }
    if groups:
        data["group"] = groups.get(game.side0[0], "") if game.side0 else ""
    if comparisons.withheld(game):  # 复式赛: a table of the round still plays its deals
        data.update(score=None, grades=None, winner=None)
    if per_seat and not game.is_bye:
        entries = game.seat_entries
        records = table_records(game)
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


def double_bracket(tournament: Tournament) -> list[dict[str, Any]]:
    """A double elimination's bracket as its page draws it: the winners' bracket, the losers'
    bracket and the final, each a list of stages, each stage its slots in order with the
    stored game (None before it is paired; a void slot, where nobody plays, is left out)."""
    if tournament.format != TournamentFormat.DOUBLE_ELIMINATION:
        return []
    order = tournament_order(tournament)
    if len(order) < 2:
        return []
    games = {g.slot: g for g in all_games(tournament)}
    winners = {g.slot: w for g in games.values() if (w := winner_entry(g)) is not None}
    known = brackets.resolve(brackets.double_elimination(len(order)), order, winners)
    parts = []
    for code, title in (
        (brackets.WINNERS, _("Winners' bracket")),
        (brackets.LOSERS, _("Losers' bracket")),
        (brackets.FINAL, _("Final")),
    ):
        stages: dict[int, list[dict[str, Any]]] = {}
        for slot in brackets.double_elimination(len(order)):
            if slot.bracket != code:
                continue
            found = known.get(slot.id)
            if found is not None and found.kind == "void":
                continue
            stages.setdefault(slot.stage, []).append(
                {"slot": slot, "game": games.get(slot.id), "resolved": found}
            )
        parts.append({"code": code, "title": title, "stages": [stages[s] for s in sorted(stages)]})
    return parts


def bracket(tournament: Tournament) -> list[list[Game]]:
    """Elimination rounds, each its games in bracket order (the third-place game last)."""
    if tournament.format not in KNOCKOUT_FORMATS:
        return []
    rounds: dict[int, list[Game]] = {}
    for game in all_games(tournament):
        rounds.setdefault(game.round.number, []).append(game)
    return [sorted(rounds[n], key=lambda g: (g.third_place, g.slot)) for n in sorted(rounds)]


@dataclass
class Tie:
    """One tie (对阵) of a single elimination: its round and bracket ``slot``, its two sides'
    entry ids (those of its first game: every game of a series keeps them), its ``games`` in
    the order played and the :class:`tournaments.series.SeriesState` they make (one game
    without a series)."""

    round: int
    slot: int
    third_place: bool
    sides: list[list[int]]
    games: list[Game]
    state: tie_series.SeriesState

    @property
    def winner_entry(self) -> int | None:
        """The entry that goes through, once the tie is decided."""
        if not self.state.decided or self.state.winner is None:
            return None
        return self.sides[self.state.winner][0]

    @property
    def loser_entry(self) -> int | None:
        """The entry that is out, once the tie is decided (None for a bye)."""
        if not self.state.decided or self.state.winner is None or not self.sides[1]:
            return None
        return self.sides[1 - self.state.winner][0]


def series_game(game: Game, sides: list[list[int]]) -> tie_series.SeriesGame:
    """A game as its tie counts it (:mod:`tournaments.series`), its winner and 级分 read
    towards the tie's ``sides`` (a game stored the other way round is turned)."""
    flip = game.sides != sides and game.sides[::-1] == sides
    finished = game.status == GameStatus.FINISHED
    winner = game.winner if finished else None
    if winner is not None and flip:
        winner = 1 - winner
    grades = None
    if finished and game.grade0 is not None and game.grade1 is not None:
        grades = (game.grade1, game.grade0) if flip else (game.grade0, game.grade1)
    return tie_series.SeriesGame(finished, winner, grades)


def tie_of(tournament: Tournament, games: Sequence[Game]) -> Tie:
    """The tie the ``games`` of one slot of a round make (in the order played)."""
    ordered = sorted(games, key=lambda g: g.number)
    first = ordered[0]
    sides = [list(first.side0), list(first.side1)]
    mode = tournament.series or tie_series.SINGLE
    if not first.side0:  # it waits for its entries: a tie before it is undecided again
        state = tie_series.SeriesState(mode, 0, (0, 0), (0, 0), (0, 0), False, None, "wait")
    elif first.is_bye:
        state = tie_series.SeriesState(mode, 0, (0, 0), (0, 0), (0, 0), True, 0, "")
    else:
        state = tie_series.series_state(mode, [series_game(g, sides) for g in ordered])
    return Tie(first.round.number, first.slot, first.third_place, sides, ordered, state)


def ties_of(tournament: Tournament, games: Sequence[Game] | None = None) -> list[Tie]:
    """A single elimination's ties, round by round, each round in bracket order (the
    third-place tie last); ``games``: those to read (every game of the tournament)."""
    if tournament.format != TournamentFormat.ELIMINATION:
        return []
    grouped: dict[tuple[int, bool, int], list[Game]] = {}
    for game in all_games(tournament) if games is None else games:
        grouped.setdefault((game.round.number, game.third_place, game.slot), []).append(game)
    return [tie_of(tournament, grouped[key]) for key in sorted(grouped)]


def ties_json(tournament: Tournament) -> list[list[dict[str, Any]]]:
    """A single elimination's ties as the API answers them, round by round: each tie's round,
    ``slot``, ``third_place``, ``sides`` (entries and names), its ``games``
    (:func:`game_json`, in the order played), the series' ``mode`` and where it stands —
    ``wins``, ``points`` (场分), ``grades`` (级分 added up), ``decided``, ``winner`` (the
    entry that goes through, null until decided), ``next_game`` (``game``, ``decider``,
    ``wait`` or empty) and ``decider`` (a deciding game was needed)."""
    names = {e.pk: e.name for e in entries(tournament)}
    rounds: dict[int, list[dict[str, Any]]] = {}
    for tie in ties_of(tournament):
        state = tie.state
        rounds.setdefault(tie.round, []).append(
            {
                "round": tie.round,
                "slot": tie.slot,
                "third_place": tie.third_place,
                "sides": [[{"entry": e, "name": names.get(e, "")} for e in s] for s in tie.sides],
                "games": [game_json(g, names) for g in tie.games],
                "mode": state.mode,
                "wins": list(state.wins),
                "points": list(state.points),
                "grades": list(state.grades),
                "decided": state.decided,
                "winner": tie.winner_entry,
                "next_game": state.next_game,
                "decider": state.decider,
            }
        )
    return [rounds[n] for n in sorted(rounds)]


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
            record = table_records(game).get(entry.pk)
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
        if game.score0 is not None and not comparisons.withheld(game):
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


# Withdrawals after the start (第二十四条二): tournaments.services.entries.withdraw records them
# on the entry (withdrawn_round, withdrawal_reason, withdrawn_by, withdrawal_rule).


@dataclass(frozen=True)
class Withdrawal:
    """An entry's withdrawal after the start: the round it withdrew in (the first it does not
    finish), the reason, who accepted it, the rule applied (``annulled``: its results are
    cancelled and it leaves the standings; ``stands``: its results stand and its remaining
    round-robin games are forfeits; ``swiss``; ``knockout``: :class:`WithdrawalRule`)."""

    entry: int
    round: int
    reason: str
    by_name: str
    rule: str

    @property
    def annulled(self) -> bool:
        """True when the entry's results are cancelled (round robin, under half played)."""
        return self.rule == WithdrawalRule.ANNULLED


def withdrawals(tournament: Tournament) -> dict[int, Withdrawal]:
    """Every withdrawal after the start by entry id, in the order of their rounds (one query
    on the entries)."""
    withdrawn = (
        Entry.objects.filter(tournament=tournament, withdrawn_round__isnull=False)
        .select_related("withdrawn_by")
        .order_by("withdrawn_round", "withdrawn_at", "pk")
    )
    return {
        e.pk: Withdrawal(
            e.pk,
            e.withdrawn_round or 0,
            e.withdrawal_reason,
            e.withdrawn_by.name if e.withdrawn_by else "",
            e.withdrawal_rule,
        )
        for e in withdrawn
    }


def annulled(tournament: Tournament) -> list[int]:
    """The entries whose results are cancelled by a withdrawal (第二十四条二.1): not ranked."""
    return list(
        Entry.objects.filter(
            tournament=tournament, withdrawal_rule=WithdrawalRule.ANNULLED
        ).values_list("pk", flat=True)
    )
