import pytest

from clubs import selectors, services
from clubs.models import ApiToken, Club, JoinPolicy, JoinRequest, Membership, Role


def test_club_list_is_public_paginated_and_filterable(api, club, owner):
    services.create_club(owner, name="Open One", city="福州", join_policy=JoinPolicy.OPEN)
    response = api.get("/api/v1/clubs/")
    assert response.status_code == 200
    assert response.json()["count"] == 2
    assert {c["name"] for c in response.json()["results"]} == {"Nanping Bao 2", "Open One"}
    response = api.get("/api/v1/clubs/", {"join_policy": "open"})
    assert [c["name"] for c in response.json()["results"]] == ["Open One"]
    response = api.get("/api/v1/clubs/", {"search": "福州"})
    assert [c["name"] for c in response.json()["results"]] == ["Open One"]
    detail = api.get(f"/api/v1/clubs/{club.slug}/").json()
    assert detail["member_count"] == 3 and detail["my_role"] is None


def test_club_list_mine_filter(api, club, member, owner):
    services.create_club(owner, name="Other")
    api.force_authenticate(member)
    response = api.get("/api/v1/clubs/", {"mine": "true"})
    assert [c["slug"] for c in response.json()["results"]] == [club.slug]
    assert response.json()["results"][0]["my_role"] == "member"
    assert response.json()["results"][0]["member_count"] == 3


