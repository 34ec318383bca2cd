"""Sibling tables (issue 40, item 1): the two live tables of a league team fixture are dealt
from one seed, seat for seat, so what one shows is what the same seat holds at the other.

Through the real ASGI application (origin check, session auth, the Redis channel layer), the
web pages and the API, for the other table's players, a spectator, the organiser (the host
club's admin), a signed-in outsider and the anonymous visitor of a public club:

* nobody seated at one table may watch the other: its websocket refuses them
  (``sibling_table``), as a spectator and as a referee (a seated admin of the host club);
* when one table ends early (the organiser forfeits it), its replay — every hand from the
  first step — opens to nobody, its own players included, until the other table has
  finished too; then it opens to everyone who may see the club's things.
"""

import json
from datetime import date, datetime, timedelta

import pytest
import time_machine
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.utils import timezone, translation
from django.utils.html import escape
from rest_framework.test import APIClient

from clubs.models import Club, Membership, Role, User
from config.asgi import application
from leagues.models import FixtureTable
from leagues.services import entries, fixtures, setup
from leagues.services import play as league_play
from matches.messages import MatchError
from matches.models import Match, Table
from matches.services import access, play, tables

pytestmark = pytest.mark.integration

START = date(2030, 3, 4)


def at(day: date, hour: int) -> datetime:
    return timezone.make_aware(datetime.combine(day, datetime.min.time()) + timedelta(hours=hour))


class Fixture:
    """A Bao 2 team league of a public club: two teams of the host club (a fifth roster
    player of the home team sits out), their fixture's two live tables opened at the agreed
    time; the host's owner organises; a member watches; an outsider and the anonymous."""

    def __init__(self):
        self.n = 0
        self.host = Club.objects.create(name="南通保二俱乐部", slug="nantong")
        self.organiser = self.member(Role.OWNER)
        self.spectator = self.member()
        self.outsider = self.user()
        league = setup.create_league(self.organiser, self.host, name="江苏团体联赛")
        season = setup.create_season(
            self.organiser,
            league,
            name="2030 春季",
            variant="bao2",
            entry_kind="team",
            starts_on=START,
        )
        self.home = [self.member() for _ in range(5)]
        self.away = [self.member() for _ in range(4)]
        for name, team in (("一队", self.home), ("二队", self.away)):
            entries.enter_team(
                self.organiser, season, self.host, name=name, captain=team[0], players=team
            )
        setup.start_season(self.organiser, season)
        fixture = season.rounds.get(number=1).fixtures.get()
        home, away = (fixture.home.team.captain, fixture.away.team.captain)
        with time_machine.travel(at(START, 9), tick=False):
            fixtures.propose_time(home, fixture, at(START, 19))
            fixtures.accept_time(away, fixture)
            for captain in (home, away):
                roster = self.home if captain in self.home else self.away
                fixtures.submit_lineup(captain, fixture, [roster[:2], roster[2:4]])
        with time_machine.travel(at(START, 19), tick=False):
            assert league_play.tick()["tables_opened"] == 1
        rows = FixtureTable.objects.filter(fixture=fixture).order_by("number")
        self.tables = [Table.objects.get(pk=row.table_ref) for row in rows]
        self.seated = [list(User.objects.filter(pk__in=row.seat_users)) for row in rows]
        self.fixture = fixture

    def user(self):
        self.n += 1
        return User.objects.create_user(
            username=f"s{self.n}", email=f"s{self.n}@example.com", password="pw-12345678"
        )

    def member(self, role=Role.MEMBER):
        user = self.user()
        Membership.objects.create(club=self.host, user=user, role=role)
        return user

    def match(self, k):
        return Match.objects.get(table=self.tables[k])


@pytest.fixture
def fx(transactional_db, scheduled):
    return Fixture()


def cookie_of(user):
    if user is None:
        return ""
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


