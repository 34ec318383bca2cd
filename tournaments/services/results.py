"""Results: collecting those of live matches and confirmed score sheets, an organiser's
entries and corrections (standings follow at once; in elimination the bracket after a
changed winner follows), and whether a round is done."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.models import User
from games.variants import game as game_facts
from games.variants import level_names
from matches.models import Match, MatchStatus
from sheets.selectors import confirmed_results
from tournaments import brackets, scoring
from tournaments import series as tie_series
from tournaments.models import (
    KNOCKOUT_FORMATS,
    Entry,
    Game,
    GameSource,
    GameStatus,
    Round,
    RoundStatus,
    Tournament,
    TournamentFormat,
    TournamentStatus,
)
from tournaments.notifications import notify_series_game
from tournaments.selectors import (
    scale_of,
    ties_of,
    tournament_order,
    users_by_seat,
    winner_entry,
)
from tournaments.services.errors import TournamentError
from tournaments.services.rating import (
    correct_played_rating,
    link_sheet,
    matching_sheet,
    rate_organiser_result,
    rate_sheet,
)
from tournaments.services.rounds import open_pending_tables, pair_again, paired_plan
from tournaments.services.setup import locked, managed
from tournaments.services.ties import play_on_ties


def finish_game(
    game: Game,
    score0: int,
    score1: int,
    winner: int | None,
    source: str,
    now: datetime,
    *,
    passed_top: bool | None = None,
    stop_levels: tuple[int, int] | None = None,
) -> bool:
    """Store a result; True when it changed. In a national-rules event the game's 级分 are
    stored with it (:func:`grades_for`)."""
    grades = grades_for(game, score0, score1, winner, source, passed_top, stop_levels)
    if (game.score0, game.score1, game.winner, game.source, game.status) == (
        score0,
        score1,
        winner,
        source,
        GameStatus.FINISHED,
    ) and (game.grade0, game.grade1) == grades:
        return False
    game.score0, game.score1, game.winner, game.source = score0, score1, winner, source
    game.grade0, game.grade1 = grades
    game.status = GameStatus.FINISHED
    game.finished_at = now
    game.save(
        update_fields=[
            "score0",
            "score1",
            "winner",
            "source",
            "grade0",
            "grade1",
            "status",
            "finished_at",
        ]
    )
    return True


def grades_for(
    game: Game,
    score0: int,
    score1: int,
    winner: int | None,
    source: str,
    passed_top: bool | None = None,
    stop_levels: tuple[int, int] | None = None,
) -> tuple[int | None, int | None]:
    """The 级分 of a result in a national-rules event (:mod:`tournaments.scoring`); (None,
    None) elsewhere. ``passed_top``: the winner passed the top level (过A); None: a winner at
    the top level did. A forfeit scores 18:0 on the 26-point table from ``stop_levels``, the
    levels when the game stopped (None: the scores; a live match's forfeit has already set
    its levels to the whole scale, so it passes (0, 0): the levels at the stop are unknown)."""
    scale = scale_of(game.round.tournament)
    if scale is None:
        return None, None
    levels = stop_levels if stop_levels is not None else (score0, score1)
    forfeit = source == GameSource.FORFEIT
    if passed_top is None:
        passed_top = winner is not None and (score0, score1)[winner] == scale.top
    try:
        return scoring.grades_of(scale, levels, winner, passed_top=passed_top, forfeit=forfeit)
    except ValueError:  # a result off the scale (checked where it is entered): no 级分
        return None, None


def finish_seats(
    game: Game, totals: Sequence[int], forfeits: Sequence[int], source: str, now: datetime
) -> bool:
    """Store a Red Two game's result (each seat's total, the seats that forfeited); True when
    it changed."""
    totals, forfeits = [int(t) for t in totals], sorted(set(forfeits))
    if (game.seat_scores, game.seat_forfeits, game.source, game.status) == (
        totals,
        forfeits,
        source,
        GameStatus.FINISHED,
    ):
        return False
    game.seat_scores, game.seat_forfeits, game.source = totals, forfeits, source
    game.status = GameStatus.FINISHED
    game.finished_at = now
    game.save(update_fields=["seat_scores", "seat_forfeits", "source", "status", "finished_at"])
    return True


def _forfeited_seats(match: Any) -> list[int]:
    """The seats a forfeit (a referee's or a no-show's) ended a match against."""
    actions = match.events.filter(action__sanction="forfeit").values_list("action", flat=True)
    return [a["target"] for a in actions if isinstance(a.get("target"), int)]


def collect_live(
    tournament: Tournament, game: Game, now: datetime, forfeits: Sequence[int] = ()
) -> bool:
    """Take the result of the game's finished live match (``forfeits``: Red Two seats that
    lose by forfeit besides the one the match was forfeited against)."""
    match = Match.objects.filter(table_id=game.table_id).first()
    if match is None or match.status != MatchStatus.FINISHED:
        return False
    result = match.result or {}
    source = GameSource.FORFEIT if result.get("reason") == "forfeit" else GameSource.LIVE
    if tournament.per_seat:
        lost = [*forfeits, *(_forfeited_seats(match) if source == GameSource.FORFEIT else [])]
        return finish_seats(game, result.get("score") or [0] * 4, lost, source, now)
    score = result.get("score") or [0, 0]
    winner = result.get("winner")
    return finish_game(
        game,
        int(score[0]),
        int(score[1]),
        winner,
        source,
        now,
        passed_top=result.get("reason") == "last_level",
        stop_levels=(0, 0) if source == GameSource.FORFEIT else None,
    )


def _collect_sheet(
    tournament: Tournament,
    game: Game,
    entries: dict[int, Entry],
    results: Sequence[Any],
    now: datetime,
) -> bool:
    """Take the result of the confirmed sheet (among ``results``) with the game's players."""
    if tournament.per_seat:
        return _collect_table_sheet(tournament, game, entries, results, now)
    found = matching_sheet(tournament, game, entries, results)
    if found is None:
        return False
    result, flip = found
    scores = result.scores[::-1] if flip else result.scores
    winner = result.winner if result.winner is None or not flip else 1 - result.winner
    link_sheet(game, result.sheet_id)
    if tournament.rated:
        rate_sheet(tournament, result)
    return finish_game(game, scores[0], scores[1], winner, GameSource.SHEET, now)


