"""The one partner-invitation flow (clubs.partners) as tournaments and leagues use it: an
answer to an invitation removed meanwhile (declined, withdrawn, lapsed) is refused with
``no_invitation`` in both, never a server error."""

import pytest

from leagues.services import entries
from leagues.services.errors import LeagueError

pytestmark = pytest.mark.django_db


def test_a_league_answer_to_a_removed_invitation_is_refused(world):
    season = world.season(entry_kind="pair")
    a, b = world.member(world.host), world.member(world.host)
    stale = entries.enter_players(a, season, world.host, players=[a, b])
    entries.withdraw(a, stale)  # the player who asked withdraws it
    with pytest.raises(LeagueError) as error:
        entries.answer_invitation(b, stale, accept=True)
    assert error.value.code == "no_invitation"