def first_frames(table_id, people):
    """Each person's first frame at table ``table_id`` and whether the socket then closed."""
    cookies = {name: cookie_of(user) for name, user in people.items()}

    async def scenario():
        out = {}
        for name, cookie in cookies.items():
            headers = [(b"origin", b"http://testserver")]
            if cookie:
                headers.append((b"cookie", cookie.encode()))
            comm = WebsocketCommunicator(application, f"/ws/tables/{table_id}/", headers=headers)
            connected, _ = await comm.connect()
            assert connected
            frame = json.loads(await comm.receive_from(timeout=5))
            closed = False
            if frame["type"] == "refused":
                closed = (await comm.receive_output(timeout=3))["type"] == "websocket.close"
            out[name] = (frame, closed)
            await comm.disconnect()
        return out

    return async_to_sync(scenario)()


def test_the_tables_of_a_team_fixture_are_siblings(fx):
    one, two = fx.tables
    assert one.deal_group and one.deal_group == two.deal_group
    assert fx.match(0).seed == fx.match(1).seed
    assert list(access.siblings(one)) == [two]
    for user in fx.seated[1]:
        assert access.seated_at_sibling(user, one) and not access.seated_at_sibling(user, two)


def test_the_other_tables_players_may_not_watch_over_the_websocket(fx):
    one, two = fx.tables
    # a home player seated at table 2 who is also an admin of the host club
    admin = next(u for u in fx.seated[1] if u in fx.home)
    Membership.objects.filter(club=fx.host, user=admin).update(role=Role.ADMIN)
    people = {f"table 2, seat {k}": user for k, user in enumerate(fx.seated[1])}
    people.update(
        organiser=fx.organiser,
        spectator=fx.spectator,
        outsider=fx.outsider,
        anonymous=None,
        player=fx.seated[0][0],
    )
    frames = first_frames(one.pk, people)
    for k in range(4):
        frame, closed = frames[f"table 2, seat {k}"]
        assert frame["type"] == "refused" and frame["code"] == "sibling_table", k
        assert frame["message"] and closed, k
    assert frames["player"][0]["type"] == "snapshot" and frames["player"][0]["you"] == 0
    for name in ("organiser", "spectator", "outsider"):  # the public club's live table
        frame, _ = frames[name]
        assert frame["type"] == "snapshot" and frame["you"] is None, name
        assert "hand" not in frame["obs"], name
    assert frames["anonymous"][0]["code"] == "login_required"
    # the seated admin is no referee of the sibling either: no sanction, no console, no page
    assert access.may_referee(fx.organiser, one)
    assert not access.may_referee(admin, one) and not access.may_referee(admin, two)
    with pytest.raises(MatchError) as refused:
        play.referee_sanction(admin, fx.match(0).pk, "revoke_initiative", 0, "拖延")
    assert refused.value.code == "not_referee"
    client = Client()
    client.force_login(admin)
    answer = client.post(
        f"/matches/tables/{one.pk}/referee/",
        {"sanction": "revoke_initiative", "target": 0, "reason": "拖延"},
    )
    assert answer.status_code == 403 and answer.json()["code"] == "not_referee"
    page = client.get(f"/matches/tables/{one.pk}/")
    assert page.status_code == 403 and 'id="referee"' not in page.content.decode()
    assert fx.match(0).version == 0  # nothing applied


def test_a_teammate_off_the_line_up_may_not_referee(fx):
    sitting_out = fx.home[4]
    Membership.objects.filter(club=fx.host, user=sitting_out).update(role=Role.ADMIN)
    for table in fx.tables:
        assert not access.may_referee(sitting_out, table)
    with pytest.raises(MatchError) as refused:
        play.referee_sanction(sitting_out, fx.match(1).pk, "revoke_initiative", 0, "拖延")
    assert refused.value.code == "not_referee"


def refusal_text(code):
    """A refusal as the page shows it, in the visitors' language (the site's default)."""
    with translation.override("zh-hans"):
        return escape(MatchError(code).message)


def replays(fx, table, viewers):
    """Each viewer's answer to ``table``'s replay page (status, body)."""
    out = {}
    for name, user in viewers.items():
        client = Client()
        if user is not None:
            client.force_login(user)
        answer = client.get(f"/matches/tables/{table.pk}/replay/")
        out[name] = (answer.status_code, answer.content.decode())
    return out


