import re
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone
from icalendar import Calendar

from leagues.exports import calendar_token
from leagues.models import FixtureStatus, LineUp, Season
from leagues.services import fixtures
from tests.leagues.leaguekit import START, at

ROLES = ["host_admin", "other_admin", "captain", "player", "outsider", "anonymous"]


def client_for(world, two_teams, role):
    season, fixture, (a, pa), (b, pb) = two_teams
    user = {
        "host_admin": world.host_admin,
        "other_admin": world.guest_admin,
        "captain": pa[0],
        "player": pa[1],
        "outsider": world.outsider,
        "anonymous": None,
    }[role]
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def morning():
    with time_machine.travel(at(START, 9), tick=False):
        yield


@pytest.mark.parametrize("role", ROLES)
def test_reads_are_public(world, two_teams, role, morning):
    season, fixture, (a, _), _ = two_teams
    client = client_for(world, two_teams, role)
    for url in [
        "/leagues/",
        f"/leagues/{season.league_id}/",
        f"/leagues/seasons/{season.pk}/",
        f"/leagues/seasons/{season.pk}/rounds/1/",
        f"/leagues/fixtures/{fixture.pk}/",
        f"/leagues/entries/{a.pk}/",
        f"/api/v1/league-seasons/{season.pk}/standings/",
        f"/api/v1/league-fixtures/{fixture.pk}/",
    ]:
        assert client.get(url).status_code == 200, url


@pytest.mark.parametrize("role", ROLES)
def test_only_host_admins_create_seasons(world, two_teams, role):
    client = client_for(world, two_teams, role)
    data = {"league": world.league.pk, "name": "秋季", "variant": "bao2", "starts_on": "2030-09-01"}
    before = Season.objects.count()
    response = client.post("/api/v1/league-seasons/", data, content_type="application/json")
    expected = {"host_admin": 201, "anonymous": 401}.get(role, 403)
    assert response.status_code == expected, response.content
    assert Season.objects.count() == before + (role == "host_admin")
    web = client.post(f"/leagues/{world.league.pk}/seasons/new/", {**data, "entry_kind": "team"})
    assert web.status_code in {"host_admin": (200, 302), "anonymous": (302,)}.get(role, (404,))


@pytest.mark.parametrize("role", ROLES)
def test_only_the_captains_propose(world, two_teams, role, morning):
    season, fixture, _, _ = two_teams
    client = client_for(world, two_teams, role)
    when = at(START + timedelta(days=2)).isoformat()
    response = client.post(
        f"/api/v1/league-fixtures/{fixture.pk}/propose/",
        {"when": when},
        content_type="application/json",
    )
    expected = {"captain": 200, "anonymous": 401}.get(role, 403)
    assert response.status_code == expected, response.content
    fixture.refresh_from_db()
    assert (fixture.status == FixtureStatus.PROPOSED) == (role == "captain")


@pytest.mark.parametrize("role", ROLES)
def test_only_host_admins_start_and_correct(world, two_teams, role, morning):
    season, fixture, _, _ = two_teams
    client = client_for(world, two_teams, role)
    response = client.post(f"/api/v1/league-seasons/{season.pk}/close/")
    # a host admin is refused only because fixtures are unplayed (400), the others by role
    assert response.status_code == {"host_admin": 400, "anonymous": 401}.get(role, 403)
    web = client.post(f"/leagues/fixtures/{fixture.pk}/do/award/", {"winner": "home"})
    assert web.status_code == 302
    fixture.refresh_from_db()
    assert (fixture.status == FixtureStatus.DONE) == (role == "host_admin")


def shows(page, name):
    """Whether ``name`` is on the page as a word (a short name like "u8" may also turn up
    inside the random CSRF token)."""
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])", page) is not None


