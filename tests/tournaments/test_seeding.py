"""Seeding (issue 22): by the club ladder's rating (unrated last), editable by the organiser
before round 1; round 1 of a knockout pairs in that order."""

from datetime import timedelta

import pytest

from ladder.models import Ladder, Rating
from tests.tournaments.test_tournament_services import START, make_tournament
from tournaments.services import entries as entry_services
from tournaments.services import rounds as round_services
from tournaments.services import setup as setup_services
from tournaments.services.errors import NotAllowed, TournamentError

pytestmark = pytest.mark.django_db


def test_seeds_follow_the_club_rating_and_the_organiser_moves_one(club, club_admin, members):
    people = members(8)
    ladder = Ladder.objects.create(club=club, variant="bao2")
    # pairs: (0,1) mean 1500, (2,3) mean 1700, (4,5) one unrated, (6,7) mean 1600
    for person, value in zip(
        [people[i] for i in (0, 1, 2, 3, 4, 6, 7)],
        (1450, 1550, 1650, 1750, 1900, 1600, 1600),
        strict=True,
    ):
        Rating.objects.create(ladder=ladder, user=person, rating=value, matches=3)
    t = make_tournament(club, club_admin, format="elimination", checkin_required=False)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    entries = [
        entry_services.register(club_admin, t, player=a, partner=b, now=START - timedelta(hours=1))
        for a, b in zip(people[0::2], people[1::2], strict=True)
    ]
    with pytest.raises(NotAllowed):
        entry_services.seed_by_rating(people[0], t)
    order = entry_services.seed_by_rating(club_admin, t)
    assert [e.pk for e in order] == [entries[i].pk for i in (1, 3, 0, 2)]
    assert [e.seed for e in order] == [1, 2, 3, 4]

    moved = entry_services.set_seed(club_admin, t, entries[2], 1)
    assert [e.pk for e in moved] == [entries[i].pk for i in (2, 1, 3, 0)]
    with pytest.raises(TournamentError):
        entry_services.set_seed(club_admin, t, entries[2], 10**9)

    rnd = round_services.pair_next_round(club_admin, t, now=START)
    games = sorted(rnd.games.all(), key=lambda g: g.slot)
    # 1 v 4 and 2 v 3 in bracket order
    assert {tuple(sorted(g.side0 + g.side1)) for g in games} == {
        tuple(sorted((entries[2].pk, entries[0].pk))),
        tuple(sorted((entries[1].pk, entries[3].pk))),
    }
    with pytest.raises(TournamentError) as refused:
        entry_services.seed_by_rating(club_admin, t)
    assert refused.value.code == "seeded"
