"""Every number a client sends to the clubs pages and API is bounded (issue 20, item 14).

Out-of-range numbers answer 400 (or 404 / an empty list for ids that cannot exist) with a
translated message and change nothing, never a 500 (PostgreSQL ``DataError`` beyond 2**31,
SQLite ``OverflowError`` beyond 2**63). ``./test`` runs these on both databases.
"""

import pytest

from clubs.models import MAX_INVITATION_USES, Invitation

HUGE = [2**31, 2**63, 10**30]

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_api(api, club_admin):
    api.force_authenticate(club_admin)
    return api


@pytest.mark.parametrize("max_uses", [*HUGE, MAX_INVITATION_USES + 1])
def test_invitation_max_uses_beyond_the_limit_is_a_translated_400(admin_api, club, max_uses):
    response = admin_api.post(
        "/api/v1/invitations/", {"club": club.slug, "max_uses": max_uses}, format="json"
    )
    assert response.status_code == 400
    assert list(response.json()) == ["max_uses"]
    assert "10000" in response.json()["max_uses"][0]
    english = admin_api.post(
        "/api/v1/invitations/",
        {"club": club.slug, "max_uses": max_uses},
        format="json",
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert english.json()["max_uses"] != response.json()["max_uses"]
    assert not Invitation.objects.exists()


def test_invitation_max_uses_at_the_limit_is_accepted(admin_api, club):
    response = admin_api.post(
        "/api/v1/invitations/",
        {"club": club.slug, "max_uses": MAX_INVITATION_USES},
        format="json",
    )
    assert response.status_code == 201
    assert Invitation.objects.get().max_uses == MAX_INVITATION_USES


@pytest.mark.parametrize("max_uses", [str(n) for n in HUGE])
def test_web_invitation_form_refuses_huge_max_uses(client, club, club_admin, max_uses):
    client.force_login(club_admin)
    response = client.post(
        f"/clubs/{club.slug}/invitations/",
        {"expires_in_days": "14", "max_uses": max_uses},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code in (200, 302)
    assert not Invitation.objects.exists()


def test_service_refuses_out_of_range_numbers(club, club_admin):
    from clubs import services

    for bad in ({"max_uses": 2**31}, {"max_uses": 0}, {"expires_in_days": 10**6}):
        with pytest.raises(services.ClubError) as refused:
            services.create_invitation(club_admin, club, **bad)
        assert refused.value.code == "invalid"
    assert not Invitation.objects.exists()


@pytest.mark.parametrize("number", [str(n) for n in HUGE] + ["-1", "1e5"])
def test_api_filters_and_pages_with_huge_numbers(admin_api, club, number):
    for url in (
        f"/api/v1/memberships/?user={number}",
        f"/api/v1/clubs/?page={number}",
        f"/api/v1/memberships/?page={number}",
        f"/api/v1/join-requests/?page={number}",
        f"/api/v1/invitations/?page={number}",
    ):
        response = admin_api.get(url)
        assert response.status_code in (200, 400, 404), (url, response.status_code)
        if response.status_code == 200:
            assert response.json()["results"] == [], url


@pytest.mark.parametrize("number", [str(n) for n in HUGE])
def test_api_and_web_ids_beyond_any_row(admin_api, client, club, club_admin, number):
    for url in (
        f"/api/v1/memberships/{number}/",
        f"/api/v1/join-requests/{number}/",
        f"/api/v1/invitations/{number}/",
    ):
        assert admin_api.get(url).status_code == 404, url
    client.force_login(club_admin)
    for url, data in (
        (f"/clubs/{club.slug}/requests/{number}/", {"action": "accept"}),
        (f"/clubs/{club.slug}/members/{number}/", {"action": "remove"}),
        (f"/clubs/{club.slug}/invitations/{number}/revoke/", {}),
        ("/accounts/profile/", {"action": "revoke_token", "token_id": number}),
    ):
        response = client.post(url, data)
        assert response.status_code in (302, 400, 404), (url, response.status_code)