def test_lineup_secrecy_on_the_web_and_api(world, two_teams, morning):
    season, fixture, (a, pa), (b, pb) = two_teams
    home, away = Client(), Client()
    home.force_login(pa[0])
    away.force_login(pb[0])
    data = {f"lineup-t{t}p{s}": pa[(t - 1) * 2 + s - 1].pk for t in (1, 2) for s in (1, 2)}
    assert home.post(f"/leagues/fixtures/{fixture.pk}/do/lineup/", data).status_code == 302
    assert LineUp.objects.filter(fixture=fixture, entry=a).exists()
    secret = pa[3].name
    assert shows(home.get(f"/leagues/fixtures/{fixture.pk}/").content.decode(), secret)
    assert not shows(away.get(f"/leagues/fixtures/{fixture.pk}/").content.decode(), secret)
    assert away.get(f"/api/v1/league-fixtures/{fixture.pk}/lineups/").json() == []
    assert Client().get(f"/api/v1/league-fixtures/{fixture.pk}/lineups/").json() == []
    mine = home.get(f"/api/v1/league-fixtures/{fixture.pk}/lineups/").json()
    assert mine == [{"entry": a.pk, "pairs": [[pa[0].pk, pa[1].pk], [pa[2].pk, pa[3].pk]]}]
    pairs = [[pb[0].pk, pb[1].pk], [pb[2].pk, pb[3].pk]]
    response = away.post(
        f"/api/v1/league-fixtures/{fixture.pk}/lineups/",
        {"pairs": pairs},
        content_type="application/json",
    )
    assert response.status_code == 201
    assert len(Client().get(f"/api/v1/league-fixtures/{fixture.pk}/lineups/").json()) == 2
    assert shows(away.get(f"/leagues/fixtures/{fixture.pk}/").content.decode(), secret)


def test_bad_input_is_refused_cleanly(world, two_teams, morning):
    season, fixture, (a, pa), _ = two_teams
    client = Client()
    client.force_login(pa[0])
    url = f"/api/v1/league-fixtures/{fixture.pk}/"
    assert (
        client.post(url + "propose/", {"when": "soon"}, content_type="application/json").status_code
        == 400
    )
    far = at(START + timedelta(days=30)).isoformat()
    response = client.post(url + "propose/", {"when": far}, content_type="application/json")
    assert response.status_code == 400 and response.json()["code"] == "outside_window"
    response = client.post(
        url + "lineups/", {"pairs": [[1, 2, 3]]}, content_type="application/json"
    )
    assert response.status_code == 400
    response = client.post(
        url + "lineups/", {"pairs": [[pa[0].pk, pa[1].pk]]}, content_type="application/json"
    )
    assert response.status_code == 400 and response.json()["code"] == "bad_lineup"
    web = client.post(f"/leagues/fixtures/{fixture.pk}/do/propose/", {"time-when": "x"})
    assert web.status_code == 302
    assert not LineUp.objects.exists()


def test_calendars_and_csv(world, two_teams, morning):
    season, fixture, (a, pa), (b, pb) = two_teams
    fixtures.propose_time(pa[0], fixture, at(START + timedelta(days=1)))
    fixtures.accept_time(pb[0], fixture)
    client = Client()
    team = Calendar.from_ical(client.get(f"/leagues/entries/{a.pk}/calendar.ics").content)
    (event,) = team.walk("VEVENT")
    assert event["summary"] == "南通一队 – 如皋一队"
    assert event.decoded("dtstart") == at(START + timedelta(days=1))
    url = f"/leagues/players/{pb[2].pk}/{calendar_token(pb[2])}.ics"
    assert len(Calendar.from_ical(client.get(url).content).walk("VEVENT")) == 1
    assert client.get(f"/leagues/players/{pb[2].pk}/{calendar_token(pa[2])}.ics").status_code == 404
    text = client.get(f"/leagues/seasons/{season.pk}/standings.csv").content.decode("utf-8-sig")
    assert "南通一队" in text and len(text.strip().splitlines()) == 3
    results = client.get(f"/leagues/seasons/{season.pk}/results.csv").content.decode("utf-8-sig")
    assert "如皋一队" in results


def test_my_next_fixture(world, two_teams, morning):
    season, fixture, (a, pa), _ = two_teams
    client = Client()
    client.force_login(pa[2])
    assert client.get("/api/v1/league-fixtures/next/").json()["fixture"]["id"] == fixture.pk
    assert "南通一队" in client.get("/leagues/mine/").content.decode()
    client.force_login(world.outsider)
    assert client.get("/api/v1/league-fixtures/next/").json() == {"fixture": None}


