"""The league's notices, each written in its recipient's language and sent once per
recipient and cause through :func:`leagues.notifications.notify`."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from django.urls import reverse
from django.utils import translation
from django.utils.formats import date_format
from django.utils.timezone import localtime
from django.utils.translation import gettext as _

from clubs.models import User
from leagues.models import Entry, Fixture, FixtureTable, Round
from leagues.notifications import notify


def _speakers(entry: Entry) -> list[User]:
    """Who hears of a fixture for an entry: the team's captain, or the entry's players."""
    if entry.team_id:
        return [entry.team.captain]
    return [u for u in (entry.player1, entry.player2) if u is not None]


def _players(entry: Entry) -> list[User]:
    if entry.team_id:
        return [m.user for m in entry.team.members.select_related("user")]
    return _speakers(entry)


def _send(
    key: str, user: User, subject: Callable[[], str], body: Callable[[], str], url: str
) -> None:
    """Write the notice in the recipient's language (hence the callables) and send it; in the
    notification list it links the site path ``url``."""
    with translation.override(user.language or "zh-hans"):
        notify(f"{key}:user:{user.pk}", user, str(subject()), str(body()), url)


def _fixture_path(fixture: Fixture) -> str:
    return reverse("leagues:fixture", args=[fixture.pk])


def _when(value: object) -> str:
    return date_format(localtime(value), "DATETIME_FORMAT")  # type: ignore[arg-type]


def round_open(rnd: Round) -> None:
    """Every player of the round: the round is open, and its window."""
    for fixture in rnd.fixtures.select_related("home__team", "away__team"):
        for entry in fixture.entries:
            for user in _players(entry):
                _send(
                    f"league:round-open:{rnd.pk}",
                    user,
                    lambda: (
                        _("Round %(n)d of %(season)s is open")
                        % {"n": rnd.number, "season": rnd.season}
                    ),
                    lambda: (
                        _("Play your fixture between %(first)s and %(last)s.")
                        % {"first": rnd.opens_on, "last": rnd.closes_on}
                    ),
                    _fixture_path(fixture),
                )


def time_proposed(fixture: Fixture, to: Entry) -> None:
    """The other side: a time has been proposed."""
    for user in _speakers(to):
        _send(
            f"league:proposed:{fixture.pk}:{fixture.proposed_at.isoformat()}",
            user,
            lambda: _("A time is proposed for %(fixture)s") % {"fixture": fixture},
            lambda: (
                _("Proposed: %(when)s. Accept it or propose another on the fixture's page.")
                % {"when": _when(fixture.proposed_at)}
            ),
            _fixture_path(fixture),
        )


def time_agreed(fixture: Fixture) -> None:
    """Both sides' players: the agreed time."""
    for entry in fixture.entries:
        for user in _players(entry):
            _send(
                f"league:agreed:{fixture.pk}:{fixture.agreed_at.isoformat()}",
                user,
                lambda: _("%(fixture)s: the time is agreed") % {"fixture": fixture},
                lambda: _("Play at %(when)s.") % {"when": _when(fixture.agreed_at)},
                _fixture_path(fixture),
            )


def lineup_missing(fixture: Fixture, entry: Entry) -> None:
    """A captain whose line-up is missing a day before the agreed time."""
    for user in _speakers(entry):
        _send(
            f"league:lineup-missing:{fixture.pk}:{fixture.agreed_at.isoformat()}",
            user,
            lambda: _("Your line-up for %(fixture)s is missing") % {"fixture": fixture},
            lambda: (
                _("The fixture starts at %(when)s; submit the line-up before then.")
                % {"when": _when(fixture.agreed_at)}
            ),
            _fixture_path(fixture),
        )


def sheets_ready(fixture: Fixture, tables: Sequence[FixtureTable]) -> None:
    """Every player of an in-person fixture: the score sheets are open, who keeps the sheet
    of their table, and that both sides confirm it (the result comes from the sheets)."""
    ids = {uid for table in tables for uid in table.seat_users}
    users = {u.pk: u for u in User.objects.filter(pk__in=ids)}
    for table in tables:
        scorer = users[table.seat_users[table.home_side]]
        for uid in table.seat_users:
            _send(
                f"league:sheets:{fixture.pk}",
                users[uid],
                lambda: _("Score sheets of %(fixture)s are ready") % {"fixture": fixture},
                lambda table=table, scorer=scorer: (  # bound now: _send calls it at once
                    _(
                        "Table %(n)d: %(scorer)s keeps the score sheet; when the match is over,"
                        " both sides confirm it: the result comes from the sheets."
                    )
                    % {"n": table.number, "scorer": scorer.name}
                ),
                _fixture_path(fixture),
            )


def window_closing(fixture: Fixture) -> None:
    """Both sides of a fixture with no agreed time, a day before the window closes."""
    for entry in fixture.entries:
        for user in _speakers(entry):
            _send(
                f"league:closing:{fixture.pk}:{fixture.round.closes_on}",
                user,
                lambda: _("%(fixture)s: the window closes soon") % {"fixture": fixture},
                lambda: (
                    _("Agree a time by %(last)s or the fixture is lost by forfeit.")
                    % {"last": fixture.extended_to or fixture.round.closes_on}
                ),
                _fixture_path(fixture),
            )


def partner_invited(entry: Entry) -> None:
    """The named partner of a pending pair: accept or decline on the entry's page by
    ``entry.answer_by``."""
    path = reverse("leagues:entry", args=[entry.pk])
    _send(
        f"league:partner:{entry.pk}:invited",
        entry.player2,
        lambda: (
            _("%(name)s asks you to play %(season)s as partners")
            % {"name": entry.player1.name, "season": entry.season}
        ),
        lambda: _("Accept or decline by %(when)s.") % {"when": _when(entry.answer_by)},
        path,
    )


def partner_accepted(entry: Entry) -> None:
    """The player who entered a pair: the partner accepted."""
    path = reverse("leagues:entry", args=[entry.pk])
    _send(
        f"league:partner:{entry.pk}:accepted",
        entry.player1,
        lambda: (
            _("%(name)s has accepted: you play %(season)s as partners")
            % {"name": entry.player2.name, "season": entry.season}
        ),
        lambda: _("Your pair is entered."),
        path,
    )


def invitation_closed(entry: Entry, why: str, actor: User | None = None) -> None:
    """The players of a removed pending pair, but ``actor``: the partner ``declined``, the
    invitation was ``withdrawn`` or it ``lapsed``; each may enter again, with anyone."""
    subjects = {
        "declined": lambda: (
            _("%(name)s has declined to play %(season)s with you")
            % {"name": entry.player2.name, "season": entry.season}
        ),
        "withdrawn": lambda: (
            _("The partner invitation of %(pair)s for %(season)s is withdrawn")
            % {"pair": entry.name, "season": entry.season}
        ),
        "lapsed": lambda: (
            _("The partner invitation for %(season)s lapsed without an answer")
            % {"season": entry.season}
        ),
    }
    path = reverse("leagues:season", args=[entry.season_id])
    for user in (entry.player1, entry.player2):
        if actor is None or user.pk != actor.pk:
            _send(
                f"league:partner:{entry.pk}:{why}",
                user,
                subjects[why],
                lambda: _("You can enter the season again, with anyone."),
                path,
            )
