"""A team's roster changed before the start, and a team entered by an organiser on its
captain's behalf (issue 45, item 3), through the services, the pages and the API on the
database: a member and a whole pair replaced (kept pairs untouched, changed pairs keep their
place and are checked in again), the members who leave and join told exactly once through the
outbox, the change recorded (who, what, when) in the team's history; every refusal of the
entry's own check at once, changing nothing; after round 1 is paired a change refused with the
national rules' reason; a short team filled up; a withdrawn team entered again."""

from datetime import timedelta

import pytest
from django.utils import translation

from clubs.models import Club, Membership, Role
from outbox.models import Notification, OutboxMessage
from tournaments import team_selectors
from tournaments.models import ClubTeam, Entry, EntryStatus
from tournaments.services import eligibility
from tournaments.services import entries as entry_services
from tournaments.services import rounds as round_services
from tournaments.services import teams as team_services
from tournaments.services.errors import NotAllowed, TournamentError

from .test_team_events import NOW, guests, rate, team_event  # noqa: F401  (fixture)
from .test_tournament_services import START

pytestmark = pytest.mark.django_db


@pytest.fixture
def event(club, club_admin, members, guests):  # noqa: F811
    """A team event of two pairs a team between the host and an invited club; the guests'
    team (captain ``wx[0]``, pairs wx0/wx1 and wx2/wx3) entered, two members (wx4, wx5) free."""
    guest_club, people = guests
    hosts = members(4)
    rate([*hosts, *people])
    t = team_event(club, club_admin)
    eligibility.invite_club(club_admin, t, guest_club)
    team = team_services.enter_team(
        people[0], t, club=guest_club, name="无锡队", units=[people[0:2], people[2:4]], now=NOW
    )
    return {"t": t, "team": team, "club": guest_club, "people": people, "hosts": hosts}


def _pairs(team):
    return [
        (e.pk, e.seed, set(e.user_ids), e.status)
        for e in team.entries.exclude(status=EntryStatus.WITHDRAWN).order_by("seed")
    ]


def test_a_captain_replaces_a_member_and_the_leaver_and_joiner_are_told_once(event, club_admin):
    t, team, p = event["t"], event["team"], event["people"]
    first, second = team.entries.order_by("seed")
    # the second pair has checked in; the first has not
    Entry.objects.filter(pk=second.pk).update(status=EntryStatus.CHECKED_IN)
    before = _pairs(team)
    change = team_services.change_roster(p[0], t, team, [[p[0], p[1]], [p[2], p[4]]], now=NOW)
    assert change.number == 1
    assert [u.pk for u in change.left] == [p[3].pk] and [u.pk for u in change.joined] == [p[4].pk]
    after = _pairs(team)
    # the first pair untouched; the second keeps its id and seed, checked in again
    assert after[0] == before[0]
    assert after[1] == (second.pk, second.seed, {p[2].pk, p[4].pk}, EntryStatus.REGISTERED)
    assert Entry.objects.get(pk=second.pk).name == f"{p[2].name} / {p[4].name}"
    # told once: the member who left and the one who joined, a notice and an e-mail each
    keys = sorted(OutboxMessage.objects.filter(key__startswith="roster:").values_list("key", "to"))
    assert keys == sorted(
        [
            (f"roster:{team.pk}:1:left:user:{p[3].pk}", p[3].email),
            (f"roster:{team.pk}:1:joined:user:{p[4].pk}", p[4].email),
        ]
    )
    left = Notification.objects.get(key=f"roster:{team.pk}:1:left:user:{p[3].pk}")
    assert "无锡队" in left.text and "不再" in left.text
    # the change is recorded: who, what, when
    (record,) = team_selectors.roster_history(team)
    assert p[0].name in record.text
    assert f"{p[2].name} / {p[3].name} 改为 {p[2].name} / {p[4].name}" in record.text
    assert record.created_at is not None
    # the same roster again: nothing changes, nobody is told again, nothing recorded
    again = team_services.change_roster(p[0], t, team, [[p[1], p[0]], [p[4], p[2]]], now=NOW)
    assert again.number == 0 and not again.changed
    assert OutboxMessage.objects.filter(key__startswith="roster:").count() == 2
    assert len(team_selectors.roster_history(team)) == 1
    # the organiser swaps partners between the pairs and brings the first member back
    team_services.change_roster(club_admin, t, team, [[p[0], p[4]], [p[2], p[3]]], now=NOW)
    assert {frozenset(s) for _pk, _seed, s, _st in _pairs(team)} == {
        frozenset({p[0].pk, p[4].pk}),
        frozenset({p[2].pk, p[3].pk}),
    }
    assert OutboxMessage.objects.filter(key__startswith=f"roster:{team.pk}:2:").count() == 2
    history = team_selectors.roster_history(team)
    assert len(history) == 2 and club_admin.name in history[1].text
    # the record is data, read in each reader's language; the captain is told of the
    # organiser's change (not of their own)
    assert history[1].changed_by == club_admin and history[1].number == 2
    with translation.override("en"):
        assert f"{club_admin.name} changed the roster of {team.name}" in history[1].text
    assert list(
        Notification.objects.filter(key__startswith=f"roster:{team.pk}:")
        .filter(key__contains=":captain")
        .values_list("key", flat=True)
    ) == [f"roster:{team.pk}:2:captain:user:{p[0].pk}"]
    # the team still takes one place and plays as one team
    assert {e.club_team_id for e in t.entries.exclude(status=EntryStatus.WITHDRAWN)} == {team.pk}


