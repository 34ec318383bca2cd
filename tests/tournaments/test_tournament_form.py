"""The creation form (issue 22): short and grouped, match options as fields (no JSON, no
``null``), required fields marked, errors at the top and beside the field, values kept after
an error, the cancel button apart and confirmed."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from tournaments.models import Tournament, TournamentStatus

pytestmark = pytest.mark.django_db


def base(starts):
    return {
        "name": "周末双人赛",
        "variant": "bao2",
        "format": "swiss",
        "unit_kind": "pair",
        "rounds_planned": "4",
        "starts_at": starts,
        "time_limit_minutes": "0",
        "checkin_minutes": "30",
        "late_until_round": "0",
        "round_minutes": "60",
        "no_show_minutes": "0",
    }


def test_the_form_offers_options_as_fields_and_marks_what_is_required(client, club, club_admin):
    client.force_login(club_admin)
    page = client.get(f"/tournaments/clubs/{club.slug}/new/").content.decode()
    assert "null" not in page and "JSON" not in page and "{&quot;" not in page
    assert 'name="colour_twos"' in page and 'name="deals"' in page
    assert 'name="starts_at"' in page and 'class="required-mark"' in page
    assert page.count("<details") == 5  # everything but the essentials is folded


def test_a_failed_submit_keeps_the_values_and_shows_errors_at_the_top(client, club, club_admin):
    client.force_login(club_admin)
    url = f"/tournaments/clubs/{club.slug}/new/"
    data = {**base(""), "rounds_planned": "7", "first_action_seconds": "45", "colour_twos": "on"}
    page = client.post(url, data).content.decode()
    assert not Tournament.objects.exists()
    top = page.index('id="form-errors"')
    assert top < page.index('name="name"')  # the summary comes before the fields
    assert 'href="#id_starts_at"' in page  # and links the field in error
    assert 'value="周末双人赛"' in page and 'value="7"' in page and 'value="45"' in page
    assert re.search(r'<input[^>]*name="colour_twos"[^>]*checked', page)
    starts = (timezone.localtime() + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M")
    response = client.post(url, {**data, "starts_at": starts})
    assert response.status_code == 302
    t = Tournament.objects.get()
    assert t.match_options == {"colour_twos": True, "first_action_seconds": 45}
    # the edit form shows the stored start in a form the datetime-local input keeps
    page = client.get(f"/tournaments/{t.pk}/edit/").content.decode()
    assert f'value="{starts}"' in page and 'value="45"' in page


def test_options_of_another_game_are_not_stored(client, club, club_admin):
    client.force_login(club_admin)
    starts = (timezone.localtime() + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M")
    # deals count in Guandan only when its matches end by deals (issue 45): not 计局制
    data = {**base(starts), "variant": "guandan", "colour_twos": "on", "deals": "6"}
    data["ending"] = "to_top"
    client.post(f"/tournaments/clubs/{club.slug}/new/", data)
    assert Tournament.objects.get().match_options == {}


def test_cancel_is_apart_styled_as_danger_and_needs_a_confirmation(client, club, club_admin):
    client.force_login(club_admin)
    starts = (timezone.localtime() + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M")
    client.post(f"/tournaments/clubs/{club.slug}/new/", base(starts))
    t = Tournament.objects.get()
    page = client.get(f"/tournaments/{t.pk}/run/").content.decode()
    actions = page[
        page.index('class="actions"') : page.index("</div>", page.index('class="actions"'))
    ]
    assert "cancel" not in actions  # not beside 发布并开放报名
    assert 'class="danger-zone"' in page and 'class="danger"' in page
    client.post(f"/tournaments/{t.pk}/do/cancel/", {})
    t.refresh_from_db()
    assert t.status == TournamentStatus.DRAFT  # not confirmed: nothing happens
    client.post(f"/tournaments/{t.pk}/do/cancel/", {"confirm": "1"})
    t.refresh_from_db()
    assert t.status == TournamentStatus.CANCELLED


def test_the_form_and_the_api_refuse_the_same_settings_in_the_same_words(client, club, club_admin):
    """Issue 42/45: the web form checks nothing itself; the settings form behind the service
    is the one place, so the page and the API name the same problems in the same words, all
    at once (here a blank name, 99 rounds, the national rules for a game scored by points)."""
    from rest_framework.test import APIClient

    client.force_login(club_admin)
    starts = timezone.localtime() + timedelta(days=2)
    bad = {"name": " ", "variant": "shuangkou2", "unit_kind": "single", "scoring": "national"}
    page = client.post(
        f"/tournaments/clubs/{club.slug}/new/",
        {**base(starts.strftime("%Y-%m-%dT%H:%M")), **bad, "rounds_planned": "99"},
    )
    web = {field: list(errors) for field, errors in page.context["form"].errors.items()}
    api = APIClient()
    api.force_authenticate(club_admin)
    answer = api.post(
        "/api/v1/tournaments/",
        {
            "club": club.pk,
            **bad,
            "format": "swiss",
            "rounds_planned": 99,
            "starts_at": starts.isoformat(),
        },
        format="json",
    )
    assert answer.status_code == 400
    assert set(web) == {"name", "rounds_planned", "scoring"}
    for field, messages in web.items():
        assert answer.json()[field] == messages, field
    assert web["scoring"] == ["国家规则只用于按级数定胜负的项目：保2和掼蛋。"]
    assert web["rounds_planned"] == ["请填 1 到 30 之间的整数。"]
    assert not Tournament.objects.exists()


def test_the_scoring_is_a_setting_fixed_once_round_one_is_paired(client, club, club_admin):
    """The scoring (club or the national rules) is chosen in the settings form; once round 1
    is paired a change is refused in the organiser's words and nothing changes."""
    from tournaments.models import Round

    client.force_login(club_admin)
    starts = (timezone.localtime() + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M")
    data = {**base(starts), "variant": "guandan", "scoring": "national"}
    assert client.post(f"/tournaments/clubs/{club.slug}/new/", data).status_code == 302
    t = Tournament.objects.get()
    assert t.scoring == "national" and t.tiebreaks == []  # the national order applies
    page = client.get(f"/tournaments/{t.pk}/edit/").content.decode()
    assert re.search(r'<option value="national"[^>]*selected', page)
    Round.objects.create(tournament=t, number=1, scheduled_at=timezone.now())
    page = client.post(f"/tournaments/{t.pk}/edit/", {**data, "scoring": "club"})
    assert "第一轮编排后，计分方式不能再更改。" in page.content.decode()
    t.refresh_from_db()
    assert t.scoring == "national"