def _collect_table_sheet(
    tournament: Tournament,
    game: Game,
    entries: dict[int, Entry],
    results: Sequence[Any],
    now: datetime,
) -> bool:
    """A Red Two game's result from the first confirmed sheet (among ``results``) of its four
    players, in whatever seats they sat (the sheet's own recording rates it, if at all)."""
    seat_users = users_by_seat(tournament, game, entries)
    for result in results:
        totals = result.seat_totals
        users = result.seat_users
        if not totals or len(totals) != 4 or None in users or sorted(users) != sorted(seat_users):
            continue
        by_user = dict(zip(result.seat_users, totals, strict=True))
        link_sheet(game, result.sheet_id)
        return finish_seats(game, [by_user[u] for u in seat_users], [], GameSource.SHEET, now)
    return False


def collect_results(tournament: Tournament, rnd: Round, now: datetime) -> int:
    """Pick up the results of the round's games (live matches, confirmed sheets); return how
    many changed."""
    changed = 0
    playing = rnd.games.filter(status=GameStatus.PLAYING)
    # live games: only those whose match has finished (one query for the whole round)
    for game in playing.filter(table__isnull=False, table__match__status="finished"):
        changed += collect_live(tournament, game, now)
    sheet_games = list(playing.filter(table__isnull=True)) if not tournament.online else []
    if sheet_games:
        results = confirmed_results(tournament.club, tournament.variant, since=rnd.started_at)
        entries = {e.pk: e for e in tournament.entries.all()}
        for game in sheet_games:
            changed += _collect_sheet(tournament, game, entries, results, now)
    return changed


