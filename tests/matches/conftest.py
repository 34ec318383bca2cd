"""Fixtures of the live-play tests.

Every match a test plays is checked when the test ends: replaying its event log through the
engine rebuilds exactly the stored snapshot and the state the server held, and the event seqs
are 1..version with no gap.
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from channels.layers import channel_layers
from matchkit import assert_replays, make_user  # noqa: E402

from clubs import services as club_services
from clubs.models import Membership, Role
from matches import schedule, store
from matches.models import Match


@pytest.fixture(autouse=True)
def replay_check(request):
    """After each database test: every match in the database replays to its snapshot."""
    used = {"db", "transactional_db"} & set(request.fixturenames)
    for name in used:
        request.getfixturevalue(name)  # set up first, so torn down after this check
    yield
    if not used:
        return
    for match in Match.objects.all():
        assert_replays(match)


@pytest.fixture
def scheduled(monkeypatch):
    """Record the deadline / time-limit tasks instead of queueing them (tests drive the clock
    themselves with clock.act_on_deadline)."""
    calls = []
    monkeypatch.setattr(schedule, "schedule_deadline", lambda *a: calls.append(("deadline", *a)))
    monkeypatch.setattr(schedule, "schedule_time_limit", lambda *a: calls.append(("limit", *a)))
    store._engines.clear()
    return calls


@pytest.fixture
def players(transactional_db):
    return [make_user(f"p{i}", display_name=f"玩家{i}") for i in range(4)]


@pytest.fixture
def club(players):
    club = club_services.create_club(players[0], name="Nanping Bao 2")
    for user in players[1:]:
        Membership.objects.create(club=club, user=user, role=Role.MEMBER)
    return club


@pytest.fixture
def fresh_layer():
    """A channel layer of this test's own: the Redis layer's receive lock belongs to the event
    loop of the test that used it first, and several sockets contend for it."""
    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def fresh_websocket_limits():
    """Each test starts with no websocket frames or connections counted (matches.limits):
    user ids repeat between tests, and the counters live in the one Redis of the run."""
    client = schedule._client()
    for key in client.scan_iter(match="*:ws:*"):
        client.delete(key)
