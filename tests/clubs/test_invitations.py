"""The one rule of an event held by one club for others (clubs.invitations): the host club
plus the clubs it invited take part — read alike by a tournament open to several clubs and by
an inter-club league (a league that is not inter-club ignores its invitations)."""

import pytest

from clubs import invitations
from clubs.models import Club, Membership, Role, User
from leagues.models import League
from leagues.permissions import may_enter
from tests.tournaments.test_tournament_services import make_tournament
from tournaments.services import eligibility

pytestmark = pytest.mark.django_db


def test_the_host_and_the_invited_clubs_take_part_in_tournaments_and_leagues_alike():
    host = Club.objects.create(name="南通", slug="nt")
    invited = Club.objects.create(name="无锡", slug="wx")
    also = Club.objects.create(name="常州", slug="cz")
    other = Club.objects.create(name="扬州", slug="yz")
    owner = User.objects.create_user("owner")
    Membership.objects.create(club=host, user=owner, role=Role.OWNER)
    t = make_tournament(host, owner)
    league = League.objects.create(host=host, name="苏南联赛", inter_club=True)
    for event in (t, league):
        event.invited_clubs.add(invited, also)
    for club, expected in ((host, True), (invited, True), (also, True), (other, False)):
        assert (
            invitations.takes_part(club, host.pk, Club.objects.filter(pk__in=[invited.pk, also.pk]))
            is expected
        )
        assert eligibility.may_enter_for(t, club) is expected, club
        assert may_enter(club, league) is expected, club
    # the host first, then the invited clubs by name
    assert eligibility.entering_clubs(t) == [host, *sorted([invited, also], key=lambda c: c.name)]
    # a league that is not inter-club: only the host, whatever it invited before
    league.inter_club = False
    league.save()
    assert may_enter(host, league) and not may_enter(invited, league)
