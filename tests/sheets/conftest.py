"""Fixtures of the score-sheet tests that play with the live-play tests' people and club."""

import pytest
from matchkit import make_user

from clubs import services as club_services
from clubs.models import Membership, Role


@pytest.fixture
def players(transactional_db):
    return [make_user(f"p{i}", display_name=f"玩家{i}") for i in range(4)]


@pytest.fixture
def club(players):
    club = club_services.create_club(players[0], name="Nanping Bao 2")
    for user in players[1:]:
        Membership.objects.create(club=club, user=user, role=Role.MEMBER)
    return club
