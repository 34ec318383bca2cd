import pytest

from clubs import services
from clubs.models import JoinPolicy, Membership, Role, User


def make_user(username, **extra):
    return User.objects.create_user(username=username, password="pw-Secret-123", **extra)


@pytest.fixture
def owner(db):
    return make_user("owner", display_name="老王")


@pytest.fixture
def club_admin(db):
    return make_user("admin1")


@pytest.fixture
def member(db):
    return make_user("member1")


@pytest.fixture
def outsider(db):
    return make_user("outsider")


@pytest.fixture
def club(owner, club_admin, member):
    club = services.create_club(owner, name="Nanping Bao 2", join_policy=JoinPolicy.REQUEST)
    Membership.objects.create(club=club, user=club_admin, role=Role.ADMIN)
    Membership.objects.create(club=club, user=member, role=Role.MEMBER)
    return club


@pytest.fixture
def api(db):
    from rest_framework.test import APIClient

    return APIClient()
