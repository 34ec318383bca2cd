"""CSV exports of standings and results (issue 22): UTF-8 with a BOM (Excel reads Chinese
names), parsed back with the csv module; a printable A4 page after each round and at the end."""

import csv
import io
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings

from tests.tournaments.test_tournament_services import START, make_tournament
from tournaments.services import entries as entry_services
from tournaments.services import results as result_services
from tournaments.services import rounds as round_services
from tournaments.services import schedule as schedule_services
from tournaments.services import setup as setup_services

pytestmark = pytest.mark.django_db


def test_standings_and_results_download_as_csv_with_a_bom(client, club, club_admin, members):
    people = members(4)
    people[0].display_name = "张三"
    people[0].save(update_fields=["display_name"])
    t = make_tournament(club, club_admin, checkin_required=False, name="春季赛")
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    for a, b in zip(people[0::2], people[1::2], strict=True):
        entry_services.register(club_admin, t, player=a, partner=b, now=START - timedelta(hours=1))
    rnd = round_services.start_round(club_admin, t, now=START)
    game = rnd.games.get()
    result_services.set_result(club_admin, game, 13, 7, None)

    response = client.get(f"/tournaments/{t.pk}/standings.csv")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert "attachment" in response["Content-Disposition"]
    raw = response.content
    assert raw.startswith("\ufeff".encode())
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))
    assert rows[0][:2] == ["名次", "参赛方"]  # the reader's language, CJK intact
    assert len(rows) == 3 and any("张三" in row[1] for row in rows[1:])
    winner = next(row for row in rows[1:] if row[0] == "1")
    assert winner[4:7] == ["1", "0", "0"]

    rows = list(
        csv.reader(
            io.StringIO(client.get(f"/tournaments/{t.pk}/results.csv").content.decode("utf-8-sig"))
        )
    )
    assert len(rows) == 2 and rows[1][:2] == ["1", "1"] and rows[1][4] == "13:7"
    assert "张三" in rows[1][2] + rows[1][3]


def test_a_printable_page_per_round_and_at_the_end(client, club, club_admin, members):
    people = members(8)
    t = make_tournament(club, club_admin, checkin_required=False, name="春季赛", rounds_planned=2)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    for a, b in zip(people[0::2], people[1::2], strict=True):
        entry_services.register(club_admin, t, player=a, partner=b, now=START - timedelta(hours=1))
    round_services.start_round(club_admin, t, now=START)
    for number in (1, 2):
        for game in t.rounds.get(number=number).games.all():
            result_services.set_result(club_admin, game, 13, 7 + number, None)
        schedule_services.tick(START + timedelta(minutes=number))  # the next round starts
    url = f"/tournaments/{t.pk}/print/"

    after_one = client.get(url, {"round": 1})
    page = after_one.content.decode()
    assert after_one.status_code == 200 and "第 1 轮后排名" in page
    assert "css/print.css" in page and page.count('data-label="已赛">1<') == 4
    assert "13 : 8" in page and "13 : 9" not in page  # round 1's results only
    final = client.get(url).content.decode()
    assert final.count('data-label="已赛">2<') == 4 and "13 : 8" in final and "13 : 9" in final
    for bad in ("3", "0", "abc", "9" * 30):
        assert client.get(url, {"round": bad}).status_code == 404
    css = (Path(settings.BASE_DIR) / "static/css/print.css").read_text()
    assert "size: A4" in css and "Noto Sans CJK SC" in css
    standings = client.get(f"/tournaments/{t.pk}/standings/").content.decode()
    assert f'href="{url}"' in standings
