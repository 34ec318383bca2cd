import pytest

from clubs import selectors, services
from clubs.models import (
    ApiToken,
    Club,
    Invitation,
    JoinPolicy,
    JoinRequest,
    JoinRequestStatus,
    Membership,
    Role,
    User,
)


def test_create_club_makes_creator_owner(owner):
    club = services.create_club(owner, name="Fuzhou Guandan", city="福州")
    assert club.slug == "fuzhou-guandan"
    assert selectors.role_of(owner, club) == Role.OWNER
    assert club.join_policy == JoinPolicy.REQUEST


def test_create_club_with_chinese_name_gets_an_ascii_slug(owner):
    club = services.create_club(owner, name="南平保2俱乐部")
    assert club.slug.startswith("club-")
    assert club.name == "南平保2俱乐部"


def test_create_club_slugs_are_unique_and_never_reserved(owner):
    first = services.create_club(owner, name="Same")
    second = services.create_club(owner, name="Same")
    assert first.slug != second.slug
    assert services.create_club(owner, name="New").slug != "new"
    with pytest.raises(services.ClubError) as error:
        services.create_club(owner, name="Other", slug="same")
    assert error.value.code == "slug_taken"


def test_create_club_refuses_empty_name_and_changes_nothing(owner):
    with pytest.raises(services.ClubError) as error:
        services.create_club(owner, name="   ")
    assert error.value.code == "invalid"
    assert Club.objects.count() == 0


def test_join_open_club_makes_member_at_once(owner, outsider):
    club = services.create_club(owner, name="Open", join_policy=JoinPolicy.OPEN)
    membership = services.join_club(outsider, club)
    assert isinstance(membership, Membership)
    assert membership.role == Role.MEMBER
    with pytest.raises(services.ClubError) as error:
        services.join_club(outsider, club)
    assert error.value.code == "already_member"


def test_join_by_request_files_one_pending_request(club, outsider):
    join_request = services.join_club(outsider, club, message="我想参加")
    assert isinstance(join_request, JoinRequest)
    assert join_request.status == JoinRequestStatus.PENDING
    assert selectors.membership_of(outsider, club) is None
    with pytest.raises(services.ClubError) as error:
        services.join_club(outsider, club)
    assert error.value.code == "request_pending"
    assert JoinRequest.objects.filter(user=outsider).count() == 1


def test_invitation_only_club_refuses_join(owner, outsider):
    club = services.create_club(owner, name="Closed", join_policy=JoinPolicy.INVITATION)
    with pytest.raises(services.ClubError) as error:
        services.join_club(outsider, club)
    assert error.value.code == "invitation_required"


def test_admin_accepts_request_and_requester_becomes_member(club, club_admin, outsider):
    join_request = services.join_club(outsider, club)
    membership = services.accept_join_request(club_admin, join_request.pk)
    assert membership.user == outsider and membership.role == Role.MEMBER
    join_request.refresh_from_db()
    assert join_request.status == JoinRequestStatus.ACCEPTED
    assert join_request.decided_by == club_admin
    with pytest.raises(services.ClubError) as error:
        services.decline_join_request(club_admin, join_request.pk)
    assert error.value.code == "request_not_pending"


def test_plain_member_cannot_decide_requests(club, member, outsider):
    join_request = services.join_club(outsider, club)
    with pytest.raises(services.NotAllowed):
        services.accept_join_request(member, join_request.pk)
    with pytest.raises(services.NotAllowed):
        services.decline_join_request(outsider, join_request.pk)
    join_request.refresh_from_db()
    assert join_request.status == JoinRequestStatus.PENDING


def test_decline_and_cancel(club, owner, outsider):
    first = services.join_club(outsider, club)
    services.decline_join_request(owner, first.pk)
    assert selectors.membership_of(outsider, club) is None
    second = services.join_club(outsider, club)
    with pytest.raises(services.NotAllowed):
        services.cancel_join_request(owner, second.pk)
    services.cancel_join_request(outsider, second.pk)
    second.refresh_from_db()
    assert second.status == JoinRequestStatus.CANCELLED


def test_unknown_join_request_is_not_found(club, owner):
    with pytest.raises(services.NotFound):
        services.accept_join_request(owner, 999999)


def test_invitation_link_admits_until_used_up(owner, outsider, member):
    club = services.create_club(owner, name="Closed", join_policy=JoinPolicy.INVITATION)
    invitation = services.create_invitation(owner, club, max_uses=1, expires_in_days=7)
    services.accept_invitation(outsider, invitation.token)
    assert selectors.role_of(outsider, club) == Role.MEMBER
    invitation.refresh_from_db()
    assert invitation.uses == 1
    with pytest.raises(services.ClubError) as error:
        services.accept_invitation(member, invitation.token)
    assert error.value.code == "invitation_unusable"
    assert selectors.membership_of(member, club) is None


def test_invitation_accept_closes_a_pending_request(club, owner, outsider):
    services.join_club(outsider, club)
    invitation = services.create_invitation(owner, club)
    services.accept_invitation(outsider, invitation.token)
    assert selectors.pending_request_of(outsider, club) is None


def test_revoked_and_unknown_invitations_are_refused(club, owner, outsider):
    invitation = services.create_invitation(owner, club, expires_in_days=None)
    assert invitation.expires_at is None
    services.revoke_invitation(owner, invitation)
    for token in (invitation.token, "no-such-token"):
        with pytest.raises(services.ClubError) as error:
            services.accept_invitation(outsider, token)
        assert error.value.code == "invitation_unusable"


