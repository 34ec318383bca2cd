"""The websocket limits per address use the HTTP side's client address (issue 20, item 1).

A client writes its own ``X-Forwarded-For``: without ``TRUSTED_PROXIES`` a socket's address is
its peer address whatever the header says, so rotating the header does not dodge the limit of
new connections per address; with one trusted proxy the proxy's entry is the address. Through
the real ASGI application and the Redis counters of :mod:`matches.limits`.
"""

import time

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from matchkit import make_user

from clubs import services as club_services
from config.asgi import application
from matches import limits
from matches.services import tables

pytestmark = pytest.mark.integration

LIMIT = 3


@pytest.fixture
def table(transactional_db, settings):
    settings.MATCHES_WS_CONNECTS_PER_MINUTE = LIMIT
    opener = make_user("opener")
    club = club_services.create_club(opener, name="Nanping Bao 2")
    # the counters are per minute: start well inside one
    if time.time() % 60 > 50:
        time.sleep(61 - time.time() % 60)
    return tables.open_table(opener, club, variant="bao2")


def socket(table_id, peer, forwarded=None):
    headers = [(b"origin", b"http://testserver")]
    if forwarded is not None:
        headers.append((b"x-forwarded-for", forwarded.encode()))
    comm = WebsocketCommunicator(application, f"/ws/tables/{table_id}/", headers=headers)
    comm.scope["client"] = (peer, 40000)  # read when the application first runs
    return comm


def handshakes(table_id, peer, forwarded):
    """Whether each handshake was accepted (the anonymous socket is then told to sign in and
    closed; a refused one never opened)."""

    async def scenario():
        out = []
        for value in forwarded:
            comm = socket(table_id, peer, value)
            connected, _ = await comm.connect()
            out.append(connected)
            await comm.disconnect()
        return out

    return async_to_sync(scenario)()


def test_a_spoofed_forwarded_for_does_not_dodge_the_limit_per_address(table):
    spoofed = [f"10.9.{n}.{n}" for n in range(LIMIT + 2)]
    assert handshakes(table.pk, "198.51.100.7", spoofed) == [True] * LIMIT + [False, False]
    # another peer address has its own count
    assert handshakes(table.pk, "198.51.100.8", [None]) == [True]
    scope = {"client": ("198.51.100.7", 1), "headers": [(b"x-forwarded-for", b"10.9.9.9")]}
    assert limits.identity(scope).address == "198.51.100.7"


def test_with_a_trusted_proxy_the_forwarded_address_counts(table, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    proxy = "127.0.0.1"
    # different clients behind the one proxy: each has its own count
    clients = [f"203.0.113.{n}" for n in range(1, LIMIT + 3)]
    assert handshakes(table.pk, proxy, clients) == [True] * len(clients)
    # one client, whatever it writes to the left of the proxy's entry, is counted once
    same = [f"10.0.0.{n}, 203.0.113.99" for n in range(LIMIT + 1)]
    assert handshakes(table.pk, proxy, same) == [True] * LIMIT + [False]
    scope = {"client": (proxy, 1), "headers": [(b"x-forwarded-for", b"10.9.9.9, 203.0.113.5")]}
    assert limits.identity(scope).address == "203.0.113.5"
