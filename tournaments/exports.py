"""Standings and results as CSV for spreadsheets and notice boards: UTF-8 with a byte-order
mark, so Excel opens Chinese names correctly; one header row in the reader's language."""

from __future__ import annotations

import csv
import io

from django.utils.translation import gettext as _

from tournaments import comparisons, selectors
from tournaments.models import Tournament

#: Excel reads a CSV file as UTF-8 only when it starts with this mark.
BOM = "\ufeff"


def _csv(rows: list[list[object]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerows(rows)
    return BOM + out.getvalue()


def _place(line: selectors.StandingLine) -> object:
    """The place as the standings page prints it: a knockout's band (``3–4``) or "in play"."""
    if line.placing is None:
        return line.row.place
    return _("in play") if line.placing.in_play else line.placing.label


def standings_csv(tournament: Tournament, labels: dict[str, str]) -> str:
    """The standings: place, entry, team, played, wins-draws-losses, each tie-break
    (``labels`` names the tie-break columns) and the round after which a low-position cut put
    the entry out (第二十九条; empty while it plays on), in an event with cuts. In an event
    with withdrawals after the start (第二十四条二) two more columns: 退赛（第N轮） (and 成绩注销
    when its results are annulled) and the reason; the annulled entries follow the ranked
    ones without a place or numbers, as the standings page lists them."""
    tiebreaks = selectors.tiebreaks_of(tournament)
    withdrawn = selectors.withdrawals(tournament)
    rows: list[list[object]] = [
        [_("Place"), _("Entry"), _("Team"), _("Played"), _("Wins"), _("Draws"), _("Losses")]
        + [labels[t] for t in tiebreaks]
        + ([_("Out after round")] if tournament.cuts else [])
        + ([_("Withdrawal"), _("Reason for the withdrawal")] if withdrawn else [])
    ]

    def marks(entry: int) -> list[object]:
        if not withdrawn:
            return []
        w = withdrawn.get(entry)
        return [_withdrawal_mark(w), w.reason] if w else ["", ""]

    for line in selectors.standings(tournament):
        row = line.row
        rows.append(
            [
                _place(line),
                line.entry.name,
                line.entry.team,
                row.played,
                row.wins,
                row.draws,
                row.losses,
            ]
            + [_number(row.values.get(t, "")) for t in tiebreaks]
            + ([line.eliminated_after or ""] if tournament.cuts else [])
            + marks(line.entry.pk)
        )
    annulled = [w.entry for w in withdrawn.values() if w.annulled]
    named = {
        pk: (name, team)
        for pk, name, team in tournament.entries.filter(pk__in=annulled).values_list(
            "pk", "name", "team"
        )
    }
    for pk in annulled:  # not ranked (第二十四条二.1)
        name, team = named.get(pk, ("", ""))
        rows.append(
            ["", name, team, "", "", "", ""]
            + [""] * len(tiebreaks)
            + ([""] if tournament.cuts else [])
            + marks(pk)
        )
    return _csv(rows)


def _withdrawal_mark(withdrawal: selectors.Withdrawal) -> str:
    """退赛（第N轮）, with 成绩注销 when its results are annulled."""
    mark = _("withdrew in round %(n)s") % {"n": withdrawal.round}
    return f"{mark} · {_('results annulled')}" if withdrawal.annulled else mark


def results_csv(tournament: Tournament) -> str:
    """Every game, round by round: table, the two sides, the score and the winner; a
    national-rules event also each side's 级分 (:mod:`tournaments.scoring`); a group round
    robin (分组循环赛) the group of each game, after the table (one file for every group: a
    spreadsheet's filter on the column gives one group's)."""
    names = {e.pk: e.name for e in selectors.entries(tournament)}
    national = selectors.scale_of(tournament) is not None
    header: list[object] = [
        _("Round"),
        _("Table"),
        _("Side 1"),
        _("Side 2"),
        _("Score"),
        _("Winner"),
        _("Status"),
    ]
    # a knockout of multi-game ties (第三十条): each game's tie and its number in the tie
    in_tie: dict[int, tuple[str, int]] = {}
    if tournament.series:
        header += [_("Tie"), _("Game of the tie")]
        for tie in selectors.ties_of(tournament):
            label = _("3rd place") if tie.third_place else str(tie.slot + 1)
            for index, tied in enumerate(tie.games, start=1):
                in_tie[tied.pk] = (label, index)
    groups = selectors.entry_groups(tournament)
    if groups:
        header.insert(2, _("Round-robin group"))
    rows: list[list[object]] = [header + ([_("Grade points")] if national else [])]
    sealed = comparisons.sealed_rounds(tournament)  # 复式赛: withheld while a table plays
    for game in selectors.all_games(tournament):
        sides = [" / ".join(names.get(e, "") for e in side) for side in game.sides]
        score = "" if game.score0 is None else f"{game.score0}:{game.score1}"
        if game.seat_scores:
            score = " / ".join(str(s) for s in game.seat_scores)
        winner = "" if game.winner is None else sides[game.winner]
        if game.round.number in sealed:
            score = winner = ""
        row: list[object] = [
            game.round.number,
            game.number,
            *sides,
            score,
            winner,
            game.get_status_display(),
        ]
        if groups:
            row.insert(2, groups.get(game.side0[0], "") if game.side0 else "")
        if tournament.series:
            row += list(in_tie.get(game.pk, ("", "")))
        if national:
            withheld = game.grade0 is None or game.round.number in sealed
            row.append("" if withheld else f"{game.grade0}:{game.grade1}")
        rows.append(row)
    return _csv(rows)


def _number(value: object) -> object:
    # 3.0 reads as 3 in a spreadsheet cell; halves (Buchholz) stay
    return int(value) if isinstance(value, float) and value.is_integer() else value
