from datetime import timedelta

import pytest
import time_machine
from django.core import mail

from games.errors import NotAllowed
from leagues import selectors
from leagues.models import Fixture, FixtureStatus, FixtureTable, ResultSource, SeasonStatus
from leagues.services import entries, fixtures, play, setup
from leagues.services.errors import LeagueError
from outbox.models import Notification
from tests.leagues.leaguekit import START, at


def test_only_host_admins_create_leagues_and_seasons(world):
    with pytest.raises(NotAllowed):
        setup.create_league(world.other_admin, world.host, name="x")
    with pytest.raises(NotAllowed):
        setup.create_season(
            world.guest_admin, world.league, name="s", variant="bao2", starts_on=START
        )
    season = world.season()
    assert season.divisions.count() == 1 and season.status == SeasonStatus.DRAFT


@pytest.mark.parametrize(
    "fields,code",
    [
        ({"variant": "shuangkou2"}, "bad_entry_kind"),
        ({"variant": "honger"}, "bad_entry_kind"),
        ({"colour_twos": True, "variant": "guandan"}, "bad_colour_twos"),
        ({"deals": 500}, "bad_deals"),
        ({"window_days": 0}, "bad_window_days"),
        ({"points_win": 11}, "bad_points_win"),
        ({"nonsense": 1}, "bad_field"),
    ],
)
def test_season_settings_are_checked(world, fields, code):
    with pytest.raises(LeagueError) as caught:
        world.season(**fields)
    assert caught.value.code == code
    assert not world.league.seasons.exists()


def test_entering_teams(world):
    season = world.season()
    world.team(season, world.guest, world.guest_admin, "如皋一队")
    with pytest.raises(NotAllowed):  # not invited
        world.team(season, world.other, world.other_admin, "海门")
    with pytest.raises(NotAllowed):  # another club's admin for the host
        world.team(season, world.host, world.guest_admin, "南通")
    with pytest.raises(LeagueError) as caught:
        world.team(season, world.host, world.host_admin, "小队", size=3)
    assert caught.value.code == "bad_roster"
    entry, players = world.team(season, world.host, world.host_admin, "南通一队")
    with pytest.raises(LeagueError) as caught:  # a player is in one team per season
        entries.enter_team(
            world.host_admin,
            season,
            world.host,
            name="二队",
            captain=players[1],
            players=[players[1], *[world.member(world.host) for _ in range(3)]],
        )
    assert caught.value.code == "already_entered"


def test_start_draws_a_round_robin_with_windows(world):
    season = world.season(window_days=7)
    for i, (club, admin) in enumerate(
        [
            (world.host, world.host_admin),
            (world.guest, world.guest_admin),
            (world.host, world.host_admin),
        ]
    ):
        world.team(season, club, admin, f"队{i}")
    with pytest.raises(NotAllowed):
        setup.start_season(world.guest_admin, season)
    setup.start_season(world.host_admin, season)
    rounds = list(season.rounds.order_by("number"))
    assert [r.opens_on for r in rounds] == [START + timedelta(days=7 * i) for i in range(3)]
    assert all(r.closes_on == r.opens_on + timedelta(days=6) for r in rounds)
    fixtures_ = Fixture.objects.filter(round__season=season)
    assert fixtures_.filter(status=FixtureStatus.BYE).count() == 3
    assert fixtures_.exclude(status=FixtureStatus.BYE).count() == 3


def test_propose_and_accept_a_time(
    two_teams, world, django_capture_on_commit_callbacks, celery_eager
):
    season, fixture, (a, pa), (b, pb) = two_teams
    when = at(START + timedelta(days=2))
    with time_machine.travel(at(START, 9), tick=False):
        with pytest.raises(NotAllowed):  # a player, not the captain
            fixtures.propose_time(pa[1], fixture, when)
        with pytest.raises(LeagueError) as caught:
            fixtures.propose_time(pa[0], fixture, at(START + timedelta(days=9)))
        assert caught.value.code == "outside_window"
        with django_capture_on_commit_callbacks(execute=True):
            fixtures.propose_time(pa[0], fixture, when)
            fixtures.propose_time(pa[0], fixture, when)  # the same proposal: no second notice
        assert [m.to for m in mail.outbox] == [[pb[0].email]]
        assert "南通一队" in mail.outbox[0].subject
        assert f"/leagues/fixtures/{fixture.pk}/" in mail.outbox[0].body  # the page to accept on
        proposed = Notification.objects.get(key__startswith=f"league:proposed:{fixture.pk}:")
        assert (proposed.user, proposed.url) == (pb[0], f"/leagues/fixtures/{fixture.pk}/")
        with pytest.raises(LeagueError):
            fixtures.accept_time(pa[0], fixture)
        fixtures.accept_time(pb[0], fixture)
    fixture.refresh_from_db()
    assert fixture.status == FixtureStatus.AGREED and fixture.agreed_at == when


