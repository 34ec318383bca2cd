"""A fixture's time and line-ups: propose and accept a time inside the window, the host's
club night, the organiser's extension, and the captains' secret line-ups."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.models import User
from leagues import notices
from leagues.models import (
    Entry,
    EntryKind,
    Fixture,
    FixtureStatus,
    LineUp,
    LineUpPair,
    Round,
)
from leagues.permissions import acts_for, can_manage
from leagues.services.errors import not_allowed, refuse
from leagues.services.setup import window_end, window_start

#: A fixture whose time may still change.
OPEN = (FixtureStatus.PENDING, FixtureStatus.PROPOSED, FixtureStatus.AGREED)


def _locked(fixture: Fixture) -> Fixture:
    return (
        Fixture.objects.select_for_update(of=("self",))
        .select_related("round__season__league", "home__team", "away__team")
        .get(pk=fixture.pk)
    )


def side_of(user: User | None, fixture: Fixture) -> Entry | None:
    """The entry of ``fixture`` that ``user`` speaks for (captain / player), if any."""
    for entry in fixture.entries:
        if acts_for(user, entry):
            return entry
    return None


def last_day(fixture: Fixture) -> date:
    """The fixture's play-by date: the organiser's extension, else the round's."""
    return fixture.extended_to or fixture.round.closes_on


def _check_time(fixture: Fixture, when: datetime) -> None:
    if not isinstance(when, datetime) or timezone.is_naive(when):
        raise refuse("bad_time", _("Give a date and time."))
    if not window_start(fixture.round.opens_on) <= when < window_end(last_day(fixture)):
        raise refuse("outside_window", _("The time must be inside the round's window."))


@transaction.atomic
def propose_time(
    user: User, fixture: Fixture, when: datetime, now: datetime | None = None
) -> Fixture:
    """One side's captain (or player) proposes a time inside the window; the other side
    is told. A new proposal replaces an earlier one, also an agreed time not yet reached."""
    fixture = _locked(fixture)
    mine = side_of(user, fixture)
    if mine is None or fixture.away_id is None:
        raise not_allowed()
    if fixture.status not in OPEN:
        raise refuse("fixture_closed", _("This fixture can no longer be rescheduled."))
    now = now or timezone.now()
    _check_time(fixture, when)
    if when <= now:
        raise refuse("time_passed", _("The time must be in the future."))
    fixture.proposed_at = when
    fixture.proposed_by = mine
    fixture.agreed_at = None
    fixture.status = FixtureStatus.PROPOSED
    fixture.save(update_fields=["proposed_at", "proposed_by", "agreed_at", "status"])
    other = fixture.away if mine.pk == fixture.home_id else fixture.home
    notices.time_proposed(fixture, other)
    return fixture


@transaction.atomic
def accept_time(user: User, fixture: Fixture, now: datetime | None = None) -> Fixture:
    """The other side accepts the proposed time; both sides are told."""
    fixture = _locked(fixture)
    mine = side_of(user, fixture)
    if mine is None:
        raise not_allowed()
    if fixture.status != FixtureStatus.PROPOSED:
        raise refuse("nothing_proposed", _("No time is waiting for an answer."))
    if fixture.proposed_by_id == mine.pk:
        raise refuse("own_proposal", _("The other side accepts your proposal."))
    if fixture.proposed_at <= (now or timezone.now()):
        raise refuse("time_passed", _("The time must be in the future."))
    fixture.agreed_at = fixture.proposed_at
    fixture.status = FixtureStatus.AGREED
    fixture.save(update_fields=["agreed_at", "status"])
    notices.time_agreed(fixture)
    return fixture


@transaction.atomic
def set_club_night(user: User, rnd: Round, when: datetime) -> int:
    """The host sets one time (a club night) for every fixture of the round still open;
    returns how many fixtures it set."""
    if not can_manage(user, rnd.season.league):
        raise not_allowed()
    if not isinstance(when, datetime) or timezone.is_naive(when):
        raise refuse("bad_time", _("Give a date and time."))
    if not window_start(rnd.opens_on) <= when < window_end(rnd.closes_on):
        raise refuse("outside_window", _("The time must be inside the round's window."))
    rnd.club_night = when
    rnd.save(update_fields=["club_night"])
    fixtures = list(rnd.fixtures.filter(status__in=OPEN, away__isnull=False))
    for fixture in fixtures:
        fixture.proposed_at = fixture.agreed_at = when
        fixture.status = FixtureStatus.AGREED
        fixture.save(update_fields=["proposed_at", "agreed_at", "status"])
        notices.time_agreed(fixture)
    return len(fixtures)


@transaction.atomic
def extend(user: User, fixture: Fixture, until: date) -> Fixture:
    """The organiser extends a fixture's play-by date (it is then not forfeited at the
    round's end)."""
    fixture = _locked(fixture)
    if not can_manage(user, fixture.round.season.league):
        raise not_allowed()
    if fixture.status not in OPEN:
        raise refuse("fixture_closed", _("This fixture can no longer be rescheduled."))
    if not isinstance(until, date) or until < fixture.round.closes_on:
        raise refuse("bad_date", _("The new date must be on or after the round's end."))
    if (until - fixture.round.closes_on).days > 60:
        raise refuse("bad_date", _("A fixture is extended by at most 60 days."))
    fixture.extended_to = until
    fixture.save(update_fields=["extended_to"])
    return fixture


@transaction.atomic
def submit_lineup(
    user: User, fixture: Fixture, pairs: Sequence[Sequence[User]], now: datetime | None = None
) -> LineUp:
    """A team's captain sends one pair of the roster to each table of a team fixture (table
    1 first); the line-up replaces an earlier one until the fixture starts. The other side
    cannot read it until both are in or the fixture's time has come."""
    fixture = _locked(fixture)
    season = fixture.round.season
    mine = side_of(user, fixture)
    if mine is None or season.entry_kind != EntryKind.TEAM or fixture.away_id is None:
        raise not_allowed()
    if fixture.status not in OPEN:
        raise refuse("fixture_closed", _("This fixture has started."))
    if len(pairs) != season.team_tables or any(len(pair) != 2 for pair in pairs):
        raise refuse(
            "bad_lineup",
            _("Name one pair (two players) for each of the %(n)d tables.")
            % {"n": season.team_tables},
        )
    ids = [user_.pk for pair in pairs for user_ in pair]
    if len(set(ids)) != len(ids):
        raise refuse("bad_lineup", _("A player sits at only one table."))
    roster = set(mine.team.members.values_list("user_id", flat=True))
    if not set(ids) <= roster:
        raise refuse("bad_lineup", _("Every player must be on the team's roster."))
    LineUp.objects.filter(fixture=fixture, entry=mine).delete()
    lineup = LineUp.objects.create(
        fixture=fixture, entry=mine, submitted_by=user, submitted_at=now or timezone.now()
    )
    LineUpPair.objects.bulk_create(
        LineUpPair(lineup=lineup, table=i, player1_id=a.pk, player2_id=b.pk)
        for i, (a, b) in enumerate(pairs, start=1)
    )
    return lineup
