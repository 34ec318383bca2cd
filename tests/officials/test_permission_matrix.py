"""The permission matrix of an event's officials (issue 45, item 4): the organiser, the chief
referee, a referee, an appeals committee member, a referee who plays at the table, a referee
removed from the club, a plain member, a player of the game, an outsider and the anonymous
visitor — role by role, through the services, the web pages, the API and (integration) the
live table's websocket handshake and referee console.

* an appointed referee or chief referee referees the event's tables (matches asks a hook the
  officials app registers: matches never imports it), not one they sit at, and nothing once
  they left the club; a committee member does not referee;
* the organiser appoints; the chief referee removes a referee; the committee votes; the
  organiser, the chief referee and the committee read every appeal, a player those of their
  games; nobody else does anything.
"""

import json

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from clubs import services as club_services
from clubs.models import Membership, Role
from config.asgi import application
from matches.messages import MatchError
from matches.models import Match
from matches.services import access, play, tables
from officials import permissions, services
from officials.models import Appeal, Official
from tests.leagues.leaguekit import finished_fixture
from tournaments.models import Entry, Game, GameStatus, Round, Tournament, TournamentStatus

ROLES = (
    "organiser",
    "chief",
    "deputy",
    "referee",
    "committee",
    "seated referee",
    "removed referee",
    "member",
    "player",
    "outsider",
    "anonymous",
)
#: role: (referees the live table, appoints, removes a referee, votes, reads the appeal,
#: marks the appeal fee received)
MATRIX = {
    "organiser": (True, True, True, False, True, True),
    "chief": (True, False, True, False, True, True),
    # removes a referee and marks a fee only with no chief
    "deputy": (True, False, False, False, True, False),
    "referee": (True, False, False, False, False, False),
    "committee": (False, False, False, True, True, False),
    "seated referee": (False, False, False, False, False, False),
    "removed referee": (False, False, False, False, False, False),
    "member": (False, False, False, False, False, False),
    "player": (False, False, False, False, True, False),
    "outsider": (False, False, False, False, False, False),
    "anonymous": (False, False, False, False, False, False),
}


def user_named(name, **extra):
    return club_services.sign_up(username=name, password="Pass-word-2026", **extra)


@pytest.fixture
def world(transactional_db, no_deadline_tasks):
    """A club, a running tournament whose round-1 game is played at a live table by four
    entrants (one of them an appointed referee), a finished game of the same round with an
    open appeal, and every role."""
    organiser = user_named("organiser")
    club = club_services.create_club(organiser, name="南平保二会")
    names = ("chief", "deputy", "referee", "c1", "c2", "c3", "member", "removed", "outsider")
    people = {n: user_named(n) for n in names}
    seated = [user_named(f"seat{i}") for i in range(4)]
    finished = [user_named(f"done{i}") for i in range(4)]
    for user in [*list(people.values())[:-1], *seated, *finished]:
        Membership.objects.create(club=club, user=user, role=Role.MEMBER)
    tournament = Tournament.objects.create(
        club=club,
        name="春季赛",
        variant="bao2",
        starts_at=timezone.now(),
        status=TournamentStatus.RUNNING,
        created_by=organiser,
        online=True,
    )
    live = tables.open_table(seated[0], club, variant="bao2", spectators_allowed=False)
    for i in (1, 2, 3):
        tables.take_seat(seated[i], live, i)
    rnd = Round.objects.create(
        tournament=tournament, number=1, scheduled_at=timezone.now(), status="playing"
    )

    def pair(a, b):
        return Entry.objects.create(tournament=tournament, player1=a, player2=b, name=a.username)

    e = [pair(seated[0], seated[2]), pair(seated[1], seated[3])]
    Game.objects.create(
        round=rnd, number=1, side0=[e[0].pk], side1=[e[1].pk], table=live, status="playing"
    )
    d = [pair(finished[0], finished[2]), pair(finished[1], finished[3])]
    done = Game.objects.create(
        round=rnd,
        number=2,
        side0=[d[0].pk],
        side1=[d[1].pk],
        status=GameStatus.FINISHED,
        score0=12,
        score1=5,
        winner=0,
        source="admin",
    )
    services.appoint(organiser, tournament, people["chief"], "chief")
    services.appoint(organiser, tournament, people["deputy"], "deputy")
    services.appoint(organiser, tournament, people["referee"], "referee")
    services.appoint(organiser, tournament, seated[1], "referee")  # plays at the live table
    services.appoint(organiser, tournament, people["removed"], "referee")
    for name in ("c1", "c2", "c3"):
        services.appoint(organiser, tournament, people[name], "committee")
    club_services.remove_member(
        organiser, Membership.objects.get(club=club, user=people["removed"])
    )
    services.set_appeal_fee(organiser, tournament, 100)  # 第三十九条一.4
    appeal = services.file_appeal(finished[1], done, "result", "记分有误")
    users = {
        "organiser": organiser,
        "chief": people["chief"],
        "deputy": people["deputy"],
        "referee": people["referee"],
        "committee": people["c1"],
        "seated referee": seated[1],
        "removed referee": people["removed"],
        "member": people["member"],
        "player": finished[3],  # the filer's partner
        "outsider": people["outsider"],
        "anonymous": None,
    }
    return {
        "club": club,
        "t": tournament,
        "live": live,
        "appeal": appeal,
        "users": users,
        "referee_row": Official.objects.get(user=people["referee"]),
        "spare": people["member"],
    }