def test_lineups_are_secret_until_both_are_in(two_teams):
    season, fixture, (a, pa), (b, pb) = two_teams
    with time_machine.travel(at(START, 9), tick=False):
        fixtures.submit_lineup(pa[0], fixture, [pa[:2], pa[2:]])
        assert [lu.entry_id for lu in selectors.visible_lineups(pa[3], fixture)] == [a.pk]
        assert selectors.visible_lineups(pb[0], fixture) == []
        assert selectors.visible_lineups(None, fixture) == []
        with pytest.raises(LeagueError):  # a player off the roster
            fixtures.submit_lineup(pb[0], fixture, [pb[:2], [pb[2], pa[0]]])
        fixtures.submit_lineup(pb[0], fixture, [pb[2:], pb[:2]])
        assert len(selectors.visible_lineups(None, fixture)) == 2


def test_team_fixture_opens_two_tables_in_opposite_directions(two_teams, client):
    season, fixture, (a, pa), (b, pb) = two_teams
    with time_machine.travel(at(START, 9), tick=False):
        fixtures.propose_time(pa[0], fixture, at(START))
        fixtures.accept_time(pb[0], fixture)
        fixtures.submit_lineup(pa[0], fixture, [pa[:2], pa[2:]])
        fixtures.submit_lineup(pb[0], fixture, [pb[:2], pb[2:]])
        play.tick()
        assert not FixtureTable.objects.exists()  # not yet its time
    with time_machine.travel(at(START, 19), tick=False):
        result = play.tick()
    assert result["tables_opened"] == 1
    t1, t2 = FixtureTable.objects.filter(fixture=fixture).order_by("number")
    assert t1.seat_users == [pa[0].pk, pb[0].pk, pa[1].pk, pb[1].pk]  # home north-south
    assert t2.seat_users == [pb[2].pk, pa[2].pk, pb[3].pk, pa[3].pk]  # home east-west
    from matches.models import Match

    m1, m2 = Match.objects.get(table_id=t1.table_ref), Match.objects.get(table_id=t2.table_ref)
    assert m1.seed == m2.seed  # the same cards at both tables
    page = client.get(f"/leagues/fixtures/{fixture.pk}/").content.decode()
    assert f"/matches/tables/{t1.table_ref}/" in page and f"/matches/tables/{t2.table_ref}/" in page


def test_a_league_table_never_shows_played_cards(world):
    # a league's tables are competition tables: the tables service refuses show_history
    # even at an unrated one (competition rules 八.7), and nothing is opened
    from leagues import bridge
    from matches.models import Table

    players = [world.member(world.host) for _ in range(4)]
    for rated in (False, True):
        with pytest.raises(bridge.TableRefused) as refused:
            bridge.open_live_table(
                world.host_admin,
                world.host,
                variant="bao2",
                options={"show_history": True},
                time_limit_seconds=0,
                rated=rated,
                seat_users=[p.pk for p in players],
                seed="s",
            )
        assert "history_competition" in refused.value.reason
    assert not Table.objects.exists()


def test_window_end_forfeits(two_teams):
    season, fixture, (a, pa), (b, pb) = two_teams
    with time_machine.travel(at(START, 9), tick=False):
        play.tick()
        fixtures.propose_time(pa[0], fixture, at(START + timedelta(days=3)))
    with time_machine.travel(at(START + timedelta(days=8), 1), tick=False):
        play.tick()
    fixture.refresh_from_db()
    assert fixture.status == FixtureStatus.DONE and fixture.source == ResultSource.FORFEIT
    assert fixture.winner == 0  # the proposer's side wins
    rows = selectors.standings(fixture.division)
    assert [r.unit for r in rows] == [a.pk, b.pk]


def test_extension_prevents_the_forfeit(two_teams, world):
    season, fixture, _, _ = two_teams
    with pytest.raises(NotAllowed):
        fixtures.extend(world.guest_admin, fixture, START + timedelta(days=10))
    fixtures.extend(world.host_admin, fixture, START + timedelta(days=10))
    with time_machine.travel(at(START + timedelta(days=8), 1), tick=False):
        play.tick()
    fixture.refresh_from_db()
    assert fixture.status == FixtureStatus.PENDING


