"""Club admins set their ladder's provisional match count and K on the web (issue 22); a
change rebuilds the ladder; new ladders start with 10 provisional matches, not 30."""

import pytest
from django.urls import reverse

from ladder import club_settings
from ladder.apply import apply_result
from ladder.errors import LadderError
from ladder.models import Ladder, Rating

pytestmark = pytest.mark.django_db


def test_new_ladders_are_provisional_for_ten_matches():
    assert Ladder.objects.create(variant="guandan").provisional_matches == 10


def test_club_admins_change_the_count_and_the_ladder_is_rebuilt(
    client, club, club_admin, members, record, celery_eager, django_capture_on_commit_callbacks
):
    a, b, c, d = members(4)
    for _ in range(3):
        apply_result(record([[a, b], [c, d]], (10, 3), club=club))
    ladder = Ladder.objects.get(club=club)
    assert Rating.objects.get(ladder=ladder, user=a).provisional  # 3 < 10

    url = reverse("ladder:settings", args=[ladder.pk])
    client.force_login(a)
    assert client.get(url).status_code == 403  # a member may not
    with pytest.raises(LadderError):
        club_settings.update_ladder_settings(a, ladder, provisional_matches=2, k_established=8)

    client.force_login(club_admin)
    page = client.get(reverse("ladder:leaderboard", args=[ladder.pk])).content.decode()
    assert url in page
    bad = client.post(url, {"provisional_matches": "100000", "k_established": "8"})
    assert bad.status_code == 200
    ladder.refresh_from_db()
    assert ladder.provisional_matches == 10  # refused: nothing changed
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"provisional_matches": "2", "k_established": "12"})
    assert response.status_code == 302
    ladder.refresh_from_db()
    assert (ladder.provisional_matches, ladder.k_established) == (2, 12.0)
    rating = Rating.objects.get(ladder=ladder, user=a)
    assert not rating.provisional and rating.matches == 3  # rebuilt with the new count


def test_the_club_page_links_its_ladders(client, club, members, record):
    a, b, c, d = members(4)
    apply_result(record([[a, b], [c, d]], (10, 3), club=club))
    ladder = Ladder.objects.get(club=club)
    page = client.get(f"/clubs/{club.slug}/").content.decode()
    assert f'href="{reverse("ladder:leaderboard", args=[ladder.pk])}"' in page
    assert f'href="/tournaments/clubs/{club.slug}/"' in page