def test_no_replay_opens_before_every_sibling_has_finished(fx, django_capture_on_commit_callbacks):
    one, two = fx.tables
    play.referee_sanction(fx.organiser, fx.match(0).pk, "forfeit", 1, "弃权")
    assert fx.match(0).status == "finished" and fx.match(1).status == "playing"
    viewers = {
        "table 1 player": fx.seated[0][0],
        "table 2 player": fx.seated[1][0],
        "organiser": fx.organiser,
        "spectator": fx.spectator,
        "outsider": fx.outsider,
        "anonymous": None,
    }
    for name, (status, body) in replays(fx, one, viewers).items():
        assert status == 403, name
        assert "replay-steps" not in body, name
        # the reason: a sibling's player may not watch it at all; the rest wait for the end
        reason = "sibling_table" if name == "table 2 player" else "siblings_playing"
        assert refusal_text(reason) in body, name
    # the finished table's page offers no replay link yet
    client = Client()
    client.force_login(fx.seated[0][0])
    page = client.get(f"/matches/tables/{one.pk}/").content.decode()
    assert f"/matches/tables/{one.pk}/replay/" not in page
    # the other table ends: both replays open to everyone who may see the club's things
    play.referee_sanction(fx.organiser, fx.match(1).pk, "forfeit", 0, "弃权")
    for table in (one, two):
        for name, (status, body) in replays(fx, table, viewers).items():
            assert status == 200 and "replay-steps" in body, (table.pk, name)
    page = client.get(f"/matches/tables/{one.pk}/").content.decode()
    assert f"/matches/tables/{one.pk}/replay/" in page


def test_the_api_carries_no_cards_of_a_sibling(fx):
    """No API endpoint exposes a match's events, replay or seed: the schema names none (a
    table's only path is its review, sealed by the same replay rule:
    tests/matches/test_audit_40_sibling_reviews.py), and the fixture's own endpoint answers
    its tables' results without them."""
    client = APIClient()
    schema = client.get("/api/schema/?format=json").json()
    for path in schema["paths"]:
        assert not any(word in path for word in ("replay", "events")), path
        assert "/tables/" not in path or path.endswith("/review/"), path
    seed = fx.match(0).seed
    for user in (None, fx.seated[1][0], fx.organiser):
        client = APIClient()
        if user is not None:
            client.force_authenticate(user)
        answer = client.get(f"/api/v1/league-fixtures/{fx.fixture.pk}/")
        assert answer.status_code == 200
        assert seed not in answer.content.decode()


def test_a_duplicate_round_of_three_tables(transactional_db, scheduled):
    """Any number of siblings (a duplicate round): a player of the third table may watch
    neither of the others, and the first table's replay stays closed while the third plays
    although the second has finished too; the ban and the seal end with the last table."""
    owner = User.objects.create_user(username="owner", email="o@example.com", password="pw-1234567")
    club = Club.objects.create(name="复式", slug="fushi")
    Membership.objects.create(club=club, user=owner, role=Role.OWNER)
    people = []
    group = []
    for t in range(3):
        person = User.objects.create_user(
            username=f"p{t}", email=f"p{t}@example.com", password="pw-1234567"
        )
        Membership.objects.create(club=club, user=person, role=Role.MEMBER)
        table = tables.open_table(person, club, variant="bao2", deal_group="round-1")
        for seat in (1, 2, 3):
            tables.add_bot(person, table, seat, "heuristic")
        people.append(person)
        group.append(table)
    for table in group[:2]:
        assert access.barred_as_sibling(people[2], table)
        assert first_frames(table.pk, {"p": people[2]})["p"][0]["code"] == "sibling_table"
    for k in (0, 1):
        match = Match.objects.get(table=group[k])
        play.referee_sanction(owner, match.pk, "forfeit", 1, "弃权")
    for k in (0, 1):
        status, body = replays(None, group[k], {"owner": owner, "player": people[k]})["owner"]
        assert status == 403 and refusal_text("siblings_playing") in body
    play.referee_sanction(owner, Match.objects.get(table=group[2]).pk, "forfeit", 0, "弃权")
    for table in group:
        assert replays(None, table, {"owner": owner})["owner"][0] == 200
    assert not access.barred_as_sibling(people[2], group[0])
    assert first_frames(group[0].pk, {"p": people[2]})["p"][0]["type"] == "snapshot"
