"""Tournaments own their URLs (issue 42): pages under ``/tournaments/`` named
``tournaments:...``; the addresses they had under ``/ladder/`` answer 301 to the new ones, with
their arguments and query string."""

import pytest
from django.urls import NoReverseMatch, reverse

from tests.tournaments.test_tournament_services import make_tournament

pytestmark = pytest.mark.django_db


def test_pages_are_named_and_served_under_tournaments(client, club, club_admin):
    t = make_tournament(club, club_admin)
    client.force_login(club_admin)
    assert reverse("tournaments:detail", args=[t.pk]) == f"/tournaments/{t.pk}/"
    assert reverse("tournaments:club", args=[club.slug]) == f"/tournaments/clubs/{club.slug}/"
    assert client.get(f"/tournaments/{t.pk}/").status_code == 200
    assert client.get(f"/tournaments/clubs/{club.slug}/").status_code == 200
    with pytest.raises(NoReverseMatch):
        reverse("ladder:tournament", args=[t.pk])


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("/ladder/tournaments/{pk}/", "/tournaments/{pk}/"),
        ("/ladder/tournaments/{pk}/rounds/2/", "/tournaments/{pk}/rounds/2/"),
        ("/ladder/tournaments/{pk}/entries/7/", "/tournaments/{pk}/entries/7/"),
        ("/ladder/tournaments/{pk}/standings.csv", "/tournaments/{pk}/standings.csv"),
        ("/ladder/clubs/{slug}/tournaments/", "/tournaments/clubs/{slug}/"),
        ("/ladder/clubs/{slug}/tournaments/new/", "/tournaments/clubs/{slug}/new/"),
        ("/ladder/clubs/{slug}/tournaments.ics", "/tournaments/clubs/{slug}/calendar.ics"),
    ],
)
def test_old_addresses_redirect_permanently(client, club, club_admin, old, new):
    t = make_tournament(club, club_admin)
    old, new = (u.format(pk=t.pk, slug=club.slug) for u in (old, new))
    response = client.get(old)
    assert response.status_code == 301
    assert response["Location"] == new
    # the query string goes along (a shared link to a filtered or anchored page)
    assert client.get(old + "?round=2")["Location"] == new + "?round=2"


def test_the_ladder_pages_stay_where_they_were(client):
    assert client.get("/ladder/").status_code == 200
    assert client.get("/ladder/tournaments/").status_code == 404
