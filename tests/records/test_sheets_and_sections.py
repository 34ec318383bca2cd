"""A confirmed score sheet is recorded with what it knows (beat's sweep finds it), and the
statistics' sections on the club page and the ladder's player page."""

from __future__ import annotations

import uuid

import pytest
from kit import engine_match, store_match

from clubs.models import Visibility
from ladder.models import Ladder
from records import services
from records.models import MatchRecord, Tally
from records.tasks import sweep_records_task
from sheets import services as sheet_services
from sheets.models import SheetStatus

pytestmark = pytest.mark.django_db


def test_a_confirmed_sheet_is_recorded_by_the_sweep(club, members):
    players = members(4)
    sheet = sheet_services.start_sheet(
        players[0],
        club,
        variant="guandan",
        players=[sheet_services.PlayerSpec(user_id=p.pk) for p in players],
        rated=True,
    )
    for finish in ([0, 2], [1, 0, 3, 2]):
        sheet_services.add_entry(players[0], sheet, {"deal": {"finish": finish}}, uuid.uuid4())
    sheet_services.add_entry(players[0], sheet, {"time_up": True}, uuid.uuid4())
    sheet.refresh_from_db()
    assert sheet.status == SheetStatus.FINISHED
    assert services.unrecorded_sheets() == []  # not confirmed yet: nothing to record
    sheet_services.confirm(players[0], sheet)
    sheet_services.confirm(players[1], sheet)
    assert sweep_records_task() == 1
    assert sweep_records_task() == 0  # once
    record = MatchRecord.objects.get(source="sheet", source_id=str(sheet.pk))
    assert record.deals == 2 and record.rated
    total = Tally.objects.get(user=players[0], period="all", kind="total").counters
    # deal 1: 1st and 2nd for team 0 (双上, +3); deal 2: seat 1 1st, seat 0 2nd (+1 for team 1)
    assert total == {
        "matches": 1,
        "won": 1,
        "deals": 2,
        "deals_won": 1,
        "levels_up": 3,
        "place_1": 1,
        "place_2": 1,
        "double_up": 1,
    }


def test_the_club_page_shows_the_honours_to_those_who_may_see_the_club(
    client, club, members, make_users
):
    users = members(4)
    bao2 = engine_match("bao2", 3, 2)
    for _ in range(5):
        services.record_live_match(store_match(bao2, club, users).pk)
    page = client.get(f"/clubs/{club.slug}/").content.decode()
    assert 'id="club-honours"' in page and "最佳搭档" in page and "保2王" in page
    # a members-only club: not to a stranger
    club.visibility = Visibility.MEMBERS
    club.save(update_fields=["visibility"])
    (stranger,) = make_users(1, prefix="s")
    client.force_login(stranger)
    assert 'id="club-honours"' not in client.get(f"/clubs/{club.slug}/").content.decode()
    client.force_login(users[1])
    assert 'id="club-honours"' in client.get(f"/clubs/{club.slug}/").content.decode()


def test_the_ladder_player_page_links_the_statistics_and_shows_the_honours(client, club, members):
    users = members(4)
    bao2 = engine_match("bao2", 3, 2)
    for _ in range(5):
        services.record_live_match(store_match(bao2, club, users).pk)
    ladder = Ladder.objects.filter(club=club).first() or Ladder.objects.create(
        club=club, variant="bao2"
    )
    page = client.get(f"/ladder/{ladder.pk}/players/{users[2].pk}/").content.decode()
    assert f"/records/players/{users[2].pk}/" in page and "最佳搭档" in page