def test_every_refusal_of_a_roster_change_at_once_changing_nothing(event, members, make_users):
    t, team, p, hosts = event["t"], event["team"], event["people"], event["hosts"]
    team_services.enter_team(
        hosts[0], t, club=t.club, name="南通队", units=[hosts[0:2], hosts[2:4]], now=NOW
    )
    rate([p[4]], rating=1350)  # below the minimum 1400
    rate([p[5]], rating=1500, matches=2)  # too few rated matches
    before = _pairs(team)
    with pytest.raises(TournamentError) as refused:
        team_services.change_roster(
            p[0], t, team, [[p[0], p[4]], [p[5], hosts[0]], [p[1], p[1]]], now=NOW
        )
    fields = refused.value.fields
    assert set(fields) == {"players", "club", "min_rating", "min_rated_matches"}
    assert any("2 对" in m for m in fields["players"])  # the team's size
    assert any("两次" in m for m in fields["players"])  # a player named twice
    assert any(hosts[0].name in m for m in fields["players"])  # in another entry
    assert any(hosts[0].name in m for m in fields["club"])  # not a member of the club
    assert fields["min_rating"] == [f"{p[4].name}的等级分为 1350，低于 1400。"]
    for label in ("选手", "俱乐部", "最低等级分", "最少计分对局数"):
        assert label in refused.value.message
    assert _pairs(team) == before
    assert not OutboxMessage.objects.filter(key__startswith="roster:").exists()
    assert team_selectors.roster_history(team) == []
    # a team of another tournament's, or one withdrawn, is refused in words
    team_services.withdraw_team(p[0], t, team, now=NOW)
    with pytest.raises(TournamentError) as withdrawn:
        team_services.change_roster(p[0], t, team, [[p[0], p[1]], [p[2], p[3]]], now=NOW)
    assert withdrawn.value.code == "team_withdrawn"


def test_after_round_1_is_paired_a_change_is_refused_with_the_rules_reason(event, club_admin):
    t, team, p, hosts = event["t"], event["team"], event["people"], event["hosts"]
    team_services.enter_team(
        hosts[0], t, club=t.club, name="南通队", units=[hosts[0:2], hosts[2:4]], now=NOW
    )
    round_services.pair_next_round(club_admin, t, START - timedelta(minutes=1))
    assert t.rounds.exists()
    before = _pairs(team)
    for who in (p[0], club_admin):
        with pytest.raises(TournamentError) as closed:
            team_services.change_roster(who, t, team, [[p[0], p[1]], [p[2], p[4]]], now=NOW)
        assert closed.value.code == "roster_closed"
        assert "第二十三、二十四条" in closed.value.message and "替换" in closed.value.message
    assert _pairs(team) == before