def handshake(table_id, user):
    """The first frame ``user`` gets from the table's websocket."""
    headers = [(b"origin", b"http://testserver")]
    if user is not None:
        client = Client()
        client.force_login(user)
        headers.append((b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode()))

    async def scenario():
        comm = WebsocketCommunicator(application, f"/ws/tables/{table_id}/", headers=headers)
        connected, _ = await comm.connect()
        assert connected
        frame = json.loads(await comm.receive_from(timeout=5))
        await comm.disconnect()
        return frame

    return async_to_sync(scenario)()


@pytest.mark.integration
@pytest.mark.parametrize("role", ROLES)
def test_the_officials_permission_matrix(world, role):
    user = world["users"][role]
    referees, appoints, removes, votes, reads, marks = MATRIX[role]
    table, appeal, t = world["live"], world["appeal"], world["t"]
    match = Match.objects.get(table=table)
    # live play: the referee rule, its page's console, the socket's handshake
    assert access.may_referee(user, table) is referees, role
    client = Client()
    if user is not None:
        client.force_login(user)
    page = client.get(f"/matches/tables/{table.pk}/")
    assert ('id="referee"' in page.content.decode()) is referees, role
    frame = handshake(table.pk, user)
    if referees:
        assert frame["type"] == "snapshot" and frame["you"] is None, role
    elif role == "seated referee":
        assert frame["type"] == "snapshot" and frame["you"] is not None  # a player, no more
    else:
        assert frame["type"] == "refused", role  # the table allows no spectators
    # the appeal fee (第三十九条一.4): marked received by the organiser or the chief referee,
    # through the services, the appeal's page and the API; nobody votes before
    assert permissions.may_mark_fee(user, appeal) is marks, role
    if user is not None and reads:
        fee_page = client.get(f"/officials/appeals/{appeal.pk}/").content.decode()
        assert ("data-fee-form" in fee_page) is marks, role
        assert "data-vote-form" not in fee_page, role
    fee_api = APIClient()
    if user is not None:
        fee_api.force_authenticate(user)
    marked = fee_api.post(f"/api/v1/appeals/{appeal.pk}/fee-received/")
    assert marked.status_code == (
        200 if marks else (401 if user is None else 403 if reads else 404)
    ), role
    if not marks:
        services.mark_fee_received(world["users"]["organiser"], appeal)
    appeal.refresh_from_db()
    assert appeal.fee_state == "received"
    # the services
    assert (user is not None and permissions.can_dismiss(user, world["referee_row"])) is removes
    assert permissions.may_vote(user, appeal) is votes, role
    # the first ruling (第三十九条二.1): the chief referee only (a deputy while there is none)
    assert permissions.may_rule(user, appeal) is (role == "chief"), role
    assert permissions.can_read_appeal(user, appeal) is reads, role
    if user is not None:
        try:
            services.appoint(user, t, world["spare"], "referee")
        except services.NotAllowed:
            appointed = False
        else:
            appointed = True
        assert appointed is appoints, role
    # the pages: the officials page (public club: everyone sees it; the form the organiser)
    officials_page = client.get(f"/officials/tournaments/{t.pk}/").content.decode()
    assert ("data-appoint" in officials_page) is appoints, role
    answer = client.get(f"/officials/appeals/{appeal.pk}/")
    if user is None:
        assert answer.status_code == 302  # to the log-in page
    else:
        assert answer.status_code == (200 if reads else 404), role
        assert ("data-vote-form" in answer.content.decode()) is votes, role
    # the API
    api = APIClient()
    if user is not None:
        api.force_authenticate(user)
    detail = api.get(f"/api/v1/appeals/{appeal.pk}/")
    assert detail.status_code == (200 if reads else (401 if user is None else 404)), role
    vote = api.post(f"/api/v1/appeals/{appeal.pk}/vote/", {"verdict": "dismiss", "reason": "r"})
    assert vote.status_code == (200 if votes else (401 if user is None else 403 if reads else 404))
    Official.objects.filter(user=world["spare"]).delete()
    posted = api.post(
        f"/api/v1/tournament-officials/{t.pk}/appoint/",
        {"user": world["spare"].pk, "role": "referee"},
        format="json",
    )
    assert posted.status_code == (201 if appoints else (401 if user is None else 403)), role
    # and a sanction: the appointed referee's is applied, everyone else's refused
    if referees:
        play.referee_sanction(user, match.pk, "forfeit", 1, "弃权")
        assert Match.objects.get(pk=match.pk).status == "finished"
    else:
        with pytest.raises(MatchError) as refused:
            play.referee_sanction(user, match.pk, "forfeit", 1, "弃权")
        assert refused.value.code in ("not_referee", "login_required"), role
        assert Match.objects.get(pk=match.pk).version == match.version


