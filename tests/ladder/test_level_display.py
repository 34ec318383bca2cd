"""Issue 45: a ladder shows a Bao 2 result in level names, as the table does, not "9:23"."""

import pytest
from django.urls import reverse

from ladder.apply import apply_result
from ladder.models import Ladder


@pytest.mark.django_db
def test_a_players_recent_matches_show_levels_by_name(client, make_users, record):
    a, b, c, d = make_users(4)
    apply_result(record([[a, b], [c, d]], (7, 23)))
    ladder = Ladder.objects.get()
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "zh-hans"
    html = client.get(reverse("ladder:player", args=[ladder.pk, a.pk])).content.decode()
    assert "10:A（第2轮）" in html and "7:23" not in html
