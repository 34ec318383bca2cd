"""Who referees (issue 40, items 2 and 5): a referee's powers come from a current role — an
admin of the table's club, or the tournament's creator while still a member — and never from
a seat in the match (or a partner's or teammate's).

Through the real ASGI application (the websocket's handshake) and the referee console's POST,
as the issue's probes did: a removed tournament creator is refused as a referee at the
handshake and their sanction is refused; a club admin seated at a rated table gets no
referee console and their forfeit of the opponents is refused ``not_referee`` (403), the
match and its ratings untouched.
"""

import json

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.utils import timezone
from matchkit import make_user

from clubs import services as club_services
from clubs.models import Membership, Role
from config.asgi import application
from matches.messages import MatchError
from matches.models import Match
from matches.services import access, play, tables
from tournaments.models import Entry, Game, Round, Tournament

pytestmark = pytest.mark.integration


def cookie_of(user):
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


def handshake(table_id, user):
    """The first frame ``user`` gets from table ``table_id``'s websocket."""

    cookie = cookie_of(user)

    async def scenario():
        headers = [(b"origin", b"http://testserver"), (b"cookie", cookie.encode())]
        comm = WebsocketCommunicator(application, f"/ws/tables/{table_id}/", headers=headers)
        connected, _ = await comm.connect()
        assert connected
        frame = json.loads(await comm.receive_from(timeout=5))
        await comm.disconnect()
        return frame

    return async_to_sync(scenario)()


def four_people(club, players, **options):
    table = tables.open_table(players[0], club, variant="bao2", **options)
    for seat in (1, 2, 3):
        tables.take_seat(players[seat], table, seat)
    return Match.objects.get(table=table)


def tournament_of(match, creator):
    tournament = Tournament.objects.create(
        club=match.table.club,
        name="春季赛",
        variant="bao2",
        starts_at=timezone.now(),
        created_by=creator,
    )
    rnd = Round.objects.create(tournament=tournament, number=1, scheduled_at=timezone.now())
    Game.objects.create(round=rnd, number=1, side0=[], side1=[], table=match.table)
    return tournament


def test_a_removed_creator_is_no_referee(club, players, scheduled):
    """The tournament's creator was an admin; the owner removed them from the club."""
    match = four_people(club, players, spectators_allowed=False)
    creator = make_user("creator")
    membership = Membership.objects.create(club=club, user=creator, role=Role.ADMIN)
    tournament_of(match, creator)
    assert access.may_referee(creator, match.table)
    assert handshake(match.table_id, creator)["type"] == "snapshot"  # a referee's view
    club_services.remove_member(players[0], membership)  # the owner removes them
    frame = handshake(match.table_id, creator)
    # a public club's table without spectators: an outsider's refusal, no referee snapshot
    assert frame["type"] == "refused" and frame["code"] == "no_spectators"
    with pytest.raises(MatchError) as refused:
        play.referee_sanction(creator, match.pk, "forfeit", 1, "弃权")
    assert refused.value.code == "not_referee"
    client = Client()
    client.force_login(creator)
    answer = client.post(
        f"/matches/tables/{match.table_id}/referee/",
        {"sanction": "forfeit", "target": 1, "reason": "弃权"},
    )
    assert answer.status_code == 403 and answer.json()["code"] == "not_referee"
    assert Match.objects.get(pk=match.pk).version == match.version
    assert not access.may_referee(creator, match.table)


def test_a_creator_who_is_still_a_plain_member_referees(club, players, scheduled):
    match = four_people(club, players)
    creator = make_user("creator")
    Membership.objects.create(club=club, user=creator, role=Role.MEMBER)
    tournament_of(match, creator)
    assert access.may_referee(creator, match.table)
    Membership.objects.filter(user=creator).delete()  # they leave
    assert not access.may_referee(creator, match.table)


def test_a_seated_admin_may_not_referee_their_own_rated_match(club, players, scheduled):
    admin = players[1]
    Membership.objects.filter(club=club, user=admin).update(role=Role.ADMIN)
    match = four_people(club, players, rated=True)
    assert match.table.rated
    for referee in (players[0], admin):  # the owner and an admin, both seated
        client = Client()
        client.force_login(referee)
        page = client.get(f"/matches/tables/{match.table_id}/")
        assert page.status_code == 200 and 'id="referee"' not in page.content.decode()
        answer = client.post(
            f"/matches/tables/{match.table_id}/referee/",
            {"sanction": "forfeit", "target": 1, "reason": "弃权"},
        )
        assert answer.status_code == 403 and answer.json()["code"] == "not_referee"
        frame = handshake(match.table_id, referee)
        assert frame["type"] == "snapshot" and frame["you"] is not None  # a player, no more
        assert not access.may_referee(referee, match.table)
    match.refresh_from_db()
    assert match.status == "playing" and match.version == 0
    # an admin of the club who does not play referees it
    referee = make_user("referee")
    Membership.objects.create(club=club, user=referee, role=Role.ADMIN)
    assert access.may_referee(referee, match.table)


def test_a_teammate_or_partner_of_a_tournament_game_may_not_referee(club, players, scheduled):
    """An individual event with team labels: an admin entered in the same team as a player
    of the game (not seated at it) has a stake in it; a pair's partner too."""
    match = four_people(club, players)
    admin = make_user("admin")
    Membership.objects.create(club=club, user=admin, role=Role.ADMIN)
    tournament = tournament_of(match, players[0])
    seated = [
        Entry.objects.create(tournament=tournament, player1=p, team=team)
        for p, team in zip(players, ("东", "西", "东", "西"), strict=True)
    ]
    game = Game.objects.get(table=match.table)
    game.side0, game.side1 = [seated[0].pk, seated[2].pk], [seated[1].pk, seated[3].pk]
    game.save()
    assert access.may_referee(admin, match.table)  # not entered
    entry = Entry.objects.create(tournament=tournament, player1=admin, team="东")
    assert not access.may_referee(admin, match.table)
    entry.team = "南"  # a team with nobody at the table
    entry.save()
    assert access.may_referee(admin, match.table)
    # a pair whose other player sits at the table
    partner = make_user("partner")
    Membership.objects.create(club=club, user=partner, role=Role.ADMIN)
    seated[3].player2 = partner
    seated[3].save()
    assert not access.may_referee(partner, match.table)