def test_invitation_creation_rules(club, member, owner):
    with pytest.raises(services.NotAllowed):
        services.create_invitation(member, club)
    with pytest.raises(services.ClubError):
        services.create_invitation(owner, club, max_uses=0)
    with pytest.raises(services.ClubError):
        services.create_invitation(owner, club, expires_in_days=400)
    assert Invitation.objects.count() == 0


def test_leave_club_and_owner_cannot_leave(club, owner, member, outsider):
    services.leave_club(member, club)
    assert selectors.membership_of(member, club) is None
    with pytest.raises(services.ClubError) as error:
        services.leave_club(owner, club)
    assert error.value.code == "owner_cannot_leave"
    with pytest.raises(services.ClubError) as error:
        services.leave_club(outsider, club)
    assert error.value.code == "not_member"


def test_remove_member_rules(club, owner, club_admin, member):
    owner_membership = selectors.membership_of(owner, club)
    admin_membership = selectors.membership_of(club_admin, club)
    member_membership = selectors.membership_of(member, club)
    with pytest.raises(services.NotAllowed):
        services.remove_member(club_admin, admin_membership)  # not oneself
    with pytest.raises(services.NotAllowed):
        services.remove_member(club_admin, owner_membership)
    with pytest.raises(services.NotAllowed):
        services.remove_member(member, admin_membership)
    services.remove_member(club_admin, member_membership)
    assert selectors.membership_of(member, club) is None
    services.remove_member(owner, admin_membership)
    assert list(club.memberships.values_list("user__username", flat=True)) == ["owner"]


def test_change_role_is_for_the_owner_only(club, owner, club_admin, member):
    membership = selectors.membership_of(member, club)
    with pytest.raises(services.NotAllowed):
        services.change_role(club_admin, membership, Role.ADMIN)
    services.change_role(owner, membership, Role.ADMIN)
    assert selectors.role_of(member, club) == Role.ADMIN
    with pytest.raises(services.ClubError) as error:
        services.change_role(owner, membership, Role.OWNER)
    assert error.value.code == "invalid_role"


def test_transfer_ownership(club, owner, member, outsider):
    with pytest.raises(services.NotAllowed):
        services.transfer_ownership(member, club, member)
    with pytest.raises(services.ClubError) as error:
        services.transfer_ownership(owner, club, outsider)
    assert error.value.code == "not_member"
    services.transfer_ownership(owner, club, member)
    assert selectors.role_of(member, club) == Role.OWNER
    assert selectors.role_of(owner, club) == Role.ADMIN
    assert selectors.club_owner(club) == member
    services.leave_club(owner, club)  # the former owner may now leave


def test_update_and_delete_club(club, owner, club_admin, member):
    services.update_club(club_admin, club, description="每周六下午", join_policy="open")
    club.refresh_from_db()
    assert club.description == "每周六下午" and club.join_policy == "open"
    with pytest.raises(services.NotAllowed):
        services.update_club(member, club, name="Hijacked")
    with pytest.raises(services.ClubError):
        services.update_club(owner, club, join_policy="nonsense")
    club.refresh_from_db()
    assert club.join_policy == "open" and club.name == "Nanping Bao 2"
    with pytest.raises(services.NotAllowed):
        services.delete_club(club_admin, club)
    services.delete_club(owner, club)
    assert not Club.objects.exists() and not Membership.objects.exists()


def test_sign_up_validates_and_creates(db):
    user = services.sign_up(username="newbie", password="Long-enough-9", language="en")
    assert user.check_password("Long-enough-9") and user.language == "en"
    with pytest.raises(services.ClubError):
        services.sign_up(username="newbie", password="Long-enough-9")
    with pytest.raises(services.ClubError):
        services.sign_up(username="weak", password="123")
    assert User.objects.filter(username="weak").count() == 0


def test_profile_update_refuses_bad_zone_and_keeps_old_values(member):
    services.update_profile(member, display_name=" 小明 ", language="en", time_zone="Europe/Paris")
    member.refresh_from_db()
    assert (member.display_name, member.language, member.time_zone) == (
        "小明",
        "en",
        "Europe/Paris",
    )
    with pytest.raises(services.ClubError):
        services.update_profile(member, time_zone="Nowhere/Land")
    with pytest.raises(services.ClubError):
        services.update_profile(member, language="fr")
    member.refresh_from_db()
    assert member.time_zone == "Europe/Paris" and member.language == "en"


def test_api_tokens_create_and_revoke(member, outsider):
    token, key = services.create_api_token(member, "phone")
    assert token.prefix == key[:8]
    assert ApiToken.objects.get(digest=ApiToken.digest_of(key)) == token
    with pytest.raises(services.NotFound):
        services.revoke_api_token(outsider, token.pk)
    services.revoke_api_token(member, token.pk)
    assert not ApiToken.objects.exists()
    with pytest.raises(services.ClubError):
        services.create_api_token(member, "  ")


def test_request_to_join_only_for_clubs_that_take_requests(club, owner, outsider):
    join_request = services.request_to_join(outsider, club, message="hi")
    assert join_request.status == JoinRequestStatus.PENDING
    open_club = services.create_club(owner, name="Open", join_policy=JoinPolicy.OPEN)
    with pytest.raises(services.ClubError) as error:
        services.request_to_join(outsider, open_club)
    assert error.value.code == "not_by_request"
    assert selectors.membership_of(outsider, open_club) is None