def test_withdrawal_forfeits_remaining_fixtures(two_teams, world):
    season, fixture, (a, pa), (b, pb) = two_teams
    with pytest.raises(NotAllowed):
        entries.withdraw(pa[1], a)
    entries.withdraw(pb[0], b)
    fixture.refresh_from_db()
    assert fixture.winner == 0 and fixture.source == ResultSource.FORFEIT


def test_late_entry_takes_the_bye(world):
    season = world.season()
    for i in range(3):
        world.team(season, world.host, world.host_admin, f"队{i}")
    setup.start_season(world.host_admin, season)
    with time_machine.travel(at(START, 9), tick=False):
        play.tick()
    late, _ = world.team(season, world.guest, world.guest_admin, "迟到")
    assert late.joined_round == 2
    assert not Fixture.objects.filter(
        round__season=season, round__number__gte=2, away__isnull=True
    ).exists()
    assert Fixture.objects.filter(round__number=1, round__season=season, away__isnull=True).exists()


def test_organiser_corrects_a_table(two_teams, world):
    season, fixture, (a, pa), (b, pb) = two_teams
    table = FixtureTable.objects.create(fixture=fixture, number=1, home_side=1, seat_users=[])
    FixtureTable.objects.create(
        fixture=fixture,
        number=2,
        home_side=0,
        seat_users=[],
        done=True,
        home_score=5,
        away_score=3,
        winner=0,
    )
    with pytest.raises(NotAllowed):
        play.correct_table(pa[0], table, 2, 9)
    with pytest.raises(LeagueError):
        play.correct_table(world.host_admin, table, -1, 9)
    play.correct_table(world.host_admin, table, 2, 9)
    fixture.refresh_from_db()
    assert (fixture.home_score, fixture.away_score, fixture.winner) == (7, 12, 1)
    assert fixture.source == ResultSource.ORGANISER


def test_close_and_next_season_promotes(world):
    season = world.season()
    d2 = setup.add_division(world.host_admin, season, "乙级")
    d1 = season.divisions.get(level=1)
    top = [
        world.team(season, world.host, world.host_admin, f"甲{i}", division=d1)[0] for i in range(2)
    ]
    low = [
        world.team(season, world.guest, world.guest_admin, f"乙{i}", division=d2)[0]
        for i in range(2)
    ]
    setup.start_season(world.host_admin, season)
    with pytest.raises(LeagueError):
        setup.close_season(world.host_admin, season)
    for fixture in Fixture.objects.filter(round__season=season):
        play.award(world.host_admin, fixture, 1)  # the away side wins each
    setup.close_season(world.host_admin, season)
    winners = {f.away_id for f in Fixture.objects.filter(round__season=season)}
    new = setup.next_season(
        world.host_admin, season, name="2030 秋季", starts_on=START + timedelta(days=200)
    )
    names = {d.level: sorted(e.name for e in d.entries.all()) for d in new.divisions.all()}
    up = next(e.name for e in low if e.pk in winners)
    down = next(e.name for e in top if e.pk not in winners)
    assert up in names[1] and down in names[2]
    assert new.teams.count() == 4 and all(t.members.count() == 4 for t in new.teams.all())


def test_wins_break_a_tie_when_the_season_chooses_them(world):
    # every outcome is worth one point, so only the wins tell the teams apart
    season = world.season(
        points_win=1, points_draw=1, points_loss=1, tiebreak1="wins", tiebreak2="", tiebreak3=""
    )
    teams = [world.team(season, world.host, world.host_admin, f"队{i}")[0] for i in range(3)]
    setup.start_season(world.host_admin, season)
    rank = {entry.pk: i for i, entry in enumerate(teams)}
    for fixture in Fixture.objects.filter(round__season=season, away__isnull=False):
        play.award(world.host_admin, fixture, int(rank[fixture.away_id] < rank[fixture.home_id]))
    rows = selectors.standings(season.divisions.get())
    assert [r.unit for r in rows] == [t.pk for t in teams]
    assert [r.place for r in rows] == [1, 2, 3]
    assert [r.values["wins"] for r in rows] == [2, 1, 0]
    assert {r.values["match_points"] for r in rows} == {3}
    season.tiebreak1 = ""
    assert [r.place for r in selectors.standings(season.divisions.get())] == [1, 1, 1]