@pytest.mark.integration
def test_a_referee_removed_by_the_chief_loses_the_table_at_once(world):
    referee, table = world["users"]["referee"], world["live"]
    assert access.may_referee(referee, table)
    services.dismiss(world["users"]["chief"], world["referee_row"])
    assert not access.may_referee(referee, table)
    frame = handshake(table.pk, referee)
    assert frame["type"] == "refused"
    assert Appeal.objects.filter(pk=world["appeal"].pk).exists()


def test_a_deputy_acts_for_the_chief_only_while_the_event_has_none(world):
    deputy, chief, row = world["users"]["deputy"], world["users"]["chief"], world["referee_row"]
    with pytest.raises(services.NotAllowed):
        services.dismiss(deputy, row)
    club_services.remove_member(
        world["users"]["organiser"], Membership.objects.get(club=world["club"], user=chief)
    )
    assert permissions.can_dismiss(deputy, row)
    services.dismiss(deputy, row)
    assert not access.may_referee(world["users"]["referee"], world["live"])


# --------------------------------------------------------------------------- league seasons
LEAGUE_ROLES = (
    "organiser",
    "chief",
    "referee",
    "committee",
    "staked committee",
    "removed committee",
    "player",
    "member",
    "outsider",
    "anonymous",
)
#: role: (files an appeal about the table, votes, reads the appeal, appoints, marks the
#: appeal fee received)
LEAGUE_MATRIX = {
    "organiser": (False, False, True, True, True),
    "chief": (False, False, True, False, True),
    "referee": (False, False, False, False, False),
    "committee": (False, True, True, False, False),
    # seated at the table: a player there
    "staked committee": (True, False, True, False, False),
    "removed committee": (False, False, False, False, False),
    "player": (True, False, True, False, False),
    "member": (False, False, False, False, False),
    "outsider": (False, False, False, False, False),
    "anonymous": (False, False, False, False, False),
}


@pytest.fixture
def league_world(db):
    """A club's pair league season whose one fixture finished a minute ago at one table
    (four members seated; one of them, an opponent, sits on the appeals committee), an open
    appeal by an away player, and every role of the season's officials."""

    organiser = user_named("lorganiser")
    club = club_services.create_club(organiser, name="如东保二会")
    names = ("chief", "referee", "c1", "c2", "removed", "member")
    people = {n: user_named(f"l{n}") for n in names}
    seated = [user_named(f"lseat{i}") for i in range(4)]
    outsider = user_named("loutsider")
    club_services.create_club(outsider, name="别的俱乐部")
    for user in [*people.values(), *seated]:
        Membership.objects.create(club=club, user=user, role=Role.MEMBER)
    season, fixture, table = finished_fixture(
        club,
        seated,
        variant="guandan",
        scores=(9, 4),
        names=("主队", "客队"),
        name="如东联赛",
        created_by=organiser,
    )
    services.appoint(organiser, season, people["chief"], "chief")
    services.appoint(organiser, season, people["referee"], "referee")
    for name in ("c1", "c2", "removed"):
        services.appoint(organiser, season, people[name], "committee")
    services.appoint(organiser, season, seated[0], "committee")  # the opponent, seated
    club_services.remove_member(
        organiser, Membership.objects.get(club=club, user=people["removed"])
    )
    services.set_appeal_fee(organiser, season, 50)  # 第三十九条一.4
    appeal = services.file_appeal(seated[1], table, "result", "记分有误")
    users = {
        "organiser": organiser,
        "chief": people["chief"],
        "referee": people["referee"],
        "committee": people["c1"],
        "staked committee": seated[0],
        "removed committee": people["removed"],
        "player": seated[3],  # the filer's partner
        "member": people["member"],
        "outsider": outsider,
        "anonymous": None,
    }
    return {
        "season": season,
        "fixture": fixture,
        "table": table,
        "appeal": appeal,
        "users": users,
        "spare": people["member"],
    }