def round_done(rnd: Round) -> bool:
    """Whether every game of the round counts (in elimination: each tie has a winner — one
    game's, or a series' of several: :mod:`tournaments.series`)."""
    games = list(rnd.games.all())
    if rnd.tournament.format == TournamentFormat.ELIMINATION:
        # a tie without entries waits for the tie before it (a correction reopened it)
        return all(tie.sides[0] and tie.state.decided for tie in ties_of(rnd.tournament, games))
    if not all(g.has_result for g in games):
        return False
    if rnd.tournament.format in KNOCKOUT_FORMATS:
        return all(g.is_bye or g.winner is not None for g in games)
    return True


@transaction.atomic
def set_result(
    user: User,
    game: Game,
    score0: int | None,
    score1: int | None,
    winner: int | None = None,
    now: datetime | None = None,
) -> Game:
    """Enter or correct a game's result (organisers). Standings follow at once (they are
    computed from the games); in elimination a changed winner replaces the entry in the games
    after it, whose results are cleared. ``winner`` decides a knockout tie or a forfeit, or
    names the side that won a Bao 2 / Guandan game with level scores (it passed the top level
    first). Bao 2 and Guandan scores are levels (0 to the top level). In a rated tournament
    the result feeds the club ladder unless the game is already rated
    (:func:`rate_organiser_result`)."""
    tournament = managed(user, game.round.tournament)
    return _store_result(tournament, game, score0, score1, winner, now or timezone.now())


def _store_result(
    tournament: Tournament,
    game: Game,
    score0: int | None,
    score1: int | None,
    winner: int | None,
    now: datetime,
) -> Game:
    """:func:`set_result`'s checks and effects once the caller's authority is established."""
    if tournament.per_seat:
        raise TournamentError("per_seat", _("Red Two results are each player's points."))
    game = _game_for_result(game)
    for score in (score0, score1):
        if isinstance(score, bool) or not isinstance(score, int) or abs(score) > 10**6:
            raise TournamentError("bad_score", _("Scores must be whole numbers."))
    if winner is not None and winner not in (0, 1):
        raise TournamentError("bad_winner", _("The winner is side 0 or side 1."))
    if game_facts(tournament.variant).levels:
        top = game_facts(tournament.variant).max_level
        if not (0 <= score0 <= top and 0 <= score1 <= top):
            names = level_names(tournament.variant)
            raise TournamentError(
                "bad_score",
                _("Levels go from %(low)s to %(high)s.") % {"low": names[0], "high": names[-1]},
            )
        if score0 == score1 == top and winner is None:
            # both at the last level: one side passed it first and won; a tie there is none
            raise TournamentError(
                "bad_score",
                _("Both sides cannot both have won: name the side that passed the last level."),
            )
    natural = None if score0 == score1 else (0 if score0 > score1 else 1)
    if winner is not None and natural is not None and winner != natural:
        raise TournamentError("bad_winner", _("The winner must have the higher score."))
    final_winner = natural if winner is None else winner
    before = winner_entry(game)
    paired = paired_plan(tournament, game.round.number, now)
    finish_game(game, score0, score1, final_winner, GameSource.ADMIN, now)
    pair_again(tournament, paired, now)
    return _after_result(tournament, game, before, now)


def store_forfeit(
    tournament: Tournament,
    game: Game,
    winner: int,
    stop_levels: tuple[int, int],
    now: datetime,
) -> Game:
    """Store a level game stopped by a forfeit the organiser rules (第十六条四): the winner at
    the top level and the loser at the lowest (as every forfeit is stored), its 级分 read from
    ``stop_levels`` (each side's level index when the game stopped: 18:0, or the game as it
    stood when the winner's 级分 then exceeded 18), with the effects of :func:`set_result`
    (the ladder, a multi-game tie, the bracket). The caller has checked the organiser and the
    input (:func:`tournaments.services.forfeits.rule_forfeit`)."""
    game = _game_for_result(game)
    top = game_facts(tournament.variant).max_level
    score0, score1 = scoring.forfeit_levels(top, winner)
    before = winner_entry(game)
    finish_game(game, score0, score1, winner, GameSource.FORFEIT, now, stop_levels=stop_levels)
    return _after_result(tournament, game, before, now)


