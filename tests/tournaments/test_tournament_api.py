"""Tournament REST API and pages: permissions (same as the web), 400s, reads, iCalendar."""

from datetime import UTC, timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from clubs.models import Membership, Role
from tournaments.models import Entry, Game, Tournament
from tournaments.services import entries as entry_services
from tournaments.services import setup as setup_services


@pytest.fixture
def people(club, make_users):
    users = make_users(9)
    Membership.objects.bulk_create(Membership(club=club, user=u, role=Role.MEMBER) for u in users)
    return users


@pytest.fixture
def outsider(make_users):
    return make_users(1, prefix="out")[0]


def client_for(user=None):
    api = APIClient()
    if user is not None:
        api.force_authenticate(user)
    return api


def settings_payload(the_club, **extra):
    starts = timezone.now() + timedelta(minutes=20)
    data = {
        "club": the_club.pk,
        "name": "周末瑞士赛",
        "variant": "bao2",
        "format": "swiss",
        "unit_kind": "pair",
        "rounds_planned": 3,
        "starts_at": starts.isoformat(),
        "checkin_minutes": 30,
        "online": False,
    }
    data.update(extra)
    return data


@pytest.fixture
def tournament(club, club_admin):
    response = client_for(club_admin).post(
        "/api/v1/tournaments/", settings_payload(club), format="json"
    )
    assert response.status_code == 201, response.json()
    return Tournament.objects.get(pk=response.json()["id"])


def test_create_needs_a_club_admin(club, club_admin, people, outsider):
    payload = settings_payload(club)
    assert client_for().post("/api/v1/tournaments/", payload, format="json").status_code in (
        401,
        403,
    )
    for user in (people[0], outsider):
        response = client_for(user).post("/api/v1/tournaments/", payload, format="json")
        assert response.status_code == 403
        assert response.json()["code"] == "not_allowed"
    assert not Tournament.objects.exists()


@pytest.mark.parametrize(
    "extra, key",
    [
        ({"variant": "poker"}, "variant"),
        ({"rounds_planned": "many"}, "rounds_planned"),
        ({"starts_at": "tomorrow"}, "starts_at"),
        ({"tiebreaks": ["luck"]}, "code"),
        ({"match_options": {"colour_twos": "yes"}}, "code"),
        ({"unit_kind": "single"}, "code"),
        ({"club": 999999}, "club"),
    ],
)
def test_bad_settings_answer_400(club, club_admin, extra, key):
    response = client_for(club_admin).post(
        "/api/v1/tournaments/", settings_payload(club, **extra), format="json"
    )
    assert response.status_code == 400
    assert key in response.json()
    assert not Tournament.objects.exists()


def test_drafts_are_hidden_until_published(tournament, club_admin, people):
    assert client_for().get(f"/api/v1/tournaments/{tournament.pk}/").status_code == 404
    assert client_for(people[0]).get("/api/v1/tournaments/").json()["count"] == 0
    assert client_for(club_admin).get("/api/v1/tournaments/").json()["count"] == 1
    response = client_for(people[0]).post(f"/api/v1/tournaments/{tournament.pk}/publish/")
    assert response.status_code == 404  # a member cannot see the draft at all
    response = client_for(club_admin).post(f"/api/v1/tournaments/{tournament.pk}/publish/")
    assert response.status_code == 200 and response.json()["status"] == "scheduled"
    assert client_for().get(f"/api/v1/tournaments/{tournament.pk}/").status_code == 200
    assert client_for().get("/api/v1/tournaments/?club=x").json()["count"] == 0


