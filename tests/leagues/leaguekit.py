"""Shared helpers of the league tests."""

from datetime import date, datetime, timedelta

from django.utils import timezone

START = date(2030, 3, 4)


def at(day: date, hour: int = 19) -> datetime:
    return timezone.make_aware(datetime.combine(day, datetime.min.time()) + timedelta(hours=hour))


def finished_fixture(
    club, seated, *, variant="bao2", scores=(12, 5), names=("东方红", "长江"), **league
):
    """A running pair season of ``club`` (its league made with ``league``'s fields) whose
    round-1 fixture finished a minute ago at one table, ``seated`` in seat order (the home pair
    seats 0 and 2) and won by the home pair ``scores[0]`` : ``scores[1]``: (season, fixture,
    table)."""
    from leagues import models as lg

    league = lg.League.objects.create(host=club, **{"name": "南通双人联赛", **league})
    season = lg.Season.objects.create(
        league=league,
        name="2026 冬季",
        variant=variant,
        entry_kind="pair",
        starts_on=date.today(),
        status="running",
    )
    division = lg.Division.objects.create(season=season, name="甲级", level=1)
    home, away = (
        lg.Entry.objects.create(
            season=season, division=division, club=club, name=n, player1=a, player2=b
        )
        for n, a, b in ((names[0], seated[0], seated[2]), (names[1], seated[1], seated[3]))
    )
    rnd = lg.Round.objects.create(
        season=season,
        number=1,
        opens_on=date.today(),
        closes_on=date.today() + timedelta(7),
        status="open",
    )
    result = {"home_score": scores[0], "away_score": scores[1], "winner": 0}
    fixture = lg.Fixture.objects.create(
        round=rnd,
        division=division,
        home=home,
        away=away,
        status="done",
        source="played",
        finished_at=timezone.now() - timedelta(minutes=1),
        **result,
    )
    table = lg.FixtureTable.objects.create(
        fixture=fixture, number=1, seat_users=[p.pk for p in seated], done=True, **result
    )
    return season, fixture, table
