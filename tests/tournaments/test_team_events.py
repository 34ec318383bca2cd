"""A team event between two clubs (issue 45, item 3), through the services, the pages and the
API on the database: the host invites a club; entries refused by each condition (not invited,
not a member, rating below and above, too few rated matches), every problem at once by field;
the settings check refusing bad conditions in the same words for the web form and the API; a
cap with a waiting list whose first entry moves up when a team withdraws before the start,
told exactly once through the outbox; team standings after entered results on the standings
page, its CSV and the API."""

import csv
import io
from datetime import timedelta

import pytest
from django.utils import timezone

from clubs.models import Club, Membership, Role
from ladder.models import Ladder, Rating
from outbox.models import OutboxMessage
from tournaments import selectors, team_selectors
from tournaments.models import ClubTeam, EntryStatus, Tournament, TournamentNotice
from tournaments.services import eligibility, places
from tournaments.services import entries as entry_services
from tournaments.services import results as result_services
from tournaments.services import rounds as round_services
from tournaments.services import setup as setup_services
from tournaments.services import teams as team_services
from tournaments.services.errors import NotAllowed, TournamentError

from .test_tournament_services import START, make_tournament

pytestmark = pytest.mark.django_db

NOW = START - timedelta(hours=2)


@pytest.fixture
def guests(make_users):
    """An invited club (无锡) with six members; ``guests.club``."""
    club = Club.objects.create(name="无锡掼蛋俱乐部", slug="wuxi")
    people = make_users(6, prefix="wx")
    for i, person in enumerate(people):
        Membership.objects.create(club=club, user=person, role=Role.OWNER if i == 0 else "member")
    return club, people


def rate(people, rating=1600, matches=20):
    """Give each of ``people`` a rating on the platform ladder of Guandan."""
    ladder, _ = Ladder.objects.get_or_create(club=None, variant="guandan")
    for person in people:
        Rating.objects.update_or_create(
            ladder=ladder, user=person, defaults={"rating": rating, "matches": matches}
        )


def team_event(club, admin, **extra):
    fields = {
        "variant": "guandan",
        "format": "round_robin",
        "team_size": 2,
        "checkin_required": False,
        "min_rating": 1400,
        "max_rating": 1800,
        "min_rated_matches": 5,
    }
    fields.update(extra)
    t = make_tournament(club, admin, **fields)
    setup_services.publish(admin, t, now=START - timedelta(days=1))
    t.refresh_from_db()
    return t


def enter(captain, t, club, name, people):
    return team_services.enter_team(
        captain, t, club=club, name=name, units=[people[0:2], people[2:4]], now=NOW
    )


def test_entries_are_refused_by_each_condition_all_at_once(
    club, club_admin, members, guests, make_users
):
    guest_club, guest_people = guests
    hosts = members(4)
    t = team_event(club, club_admin, scoring="national")
    # a club not invited: its members may not enter a team for it
    stranger_club = Club.objects.create(name="常州", slug="changzhou")
    (stranger,) = make_users(1, prefix="cz")
    Membership.objects.create(club=stranger_club, user=stranger, role=Role.OWNER)
    with pytest.raises(NotAllowed):
        enter(stranger, t, stranger_club, "常州队", [stranger] * 4)
    # the guests are not invited yet either
    rate([*guest_people, *hosts])
    with pytest.raises(NotAllowed):
        enter(guest_people[0], t, guest_club, "无锡队", guest_people)
    # only an organiser invites; the host needs no invitation
    with pytest.raises(NotAllowed):
        eligibility.invite_club(guest_people[0], t, guest_club)
    with pytest.raises(TournamentError) as host:
        eligibility.invite_club(club_admin, t, club)
    assert host.value.fields == {"club": ["主办俱乐部无需邀请即可参赛。"]}
    eligibility.invite_club(club_admin, t, guest_club)
    # one team, every condition failed by someone, and a player of another club
    rate([guest_people[1]], rating=1350)  # below 1400
    rate([guest_people[2]], rating=1850)  # above 1800
    rate([guest_people[3]], rating=1500, matches=2)  # too few matches
    Rating.objects.filter(user=guest_people[4]).delete()  # unrated
    with pytest.raises(TournamentError) as refused:
        team_services.enter_team(
            guest_people[0],
            t,
            club=guest_club,
            name="无锡队",
            units=[[guest_people[1], guest_people[2]], [guest_people[3], hosts[0]]],
            now=NOW,
        )
    fields = refused.value.fields
    assert set(fields) == {"club", "min_rating", "max_rating", "min_rated_matches"}
    assert any(hosts[0].name in m for m in fields["club"])
    assert fields["min_rating"] == [f"{guest_people[1].name}的等级分为 1350，低于 1400。"]
    assert fields["max_rating"] == [f"{guest_people[2].name}的等级分为 1850，高于 1800。"]
    assert "2" in fields["min_rated_matches"][0] and "5" in fields["min_rated_matches"][0]
    # the message names each field by its label
    for label in ("最低等级分", "最高等级分", "最少计分对局数"):
        assert label in refused.value.message
    # an unrated player has no rating: refused by the minimum
    with pytest.raises(TournamentError) as unrated:
        team_services.enter_team(
            guest_people[0],
            t,
            club=guest_club,
            name="无锡队",
            units=[[guest_people[4], guest_people[5]], [guest_people[0], guest_people[5]]],
            now=NOW,
        )
    assert "min_rating" in unrated.value.fields and "players" in unrated.value.fields
    # wrong size and an empty name, together
    with pytest.raises(TournamentError) as shape:
        team_services.enter_team(
            guest_people[0],
            t,
            club=guest_club,
            name=" ",
            units=[[guest_people[0], guest_people[5]]],
            now=NOW,
        )
    assert set(shape.value.fields) == {"name", "players"}
    assert not ClubTeam.objects.filter(tournament=t).exists() and not t.entries.exists()
    # a pair registration is refused in a team event (the captain enters the team)
    with pytest.raises(TournamentError) as pair:
        entry_services.register(hosts[0], t, partner=hosts[1], now=NOW)
    assert pair.value.code == "team_event"


