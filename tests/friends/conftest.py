"""Fixtures of the friends' tables tests: people, the clock's tasks recorded instead of
queued, the code look-up counters cleared."""

import pytest
from django.core.cache import cache
from matchkit import make_user

from matches import schedule, store


@pytest.fixture
def scheduled(monkeypatch):
    calls = []
    monkeypatch.setattr(schedule, "schedule_deadline", lambda *a: calls.append(("deadline", *a)))
    monkeypatch.setattr(schedule, "schedule_time_limit", lambda *a: calls.append(("limit", *a)))
    store._engines.clear()
    return calls


@pytest.fixture(autouse=True)
def counters():
    """Each test starts with no code look-ups counted."""
    client = cache._cache.get_client()
    for key in client.scan_iter(match="*friends:code:*"):
        client.delete(key)
    yield


@pytest.fixture
def people(transactional_db, scheduled):
    """A host and three friends (display names in Chinese) and a guest."""
    host = make_user("host", display_name="老张")
    friends = [make_user(f"f{i}", display_name=f"朋友{i}") for i in range(1, 4)]
    guest = make_user("guest-abc", is_guest=True)
    return {"host": host, "friends": friends, "guest": guest}


@pytest.fixture(autouse=True)
def fresh_layer_and_socket_limits():
    """A channel layer of this test's own (its receive lock belongs to one event loop) and no
    websocket frames or connections counted (matches.limits): user ids repeat between tests."""
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    client = schedule._client()
    for key in client.scan_iter(match="*:ws:*"):
        client.delete(key)
    yield
    channel_layers.backends.clear()