def test_player_flow_and_admin_run_through_the_api(tournament, club_admin, people, outsider):
    admin = client_for(club_admin)
    url = f"/api/v1/tournaments/{tournament.pk}/"
    admin.post(url + "publish/")
    a, b = people[0], people[1]
    response = client_for(a).post(url + "register/", {"partner": b.pk}, format="json")
    assert response.status_code == 201
    entry = response.json()
    assert entry["player1"] == a.pk and entry["player2"] == b.pk
    # 400s: no partner, unknown partner, twice, an outsider partner
    for payload, code in [
        ({}, "partner_needed"),
        ({"partner": people[0].pk}, "already_registered"),
    ]:
        response = client_for(people[2]).post(url + "register/", payload, format="json")
        if payload.get("partner") == people[0].pk:
            assert response.status_code == 400 and response.json()["code"] == code
        else:
            assert response.status_code == 400 and response.json()["code"] == code
    response = client_for(people[2]).post(url + "register/", {"partner": 10**8}, format="json")
    assert response.status_code == 400 and "partner" in response.json()
    response = client_for(people[2]).post(
        url + "register/", {"partner": outsider.pk}, format="json"
    )
    assert response.status_code == 400 and response.json()["code"] == "not_member"
    response = client_for(outsider).post(
        url + "register/", {"partner": people[3].pk}, format="json"
    )
    assert response.status_code == 400 and response.json()["code"] == "not_member"
    for i in range(2, 8, 2):
        client_for(people[i]).post(url + "register/", {"partner": people[i + 1].pk}, format="json")
    assert len(client_for().get(url + "entries/").json()) == 4
    for partner in people[1:8:2]:  # each partner accepts
        answer = client_for(partner).post(url + "accept-partner/", {}, format="json")
        assert answer.status_code == 200 and answer.json()["status"] == "registered"
    # check-in (window is open: 30 minutes before a start in 20)
    assert client_for(b).post(url + "check-in/", {}, format="json").json()["status"] == (
        "checked_in"
    )
    response = client_for(people[8]).post(url + "check-in/", {}, format="json")
    assert response.status_code == 400 and response.json()["code"] == "not_registered"
    other = Entry.objects.get(player1=people[2])
    response = client_for(a).post(url + "check-in/", {"entry": other.pk}, format="json")
    assert response.status_code == 403
    response = client_for(a).post(url + "check-in/", {"entry": "x"}, format="json")
    assert response.status_code == 400
    for e in Entry.objects.filter(tournament=tournament):
        assert admin.post(url + "check-in/", {"entry": e.pk}, format="json").status_code == 200
    # organisers only: pair, swap, start, pause
    for path in ("pair/", "start-round/", "pause/", "cancel/"):
        assert client_for(a).post(url + path).status_code == 403
    response = admin.post(url + "pair/")
    assert response.status_code == 200 and response.json()["status"] == "paired"
    games = response.json()["games"]
    first, second = games[0]["sides"][0][0]["entry"], games[1]["sides"][0][0]["entry"]
    response = admin.post(url + "rounds/1/swap/", {"first": first, "second": second}, format="json")
    assert response.status_code == 200
    assert response.json()["games"][0]["sides"][0][0]["entry"] == second
    response = admin.post(url + "rounds/1/swap/", {"first": first}, format="json")
    assert response.status_code == 400 and "second" in response.json()
    response = admin.post(url + "rounds/1/swap/", {"first": first, "second": 1}, format="json")
    assert response.status_code == 400 and response.json()["code"] == "bad_swap"
    response = admin.post(url + "start-round/")
    assert response.status_code == 200 and response.json()["status"] == "playing"
    game_id = response.json()["games"][0]["id"]
    # results: organisers only, validated
    game_url = f"/api/v1/tournament-games/{game_id}/result/"
    assert client_for(a).post(game_url, {"score0": 5, "score1": 3}).status_code == 403
    for payload in (
        {"score0": "x", "score1": 3},
        {"score0": 5},
        {"score0": 5, "score1": 3, "winner": 7},
    ):
        assert admin.post(game_url, payload, format="json").status_code == 400
    response = admin.post(game_url, {"score0": 5, "score1": 3, "winner": 1}, format="json")
    assert response.status_code == 400 and response.json()["code"] == "bad_winner"
    response = admin.post(game_url, {"score0": 9, "score1": 4}, format="json")
    assert response.status_code == 200 and response.json()["score"] == [9, 4]
    standings = client_for().get(url + "standings/").json()
    assert standings[0]["values"]["match_points"] == 2
    assert set(standings[0]["values"]) >= {"match_points", "buchholz"}
    winner = Game.objects.get(pk=game_id).side0[0]
    results = client_for().get(url + f"entries/{winner}/results/").json()
    assert results[0]["outcome"] == "win" and results[0]["score"] == [9, 4]
    rounds = client_for().get(url + "rounds/").json()
    assert [r["number"] for r in rounds] == [1, 2, 3] and rounds[1]["games"] == []
    assert admin.post(url + "pause/").json()["status"] == "paused"
    assert admin.post(url + "pause/").status_code == 400
    assert admin.post(url + "resume/").json()["status"] == "running"
    response = admin.patch(url, {"variant": "guandan"}, format="json")
    assert response.status_code == 400 and response.json()["code"] == "started"
    response = admin.patch(url, {"name": "改名"}, format="json")
    assert response.status_code == 200 and response.json()["name"] == "改名"
    assert client_for(a).patch(url, {"name": "x"}, format="json").status_code == 403
    # after the start a player cannot withdraw alone: the organiser accepts it, with a reason
    response = client_for(a).post(url + "withdraw/", {}, format="json")
    assert response.status_code == 400 and response.json()["code"] == "organiser_only"
    mine = Entry.objects.get(tournament=tournament, player1=a)
    response = admin.post(url + "withdraw/", {"entry": mine.pk, "reason": "有事"}, format="json")
    assert response.status_code == 200 and response.json()["status"] == "withdrawn"