def test_a_pair_event_admits_an_invited_clubs_members_and_checks_them(
    club, club_admin, members, guests
):
    guest_club, guest_people = guests
    t = make_tournament(club, club_admin, variant="guandan", min_rating=1500)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    rate(guest_people[:2], rating=1550)
    with pytest.raises(TournamentError) as outsider:
        entry_services.register(guest_people[0], t, partner=guest_people[1], now=NOW)
    assert outsider.value.code == "not_member"
    eligibility.invite_club(club_admin, t, guest_club)
    entry = entry_services.register(guest_people[0], t, partner=guest_people[1], now=NOW)
    assert entry.club == guest_club and entry.status == EntryStatus.PENDING
    # a pair across two clubs plays for no club: refused
    host = members(1)[0]
    rate([host, guest_people[2]], rating=1600)
    with pytest.raises(TournamentError) as mixed:
        entry_services.register(host, t, partner=guest_people[2], now=NOW)
    assert mixed.value.code == "not_member"
    # below the minimum
    rate([guest_people[3]], rating=1499)
    with pytest.raises(TournamentError) as low:
        entry_services.register(guest_people[2], t, partner=guest_people[3], now=NOW)
    assert low.value.code == "min_rating" and list(low.value.fields) == ["min_rating"]


def test_bad_conditions_are_refused_by_the_one_settings_check_for_the_form_and_the_api(
    client, club, club_admin
):
    t = make_tournament(club, club_admin, variant="guandan")
    bad = {"min_rating": 1900, "max_rating": 1500, "max_entries": 1, "team_size": 9}
    with pytest.raises(TournamentError) as refused:
        setup_services.update_tournament(club_admin, t, **bad)
    fields = refused.value.fields
    assert set(fields) == {"max_rating", "max_entries", "team_size"}
    client.force_login(club_admin)
    answer = client.patch(
        f"/api/v1/tournaments/{t.pk}/",
        bad,
        content_type="application/json",
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    assert answer.status_code == 400
    body = answer.json()
    assert {k: body[k] for k in fields} == fields
    page = client.post(
        f"/tournaments/{t.pk}/edit/",
        {
            "name": t.name,
            "variant": "guandan",
            "format": "swiss",
            "unit_kind": "pair",
            "starts_at": "2030-05-01T17:00",
            "rounds_planned": "3",
            "round_minutes": "60",
            "checkin_minutes": "30",
            "late_until_round": "0",
            "no_show_minutes": "0",
            "points_win": "2",
            "points_draw": "1",
            "scoring": "club",
            "min_rating": "1900",
            "max_rating": "1500",
            "max_entries": "1",
            "team_size": "9",
            "min_rated_matches": "0",
        },
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    text = page.content.decode()
    for messages in fields.values():
        for message in messages:
            assert message in text
    t.refresh_from_db()
    assert (t.min_rating, t.max_rating, t.max_entries, t.team_size) == (None, None, 0, 0)


def test_a_cap_waits_and_the_first_waiting_team_moves_up_told_exactly_once(
    club, club_admin, members, guests
):
    guest_club, guest_people = guests
    hosts = members(8)
    rate([*hosts, *guest_people])
    t = team_event(club, club_admin, max_entries=2)
    eligibility.invite_club(club_admin, t, guest_club)
    first = enter(hosts[0], t, club, "南通一队", hosts[:4])
    second = enter(guest_people[0], t, guest_club, "无锡队", guest_people[:4])
    third = enter(hosts[4], t, club, "南通二队", hosts[4:8])
    status = {team.name: {e.status for e in team.entries.all()} for team in (first, second, third)}
    assert status == {
        "南通一队": {EntryStatus.REGISTERED},
        "无锡队": {EntryStatus.REGISTERED},
        "南通二队": {EntryStatus.WAITING},
    }
    assert [e.club_team_id for e in team_selectors.waiting(t)] == [third.pk, third.pk]
    assert {line.entry.club_team_id for line in selectors.standings(t)} == {first.pk, second.pk}
    waiting_notes = OutboxMessage.objects.filter(key__startswith="waiting:").count()
    assert waiting_notes == 4  # each player of the waiting team, once
    # a waiting entry cannot check in
    with pytest.raises(TournamentError):
        entry_services.check_in(hosts[4], t, now=START - timedelta(minutes=10))
    # only its captain (or an organiser) withdraws a team
    with pytest.raises(NotAllowed):
        team_services.withdraw_team(hosts[0], t, second)
    team_services.withdraw_team(guest_people[0], t, second, now=NOW)
    assert {e.status for e in third.entries.all()} == {EntryStatus.REGISTERED}
    moved = OutboxMessage.objects.filter(key__startswith="moved-up:")
    assert sorted(m.to for m in moved) == sorted(p.email for p in hosts[4:8])
    # asked again (a second withdrawal, a fill by another path): nothing more is told
    team_services.withdraw_team(guest_people[0], t, second, now=NOW)
    places.fill_places(t)
    assert OutboxMessage.objects.filter(key__startswith="moved-up:").count() == 4
    assert TournamentNotice.objects.filter(user=hosts[4], text__contains="候补").count() == 2


def test_a_withdrawn_pair_frees_its_place_for_the_first_waiting_pair_once(
    club, club_admin, members
):
    people = members(6)
    t = make_tournament(club, club_admin, max_entries=2, checkin_required=False)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    entries = [
        entry_services.register(club_admin, t, player=a, partner=b, now=NOW)
        for a, b in zip(people[0::2], people[1::2], strict=True)
    ]
    assert [e.status for e in entries] == ["registered", "registered", "waiting"]
    # a waiting entry that withdraws frees nothing
    entry_services.withdraw(people[0], t, now=NOW)
    entries[2].refresh_from_db()
    assert entries[2].status == EntryStatus.REGISTERED
    entry_services.withdraw(people[0], t, now=NOW)  # again: changes nothing
    assert OutboxMessage.objects.filter(key__startswith="moved-up:").count() == 2


def test_team_standings_after_entered_results_on_the_page_the_csv_and_the_api(
    client, club, club_admin, members, guests
):
    guest_club, guest_people = guests
    hosts = members(4)
    rate([*hosts, *guest_people[:4]])
    t = team_event(club, club_admin, scoring="national", min_rating=None, max_rating=None)
    eligibility.invite_club(club_admin, t, guest_club)
    home = enter(hosts[0], t, club, "南通队", hosts)
    away = enter(guest_people[0], t, guest_club, "无锡队", guest_people[:4])
    round_services.start_round(club_admin, t, START)
    for game in selectors.all_games(t):
        if game.is_bye:
            continue
        # the home team's entry wins each game it plays against the guests 8:2 (levels)
        home_side = 0 if t.entries.get(pk=game.side0[0]).club_team_id == home.pk else 1
        scores = (8, 2) if home_side == 0 else (2, 8)
        result_services.set_result(club_admin, game, *scores, now=START)
    lines = team_selectors.team_standings(t)
    by_entry = {line.entry.pk: line.row for line in selectors.standings(t)}
    for line in lines:
        ids = [e.pk for e, _mp, _g in line.entries]
        assert line.row.match_points == sum(by_entry[i].values["match_points"] for i in ids)
        assert line.row.second == sum(by_entry[i].values["grade_points"] for i in ids)
    assert [line.team.pk for line in lines][0] in (home.pk, away.pk)
    assert sum(line.row.played for line in lines) == 2 * sum(
        1 for g in selectors.all_games(t) if not g.is_bye
    )
    top = lines[0]
    # the page
    page = client.get(f"/tournaments/{t.pk}/standings/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    text = page.content.decode()
    assert page.status_code == 200 and 'id="team-standings"' in text
    assert "团体成绩" in text and top.team.name in text
    # the CSV
    rows = list(
        csv.reader(
            io.StringIO(client.get(f"/tournaments/{t.pk}/teams.csv").content.decode("utf-8-sig"))
        )
    )
    assert rows[1][1] == top.team.name and float(rows[1][7]) == top.row.match_points
    assert float(rows[1][8]) == top.row.second
    # the API
    body = client.get(f"/api/v1/tournaments/{t.pk}/teams/").json()
    assert body["second"] == "grade_points"
    assert [s["team"] for s in body["standings"]] == [line.team.pk for line in lines]
    assert body["standings"][0]["grade_points"] == top.row.second
    assert {c["id"] for c in body["invited_clubs"]} == {guest_club.pk}


def test_the_api_enters_a_team_and_refuses_every_problem_by_field(client, club, club_admin, guests):
    guest_club, guest_people = guests
    rate(guest_people[:4])
    t = team_event(club, club_admin, max_rating=1500)
    # registration open now (the event starts in 2030)
    Tournament.objects.filter(pk=t.pk).update(registration_opens=timezone.now())
    client.force_login(club_admin)
    invited = client.post(
        f"/api/v1/tournaments/{t.pk}/invite/", {"slug": "wuxi"}, content_type="application/json"
    )
    assert invited.status_code == 200 and invited.json()["invited_clubs"][0]["slug"] == "wuxi"
    client.force_login(guest_people[0])
    units = [[p.pk for p in guest_people[:2]], [p.pk for p in guest_people[2:4]]]
    refused = client.post(
        f"/api/v1/tournaments/{t.pk}/teams/",
        {"club": guest_club.pk, "name": "", "units": units},
        content_type="application/json",
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    assert refused.status_code == 400, refused.json()
    assert set(refused.json()) >= {"code", "detail", "name", "max_rating"}, refused.json()
    assert len(refused.json()["max_rating"]) == 4
    setup_services.update_tournament(club_admin, t, max_rating=None)
    entered = client.post(
        f"/api/v1/tournaments/{t.pk}/teams/",
        {"club": guest_club.pk, "name": "无锡队", "units": units},
        content_type="application/json",
    )
    assert entered.status_code == 201
    assert entered.json()["teams"][0]["name"] == "无锡队"
    # an outsider cannot invite
    invite_again = client.post(
        f"/api/v1/tournaments/{t.pk}/invite/", {"slug": "wuxi"}, content_type="application/json"
    )
    assert invite_again.status_code == 403


def test_a_pair_accepted_after_the_cap_is_reached_waits_and_is_told(club, club_admin, members):
    people = members(6)
    t = make_tournament(club, club_admin, max_entries=2, checkin_required=False)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    # a pending pair holds no place: the organiser fills both meanwhile
    pending = entry_services.register(people[0], t, partner=people[1], now=NOW)
    for a, b in ((people[2], people[3]), (people[4], people[5])):
        entry_services.register(club_admin, t, player=a, partner=b, now=NOW)
    accepted = entry_services.answer_invitation(people[1], t, accept=True, now=NOW)
    assert accepted.pk == pending.pk and accepted.status == EntryStatus.WAITING
    assert OutboxMessage.objects.filter(key=f"waiting:{pending.pk}:user:{people[1].pk}").exists()
    assert pending.pk not in {line.entry.pk for line in selectors.standings(t)}


def test_an_invited_clubs_tournaments_page_lists_the_events_it_is_invited_to(
    client, club, club_admin, guests
):
    guest_club, guest_people = guests
    t = team_event(club, club_admin)
    draft = make_tournament(club, club_admin, name="草稿赛", variant="guandan")
    eligibility.invite_club(club_admin, draft, guest_club)
    client.force_login(guest_people[1])
    page = client.get(f"/tournaments/clubs/{guest_club.slug}/").content.decode()
    assert 'id="invited-events"' not in page  # not invited yet (a draft is never listed)
    eligibility.invite_club(club_admin, t, guest_club)
    page = client.get(f"/tournaments/clubs/{guest_club.slug}/").content.decode()
    assert 'id="invited-events"' in page and t.name in page and "草稿赛" not in page


def test_a_cap_raised_before_the_start_moves_the_waiting_up_and_a_lowered_one_keeps_places(
    club, club_admin, members
):
    people = members(8)
    t = make_tournament(club, club_admin, max_entries=2, checkin_required=False)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    entries = [
        entry_services.register(club_admin, t, player=a, partner=b, now=NOW)
        for a, b in zip(people[0::2], people[1::2], strict=True)
    ]
    assert [e.status for e in entries] == ["registered", "registered", "waiting", "waiting"]
    setup_services.update_tournament(club_admin, t, max_entries=3)
    for entry in entries:
        entry.refresh_from_db()
    assert [e.status for e in entries] == ["registered", "registered", "registered", "waiting"]
    assert OutboxMessage.objects.filter(key__startswith="moved-up:").count() == 2
    # lowered below the entries taking part: nobody loses a place, nobody moves up
    setup_services.update_tournament(club_admin, t, max_entries=2)
    setup_services.update_tournament(club_admin, t, name="改名")
    assert t.entries.filter(status=EntryStatus.REGISTERED).count() == 3
    assert OutboxMessage.objects.filter(key__startswith="moved-up:").count() == 2