def test_standings_page_query_count_does_not_grow(world):
    """The season page reads its standings in a constant number of queries whatever the
    season's size; once cached (unchanged standings) it reads them in none."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from leagues.services import play, setup

    def season_with(teams):
        season = world.season(name=f"{teams} 队")
        for i in range(teams):
            world.team(season, world.host, world.host_admin, f"{teams}-{i}")
        setup.start_season(world.host_admin, season)
        for fixture in season.rounds.get(number=1).fixtures.exclude(away__isnull=True):
            play.award(world.host_admin, fixture, 0)
        return season

    counts = []
    for teams in (2, 7):
        season = season_with(teams)
        url = f"/leagues/seasons/{season.pk}/"
        pages = []
        for _ in range(2):  # computed, then cached
            with CaptureQueriesContext(connection) as queries:
                response = Client().get(url)
            assert response.status_code == 200
            pages.append(re.sub(r'value="[^"]{64}"', "", response.content.decode()))  # csrf
            counts.append(len(queries))
        assert pages[0] == pages[1] and f"{teams}-{teams - 1}" in pages[0]
    computed, cached = counts[0::2], counts[1::2]
    assert computed[0] == computed[1] and cached[0] == cached[1]
    assert cached[0] == computed[0] - 3  # divisions, entries and results are not read


def test_the_cached_standings_follow_every_change(world):
    """Results, forfeits, withdrawals, late entries and divisions renew the season's
    standings key in their transaction: the page and the API never show stale standings."""
    from leagues.services import entries, play, setup

    season = world.season()
    teams = [world.team(season, world.host, world.host_admin, f"队{i}")[0] for i in range(3)]
    client = Client()
    url, api = f"/leagues/seasons/{season.pk}/", f"/api/v1/league-seasons/{season.pk}/standings/"

    def seen():
        page = client.get(url).content.decode()
        rows = [row for d in client.get(api).json() for row in d["rows"]]
        return page, {row["entry"]: row for row in rows}

    page, rows = seen()
    assert "乙级" not in page and set(rows) == {t.pk for t in teams}
    second = setup.add_division(world.host_admin, season, "乙级")
    assert "乙级" in seen()[0]
    low = [world.team(season, world.host, world.host_admin, f"乙{i}", second)[0] for i in (1, 2)]
    assert set(seen()[1]) == {t.pk for t in teams + low}
    setup.start_season(world.host_admin, season)  # the byes count at once, as wins
    page, rows = seen()
    assert [rows[t.pk]["byes"] for t in teams] == [1, 1, 1]
    fixture = season.rounds.get(number=1).fixtures.filter(division=teams[0].division)
    fixture = fixture.exclude(away__isnull=True).get()
    play.award(world.host_admin, fixture, 1)
    page, rows = seen()
    assert rows[fixture.away_id]["wins"] == 1 and rows[fixture.home_id]["losses"] == 1
    later = season.rounds.get(number=2).fixtures.filter(division=teams[0].division)
    later = later.exclude(away__isnull=True).get()
    play.forfeit(later, timezone.now())  # no time agreed: both lose
    page, rows = seen()
    assert rows[later.home_id]["losses"] + rows[later.away_id]["losses"] >= 2
    entries.withdraw(world.host_admin, teams[0])
    page, rows = seen()
    assert page.count('class="badge"') == 1
    season.refresh_from_db()
    key = season.standings_key
    admin = Client()
    admin.force_login(world.host_admin)
    world.host_admin.is_staff = world.host_admin.is_superuser = True
    world.host_admin.save()
    admin.post(
        f"/admin/leagues/entry/{teams[1].pk}/change/",
        {
            "season": season.pk,
            "division": teams[1].division_id,
            "club": world.host.pk,
            "name": "新名字",
            "team": teams[1].team_id,
            "seed": 2,
            "joined_round": 1,
        },
    )
    season.refresh_from_db()
    assert season.standings_key != key and "新名字" in seen()[0]


def test_an_invited_clubs_admin_enters_a_team_on_the_web(world):
    season = world.season()
    players = [world.member(world.guest) for _ in range(4)]
    client = Client()
    client.force_login(world.guest_admin)
    page = client.get(f"/leagues/seasons/{season.pk}/").content.decode()
    assert f"/leagues/seasons/{season.pk}/clubs/{world.guest.slug}/enter/" in page
    data = {
        "name": "如皋精英",
        "captain": players[0].pk,
        "players": [p.pk for p in players],
        "division": season.divisions.get().pk,
    }
    url = f"/leagues/seasons/{season.pk}/clubs/{world.guest.slug}/enter/"
    assert client.post(url, {**data, "players": [p.pk for p in players[:2]]}).status_code == 200
    assert not season.entries.exists()  # 3 players: refused, the form shown again
    assert client.post(url, data).status_code == 302
    team = season.entries.get().team
    assert team.captain == players[0] and team.members.count() == 4
    client.force_login(world.other_admin)  # a club not invited
    assert (
        client.post(
            f"/leagues/seasons/{season.pk}/clubs/{world.other.slug}/enter/", data
        ).status_code
        == 200
    )
    assert season.entries.count() == 1


def test_standings_api(world, two_teams):
    season, fixture, (a, pa), (b, pb) = two_teams
    from leagues.services import play

    play.award(world.host_admin, fixture, 1)
    (division,) = Client().get(f"/api/v1/league-seasons/{season.pk}/standings/").json()
    first, second = division["rows"]
    assert (first["entry"], first["place"], first["wins"]) == (b.pk, 1, 1)
    assert first["values"]["match_points"] == season.points_win
    assert (second["entry"], second["losses"]) == (a.pk, 1)


@pytest.mark.parametrize("role", ["host_admin", "other_admin", "captain"])
def test_extend_and_award_on_web_and_api(world, two_teams, role, morning):
    season, fixture, _, _ = two_teams
    client = client_for(world, two_teams, role)
    later = (START + timedelta(days=10)).isoformat()
    web = client.post(f"/leagues/fixtures/{fixture.pk}/do/extend/", {"until": later})
    assert web.status_code == 302
    fixture.refresh_from_db()
    assert (fixture.extended_to is not None) == (role == "host_admin")
    api = f"/api/v1/league-fixtures/{fixture.pk}/"
    bad = client.post(api + "extend/", {"until": "someday"}, content_type="application/json")
    assert bad.status_code == 400
    response = client.post(api + "award/", {"winner": 1}, content_type="application/json")
    assert response.status_code == (200 if role == "host_admin" else 403)
    if role == "host_admin":
        assert response.json()["winner"] == 1 and response.json()["source"] == "forfeit"
        wrong = client.post(api + "award/", {"winner": 7}, content_type="application/json")
        assert wrong.status_code == 400


def test_the_home_page_shows_a_players_next_fixture(client, two_teams):
    season, fixture, (_home, home_players), _away = two_teams
    with time_machine.travel(at(START, 9), tick=False):
        client.force_login(home_players[1])
        page = client.get("/").content.decode()
    assert f'href="/leagues/fixtures/{fixture.pk}/"' in page and "查看对阵" in page


@pytest.mark.parametrize("role", ROLES)
def test_organiser_actions_on_the_api_and_the_web(world, two_teams, role, morning):
    """Divisions, club nights and the next season: host admins only, as on the web."""
    from leagues.services import play, setup

    season, fixture, (a, _), (b, _) = two_teams
    client = client_for(world, two_teams, role)
    host = role == "host_admin"
    denied = 401 if role == "anonymous" else 403
    draft = world.season(name="草稿")
    url = f"/api/v1/league-seasons/{draft.pk}/add-division/"
    response = client.post(url, {"name": "乙级"}, content_type="application/json")
    assert response.status_code == (201 if host else denied)
    assert draft.divisions.count() == (2 if host else 1)
    when = at(START + timedelta(days=3)).isoformat()
    response = client.post(
        f"/api/v1/league-seasons/{season.pk}/club-night/",
        {"round": 1, "when": when},
        content_type="application/json",
    )
    assert response.status_code == (200 if host else denied)
    fixture.refresh_from_db()
    assert (fixture.status == FixtureStatus.AGREED) == host
    play.award(world.host_admin, fixture, 1)
    setup.close_season(world.host_admin, season)
    response = client.post(
        f"/api/v1/league-seasons/{season.pk}/next-season/",
        {"name": "2030 秋季", "starts_on": "2030-09-01"},
        content_type="application/json",
    )
    assert response.status_code == (201 if host else denied)
    web = client.post(
        f"/leagues/seasons/{season.pk}/do/next/", {"name": "2031 春季", "starts_on": "2031-03-01"}
    )
    assert web.status_code == 302
    names = set(world.league.seasons.values_list("name", flat=True))
    assert ({"2030 秋季", "2031 春季"} <= names) == host
    if host:
        new = world.league.seasons.get(name="2031 春季")
        assert web["Location"] == f"/leagues/seasons/{new.pk}/"
        assert {e.name for e in new.entries.all()} == {a.name, b.name}
        bad = client.post(
            f"/api/v1/league-seasons/{season.pk}/club-night/",
            {"round": 10**20, "when": "soon"},
            content_type="application/json",
        )
        assert bad.status_code == 400
        assert client.post(f"/leagues/seasons/{season.pk}/do/next/", {}).status_code == 302
        assert world.league.seasons.count() == len(names)


@pytest.mark.parametrize("body", ["null", "[]", "3"])
def test_an_organiser_action_whose_body_is_not_an_object_is_refused(world, two_teams, body):
    """A body that is JSON but not an object is a 400 with a message, and changes nothing
    (it was a server error: schemathesis posted ``null``)."""
    draft = world.season(name="草稿")
    client = client_for(world, two_teams, "host_admin")
    url = f"/api/v1/league-seasons/{draft.pk}/add-division/"
    response = client.post(url, body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()  # the error document names what is wrong
    assert draft.divisions.count() == 1
