"""The way to a written appeal from a live table's page (第三十九条): a player of the finished
tournament game or league table sees it until the time to appeal ends; no one else sees it."""

from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone, translation

from matches.services import tables
from tests.leagues.leaguekit import finished_fixture
from tests.officials.test_appeals import AFTER
from tests.tournaments.test_tournament_ladder import running_round
from tournaments.models import Round
from tournaments.services import results as result_services
from tournaments.services import schedule as schedule_services


def page(user, table_id):
    client = Client()
    client.force_login(user)
    with translation.override("zh-hans"):
        return client.get(f"/matches/tables/{table_id}/", HTTP_ACCEPT_LANGUAGE="zh-hans")


@pytest.mark.django_db
def test_a_player_of_the_finished_game_finds_the_appeal_on_the_table_page(
    club, club_admin, members
):
    people = members(8)
    t, (game, other) = running_round(club, club_admin, people, rounds_planned=2, online=True)
    assert game.table_id is not None
    with time_machine.travel(AFTER, tick=False):
        result_services.set_result(club_admin, game, 12, 5, now=AFTER)
        result_services.set_result(club_admin, other, 9, 3, now=AFTER)
        schedule_services.tick(AFTER)
    assert Round.objects.get(tournament=t, number=1).finished_at is not None
    entries = {e.pk: e for e in t.entries.all()}
    player = entries[game.side1[0]].player1
    outsider = entries[other.side0[0]].player1
    link = f"/officials/tournaments/{t.pk}/appeal/?table={game.pk}"
    with time_machine.travel(AFTER + timedelta(minutes=5), tick=False):
        html = page(player, game.table_id).content.decode()
        assert link in html and "提出申诉" in html
        assert link not in page(outsider, game.table_id).content.decode()
        assert link not in page(club_admin, game.table_id).content.decode()
        form = page(player, game.table_id)
        assert form.status_code == 200
    with time_machine.travel(AFTER + timedelta(minutes=45), tick=False):
        assert link not in page(player, game.table_id).content.decode()


@pytest.mark.django_db
def test_a_player_of_a_finished_league_table_finds_the_appeal_on_its_page(club, members):
    seated = members(4)
    outsider = members(1)[0]
    season, _fixture, row = finished_fixture(club, seated)
    live = tables.open_table(seated[0], club, variant="bao2", sit=False)
    row.table_ref = live.pk
    row.save(update_fields=["table_ref"])
    link = f"/officials/seasons/{season.pk}/appeal/?table={row.pk}"
    assert link in page(seated[1], live.pk).content.decode()
    assert link not in page(outsider, live.pk).content.decode()
    with time_machine.travel(timezone.now() + timedelta(days=1), tick=False):
        assert link not in page(seated[1], live.pk).content.decode()