def test_only_the_captain_or_an_organiser_changes_a_roster(event, club_admin, make_users):
    t, team, p, hosts = event["t"], event["team"], event["people"], event["hosts"]
    guest_admin = p[0]  # the guests' owner is the captain here; another admin of theirs:
    (admin2,) = make_users(1, prefix="wxadmin")
    Membership.objects.create(club=event["club"], user=admin2, role=Role.ADMIN)
    for who in (p[1], p[5], admin2, hosts[0]):
        with pytest.raises(NotAllowed):
            team_services.change_roster(who, t, team, [[p[0], p[1]], [p[2], p[4]]], now=NOW)
    assert not team_selectors.roster_history(team)
    team_services.change_roster(guest_admin, t, team, [[p[0], p[1]], [p[2], p[4]]], now=NOW)
    team_services.change_roster(club_admin, t, team, [[p[0], p[1]], [p[2], p[3]]], now=NOW)
    assert len(team_selectors.roster_history(team)) == 2


def test_a_short_team_is_filled_up_to_its_size(event):
    t, team, p = event["t"], event["team"], event["people"]
    # a pair of the team withdraws on its own before the start
    entry_services.withdraw(p[2], t, now=NOW)
    assert team.entries.filter(status=EntryStatus.WITHDRAWN).count() == 1
    with pytest.raises(TournamentError):  # a team has its size: one pair is not enough
        team_services.change_roster(p[0], t, team, [[p[0], p[1]]], now=NOW)
    change = team_services.change_roster(p[0], t, team, [[p[0], p[1]], [p[2], p[4]]], now=NOW)
    assert [e.name for e, before in change.changed] == [f"{p[2].name} / {p[4].name}"]
    assert [before for _e, before in change.changed] == [""]
    # the team lists its two pairs, the withdrawn one gone (it never played)
    assert team.entries.count() == 2
    assert {e.status for e in team.entries.all()} == {EntryStatus.REGISTERED}
    (record,) = team_selectors.roster_history(team)
    assert "加入" in record.text


def test_an_organiser_enters_a_team_on_a_captains_behalf(event, club_admin, make_users):
    t, guest_club, p, hosts = event["t"], event["club"], event["people"], event["hosts"]
    team_services.withdraw_team(p[0], t, event["team"], now=NOW)
    # nobody but an organiser names another captain
    with pytest.raises(NotAllowed):
        team_services.enter_team(
            p[1], t, club=guest_club, name="无锡二队", units=[p[0:2], p[2:4]], captain=p[0]
        )
    # a captain who is not a member of the club is refused beside the field, with the rest
    with pytest.raises(TournamentError) as refused:
        team_services.enter_team(
            club_admin, t, club=guest_club, name="", units=[p[0:2]], captain=hosts[0], now=NOW
        )
    assert set(refused.value.fields) == {"name", "captain", "players"}
    assert "无锡掼蛋俱乐部" in refused.value.fields["captain"][0]
    # a club not invited is refused in words to an organiser
    stranger = Club.objects.create(name="常州", slug="cz")
    with pytest.raises(TournamentError) as uninvited:
        team_services.enter_team(
            club_admin, t, club=stranger, name="常州队", units=[p[0:2], p[2:4]], captain=p[0]
        )
    assert uninvited.value.code == "club_not_invited"
    # the withdrawn team enters again under its name, on its captain's behalf; a captain
    # who does not play is told
    team = team_services.enter_team(
        club_admin, t, club=guest_club, name="无锡队", units=[p[2:4], p[4:6]], captain=p[0]
    )
    assert team.captain == p[0] and team.club == guest_club
    assert ClubTeam.objects.filter(tournament=t, name="无锡队").count() == 1
    assert OutboxMessage.objects.filter(key=f"captain:{team.pk}:user:{p[0].pk}").count() == 1
    assert {e.status for e in team.entries.all()} == {EntryStatus.REGISTERED}
    # the captain now changes the roster the organiser entered
    team_services.change_roster(p[0], t, team, [[p[0], p[1]], [p[4], p[5]]], now=NOW)
    assert {u for e in team.entries.all() for u in e.user_ids} == {
        p[0].pk,
        p[1].pk,
        p[4].pk,
        p[5].pk,
    }


