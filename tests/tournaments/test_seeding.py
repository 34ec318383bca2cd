"""Seeding (issue 22): by the club ladder's rating (unrated last), editable by the organiser
before round 1; round 1 of a knockout pairs in that order."""

from datetime import timedelta

import pytest
from rest_framework.test import APIClient

from ladder.models import Ladder, Rating
from tests.tournaments.test_tournament_services import START, make_tournament
from tournaments.services import entries as entry_services
from tournaments.services import rounds as round_services
from tournaments.services import setup as setup_services
from tournaments.services.errors import NotAllowed, TournamentError

pytestmark = pytest.mark.django_db


def knockout_of_pairs(club, club_admin, people, ratings):
    """A published knockout of pairs (people two by two), each person rated as ``ratings``
    says (None: unrated) on the club's Bao 2 ladder; returns it and its entries."""
    ladder = Ladder.objects.create(club=club, variant="bao2")
    for person, value in zip(people, ratings, strict=True):
        if value is not None:
            Rating.objects.create(ladder=ladder, user=person, rating=value, matches=3)
    t = make_tournament(club, club_admin, format="elimination", checkin_required=False)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    entries = [
        entry_services.register(club_admin, t, player=a, partner=b, now=START - timedelta(hours=1))
        for a, b in zip(people[0::2], people[1::2], strict=True)
    ]
    return t, entries


def test_seeds_follow_the_club_rating_and_the_organiser_moves_one(club, club_admin, members):
    people = members(8)
    # pairs: (0,1) mean 1500, (2,3) mean 1700, (4,5) one unrated, (6,7) mean 1600
    ratings = (1450, 1550, 1650, 1750, 1900, None, 1600, 1600)
    t, entries = knockout_of_pairs(club, club_admin, people, ratings)
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


def test_organisers_seed_and_reinstate_through_the_api(club, club_admin, members):
    people = members(6)
    ratings = (1400, 1400, 1800, 1800, 1600, 1600)
    t, entries = knockout_of_pairs(club, club_admin, people, ratings)
    admin, player = APIClient(), APIClient()
    admin.force_authenticate(club_admin)
    player.force_authenticate(people[0])
    base = f"/api/v1/tournaments/{t.pk}"

    assert player.post(f"{base}/seed-by-rating/").status_code == 403
    seeded = admin.post(f"{base}/seed-by-rating/")
    assert seeded.status_code == 200
    assert [e["id"] for e in seeded.json()] == [entries[i].pk for i in (1, 2, 0)]
    assert [e["seed"] for e in seeded.json()] == [1, 2, 3]

    moved = admin.post(f"{base}/set-seed/", {"entry": entries[0].pk, "seed": 1}, format="json")
    assert moved.status_code == 200
    assert [e["id"] for e in moved.json()] == [entries[i].pk for i in (0, 1, 2)]
    # bad input: a clear error, nothing changed
    for bad in ({"entry": entries[0].pk, "seed": 4}, {"entry": 10**6, "seed": 1}, {"seed": 1}):
        refused = admin.post(f"{base}/set-seed/", bad, format="json")
        assert refused.status_code == 400, bad
    assert player.post(f"{base}/set-seed/", {"entry": entries[2].pk, "seed": 1}).status_code == 403
    assert list(t.entries.order_by("seed").values_list("pk", flat=True)) == [
        entries[i].pk for i in (0, 1, 2)
    ]

    entry_services.withdraw(club_admin, t, entries[2])
    assert player.post(f"{base}/reinstate/", {"entry": entries[2].pk}).status_code == 403
    assert admin.post(f"{base}/reinstate/", {}).status_code == 400
    back = admin.post(f"{base}/reinstate/", {"entry": entries[2].pk})
    assert back.status_code == 200 and back.json()["status"] == "registered"