@pytest.mark.parametrize("role", LEAGUE_ROLES)
def test_the_league_appeals_permission_matrix(league_world, role):
    user = league_world["users"][role]
    files, votes, reads, appoints, marks = LEAGUE_MATRIX[role]
    season, table, appeal = league_world["season"], league_world["table"], league_world["appeal"]
    fixture = league_world["fixture"]
    # the appeal fee: the organiser or the chief referee marks it received, nobody else
    assert permissions.may_mark_fee(user, appeal) is marks, role
    fee_api = APIClient()
    if user is not None:
        fee_api.force_authenticate(user)
    marked = fee_api.post(f"/api/v1/appeals/{appeal.pk}/fee-received/")
    assert marked.status_code == (
        200 if marks else (401 if user is None else 403 if reads else 404)
    ), role
    if not marks:
        services.mark_fee_received(league_world["users"]["organiser"], appeal)
    # the services
    assert permissions.may_vote(user, appeal) is votes, role
    assert permissions.can_read_appeal(user, appeal) is reads, role
    if user is not None:
        try:
            services.appoint(user, season, league_world["spare"], "referee")
        except services.NotAllowed:
            appointed = False
        else:
            appointed = True
        assert appointed is appoints, role
        Official.objects.filter(user=league_world["spare"]).delete()
    # the pages: the fixture's page offers 申诉 to its players within the time, and lists
    # the appeals the viewer reads; the appeal's page; the season's officials page
    client = Client()
    if user is not None:
        client.force_login(user)
    page = client.get(f"/leagues/fixtures/{fixture.pk}/").content.decode()
    assert ("data-appeal-table" in page) is files, role
    assert (f"/officials/appeals/{appeal.pk}/" in page) is reads, role
    officials_page = client.get(f"/officials/seasons/{season.pk}/").content.decode()
    assert ("data-appoint" in officials_page) is appoints, role
    assert (f"/officials/appeals/{appeal.pk}/" in officials_page) is reads, role
    assert ("data-file-appeal" in officials_page) is files, role
    answer = client.get(f"/officials/appeals/{appeal.pk}/")
    if user is None:
        assert answer.status_code == 302  # to the log-in page
    else:
        assert answer.status_code == (200 if reads else 404), role
        assert ("data-vote-form" in answer.content.decode()) is votes, role
    form = client.get(f"/officials/seasons/{season.pk}/appeal/?table={table.pk}")
    if user is not None:
        assert ("data-appeal-form" in form.content.decode()) is files, role
    # the API
    api = APIClient()
    if user is not None:
        api.force_authenticate(user)
    detail = api.get(f"/api/v1/appeals/{appeal.pk}/")
    assert detail.status_code == (200 if reads else (401 if user is None else 404)), role
    if reads:
        assert detail.json()["table"] == table.pk and detail.json()["game"] is None
    vote = api.post(f"/api/v1/appeals/{appeal.pk}/vote/", {"verdict": "dismiss", "reason": "r"})
    assert vote.status_code == (200 if votes else (401 if user is None else 403 if reads else 404))
    filed = api.post(
        f"/api/v1/season-officials/{season.pk}/appeal/",
        {"table": table.pk, "subject": "sanction", "text": "判罚不公"},
        format="json",
    )
    assert filed.status_code == (201 if files else (401 if user is None else 403)), role
    posted = api.post(
        f"/api/v1/season-officials/{season.pk}/appoint/",
        {"user": league_world["spare"].pk, "role": "referee"},
        format="json",
    )
    assert posted.status_code == (201 if appoints else (401 if user is None else 403)), role


def test_a_league_appeal_is_offered_only_within_the_time(league_world):
    from datetime import timedelta

    fixture, player = league_world["fixture"], league_world["users"]["player"]
    client = Client()
    client.force_login(player)
    assert "data-appeal-table" in client.get(f"/leagues/fixtures/{fixture.pk}/").content.decode()
    fixture.finished_at -= timedelta(minutes=30)
    fixture.save(update_fields=["finished_at"])
    page = client.get(f"/leagues/fixtures/{fixture.pk}/").content.decode()
    assert "data-appeal-table" not in page
    api = APIClient()
    api.force_authenticate(player)
    late = api.post(
        f"/api/v1/season-officials/{fixture.round.season_id}/appeal/",
        {"table": league_world["table"].pk, "subject": "result", "text": "迟了"},
        format="json",
    )
    assert late.status_code == 400 and late.json()["code"] == "too_late"
