"""A property of the tallies: whatever matches people play, with whomever, rated or casual, in
whichever period, a player's per-partnership tallies add up to their totals (matches without a
fixed partner — Red Two, Shuangkou — in the partnership "nobody"), and their head-to-head
tallies count each match once per opponent."""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kit import engine_match, store_match

from clubs.models import Club, Membership, Role, User
from games.variants import game
from matches.models import Table
from records import services
from records.models import MatchRecord, Tally

pytestmark = pytest.mark.django_db

POOL = [
    engine_match("bao2", 3, 2),
    engine_match("guandan", 2, 2),
    engine_match("guandan", 1, 2),
    engine_match("honger", 13, 0, {"deals": 2}, choices=["solo", "compare"]),
    engine_match("shuangkou2", 1, 0, {"deals": 2}),
]

played = st.lists(
    st.tuples(
        st.integers(0, len(POOL) - 1),
        st.permutations(range(6)),
        st.booleans(),
        st.sampled_from([0, 40, 400]),
    ),
    min_size=1,
    max_size=6,
)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(played=played)
def test_partnership_sums_equal_the_totals(played):
    Tally.objects.all().delete()
    MatchRecord.objects.all().delete()
    Table.objects.all().delete()
    club = Club.objects.get_or_create(slug="prop", defaults={"name": "性质俱乐部"})[0]
    people = []
    for i in range(6):
        user = User.objects.get_or_create(username=f"prop{i}", defaults={"email": f"p{i}@x.cn"})[0]
        Membership.objects.get_or_create(club=club, user=user, defaults={"role": Role.MEMBER})
        people.append(user)
    now = timezone.now()
    for index, order, rated, days in played:
        engine = POOL[index]
        seats = [people[k] for k in order[: engine.rules.seats]]
        match = store_match(engine, club, seats, rated=rated, ended_at=now - timedelta(days=days))
        assert services.record_live_match(match.pk)
    totals = defaultdict(lambda: defaultdict(int))
    partners = defaultdict(lambda: defaultdict(int))
    opponents = defaultdict(int)
    for t in Tally.objects.all():
        key = (t.user_id, t.variant, t.rated, t.period)
        target = {"total": totals, "partner": partners}.get(t.kind)
        if target is None:
            opponents[key] += t.counters.get("matches", 0)
            continue
        for name, value in t.counters.items():
            target[key][name] += value
    assert totals and set(totals) == set(partners)
    for key, sums in totals.items():
        assert dict(partners[key]) == dict(sums), key
        seats = next(e.rules.seats for e in POOL if e.variant == key[1])
        # fixed partners: the two other seats are the opponents; else every other seat
        per_match = 2 if game(key[1]).fixed_sides and seats == 4 else seats - 1
        assert opponents[key] == sums["matches"] * per_match, key
