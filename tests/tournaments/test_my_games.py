"""Players find their game (issue 22): the home page lists a started round's table, a live
table and a score sheet to confirm; round e-mails go through the outbox with a link to the
table on SITE_URL; a tournament page lists only its own notices; the iCalendar feed is
written by the icalendar library (a bare CR in a name cannot break it)."""

from datetime import timedelta

import icalendar
import pytest
import time_machine

from matches.services import tables as match_tables
from outbox.models import OutboxMessage
from sheets.models import ScoreSheet, SheetPlayer, SheetStatus
from tests.tournaments.test_tournament_services import START, make_tournament, register_pairs
from tournaments import notifications
from tournaments.models import Game, Round, TournamentNotice
from tournaments.services import schedule as schedule_services
from tournaments.services import setup as setup_services

pytestmark = pytest.mark.django_db


def start_online_round(club, club_admin, people):
    t = make_tournament(club, club_admin, online=True)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    register_pairs(t, people)
    with time_machine.travel(START, tick=False):
        schedule_services.tick(START)
    return t


def test_home_lists_the_round_table_a_live_table_and_a_sheet_to_confirm(
    client, club, club_admin, members, no_deadline_tasks, settings
):
    settings.SITE_URL = "https://bao2.example.org"
    people = members(5)
    t = start_online_round(club, club_admin, people[:4])
    game = Game.objects.get(round__tournament=t)
    lone = match_tables.open_table(people[4], club, variant="bao2", sit=True)
    sheet = ScoreSheet.objects.create(
        club=club, scorer=people[4], variant="bao2", status=SheetStatus.FINISHED, version=3
    )
    SheetPlayer.objects.create(sheet=sheet, seat=0, user=people[4])
    SheetPlayer.objects.create(sheet=sheet, seat=1, user=people[0])

    client.force_login(people[0])
    page = client.get("/").content.decode()
    assert "春季瑞士赛" in page and f'href="/matches/tables/{game.table_id}/"' in page
    assert people[2].name in page  # the opponents are named
    assert f"搭档 {people[1].name}" in page  # and the partner
    assert f'href="/matches/sheets/{sheet.pk}/"' in page  # a sheet waits for their confirmation
    assert f"/matches/tables/{lone.pk}/" not in page  # not their table
    # the tournament's own table is listed once (as the round), not again as a bare table
    assert page.count(f'href="/matches/tables/{game.table_id}/"') == 1

    client.force_login(people[4])
    page = client.get("/").content.decode()
    assert f'href="/matches/tables/{lone.pk}/"' in page and "春季瑞士赛" not in page


def test_round_emails_go_through_the_outbox_once_with_the_table_on_site_url(
    club, club_admin, members, no_deadline_tasks, settings
):
    settings.SITE_URL = "https://clubs.example.org:8443"
    people = members(4)
    t = start_online_round(club, club_admin, people)
    rnd = Round.objects.get(tournament=t, number=1)
    game = rnd.games.get()
    messages = OutboxMessage.objects.filter(key__startswith=f"round:{rnd.pk}:user:")
    assert sorted(m.key for m in messages) == sorted(f"round:{rnd.pk}:user:{p.pk}" for p in people)
    for message in messages:
        assert f"https://clubs.example.org:8443/matches/tables/{game.table_id}/" in message.body
        assert "localhost" not in message.body
    # notifying again (a redelivered task, a second tick) writes nothing new
    assert notifications.notify_round(rnd) == 0
    assert messages.count() == 4
    assert TournamentNotice.objects.filter(tournament=t, url__contains="#round-1").count() == 4


def test_a_rolled_back_round_start_leaves_no_email(club, club_admin, members, no_deadline_tasks):
    from clubs.models import Membership
    from tournaments.services.errors import TournamentError

    people = members(4)
    t = make_tournament(club, club_admin, online=True)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    register_pairs(t, people)
    Membership.objects.filter(user=people[3]).delete()  # the table cannot open: nothing kept
    with time_machine.travel(START, tick=False), pytest.raises(TournamentError):
        from tournaments.services import rounds as round_services

        round_services.start_round(club_admin, t, now=START)
    assert not OutboxMessage.objects.filter(key__startswith="round:").exists()


def test_tournament_page_lists_only_its_own_notices(client, club, club_admin, members):
    people = members(1)
    first = make_tournament(club, club_admin, name="甲赛")
    second = make_tournament(club, club_admin, name="乙赛")
    for t in (first, second):
        setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    TournamentNotice.objects.create(tournament=first, user=people[0], text="甲赛通知", url="/a")
    TournamentNotice.objects.create(tournament=second, user=people[0], text="乙赛通知", url="/b")
    client.force_login(people[0])
    page = client.get(f"/tournaments/{first.pk}/").content.decode()
    assert "甲赛通知" in page and "乙赛通知" not in page


def test_icalendar_feed_survives_a_bare_carriage_return_in_a_name(client, club, club_admin):
    t = make_tournament(club, club_admin, name="春季\r赛;第一,场\nEND:VCALENDAR")
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    response = client.get(f"/tournaments/clubs/{club.slug}/calendar.ics")
    text = response.content.decode()
    # no line of the feed holds a bare CR or LF: every line ends with CRLF
    assert "\r" not in text.replace("\r\n", "") and "\n" not in text.replace("\r\n", "")
    assert text.split("\r\n").count("END:VCALENDAR") == 1  # the name cannot end the feed
    calendar = icalendar.Calendar.from_ical(text)
    events = calendar.walk("VEVENT")
    assert len(events) == 3
    assert str(events[0]["SUMMARY"]).startswith("春季 赛;第一,场 END:VCALENDAR")
    assert events[0].decoded("DTSTART") == START
