"""The organiser's announcements (issue 45, item 5) and a league season's officials:

* to all entrants, a division or a team: each player reached gets a notice and, under their
  e-mail preferences (tournament or league e-mails), an e-mail through the outbox — once per
  announcement, however often it is written; a player who turned the kind off keeps the notice;
* only the organiser announces; an empty or unknown audience is refused with every field's
  error at once, and nothing is written;
* a season's appointed referee referees its fixture tables through the same hook
  (``matches.hooks.register_referee_check``) — checked here on the permission itself.
"""

import pytest
from django.utils import timezone, translation

from leagues.models import Fixture, FixtureTable, Round
from leagues.services import entries, setup
from officials import permissions, services
from officials.models import Announcement
from outbox.models import Notification, OutboxMessage
from outbox.notices import set_email_preferences
from tests.officials.test_appeals import finished_round


def test_a_tournament_announcement_reaches_every_entrant_once(club, club_admin, members):
    people = members(8)
    t, _game, _other = finished_round(club, club_admin, people)
    set_email_preferences(people[0], {"tournaments": False})
    with translation.override("zh-hans"):
        sent = services.announce(club_admin, t, "all", "第二轮提前", "第二轮 10:00 开始。")
    assert sent.recipients == 8
    notices = Notification.objects.filter(key__startswith=f"officials:announcement:{sent.pk}:")
    assert set(notices.values_list("user_id", flat=True)) == {p.pk for p in people}
    assert all(n.kind == "tournaments" and "第二轮提前" in n.text for n in notices)
    mails = OutboxMessage.objects.filter(key__startswith=f"officials:announcement:{sent.pk}:")
    assert set(mails.values_list("user_id", flat=True)) == {p.pk for p in people[1:]}
    assert all("第二轮 10:00 开始。" in m.body for m in mails)
    assert mails.count() == 7 and notices.count() == 8


def test_a_team_label_and_refusals(club, club_admin, members):
    people = members(8)
    t, _game, _other = finished_round(club, club_admin, people)
    first = t.entries.order_by("pk").first()
    first.team = "东队"
    first.save()
    sent = services.announce(club_admin, t, "team", "东队集合", "请到 3 号桌。", target="东队")
    assert sent.recipients == 2 and sent.team == "东队"
    reached = set(
        Notification.objects.filter(
            key__startswith=f"officials:announcement:{sent.pk}:"
        ).values_list("user_id", flat=True)
    )
    assert reached == set(first.user_ids)
    count = Announcement.objects.count()
    with translation.override("zh-hans"), pytest.raises(services.OfficialsError) as refused:
        services.announce(club_admin, t, "team", "", "", target="西队")
    assert set(refused.value.fields) == {"audience", "subject", "text"}
    assert "请选择本赛事的一支队伍。" in refused.value.message
    with pytest.raises(services.OfficialsError):
        services.announce(club_admin, t, "division", "x", "y", target="1")  # no divisions
    with pytest.raises(services.NotAllowed):
        services.announce(people[0], t, "all", "x", "y")
    assert Announcement.objects.count() == count


def test_a_season_division_announcement_and_its_referee(club, club_admin, members):
    league = setup.create_league(club_admin, club, name="南通联赛")
    season = setup.create_season(
        club_admin, league, name="2030", variant="bao2", starts_on=timezone.localdate()
    )
    top = season.divisions.get()
    lower = setup.add_division(club_admin, season, "乙级")
    a, b = members(4), members(4)
    entries.enter_team(club_admin, season, club, name="甲队", captain=a[0], players=a, division=top)
    entries.enter_team(
        club_admin, season, club, name="乙队", captain=b[0], players=b, division=lower
    )
    sent = services.announce(
        club_admin, season, "division", "乙级通知", "本周末比赛。", target=str(lower.pk)
    )
    notices = Notification.objects.filter(key__startswith=f"officials:announcement:{sent.pk}:")
    assert set(notices.values_list("user_id", flat=True)) == {p.pk for p in b}
    assert all(n.kind == "leagues" for n in notices)
    # a season's referee: a plain member, appointed; the fixture's table is theirs to referee
    (referee,) = members(1)
    services.appoint(club_admin, season, referee, "referee")

    class LiveTable:  # the hook is asked with the table; only its id matters to this check
        pk = 424242

    assert not permissions.can_referee_table(referee, LiveTable())
    rnd = Round.objects.create(
        season=season, number=1, opens_on=timezone.localdate(), closes_on=timezone.localdate()
    )
    home, away = season.entries.order_by("pk")
    fixture = Fixture.objects.create(round=rnd, division=top, home=home, away=away)
    FixtureTable.objects.create(fixture=fixture, number=1, table_ref=LiveTable.pk)
    assert permissions.can_referee_table(referee, LiveTable())
    assert not permissions.can_referee_table(a[1], LiveTable())  # not appointed
    referee.memberships.all().delete()
    assert not permissions.can_referee_table(referee, LiveTable())