def test_schema_lists_the_tournament_operations(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    paths = schema["paths"]
    for path in (
        "/api/v1/tournaments/",
        "/api/v1/tournaments/{id}/register/",
        "/api/v1/tournaments/{id}/check-in/",
        "/api/v1/tournaments/{id}/withdraw/",
        "/api/v1/tournaments/{id}/start-round/",
        "/api/v1/tournaments/{id}/pause/",
        "/api/v1/tournaments/{id}/standings/",
        "/api/v1/tournaments/{id}/rounds/{number}/swap/",
        "/api/v1/tournament-games/{id}/result/",
    ):
        assert path in paths, path


# ------------------------------------------------------------------------ pages
def test_pages_permissions_and_content(client, tournament, club, club_admin, people):
    url = f"/tournaments/{tournament.pk}/"
    assert client.get(url).status_code == 404  # draft
    client.force_login(people[0])
    assert client.get(url).status_code == 404
    assert client.get(url + "run/").status_code == 404
    assert client.post(url + "do/publish/").status_code == 404
    tournament.refresh_from_db()
    assert tournament.status == "draft"  # refused (shown as a message), nothing changed
    client.force_login(club_admin)
    assert client.get(f"/tournaments/clubs/{club.slug}/new/").status_code == 200
    assert client.get(url + "run/").status_code == 200
    client.post(url + "do/publish/")
    tournament.refresh_from_db()
    assert tournament.status == "scheduled"
    client.force_login(people[0])
    assert client.get(url + "run/").status_code == 403
    assert client.get(url + "edit/").status_code == 403
    page = client.get(url).content.decode()
    assert "周末瑞士赛" in page and 'name="partner"' in page
    client.post(url + "do/register/", {"partner": people[1].pk})
    assert Entry.objects.filter(tournament=tournament, player1=people[0]).exists()
    client.force_login(people[1])  # the partner accepts
    client.post(url + "do/accept_partner/")
    client.force_login(people[0])
    client.post(url + "do/check_in/")
    assert Entry.objects.get(player1=people[0]).status == "checked_in"
    response = client.post(url + "do/register/", {"partner": "abc"}, follow=True)
    assert response.status_code == 200
    assert client.post(url + "do/nonsense/").status_code == 404
    for sub in ("standings/", "bracket/"):
        assert client.get(url + sub).status_code == 200
    entry = Entry.objects.get(player1=people[0])
    assert client.get(url + f"entries/{entry.pk}/").status_code == 200
    listing = client.get(f"/tournaments/clubs/{club.slug}/").content.decode()
    assert "周末瑞士赛" in listing
    club_page = client.get(f"/clubs/{club.slug}/").content.decode()
    assert f"/tournaments/clubs/{club.slug}/calendar.ics" in club_page


def test_admin_creates_and_runs_on_the_web(client, club, club_admin, people):
    client.force_login(club_admin)
    starts = (timezone.localtime() + timedelta(minutes=10)).strftime("%Y-%m-%dT%H:%M")
    response = client.post(
        f"/tournaments/clubs/{club.slug}/new/",
        {
            "name": "网页建赛",
            "variant": "bao2",
            "format": "elimination",
            "unit_kind": "pair",
            "rounds_planned": 3,
            "time_limit_minutes": 0,
            "checkin_minutes": 30,
            "late_until_round": 0,
            "starts_at": starts,
            "round_minutes": 45,
            "no_show_minutes": 0,
            "tiebreaks": ["buchholz"],
            "third_place": "on",
            "checkin_required": "",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    tournament = Tournament.objects.get(name="网页建赛")
    assert tournament.format == "elimination" and tournament.third_place
    url = f"/tournaments/{tournament.pk}/"
    client.post(url + "do/publish/")
    for i in range(0, 8, 2):
        entry_services.register(
            people[i], Tournament.objects.get(pk=tournament.pk), partner=people[i + 1]
        )
        entry_services.answer_invitation(people[i + 1], tournament, accept=True)
    client.post(url + "do/start_round/")
    game = Game.objects.filter(round__tournament=tournament).first()
    client.post(url + "do/result/", {"game": game.pk, "score0": 3, "score1": 3, "winner": "1"})
    game.refresh_from_db()
    assert (game.score0, game.score1, game.winner) == (3, 3, 1)
    bracket = client.get(url + "bracket/").content.decode()
    assert 'class="bracket"' in bracket and f'data-game="{game.pk}"' in bracket
    response = client.post(url + "edit/", {"name": ""})
    assert response.status_code == 200  # form errors shown, nothing saved
    tournament.refresh_from_db()
    assert tournament.name == "网页建赛"


def test_icalendar_feed_of_a_clubs_rounds(client, tournament, club, club_admin):
    setup_services.publish(club_admin, tournament)
    response = client.get(f"/tournaments/clubs/{club.slug}/calendar.ics")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/calendar")
    text = response.content.decode()
    assert text.startswith("BEGIN:VCALENDAR\r\n") and text.endswith("END:VCALENDAR\r\n")
    assert text.count("BEGIN:VEVENT") == 3
    start = tournament.starts_at.astimezone(UTC)
    assert f"DTSTART:{start.strftime('%Y%m%dT%H%M%SZ')}" in text
    assert all(len(line.encode()) <= 75 for line in text.split("\r\n"))
    assert f"UID:tournament-{tournament.pk}-round-1@testserver" in text


def test_notices_api_lists_only_your_own(club, club_admin, people):
    from tournaments.models import TournamentNotice

    t = setup_services.create_tournament(
        club_admin, club, name="通知", variant="bao2", starts_at=timezone.now()
    )
    TournamentNotice.objects.create(tournament=t, user=people[0], text="第 1 轮已开始", url="/x")
    TournamentNotice.objects.create(tournament=t, user=people[1], text="other", url="/y")
    assert client_for().get("/api/v1/tournament-notices/").status_code in (401, 403)
    data = client_for(people[0]).get("/api/v1/tournament-notices/").json()
    assert [n["text"] for n in data["results"]] == ["第 1 轮已开始"]


def test_web_form_takes_match_options_and_refuses_bad_ones(client, club, club_admin):
    client.force_login(club_admin)
    starts = (timezone.localtime() + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M")
    base = {
        "name": "双扣个人赛",
        "variant": "shuangkou2",
        "format": "round_robin",
        "unit_kind": "single",
        "rounds_planned": 3,
        "time_limit_minutes": 0,
        "checkin_minutes": 30,
        "late_until_round": 0,
        "starts_at": starts,
        "round_minutes": 30,
        "no_show_minutes": 5,
    }
    url = f"/tournaments/clubs/{club.slug}/new/"
    # the match options are form fields now (issue 22), no JSON
    response = client.post(url, {**base, "deals": "four"})
    assert response.status_code == 200 and not Tournament.objects.exists()
    assert "deals" in response.content.decode()
    response = client.post(url, {**base, "deals": "4"})
    assert response.status_code == 302
    assert Tournament.objects.get().match_options == {"deals": 4}


def test_organisers_register_check_in_and_withdraw_entries_on_the_web(
    client, tournament, club_admin, people
):
    setup_services.publish(club_admin, tournament)
    url = f"/tournaments/{tournament.pk}/"
    client.force_login(people[2])
    client.post(url + "do/register/", {"player": people[3].pk, "partner": people[4].pk})
    assert not Entry.objects.filter(tournament=tournament).exists()  # members: only themselves
    client.force_login(club_admin)
    page = client.get(url + "run/").content.decode()
    assert 'name="player"' in page
    client.post(url + "do/register/", {"player": people[3].pk, "partner": people[4].pk})
    entry = Entry.objects.get(tournament=tournament, player1=people[3])
    assert entry.player2 == people[4]
    client.post(url + "do/check_in/", {"entry": entry.pk})
    entry.refresh_from_db()
    assert entry.status == "checked_in"
    client.force_login(people[0])
    client.post(url + "do/withdraw/", {"entry": entry.pk})
    entry.refresh_from_db()
    assert entry.status == "checked_in"  # not their entry: refused
    client.force_login(club_admin)
    client.post(url + "do/withdraw/", {"entry": entry.pk})
    entry.refresh_from_db()
    assert entry.status == "withdrawn"
    assert client.post(url + "do/withdraw/", {"entry": "x"}).status_code == 302


def test_scoring_and_a_double_bracket_through_the_api(club, club_admin, people, outsider):
    """Issue 45: the scoring is set by organisers only (a bad value answers 400 with its
    code, a player 403), the national tie-breaks apply, and a double elimination's bracket
    gives each game its place; a result's 级分 show in the game and the results export."""
    admin = client_for(club_admin)
    response = admin.post(
        "/api/v1/tournaments/",
        settings_payload(club, variant="guandan", format="double_elim", checkin_minutes=0),
        format="json",
    )
    assert response.status_code == 201, response.json()
    t = Tournament.objects.get(pk=response.json()["id"])
    url = f"/api/v1/tournaments/{t.pk}/"
    player = client_for(people[0])
    # a draft is hidden from players; once published they are refused
    assert player.post(url + "scoring/", {"scoring": "national"}).status_code == 404
    assert admin.post(url + "publish/").status_code == 200
    assert player.post(url + "scoring/", {"scoring": "national"}).status_code == 403
    bad = admin.post(url + "scoring/", {"scoring": "fifa"}, format="json")
    assert bad.status_code == 400 and bad.json()["code"] == "bad_scoring"
    response = admin.post(url + "scoring/", {"scoring": "national"}, format="json")
    assert response.status_code == 200
    assert response.json() == {
        "id": t.pk,
        "scoring": "national",
        "tiebreaks": ["match_points", "grade_points", "head_to_head_grades", "opponent_grades"],
    }
    t.refresh_from_db()
    t.checkin_required = False
    t.save(update_fields=["checkin_required"])
    for a, b in zip(people[0:6:2], people[1:6:2], strict=True):
        entry_services.register(a, t, partner=b)
        entry_services.answer_invitation(b, t, accept=True)
    response = admin.post(url + "start-round/", format="json")
    assert response.status_code == 200, response.json()
    game = Game.objects.filter(round__tournament=t).exclude(status="bye").get()
    response = admin.post(
        f"/api/v1/tournament-games/{game.pk}/result/",
        {"score0": 12, "score1": 3},
        format="json",
    )
    assert response.status_code == 200, response.json()
    assert response.json()["grades"] == [23, 3]  # 过A against 5
    bracket = client_for().get(url + "bracket/").json()
    first = bracket[0]
    assert {g["place"]["bracket"] for g in first} == {"W"}
    assert sorted(g["place"]["index"] for g in first) == [0, 1]
    played = next(g for g in first if g["id"] == game.pk)
    assert played["grades"] == [23, 3] and played["slot"] == game.slot
    # the scoring is fixed once round 1 is paired
    late = admin.post(url + "scoring/", {"scoring": "club"}, format="json")
    assert late.status_code == 400 and late.json()["code"] == "started"
    csv = client_for().get(f"/tournaments/{t.pk}/results.csv").content.decode("utf-8-sig")
    assert "Grade points" in csv.splitlines()[0] or "级分" in csv.splitlines()[0]
    assert "23:3" in csv
