import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from clubs.models import ApiToken, Club, Invitation, Membership, Role, User


@pytest.mark.django_db
def test_user_name_prefers_display_name():
    user = User.objects.create_user("zhang", password="x")
    assert user.name == "zhang"
    user.display_name = "张三"
    assert user.name == "张三"
    assert str(user) == "张三"


@pytest.mark.django_db
def test_user_defaults_to_chinese_and_shanghai_and_rejects_unknown_zone():
    user = User.objects.create_user("li", password="x")
    assert user.language == "zh-hans"
    assert user.time_zone == "Asia/Shanghai"
    user.time_zone = "Mars/Olympus"
    with pytest.raises(ValidationError):
        user.full_clean()


@pytest.mark.django_db
def test_one_owner_per_club_is_enforced_by_the_database():
    club = Club.objects.create(name="A", slug="a")
    first = User.objects.create_user("u1", password="x")
    second = User.objects.create_user("u2", password="x")
    Membership.objects.create(club=club, user=first, role=Role.OWNER)
    with pytest.raises(IntegrityError), transaction.atomic():
        Membership.objects.create(club=club, user=second, role=Role.OWNER)
    with pytest.raises(IntegrityError), transaction.atomic():
        Membership.objects.create(club=club, user=first, role=Role.MEMBER)


@pytest.mark.django_db
def test_invitation_usability():
    club = Club.objects.create(name="A", slug="a")
    invitation = Invitation(club=club, token="t", max_uses=2, uses=1)
    assert invitation.is_usable
    invitation.uses = 2
    assert not invitation.is_usable
    invitation.uses = 0
    invitation.expires_at = timezone.now() - timezone.timedelta(seconds=1)
    assert not invitation.is_usable
    invitation.expires_at = None
    invitation.revoked = True
    assert not invitation.is_usable


def test_api_token_digest_is_sha256_and_keys_are_random():
    first, second = ApiToken.new_key(), ApiToken.new_key()
    assert first != second and len(first) == 40
    assert len(ApiToken.digest_of(first)) == 64
    assert ApiToken.digest_of(first) == ApiToken.digest_of(first)
