"""How an event's matches end (第十四条: 计局制 / 计副制 / 计时制 / 计时计副制), issue 45: chosen
by the organiser in the web form and the API, stored as the deals option and the match time,
checked in one place (:func:`games.endings.ending_problems`) with every problem at once in the
organiser's words, shown on the tournament page, and a live match ended by its deal limit
through the real services (a knockout's table plays on after a tie)."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.utils import timezone
from django.utils.translation import override
from rest_framework.test import APIClient

from games import endings
from tournaments.models import Game, Tournament
from tournaments.services import entries as entry_services
from tournaments.services import schedule as schedule_services
from tournaments.services import setup as setup_services
from tournaments.services.errors import TournamentError

pytestmark = pytest.mark.django_db

START = datetime(2030, 5, 1, 9, 0, tzinfo=UTC)


def fields(**extra):
    data = {
        "name": "掼蛋双人赛",
        "variant": "guandan",
        "format": "swiss",
        "unit_kind": "pair",
        "rounds_planned": 3,
        "starts_at": START,
        "registration_closes": START - timedelta(minutes=5),
        "round_minutes": 60,
        "online": False,
    }
    data.update(extra)
    return data


# ---------------------------------------------------------------- the one check
@pytest.mark.parametrize(
    ("variant", "deals", "minutes", "mode"),
    [
        ("guandan", None, 0, endings.TO_TOP),
        ("guandan", 8, 0, endings.DEALS),
        ("bao2", None, 60, endings.TIME),
        ("bao2", 12, 90, endings.TIME_DEALS),
        ("honger", None, 0, endings.DEALS),  # a point game is always played over deals
        ("shuangkou2", 4, 30, endings.TIME_DEALS),
    ],
)
def test_the_mode_is_derived_from_the_deals_and_the_match_time(variant, deals, minutes, mode):
    assert endings.ending_of(variant, deals, minutes) == mode
    assert endings.ending_problems(variant, None, deals, minutes) == {}
    assert endings.ending_problems(variant, mode, deals, minutes) == {}


def test_ending_problems_are_all_said_at_once_in_both_languages():
    with override("zh-hans"):
        problems = endings.ending_problems("guandan", endings.TIME_DEALS, None, 0)
        assert problems == {
            "deals": ["请填写每场副数：1 到 50 之间的整数。"],
            "time_limit_minutes": ["请填写对局限时：1 到 1440 分钟之间的整数。"],
        }
        wrong = endings.ending_problems("honger", endings.TO_TOP, None, 0)
        assert wrong == {"ending": ["南平红二按副数计：请选择“计副制”或“计时计副制”。"]}
        assert endings.ending_text("guandan", 8, 0) == "计副制：8 副"
        assert endings.ending_text("bao2", 8, 45) == "计时计副制：45 分钟或 8 副，先到为止"
    with override("en"):
        problems = endings.ending_problems("bao2", endings.TO_TOP, 8, 30)
        assert set(problems) == {"deals", "time_limit_minutes"}
        assert problems["deals"][0].startswith("Deals are counted only when")
        assert endings.ending_text("guandan", 8, 0) == "Ends after 8 deals"
        assert endings.ending_problems("guandan", "sudden_death", 8, 0)["ending"][0].startswith(
            "Choose how matches end:"
        )
    for deals in (0, 51, -1, "8", True, 2.5):
        assert "deals" in endings.ending_problems("guandan", endings.DEALS, deals, 0)


# ---------------------------------------------------------------- the service and the API
@pytest.mark.parametrize(
    ("given", "options", "minutes", "mode"),
    [
        ({}, {}, 0, "to_top"),
        ({"match_options": {"deals": 8}}, {"deals": 8}, 0, "deals"),
        ({"time_limit_minutes": 60}, {}, 60, "time"),
        ({"match_options": {"deals": 8}, "time_limit_minutes": 45}, {"deals": 8}, 45, "time_deals"),
        ({"ending": "deals", "match_options": {"deals": 6}}, {"deals": 6}, 0, "deals"),
    ],
)
def test_the_api_creates_an_event_with_each_mode(club, club_admin, given, options, minutes, mode):
    api = APIClient()
    api.force_authenticate(club_admin)
    payload = {
        **fields(starts_at=(timezone.now() + timedelta(days=1)).isoformat()),
        "club": club.pk,
        **given,
    }
    payload.pop("registration_closes")
    response = api.post("/api/v1/tournaments/", payload, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["ending"] == mode
    t = Tournament.objects.get(pk=response.json()["id"])
    assert t.match_options == options and t.time_limit_minutes == minutes
    assert api.get(f"/api/v1/tournaments/{t.pk}/").json()["ending"] == mode


def test_the_api_refuses_a_bad_ending_with_every_problem_at_once(club, club_admin):
    api = APIClient(HTTP_ACCEPT_LANGUAGE="zh-hans")
    api.force_authenticate(club_admin)
    payload = {
        **fields(starts_at="2020-01-01T09:00:00+00:00", registration_closes=None),
        "club": club.pk,
        "ending": "time_deals",
        "match_options": {"deals": 99},
    }
    payload.pop("registration_closes")
    response = api.post("/api/v1/tournaments/", payload, format="json")
    assert response.status_code == 400
    body = response.json()
    text = str(body)
    assert "每场副数" in text and "1 到 50" in text  # the deals, by their label
    assert "对局限时" in text  # the missing match time
    assert "2020-01-01" in text  # and the past start, all at once
    assert "option deals" not in text and "match_options" not in text  # no internal words
    assert not Tournament.objects.exists()


def test_an_edit_keeps_the_mode_checked(club, club_admin):
    t = setup_services.create_tournament(club_admin, club, **fields(match_options={"deals": 8}))
    with pytest.raises(TournamentError) as error:
        setup_services.update_tournament(club_admin, t, ending="time")
    assert set(error.value.fields) == {"deals", "time_limit_minutes"}
    t = setup_services.update_tournament(
        club_admin, t, ending="time", match_options={}, time_limit_minutes=50
    )
    assert t.match_options == {} and t.time_limit_minutes == 50
    t = setup_services.update_tournament(club_admin, t, name="改名")  # the rest is untouched
    assert t.time_limit_minutes == 50
    with pytest.raises(TournamentError) as error:
        setup_services.update_tournament(club_admin, t, match_options={"play_on_tie": True})
    assert error.value.code == "bad_options"


# ---------------------------------------------------------------- the web form and the page
def web(starts, **extra):
    data = {
        "name": "掼蛋双人赛",
        "variant": "guandan",
        "format": "swiss",
        "unit_kind": "pair",
        "rounds_planned": "4",
        "starts_at": starts,
        "checkin_minutes": "30",
        "late_until_round": "0",
        "round_minutes": "60",
        "no_show_minutes": "0",
    }
    data.update(extra)
    return data


def test_the_form_offers_the_four_modes_and_says_errors_at_once(client, club, club_admin):
    client.force_login(club_admin)
    url = f"/tournaments/clubs/{club.slug}/new/"
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    for value in ("to_top", "deals", "time", "time_deals"):
        assert f'value="{value}"' in page
    assert "计副制：打满规定副数" in page and "计时计副制" in page
    past = (timezone.localtime() - timedelta(days=3)).strftime("%Y-%m-%dT%H:%M")
    page = client.post(
        url,
        web(past, ending="time_deals", deals="", time_limit_minutes=""),
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    ).content.decode()
    assert not Tournament.objects.exists()
    summary = page[page.index('id="form-errors"') : page.index("</ul>", page.index("form-errors"))]
    assert summary.count("<li>") == 3  # the deals, the match time and the past start
    assert "请填写每场副数" in summary and "请填写对局限时" in summary and "已经过去" in summary
    assert 'href="#id_deals"' in summary and 'href="#id_time_limit_minutes"' in summary


def test_the_form_stores_only_what_the_mode_uses_and_the_page_shows_it(client, club, club_admin):
    client.force_login(club_admin)
    url = f"/tournaments/clubs/{club.slug}/new/"
    starts = (timezone.localtime() + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M")
    # 计副制: a match time typed in is not kept (the mode has none)
    response = client.post(url, web(starts, ending="deals", deals="8", time_limit_minutes="30"))
    assert response.status_code == 302
    t = Tournament.objects.get()
    assert t.match_options == {"deals": 8} and t.time_limit_minutes == 0
    page = client.get(f"/tournaments/{t.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "计副制：8 副" in page
    edit = client.get(f"/tournaments/{t.pk}/edit/").content.decode()
    assert '<option value="deals" selected>' in edit
    # to 计时制: the deals go, the time comes
    data = web(starts, ending="time", deals="8", time_limit_minutes="60")
    assert client.post(f"/tournaments/{t.pk}/edit/", data).status_code == 302
    t.refresh_from_db()
    assert t.match_options == {} and t.time_limit_minutes == 60
    page = client.get(f"/tournaments/{t.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "计时制：60 分钟" in page


# ---------------------------------------------------------------- a live match to its limit
@pytest.mark.parametrize("fmt", ["swiss", "elimination"])
def test_a_live_match_ends_at_the_deal_limit_through_the_services(
    club, club_admin, members, no_deadline_tasks, fmt
):
    from matches.models import Match
    from tests.matches.matchkit import play_out

    people = members(4)
    t = setup_services.create_tournament(
        club_admin,
        club,
        **fields(
            format=fmt,
            online=True,
            rounds_planned=1,
            checkin_required=False,
            match_options={"deals": 2},
        ),
    )
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    for a, b in ((people[0], people[1]), (people[2], people[3])):
        entry_services.register(a, t, partner=b, now=START - timedelta(hours=1))
        entry_services.answer_invitation(b, t, accept=True, now=START - timedelta(hours=1))
    with time_machine.travel(START, tick=False):
        schedule_services.tick(START)
        game = Game.objects.get(round__tournament=t, round__number=1)
        match = Match.objects.get(table_id=game.table_id)
        knockout = fmt == "elimination"
        assert match.options["deals"] == 2
        assert match.options.get("play_on_tie", False) is knockout
        play_out(match)
    later = START + timedelta(minutes=1)
    with time_machine.travel(later, tick=False):
        schedule_services.tick(later)
    match.refresh_from_db()
    result = match.result
    levels = result["score"]
    if levels[0] == levels[1]:  # a tie at the limit: a draw, never in a knockout
        assert not knockout and result["winner"] is None
    assert result["reason"] in ("deals", "last_level")
    assert result["deals"] >= 2 if knockout else result["deals"] == 2
    game.refresh_from_db()
    assert game.source == "live" and (game.score0, game.score1) == tuple(levels)
    expected = None if levels[0] == levels[1] else (0 if levels[0] > levels[1] else 1)
    assert game.winner == expected
    if knockout:
        assert game.winner is not None
