"""Regressions for the 500s found by schemathesis against the API on PostgreSQL.

Each test names the request schemathesis generated; all are database tests, so ``./test`` also
runs them against the throwaway PostgreSQL.
"""

import pytest
from rest_framework.test import APIClient

from clubs import services
from clubs.models import Club, JoinPolicy, JoinRequestStatus, User


@pytest.fixture
def setup(db):
    owner = User.objects.create_user(username="fuzz-owner", password="pw-Secret-123")
    player = User.objects.create_user(username="fuzz-player", password="pw-Secret-123")
    club = services.create_club(owner, name="Fuzz club", join_policy=JoinPolicy.REQUEST)
    join_request = services.request_to_join(player, club, message="hi")
    return owner, player, club, join_request


def client_for(user):
    api = APIClient()
    api.force_authenticate(user)
    return api


@pytest.mark.parametrize("action", ["accept", "decline", "cancel"])
@pytest.mark.parametrize("bad_id", ["null", "null,null", "false", "AAA", "×Z]©2"])
def test_join_request_actions_with_a_non_numeric_id_answer_404(setup, action, bad_id):
    owner, player, _club, join_request = setup
    user = player if action == "cancel" else owner
    response = client_for(user).post(f"/api/v1/join-requests/{bad_id}/{action}/", {})
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    join_request.refresh_from_db()
    assert join_request.status == JoinRequestStatus.PENDING


def test_join_request_actions_still_work_with_a_real_id(setup):
    owner, player, club, join_request = setup
    response = client_for(owner).post(f"/api/v1/join-requests/{join_request.pk}/accept/", {})
    assert response.status_code == 200
    assert club.memberships.filter(user=player).exists()


def test_multipart_body_without_a_boundary_is_a_400(setup):
    owner, *_ = setup
    api = client_for(owner)
    response = api.generic("POST", "/api/v1/clubs/", b"name=x", content_type="multipart/form-data")
    assert response.status_code == 400
    assert response.json()["code"] == "bad_request"
    assert Club.objects.count() == 1


@pytest.mark.django_db
def test_multipart_page_post_without_a_boundary_is_a_400(client):
    response = client.generic(
        "POST", "/accounts/login/", b"username=x", content_type="multipart/form-data"
    )
    assert response.status_code == 400