def test_create_club_requires_login_and_returns_json_errors(api, outsider):
    response = api.post("/api/v1/clubs/", {"name": "X"}, format="json")
    assert response.status_code in (401, 403)
    assert "detail" in response.json()
    api.force_authenticate(outsider)
    response = api.post("/api/v1/clubs/", {"join_policy": "sometimes"}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert "name" in body and "join_policy" in body
    assert Club.objects.count() == 0
    response = api.post(
        "/api/v1/clubs/", {"name": "Xiamen Club", "join_policy": "open"}, format="json"
    )
    assert response.status_code == 201
    assert response.json()["my_role"] == "owner"
    assert selectors.role_of(outsider, Club.objects.get(slug="xiamen-club")) == Role.OWNER


@pytest.mark.parametrize("payload", [[1, 2], "text", {"name": None}, {"name": "x" * 500}])
def test_malformed_bodies_are_400_never_500(api, outsider, payload):
    api.force_authenticate(outsider)
    response = api.post("/api/v1/clubs/", payload, format="json")
    assert response.status_code == 400
    assert isinstance(response.json(), dict)


def test_broken_json_is_a_400(api, outsider):
    api.force_authenticate(outsider)
    response = api.post("/api/v1/clubs/", "{not json", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["code"] == "parse_error"


def test_edit_club_permission_matches_web(api, club, member, club_admin):
    api.force_authenticate(member)
    response = api.patch(f"/api/v1/clubs/{club.slug}/", {"city": "x"}, format="json")
    assert response.status_code == 403
    assert response.json()["code"] == "not_allowed"
    api.force_authenticate(club_admin)
    response = api.patch(f"/api/v1/clubs/{club.slug}/", {"city": "南平"}, format="json")
    assert response.status_code == 200 and response.json()["city"] == "南平"
    response = api.patch(f"/api/v1/clubs/{club.slug}/", {"slug": "other"}, format="json")
    assert response.status_code == 200 and response.json()["slug"] == club.slug
    response = api.delete(f"/api/v1/clubs/{club.slug}/")
    assert response.status_code == 403
    assert Club.objects.filter(pk=club.pk).exists()


def test_unknown_club_is_json_404(api):
    response = api.get("/api/v1/clubs/no-such-club/")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_join_flow_by_request(api, club, outsider, club_admin):
    api.force_authenticate(outsider)
    response = api.post(f"/api/v1/clubs/{club.slug}/join/", {"message": "hi"}, format="json")
    assert response.status_code == 202
    request_id = response.json()["join_request"]["id"]
    assert response.json()["membership"] is None
    again = api.post(f"/api/v1/clubs/{club.slug}/join/", {}, format="json")
    assert again.status_code == 400 and again.json()["code"] == "request_pending"
    # The requester cannot accept their own request.
    response = api.post(f"/api/v1/join-requests/{request_id}/accept/")
    assert response.status_code == 403
    api.force_authenticate(club_admin)
    listed = api.get("/api/v1/join-requests/", {"status": "pending"}).json()
    assert [r["id"] for r in listed["results"]] == [request_id]
    response = api.post(f"/api/v1/join-requests/{request_id}/accept/")
    assert response.status_code == 200 and response.json()["status"] == "accepted"
    assert selectors.role_of(outsider, club) == Role.MEMBER


def test_join_open_club_returns_membership(api, owner, outsider):
    club = services.create_club(owner, name="Open", join_policy=JoinPolicy.OPEN)
    api.force_authenticate(outsider)
    response = api.post(f"/api/v1/clubs/{club.slug}/join/", {}, format="json")
    assert response.status_code == 201
    assert response.json()["membership"]["role"] == "member"
    response = api.post(f"/api/v1/clubs/{club.slug}/leave/")
    assert response.status_code == 204
    assert selectors.membership_of(outsider, club) is None


def test_join_requests_endpoint(api, club, owner, outsider):
    api.force_authenticate(outsider)
    response = api.post("/api/v1/join-requests/", {"club": "nope"}, format="json")
    assert response.status_code == 400 and "club" in response.json()
    response = api.post("/api/v1/join-requests/", {"club": club.slug}, format="json")
    assert response.status_code == 201
    request_id = response.json()["id"]
    response = api.post(f"/api/v1/join-requests/{request_id}/cancel/")
    assert response.status_code == 200 and response.json()["status"] == "cancelled"
    open_club = services.create_club(owner, name="Open", join_policy=JoinPolicy.OPEN)
    response = api.post("/api/v1/join-requests/", {"club": open_club.slug}, format="json")
    assert response.status_code == 400 and response.json()["code"] == "not_by_request"


def test_join_requests_are_private(api, club, outsider, member):
    join_request = services.join_club(outsider, club)
    api.force_authenticate(member)
    assert api.get("/api/v1/join-requests/").json()["count"] == 0
    assert api.get(f"/api/v1/join-requests/{join_request.pk}/").status_code == 404
    assert api.post(f"/api/v1/join-requests/{join_request.pk}/decline/").status_code == 404
    assert JoinRequest.objects.get(pk=join_request.pk).status == "pending"


def test_memberships_roles_and_removal(api, club, owner, club_admin, member):
    member_membership = selectors.membership_of(member, club)
    response = api.get("/api/v1/memberships/", {"club": club.slug, "role": "admin"})
    assert [m["user"]["username"] for m in response.json()["results"]] == ["admin1"]
    api.force_authenticate(club_admin)
    url = f"/api/v1/memberships/{member_membership.pk}/"
    assert api.patch(url, {"role": "admin"}, format="json").status_code == 403
    api.force_authenticate(owner)
    assert api.patch(url, {"role": "owner"}, format="json").status_code == 400
    response = api.patch(url, {"role": "admin"}, format="json")
    assert response.status_code == 200 and response.json()["role"] == "admin"
    api.force_authenticate(club_admin)
    assert api.delete(url).status_code == 403  # admins remove plain members only
    api.force_authenticate(owner)
    assert api.delete(url).status_code == 204
    assert not Membership.objects.filter(pk=member_membership.pk).exists()


def test_transfer_ownership_api(api, club, owner, member, outsider):
    url = f"/api/v1/clubs/{club.slug}/transfer-ownership/"
    api.force_authenticate(owner)
    assert api.post(url, {"user": 99999}, format="json").status_code == 400
    response = api.post(url, {"user": outsider.pk}, format="json")
    assert response.status_code == 400 and response.json()["code"] == "not_member"
    response = api.post(url, {"user": member.pk}, format="json")
    assert response.status_code == 200 and response.json()["role"] == "owner"
    assert selectors.role_of(owner, club) == Role.ADMIN


def test_invitations_api(api, owner, member, outsider):
    club = services.create_club(owner, name="Closed", join_policy=JoinPolicy.INVITATION)
    api.force_authenticate(member)
    response = api.post("/api/v1/invitations/", {"club": club.slug}, format="json")
    assert response.status_code == 403
    api.force_authenticate(owner)
    response = api.post(
        "/api/v1/invitations/",
        {"club": club.slug, "max_uses": 0, "expires_in_days": 0},
        format="json",
    )
    assert response.status_code == 400
    assert set(response.json()) >= {"max_uses", "expires_in_days"}
    response = api.post("/api/v1/invitations/", {"club": club.slug, "max_uses": 5}, format="json")
    assert response.status_code == 201
    invitation = response.json()
    assert invitation["usable"] is True and invitation["url"].endswith(
        f"/invite/{invitation['token']}/"
    )
    assert api.get("/api/v1/invitations/").json()["count"] == 1
    api.force_authenticate(outsider)
    assert api.get("/api/v1/invitations/").json()["count"] == 0
    response = api.post("/api/v1/invitations/accept/", {"token": "wrong"}, format="json")
    assert response.status_code == 400 and response.json()["code"] == "invitation_unusable"
    response = api.post(
        "/api/v1/invitations/accept/", {"token": invitation["token"]}, format="json"
    )
    assert response.status_code == 201 and response.json()["club"] == club.slug
    api.force_authenticate(owner)
    response = api.post(f"/api/v1/invitations/{invitation['id']}/revoke/")
    assert response.status_code == 200 and response.json()["usable"] is False


def test_me_endpoint(api, member):
    assert api.get("/api/v1/me/").status_code in (401, 403)
    api.force_authenticate(member)
    assert api.get("/api/v1/me/").json()["username"] == "member1"
    response = api.patch("/api/v1/me/", {"time_zone": "Mars/Base"}, format="json")
    assert response.status_code == 400 and "time_zone" in response.json()
    response = api.patch("/api/v1/me/", {"language": "xx"}, format="json")
    assert response.status_code == 400 and "language" in response.json()
    response = api.patch("/api/v1/me/", {"display_name": "小明", "language": "en"}, format="json")
    assert response.status_code == 200
    assert response.json()["name"] == "小明" and response.json()["language"] == "en"


def test_token_authentication(api, member):
    token, key = services.create_api_token(member, "script")
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    response = api.get("/api/v1/me/")
    assert response.status_code == 200 and response.json()["username"] == "member1"
    token.refresh_from_db()
    assert token.last_used_at is not None
    services.revoke_api_token(member, token.pk)
    response = api.get("/api/v1/me/")
    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"
    api.credentials(HTTP_AUTHORIZATION="Token not-a-key")
    assert api.get("/api/v1/clubs/").status_code == 401
    assert not ApiToken.objects.exists()


def test_session_auth_requires_csrf(club, member):
    from rest_framework.test import APIClient

    client = APIClient(enforce_csrf_checks=True)
    client.force_login(member)
    response = client.post(f"/api/v1/clubs/{club.slug}/leave/")
    assert response.status_code == 403
    assert selectors.membership_of(member, club) is not None


def test_club_list_query_count_does_not_grow_with_clubs(api, owner, django_assert_max_num_queries):
    for number in range(30):
        services.create_club(owner, name=f"Club {number}")
    api.force_authenticate(owner)
    with django_assert_max_num_queries(6):
        response = api.get("/api/v1/clubs/")
    assert response.status_code == 200
    assert {c["my_role"] for c in response.json()["results"]} == {"owner"}
