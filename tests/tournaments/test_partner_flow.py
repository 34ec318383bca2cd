"""The one partner-invitation flow (clubs.partners) as tournaments use it: an answer to an
invitation removed meanwhile is refused with ``no_invitation``, never a server error."""

from datetime import timedelta

import pytest

from tests.tournaments.test_tournament_services import START, make_tournament
from tournaments.services import entries as entry_services
from tournaments.services import setup as setup_services
from tournaments.services.errors import TournamentError

pytestmark = pytest.mark.django_db


def test_a_tournament_answer_to_a_removed_invitation_is_refused(club, club_admin, members):
    t = make_tournament(club, club_admin, checkin_required=False)
    setup_services.publish(club_admin, t, now=START - timedelta(days=10))
    t.refresh_from_db()
    a, b = members(2)
    early = START - timedelta(hours=3)
    stale = entry_services.register(a, t, partner=b, now=early)
    entry_services.withdraw(a, t, stale)
    with pytest.raises(TournamentError) as error:
        entry_services.answer_invitation(b, t, accept=True, entry=stale, now=early)
    assert error.value.code == "no_invitation"