def _after_result(tournament: Tournament, game: Game, before: Any, now: datetime) -> Game:
    """What follows an organiser's result: the ladder, a tie's next game, the bracket."""
    rate_organiser_result(tournament, game, now)
    if tournament.series:
        # a tie of several games (第三十条): its next game, and the bracket after its winner
        play_on_ties(tournament, game.round, now)
        rebracket(tournament, game.round.number, now)
    elif tournament.format in KNOCKOUT_FORMATS and before != winner_entry(game):
        rebracket(tournament, game.round.number, now)
    return game


@transaction.atomic
def correct_result(
    actor: User,
    game: Game,
    score0: int,
    score1: int,
    reason: str,
    winner: int | None = None,
    now: datetime | None = None,
) -> Game:
    """Change a game's result by a decision taken above the organiser's result form (an
    appeals committee's majority, 第三十九条): the caller (``officials.services``) has checked
    that ``actor`` and the decision have that authority. The checks and effects are
    :func:`set_result`'s — standings follow, a changed knockout winner re-brackets the games
    after it that have not started (their results cleared) — and the change is noted on the
    game (``result_corrected``: who, the scores before and after, why). The ladder follows
    once: an organiser-rated game's rating is corrected (or given, in a rated tournament), and
    so is a rated live match's (:func:`~tournaments.services.rating.correct_played_rating`):
    a corrected result overrides the record of play. Raises :class:`TournamentError` for a
    result the form would refuse, having changed nothing."""
    tournament = locked(game.round.tournament)
    before = Game.objects.filter(pk=game.pk).values_list("score0", "score1").get()
    game = _store_result(tournament, game, score0, score1, winner, now or timezone.now())
    after = (game.score0, game.score1)
    note = {
        "code": "result_corrected",
        "units": [],
        "detail": {
            "by": actor.pk,
            "by_name": actor.name,
            "before": list(before),
            "after": [game.score0, game.score1],
            "shown": [_score_text(tournament, before), _score_text(tournament, after)],
            "reason": str(reason)[:500],
        },
    }
    game.notes = [*game.notes, note]
    game.save(update_fields=["notes"])
    correct_played_rating(tournament, game)
    return game


def _score_text(tournament: Tournament, scores: Sequence[int | None]) -> str:
    """``10 : A（第2轮）`` in a level game's names, ``120 : 80`` in points, ``–`` for none."""
    if scores[0] is None or scores[1] is None:
        return "–"
    if game_facts(tournament.variant).levels:
        names = level_names(tournament.variant)
        return " : ".join(names[s] if 0 <= s < len(names) else str(s) for s in scores)
    return f"{scores[0]} : {scores[1]}"


def _game_for_result(game: Game) -> Game:
    """The game, locked, if a result may be entered for it (it has started, it is no bye)."""
    game = Game.objects.select_for_update().select_related("round").get(pk=game.pk)
    if game.is_bye:
        raise TournamentError("bye", _("A bye has no result to enter."))
    if game.round.status == RoundStatus.PAIRED or game.status == GameStatus.PENDING:
        raise TournamentError("not_started", _("This game has not started."))
    return game


