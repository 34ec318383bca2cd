"""Audit of issue 41, part 4 (``/work/notes/audit-40-41.md``): quick phrases are "never at
rated, tournament or league tables". The phrase tests set ``Table.competition`` by hand; this
checks the tables the competitions really open — an unrated tournament's round and a league
team fixture's — refuse a phrase (``phrases_off``), offer none on the table page, and that a
casual table of the same club takes one."""

from datetime import timedelta

import pytest
import time_machine
from django.test import Client

from clubs.models import Membership, Role, User
from matches.messages import MatchError
from matches.models import Match, Table
from matches.services import phrases, tables
from tests.matches.test_siblings import Fixture
from tests.tournaments.test_tournament_services import START, make_tournament, register_pairs
from tournaments.models import Game
from tournaments.services import schedule as schedule_services
from tournaments.services import setup as setup_services

pytestmark = pytest.mark.integration


def refused_everywhere(table: Table) -> None:
    match = Match.objects.get(table=table)
    assert table.competition and not phrases.casual(table)
    for seat in range(4):
        with pytest.raises(MatchError) as refused:
            phrases.say(match.pk, seat, "hello")
        assert refused.value.code == "phrases_off"
    assert phrases.offered(table) == []
    player = next(s.user for s in table.seats.all() if s.user_id)
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(player)
    page = client.get(f"/matches/tables/{table.pk}/").content.decode()
    assert 'id="table-phrases"' not in page


def test_an_unrated_tournaments_table_refuses_phrases(club, players, scheduled):
    owner = User.objects.create_user(username="organiser", password="pw-Secret-123")
    Membership.objects.create(club=club, user=owner, role=Role.ADMIN)
    people = players  # four members of the club
    tournament = make_tournament(club, owner, online=True, rated=False)
    setup_services.publish(owner, tournament, now=START - timedelta(days=1))
    register_pairs(tournament, people)
    with time_machine.travel(START, tick=False):
        schedule_services.tick(START)
    game = Game.objects.get(round__tournament=tournament)
    table = Table.objects.get(pk=game.table_id)
    assert not table.rated
    refused_everywhere(table)
    # a casual table of the same club, with the same players, takes phrases
    casual = tables.open_table(people[0], club, variant="bao2")
    for seat, person in enumerate(people[1:], start=1):
        tables.take_seat(person, casual, seat)
    assert phrases.casual(casual) and phrases.offered(casual)
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(people[1])
    assert 'id="table-phrases"' in client.get(f"/matches/tables/{casual.pk}/").content.decode()


def test_a_league_fixtures_tables_refuse_phrases(transactional_db, scheduled):
    fixture = Fixture()
    for table in fixture.tables:
        refused_everywhere(table)
