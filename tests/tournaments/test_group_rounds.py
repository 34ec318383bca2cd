"""The group of each game of a group round robin (分组循环赛, 第二十七条一, issue 45): on the
round page, the run and print pages, in the API's rounds and in the results CSV (one file,
a 小组 column after the table); an event without groups shows none."""

import csv
import io

import pytest
from rest_framework.test import APIClient

from tests.tournaments.test_stages import played_grouped_round_robin
from tests.tournaments.test_tournament_services import make_tournament
from tournaments import exports, selectors
from tournaments.models import Round


@pytest.mark.django_db
def test_each_game_of_a_group_round_robin_names_its_group(client, club, club_admin, members):
    t, _entries = played_grouped_round_robin(club, club_admin, members)
    a, b = selectors.groups_of(t)
    group_of = {**dict.fromkeys(a, "A"), **dict.fromkeys(b, "B")}
    assert selectors.entry_groups(t) == group_of

    client.force_login(club_admin)
    for number in (1, 2, 3):
        page = client.get(f"/tournaments/{t.pk}/rounds/{number}/").content.decode()
        for game in Round.objects.get(tournament=t, number=number).games.all():
            row = page.split(f'id="game-{game.pk}"', 1)[1].split("</tr>", 1)[0]
            label = group_of[game.side0[0]]
            assert group_of[game.side1[0]] == label  # nobody plays across groups
            assert f'<span class="group-label">{label} 组</span>' in row
    printed = client.get(f"/tournaments/{t.pk}/print/").content.decode()
    assert printed.count('class="group-label"') == 12  # 3 rounds of 4 games

    # the results CSV: one file, the group after the table
    rows = list(csv.reader(io.StringIO(exports.results_csv(t).lstrip("\ufeff"))))
    assert rows[0][:3] == ["轮次", "桌号", "小组"]
    names = {e.name: e.pk for e in selectors.entries(t)}
    for row in rows[1:]:
        first = names[row[3]]  # side 1: one entry (a pair)
        assert row[2] == group_of[first]
    assert sorted({row[2] for row in rows[1:]}) == ["A", "B"] and len(rows) == 13

    api = APIClient()
    api.force_authenticate(club_admin)
    rounds = api.get(f"/api/v1/tournaments/{t.pk}/rounds/").json()
    games = [g for r in rounds for g in r["games"]]
    assert len(games) == 12
    assert all(g["group"] == group_of[g["sides"][0][0]["entry"]] for g in games)


@pytest.mark.django_db
def test_an_event_without_groups_has_no_group_column(client, club, club_admin, members):
    t = make_tournament(club, club_admin, format="round_robin")
    assert selectors.entry_groups(t) == {}
    header = next(csv.reader(io.StringIO(exports.results_csv(t).lstrip("\ufeff"))))
    assert "小组" not in header