@transaction.atomic
def set_seat_result(
    user: User,
    game: Game,
    totals: Sequence[int] | None,
    forfeits: Sequence[int] = (),
    now: datetime | None = None,
) -> Game:
    """Enter or correct a Nanping Red Two game's result (organisers): each seat's match points
    (seats in :attr:`Game.seat_entries` order; they add up to 0, as every point is paid by one
    player to another) and the seats that lost by forfeit. Standings follow at once. The
    ladder is not told: a Red Two rating needs the sides the last deal revealed, which only the
    match itself knows (a rated live match is rated when it ends)."""
    tournament = managed(user, game.round.tournament)
    if not tournament.per_seat:
        raise TournamentError("not_per_seat", _("This game's result is its two sides' scores."))
    game = _game_for_result(game)
    if (
        not isinstance(totals, list | tuple)
        or len(totals) != 4
        or any(isinstance(t, bool) or not isinstance(t, int) or abs(t) > 10**6 for t in totals)
    ):
        raise TournamentError(
            "bad_score", _("Give each of the four players' points as a whole number.")
        )
    if sum(totals) != 0:
        raise TournamentError(
            "bad_score",
            _("Red Two points are paid between the players: the four totals add up to 0."),
        )
    if not isinstance(forfeits, list | tuple) or any(
        isinstance(s, bool) or s not in (0, 1, 2, 3) for s in forfeits
    ):
        raise TournamentError("bad_forfeits", _("Forfeits are seats 0 to 3."))
    finish_seats(game, totals, forfeits, GameSource.ADMIN, now or timezone.now())
    return game


def rebracket(tournament: Tournament, from_round: int, now: datetime) -> None:
    """After a result in round ``from_round`` of a knockout that changed who goes through (a
    corrected result; a tie of several games decided, or left undecided again by a
    correction), put the right entries into each game of the later rounds, round by round:

    * a game whose entries stay is left as it is, its result too;
    * a game whose entries change gets them and loses its result (noted
      ``bracket_corrected``): a result played by other entries does not stand. A tie of
      several games starts again from its first game (its later games are removed);
    * a game fed by a tie that is not decided (a correction reopened it, or the game before
      it waits too) **waits**: no entries, not started, no result, until that tie is
      decided; then it is filled as above — by the result that decides the tie, or by the
      schedule once it finishes the round (:func:`tournaments.services.schedule.advance`);
    * a game given entries in a round being played starts at once (its live table opens)
      and its players are told where it is
      (:func:`tournaments.notifications.notify_series_game`, once);
    * a finished round with a game no longer decided is played again, and a finished
      tournament runs again.

    The caller holds the tournament's lock."""
    rounds = list(tournament.rounds.filter(number__gt=from_round).order_by("number"))
    for rnd in rounds:
        games = list(rnd.games.select_related("round").order_by("number"))
        if tournament.format == TournamentFormat.DOUBLE_ELIMINATION:
            wanted = _double_sides(tournament)
        else:
            wanted = _single_sides(tournament, rnd.number)
        series_seen: set[tuple[bool, int]] = set()
        filled: list[Game] = []
        for i, game in enumerate(games):
            key = game.slot if tournament.format == TournamentFormat.DOUBLE_ELIMINATION else i
            if tournament.series:  # a tie's games share its slot (create_round: slot = index)
                key = game.slot
            first_of_tie = (game.third_place, game.slot) not in series_seen
            series_seen.add((game.third_place, game.slot))
            want = wanted.get(key, ((), ()))
            if [list(want[0]), list(want[1])] == game.sides:
                continue
            if tournament.series and not first_of_tie:
                game.delete()  # the tie starts again from its first game with its new entries
                continue
            _refill(tournament, rnd, game, want, from_round, now)
            if game.side0 and game.side1 and rnd.status != RoundStatus.PAIRED:
                filled.append(game)
        if rnd.status == RoundStatus.FINISHED and not round_done(rnd):
            rnd.status = RoundStatus.PLAYING
            rnd.finished_at = None
            rnd.save(update_fields=["status", "finished_at"])
        if filled and rnd.status == RoundStatus.PLAYING:
            if tournament.online:
                open_pending_tables(tournament, rnd)
            for game in filled:  # where they play now, once
                notify_series_game(tournament, Game.objects.select_related("round").get(pk=game.pk))
    if tournament.status == TournamentStatus.FINISHED:
        last = rounds[-1] if rounds else None
        if last is not None:
            last.refresh_from_db()
        if last is not None and last.status != RoundStatus.FINISHED:
            tournament.status = TournamentStatus.RUNNING
            tournament.finished_at = None
            tournament.save(update_fields=["status", "finished_at"])


