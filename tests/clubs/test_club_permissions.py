"""The web and the API enforce the same permissions, because both go through services."""

import pytest

from clubs import permissions, selectors
from clubs.models import Role


@pytest.mark.parametrize(
    ("who", "can_edit", "can_delete", "can_transfer"),
    [
        ("owner", True, True, True),
        ("club_admin", True, False, False),
        ("member", False, False, False),
        ("outsider", False, False, False),
    ],
)
def test_club_level_permissions(request, club, who, can_edit, can_delete, can_transfer):
    user = request.getfixturevalue(who)
    assert permissions.can_edit_club(user, club) is can_edit
    assert permissions.can_manage_invitations(user, club) is can_edit
    assert permissions.can_delete_club(user, club) is can_delete
    assert permissions.can_transfer_ownership(user, club) is can_transfer


def test_anonymous_user_has_no_rights(club):
    from django.contrib.auth.models import AnonymousUser

    anonymous = AnonymousUser()
    assert not permissions.can_edit_club(anonymous, club)
    assert not permissions.is_club_admin(None, club)


def test_member_removal_matrix(club, owner, club_admin, member):
    owner_m = selectors.membership_of(owner, club)
    admin_m = selectors.membership_of(club_admin, club)
    member_m = selectors.membership_of(member, club)
    assert permissions.can_remove_member(owner, admin_m)
    assert permissions.can_remove_member(owner, member_m)
    assert not permissions.can_remove_member(owner, owner_m)
    assert permissions.can_remove_member(club_admin, member_m)
    assert not permissions.can_remove_member(club_admin, admin_m)
    assert not permissions.can_remove_member(club_admin, owner_m)
    assert not permissions.can_remove_member(member, member_m)
    assert permissions.can_change_role(owner, member_m, Role.ADMIN)
    assert not permissions.can_change_role(owner, owner_m, Role.MEMBER)
    assert not permissions.can_change_role(club_admin, member_m, Role.ADMIN)


@pytest.mark.parametrize("who", ["member", "outsider"])
def test_same_refusal_on_web_and_api(request, club, who):
    from rest_framework.test import APIClient

    user = request.getfixturevalue(who)
    web = request.getfixturevalue("client")
    web.force_login(user)
    api = APIClient()
    api.force_authenticate(user)
    assert web.get(f"/clubs/{club.slug}/edit/").status_code == 403
    assert api.patch(f"/api/v1/clubs/{club.slug}/", {"city": "x"}, format="json").status_code == 403
    response = api.post("/api/v1/invitations/", {"club": club.slug}, format="json")
    assert response.status_code == 403
    web.post(f"/clubs/{club.slug}/invitations/", {"expires_in_days": 3})
    assert not club.invitations.exists()