def test_the_pages_change_a_roster_and_enter_a_team_for_a_captain(client, event, club_admin):
    t, team, p = event["t"], event["team"], event["people"]
    url = f"/tournaments/{t.pk}/teams/{team.pk}/roster/"
    # a member of the team who is not its captain sees the roster and history, no form
    client.force_login(p[1])
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert page.status_code == 200 and 'id="roster-form"' not in page.content.decode()
    assert client.post(url, {"unit1_1": p[0].pk}).status_code == 403
    # the captain: refused beside the fields, all at once, then done
    client.force_login(p[0])
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans")
    text = page.content.decode()
    assert 'id="roster-form"' in text and f'value="{p[3].pk}" selected' in text
    refused = client.post(
        url,
        {"unit1_1": p[0].pk, "unit1_2": p[1].pk, "unit2_1": p[1].pk, "unit2_2": ""},
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    assert refused.status_code == 400
    assert "两次" in refused.content.decode() and "2 对" in refused.content.decode()
    done = client.post(
        url,
        {"unit1_1": p[0].pk, "unit1_2": p[1].pk, "unit2_1": p[2].pk, "unit2_2": p[5].pk},
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    assert done.status_code == 302 and done["Location"].endswith(f"#team-{team.pk}")
    history = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert f"{p[2].name} / {p[3].name} 改为 {p[2].name} / {p[5].name}" in history
    # the organiser enters a team for the host club's captain
    client.force_login(club_admin)
    hosts = event["hosts"]
    form = client.get(
        f"/tournaments/{t.pk}/teams/?club={t.club_id}", HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert 'id="team-captain"' in form.content.decode()
    entered = client.post(
        f"/tournaments/{t.pk}/teams/",
        {
            "action": "enter_team",
            "club": t.club_id,
            "captain": hosts[0].pk,
            "name": "南通队",
            "unit1_1": hosts[0].pk,
            "unit1_2": hosts[1].pk,
            "unit2_1": hosts[2].pk,
            "unit2_2": hosts[3].pk,
        },
    )
    assert entered.status_code == 302
    assert ClubTeam.objects.get(tournament=t, name="南通队").captain == hosts[0]


def test_the_api_changes_a_roster_and_enters_a_team_for_a_captain(client, event, club_admin):
    t, team, p, hosts = event["t"], event["team"], event["people"], event["hosts"]
    url = f"/api/v1/tournaments/{t.pk}/teams/{team.pk}/roster/"
    client.force_login(p[1])
    assert client.post(url, {"units": [[p[0].pk, p[1].pk]]}, "application/json").status_code == 403
    client.force_login(p[0])
    refused = client.post(
        url,
        {"units": [[p[0].pk, p[1].pk], [p[1].pk, hosts[0].pk]]},
        "application/json",
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    assert refused.status_code == 400
    body = refused.json()
    assert body["players"] == ["有选手被选了两次。"]
    assert body["club"] == [f"不是无锡掼蛋俱乐部会员：{hosts[0].name}。"]
    unknown = client.post(url, {"units": [[p[0].pk, 2**31 - 1]]}, "application/json")
    assert unknown.status_code == 400
    done = client.post(url, {"units": [[p[0].pk, p[1].pk], [p[2].pk, p[4].pk]]}, "application/json")
    assert done.status_code == 200
    (line,) = [row for row in done.json()["teams"] if row["id"] == team.pk]
    assert len(line["history"]) == 1 and p[4].name in line["history"][0]["text"]
    # an organiser enters the host's team naming its captain; a member may not
    client.force_login(hosts[1])
    payload = {
        "club": t.club_id,
        "name": "南通队",
        "units": [[hosts[0].pk, hosts[1].pk], [hosts[2].pk, hosts[3].pk]],
        "captain": hosts[0].pk,
    }
    assert (
        client.post(f"/api/v1/tournaments/{t.pk}/teams/", payload, "application/json").status_code
        == 403
    )
    client.force_login(club_admin)
    made = client.post(f"/api/v1/tournaments/{t.pk}/teams/", payload, "application/json")
    assert made.status_code == 201
    assert ClubTeam.objects.get(tournament=t, name="南通队").captain == hosts[0]
