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
    assert page.count("<details") == 4  # everything but the essentials is folded


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
