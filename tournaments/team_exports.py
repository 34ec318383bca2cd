"""The team standings as CSV (UTF-8 with a byte-order mark, as :mod:`tournaments.exports`):
one header row in the reader's language, then each team with its place and sums, then each
of its entries indented under it."""

from __future__ import annotations

import csv
import io

from django.utils.translation import gettext as _

from tournaments import team_selectors
from tournaments.exports import BOM
from tournaments.models import Tournament


def _number(value: float) -> object:
    """A whole number without ``.0``."""
    return int(value) if float(value).is_integer() else round(value, 2)


def second_label(tournament: Tournament) -> str:
    """The name of the team standings' second number: 级分 (national scoring) or the level
    (or point) difference."""
    if team_selectors.national(tournament):
        return _("Grade points")
    return _("Level / point difference")


def team_standings_csv(tournament: Tournament) -> str:
    """Place, team, club, played, wins, draws, losses, match points (场分) and the second
    number (:func:`second_label`) of each team, then a line per entry of the team (its name in
    the team column, its own two numbers)."""
    rows: list[list[object]] = [
        [
            _("Place"),
            _("Team"),
            _("Club"),
            _("Played"),
            _("Wins"),
            _("Draws"),
            _("Losses"),
            _("Match points"),
            second_label(tournament),
        ]
    ]
    for line in team_selectors.team_standings(tournament):
        row = line.row
        rows.append(
            [
                row.place,
                line.team.name,
                line.team.club.name,
                row.played,
                row.wins,
                row.draws,
                row.losses,
                _number(row.match_points),
                _number(row.second),
            ]
        )
        for entry, points, second in line.entries:
            rows.append(
                ["", f"  {entry.name}", "", "", "", "", "", _number(points), _number(second)]
            )
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    return BOM + out.getvalue()
