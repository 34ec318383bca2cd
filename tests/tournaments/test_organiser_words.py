"""Issue 45: a tournament's settings are refused in the organiser's words, every problem at
once and beside its field, and a start time already past is refused with the reason."""

from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from django.utils import timezone, translation
from rest_framework.test import APIClient

from tournaments.models import Tournament
from tournaments.services import setup
from tournaments.services.errors import TournamentError

pytestmark = pytest.mark.django_db


def test_every_problem_at_once_by_the_fields_label(club, club_admin):
    with translation.override("zh-hans"), pytest.raises(TournamentError) as refused:
        setup.create_tournament(
            club_admin,
            club,
            name="周末双人赛",
            variant="bao2",
            rounds_planned=40,
            points_win=99,
            starts_at=datetime(2020, 5, 1, 9, tzinfo=UTC),
        )
    error = refused.value
    assert set(error.fields) == {"rounds_planned", "points_win", "starts_at"}
    assert "rounds_planned" not in error.message and "points_win" not in error.message
    assert "轮数" in error.message or "轮" in error.message
    assert "2020-05-01" in error.message  # the past start, named
    assert not Tournament.objects.exists()


def test_a_start_seven_hours_ago_is_refused_on_the_form_beside_the_field(club, club_admin):
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(club_admin)
    past = (timezone.localtime() - timedelta(hours=7)).strftime("%Y-%m-%dT%H:%M")
    data = {
        "name": "周末双人赛",
        "variant": "bao2",
        "format": "swiss",
        "unit_kind": "pair",
        "rounds_planned": "4",
        "starts_at": past,
        "time_limit_minutes": "0",
        "checkin_minutes": "30",
        "late_until_round": "0",
        "round_minutes": "60",
        "no_show_minutes": "0",
    }
    page = client.post(f"/tournaments/clubs/{club.slug}/new/", data).content.decode()
    assert not Tournament.objects.exists()
    assert 'href="#id_starts_at"' in page  # the summary links the field in error
    assert past.replace("T", " ") in page


def test_the_api_refuses_a_past_start_and_an_edit_into_the_past(club, club_admin):
    api = APIClient()
    api.force_authenticate(club_admin)
    payload = {
        "club": club.pk,
        "name": "周末瑞士赛",
        "variant": "bao2",
        "format": "swiss",
        "unit_kind": "pair",
        "rounds_planned": 3,
        "starts_at": "2020-05-01T09:00:00+08:00",
    }
    answer = api.post("/api/v1/tournaments/", payload, format="json")
    assert answer.status_code == 400 and answer.json()["code"] == "past_start"
    payload["starts_at"] = (timezone.now() + timedelta(days=1)).isoformat()
    answer = api.post("/api/v1/tournaments/", payload, format="json")
    assert answer.status_code == 201
    pk = answer.json()["id"]
    past = (timezone.now() - timedelta(hours=7)).isoformat()
    answer = api.patch(f"/api/v1/tournaments/{pk}/", {"starts_at": past}, format="json")
    assert answer.status_code == 400 and answer.json()["code"] == "past_start"
