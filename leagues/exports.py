"""iCalendar feeds (per team, per player) and CSV exports (standings, results)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from datetime import timedelta

from django.core import signing
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from icalendar import Calendar, Event

from clubs.models import User
from leagues import selectors
from leagues.models import Entry, Fixture, Season, Tiebreak

_SALT = "leagues.calendar"
#: How long an event of an agreed fixture lasts in the calendar.
FIXTURE_HOURS = 3


def calendar_token(user: User) -> str:
    """The secret part of ``user``'s calendar address (calendar apps cannot log in)."""
    return signing.Signer(salt=_SALT).sign(str(user.pk)).split(":", 1)[1]


def user_of_token(user_id: int, token: str) -> User | None:
    """The user whose calendar ``token`` is, or None."""
    try:
        signing.Signer(salt=_SALT).unsign(f"{user_id}:{token}")
    except signing.BadSignature:
        return None
    return User.objects.filter(pk=user_id).first()


def calendar(name: str, fixtures: Iterable[Fixture], base_url: str) -> bytes:
    """An iCalendar of ``fixtures``: an agreed fixture at its time, others over their
    window (all-day events), each linking to its page."""
    cal = Calendar()
    cal.add("prodid", "-//bao2club//leagues//")
    cal.add("version", "2.0")
    cal.add("x-wr-calname", name)
    for fixture in fixtures:
        if fixture.away_id is None:
            continue
        event = Event()
        event.add("uid", f"league-fixture-{fixture.pk}@bao2club")
        event.add("summary", f"{fixture.home.name} – {fixture.away.name}")
        if fixture.agreed_at:
            event.add("dtstart", fixture.agreed_at)
            event.add("dtend", fixture.agreed_at + timedelta(hours=FIXTURE_HOURS))
        else:
            event.add("dtstart", fixture.round.opens_on)
            event.add("dtend", fixture.round.closes_on + timedelta(days=1))
            event.add("description", _("No time agreed yet: play within the window."))
        event.add("url", f"{base_url}/leagues/fixtures/{fixture.pk}/")
        cal.add_component(event)
    return cal.to_ical()


def team_calendar(entry: Entry, base_url: str) -> bytes:
    """The calendar of one entry's fixtures."""
    return calendar(entry.name, selectors.fixtures_of_entry(entry), base_url)


def player_calendar(user: User, base_url: str) -> bytes:
    """The calendar of every fixture of every entry ``user`` plays for."""
    return calendar(user.name, selectors.fixtures_of_user(user), base_url)


def standings_csv(season: Season) -> str:
    """Every division's standings, one line per entry."""
    out = io.StringIO()
    writer = csv.writer(out)
    tiebreaks = season.tiebreaks
    writer.writerow(
        [_("Division"), _("Place"), _("Entry"), _("Played"), _("Won"), _("Drawn"), _("Lost")]
        + [_("Match points")]
        + [str(Tiebreak(t).label) for t in tiebreaks]
    )
    for table in selectors.season_table(season):
        for line in table["lines"]:
            values = line["values"]
            writer.writerow(
                [table["name"], line["place"], line["name"], line["played"], line["wins"]]
                + [line["draws"], line["losses"], values.get("match_points", 0)]
                + [values.get(t, "") for t in tiebreaks]
            )
    return out.getvalue()


def results_csv(season: Season) -> str:
    """Every fixture: round, division, the two entries, agreed time, scores and result."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        [_("Round"), _("Division"), pgettext("fixture side", "Home")]
        + [pgettext("fixture side", "Away"), _("Time"), _("Home score")]
        + [_("Away score"), _("Result")]
    )
    for f in selectors.fixtures_of(season).order_by("round__number", "division__level", "id"):
        writer.writerow(
            [
                f.round.number,
                f.division.name,
                f.home.name,
                f.away.name if f.away_id else _("Bye"),
                f.agreed_at.isoformat() if f.agreed_at else "",
                "" if f.home_score is None else f.home_score,
                "" if f.away_score is None else f.away_score,
                f.get_source_display() if f.source else f.get_status_display(),
            ]
        )
    return out.getvalue()