def _refill(
    tournament: Tournament,
    rnd: Round,
    game: Game,
    want: tuple[tuple[int, ...], tuple[int, ...]],
    from_round: int,
    now: datetime,
) -> None:
    """Give ``game`` of round ``rnd`` the entries ``want`` (none: it waits), its result
    cleared: waiting or not yet started (a paired round, or a live table still to open), being
    played, or a bye carried on (double elimination). A game that had entries is noted
    ``bracket_corrected`` (a game only waiting for its entries is filled without a note);
    one whose result is cleared has the note say so (``cleared``, the scores ``before``), so
    its replay is rated as a new game (:func:`~tournaments.services.rating.organiser_source_id`)
    while the rating of the game as played stands."""
    had_entries = bool(game.side0)
    cleared = game.status == GameStatus.FINISHED  # a result played: its rating stands
    before = [game.score0, game.score1]
    game.side0, game.side1 = list(want[0]), list(want[1])
    game.score0 = game.score1 = game.winner = None
    game.source = ""
    game.table = None
    game.sheet = None
    game.finished_at = None
    game.grade0 = game.grade1 = None
    if not want[0]:  # waits for the tie that feeds it
        game.status = GameStatus.PENDING
    elif not want[1]:  # a double elimination's bye, carried on
        game.status, game.finished_at = GameStatus.BYE, now
    elif rnd.status == RoundStatus.PAIRED or tournament.online:
        game.status = GameStatus.PENDING  # a live table opens for it once its round plays
    else:
        game.status = GameStatus.PLAYING
    if had_entries:
        detail: dict[str, Any] = {"round": from_round}
        if cleared:  # the replay is rated anew (rating.organiser_source_id)
            detail.update(cleared=True, before=before)
        game.notes = list(game.notes) + [
            {"code": "bracket_corrected", "units": [], "detail": detail}
        ]
    game.save()


def _single_sides(
    tournament: Tournament, number: int
) -> dict[int, tuple[tuple[int, ...], tuple[int, ...]]]:
    """Each tie of round ``number`` of a single elimination (by its index: its slot) as the
    ties of the round before now give it (:func:`tournaments.series.next_ties`); a tie with a
    side still undecided has no entries (it waits)."""
    games = list(
        Game.objects.filter(round__tournament=tournament, round__number=number - 1).select_related(
            "round"
        )
    )
    fed = []
    for tie in ties_of(tournament, games):
        if tie.third_place:
            continue
        if not tie.sides[0]:  # waiting itself
            fed.append(tie_series.Fed(None))
        elif not tie.sides[1]:
            fed.append(tie_series.Fed(tie.sides[0][0], None, bye=True))
        else:
            fed.append(tie_series.Fed(tie.winner_entry, tie.loser_entry))
    try:
        pairs = tie_series.next_ties(fed, tournament.third_place)
    except ValueError:
        pairs = []
    return {
        i: ((a,), (b,)) if a is not None and b is not None else ((), ())
        for i, (a, b) in enumerate(pairs)
    }


def _double_sides(tournament: Tournament) -> dict[int, tuple[tuple[int, ...], tuple[int, ...]]]:
    """Each double-elimination slot's sides as the results stored now give them (a slot
    still waiting on an undecided game: none); read again before each round is checked, as a
    cleared result empties the slots after it."""
    order = tournament_order(tournament)
    games = Game.objects.filter(round__tournament=tournament)
    winners = {g.slot: w for g in games if (w := winner_entry(g)) is not None}
    out: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}
    for slot_id, found in brackets.resolve(
        brackets.double_elimination(len(order)), order, winners
    ).items():
        a, b = found.units
        if found.kind == "game":
            out[slot_id] = ((a,), (b,))  # type: ignore[assignment]
        elif found.kind == "bye":
            out[slot_id] = ((found.winner,), ())  # type: ignore[assignment]
    return out
