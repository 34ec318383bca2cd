from datetime import timedelta

import pytest
from django.utils import timezone

from clubs.models import Club, Membership, Role, User
from ladder import services


@pytest.fixture
def make_users(db):
    def make(n, prefix="p", **extra):
        start = User.objects.count()
        return [
            User.objects.create_user(
                username=f"{prefix}{start + i}", email=f"{prefix}{start + i}@example.com", **extra
            )
            for i in range(n)
        ]

    return make


@pytest.fixture
def club(db):
    return Club.objects.create(name="南通保二俱乐部", slug="nantong")


@pytest.fixture
def members(club, make_users):
    """``members(n)``: n new members of ``club``."""

    def make(n):
        users = make_users(n)
        Membership.objects.bulk_create(
            Membership(club=club, user=u, role=Role.MEMBER) for u in users
        )
        return users

    return make


@pytest.fixture
def club_admin(club, make_users):
    (admin,) = make_users(1, prefix="admin")
    Membership.objects.create(club=club, user=admin, role=Role.OWNER)
    return admin


@pytest.fixture
def record(db):
    """Record a rated result without queuing the Celery task; ended_at counts minutes from a
    fixed start so tests control the order."""
    base = timezone.now() - timedelta(days=3)
    counter = {"n": 0}

    def make(sides, scores, *, minute=None, variant="bao2", club=None, source_id=None):
        counter["n"] += 1
        return services.record_result(
            source="live",
            source_id=source_id or f"m{counter['n']}",
            variant=variant,
            sides=[[u.pk for u in side] for side in sides],
            scores=scores,
            ended_at=base + timedelta(minutes=counter["n"] if minute is None else minute),
            club_id=club.pk if club else None,
            enqueue=False,
        )

    return make
