"""Results organisers entered without a live match or score sheet (records/entered.py), counted
by beat's sweep for what they know: the match, won/drawn/lost, the levels reached (level games)
or each player's points (a game scored per player); never deals or per-deal facts. Once only;
a game played live, or a forfeit, is not an entered result."""

from datetime import date, timedelta

import pytest
from django.utils import timezone

from clubs.models import Club, User
from leagues import models as lg
from records import services, tasks
from records.models import MatchRecord, Source, Tally
from tournaments.models import Entry, Game, GameSource, GameStatus, Round, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def people():
    return [User.objects.create_user(f"en{i}", f"en{i}@example.com", "pw") for i in range(4)]


@pytest.fixture
def club():
    return Club.objects.create(name="录入俱乐部", slug="entered")


def total(user, variant="bao2"):
    return Tally.objects.get(user=user, variant=variant, period="all", kind="total").counters


def tournament_game(club, people, variant="bao2", **result):
    now = timezone.now()
    t = Tournament.objects.create(
        club=club, name="杯赛", variant=variant, starts_at=now, rated=True
    )
    rnd = Round.objects.create(tournament=t, number=1, scheduled_at=now)
    pairs = [
        Entry.objects.create(tournament=t, player1=people[0], player2=people[2]),
        Entry.objects.create(tournament=t, player1=people[1], player2=people[3]),
    ]
    return Game.objects.create(
        round=rnd,
        number=1,
        side0=[pairs[0].pk],
        side1=[pairs[1].pk],
        status=GameStatus.FINISHED,
        finished_at=now,
        **result,
    )


def test_an_entered_tournament_result_counts_what_it_knows_once(club, people):
    game = tournament_game(club, people, score0=12, score1=7, winner=0, source=GameSource.ADMIN)
    # a game with a forfeit is no entered result
    tournament_game(club, people, score0=0, score1=0, winner=1, source=GameSource.FORFEIT)
    assert services.unrecorded_entered() == [f"t{game.pk}"]
    assert tasks.sweep_records_task() == 1
    assert total(people[0]) == {"matches": 1, "won": 1, "levels_up": 12}
    assert total(people[2]) == total(people[0])
    assert total(people[1]) == {"matches": 1, "lost": 1, "levels_up": 7}
    partner = Tally.objects.get(user=people[0], period="all", kind="partner")
    assert partner.other_id == people[2].pk and partner.counters["won"] == 1
    record = MatchRecord.objects.get(source=Source.ENTERED)
    assert record.deals == 0 and record.rated and record.club_id == club.pk
    assert tasks.sweep_records_task() == 0  # once
    assert total(people[0])["matches"] == 1


def test_an_entered_red_two_result_counts_each_players_points(club, people):
    now = timezone.now()
    t = Tournament.objects.create(
        club=club, name="红二", variant="honger", starts_at=now, unit_kind="single"
    )
    rnd = Round.objects.create(tournament=t, number=1, scheduled_at=now)
    singles = [Entry.objects.create(tournament=t, player1=p) for p in people]
    Game.objects.create(
        round=rnd,
        number=1,
        side0=[singles[0].pk, singles[2].pk],
        side1=[singles[1].pk, singles[3].pk],
        status=GameStatus.FINISHED,
        seat_scores=[30, -10, -10, -10],
        source=GameSource.ADMIN,
        finished_at=now,
    )
    assert tasks.sweep_records_task() == 1
    assert total(people[0], "honger") == {"matches": 1, "won": 1, "points": 30}
    assert total(people[1], "honger") == {"matches": 1, "lost": 1, "points": -10}
    assert not Tally.objects.filter(kind="partner", other__isnull=False).exists()


def test_an_organisers_league_table_result_counts_from_the_home_sides_view(club, people):
    league = lg.League.objects.create(host=club, name="联赛")
    season = lg.Season.objects.create(
        league=league, name="2026", variant="guandan", starts_on=date.today(), rated=False
    )
    division = lg.Division.objects.create(season=season, name="甲级", level=1)
    home, away = (
        lg.Entry.objects.create(
            season=season, division=division, club=club, name=n, player1=a, player2=b
        )
        for n, a, b in (("主", people[1], people[3]), ("客", people[0], people[2]))
    )
    rnd = lg.Round.objects.create(
        season=season, number=1, opens_on=date.today(), closes_on=date.today() + timedelta(7)
    )
    fixture = lg.Fixture.objects.create(
        round=rnd, division=division, home=home, away=away, finished_at=timezone.now()
    )
    # the home pair sits east-west (side 1): seats 1 and 3
    lg.FixtureTable.objects.create(
        fixture=fixture,
        number=1,
        home_side=1,
        seat_users=[p.pk for p in people],
        home_score=9,
        away_score=4,
        winner=0,
        done=True,
    )
    lg.FixtureTable.objects.create(  # played live: recorded from its match, not here
        fixture=fixture, number=2, seat_users=[p.pk for p in people], table_ref=1, done=True
    )
    assert tasks.sweep_records_task() == 1
    assert total(people[1], "guandan") == {"matches": 1, "won": 1, "levels_up": 9}
    assert total(people[0], "guandan") == {"matches": 1, "lost": 1, "levels_up": 4}
    record = MatchRecord.objects.get(source=Source.ENTERED)
    assert record.club_id == club.pk and not record.rated
