"""Client addresses come from the configured proxy chain only (issue 20, item 1).

A client writes its own ``X-Forwarded-For``: without ``TRUSTED_PROXIES`` it must change nothing
(login lock-out, API throttles); with it, the proxies' entry is used and the client's own
entries to its left are not.
"""

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.test import RequestFactory, override_settings
from rest_framework.test import APIClient

from clubs.client_ip import client_ip
from clubs.models import User
from config.throttling import AnonRateThrottle

pytestmark = pytest.mark.django_db

PASSWORD = "Right-password-1"
TOKEN_URL = "/api/v1/auth/token/"


@pytest.fixture
def player(db):
    return User.objects.create_user("player", password=PASSWORD)


def sign_in(client, password, xff=None, remote="127.0.0.1"):
    extra = {"REMOTE_ADDR": remote}
    if xff is not None:
        extra["HTTP_X_FORWARDED_FOR"] = xff
    return client.post(
        TOKEN_URL, {"username": "player", "password": password}, format="json", **extra
    )


def test_a_locked_account_stays_locked_with_a_spoofed_forwarded_for(player):
    client = APIClient()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        sign_in(client, "wrong")
    assert sign_in(client, PASSWORD).status_code == 429
    for spoofed in ("10.9.9.9", "203.0.113.77", "10.9.9.9, 127.0.0.1"):
        answer = sign_in(client, PASSWORD, xff=spoofed)
        assert answer.status_code == 429 and answer.json()["code"] == "locked_out"
    web = client.post(
        "/accounts/login/",
        {"username": "player", "password": PASSWORD},
        REMOTE_ADDR="127.0.0.1",
        HTTP_X_FORWARDED_FOR="10.1.2.3",
    )
    assert web.status_code in (403, 429)


def test_wrong_passwords_from_fresh_spoofed_addresses_still_lock(player):
    client = APIClient()
    for n in range(settings.AXES_FAILURE_LIMIT):
        sign_in(client, "wrong", xff=f"10.9.{n}.{n}")
    assert sign_in(client, PASSWORD, xff="10.200.0.1").status_code == 429
    attempt = AccessAttempt.objects.get(username="player")
    assert attempt.ip_address == "127.0.0.1"
    assert attempt.failures_since_start >= settings.AXES_FAILURE_LIMIT


@pytest.fixture
def tight_anon_rate(db, monkeypatch):  # db: this test's own cache prefix, so its own counters
    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "5/min"})


def test_anonymous_api_calls_with_rotating_forwarded_for_are_throttled(tight_anon_rate):
    client = APIClient()
    codes = [
        client.get(
            "/api/v1/clubs/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}"
        ).status_code
        for n in range(8)
    ]
    assert codes[:5] == [200] * 5
    assert codes[5:] == [429] * 3


@override_settings(TRUSTED_PROXY_COUNT=1)
def test_with_one_trusted_proxy_the_proxys_entry_is_the_client(player, tight_anon_rate):
    # The proxy (127.0.0.1) appends the address it saw; entries left of it are the client's own.
    client = APIClient()
    for n in range(settings.AXES_FAILURE_LIMIT):
        sign_in(client, "wrong", xff=f"10.9.{n}.{n}, 198.51.100.7")
    attempt = AccessAttempt.objects.get(username="player")
    assert attempt.ip_address == "198.51.100.7"
    assert sign_in(client, PASSWORD, xff="10.0.0.1, 198.51.100.7").status_code == 429
    # another real client behind the same proxy is not locked out by the first one's failures
    assert sign_in(client, PASSWORD, xff="198.51.100.8").status_code == 200
    # throttles count per proxied client, not per proxy
    for _ in range(5):
        assert client.get("/api/v1/clubs/", HTTP_X_FORWARDED_FOR="203.0.113.1").status_code == 200
    assert client.get("/api/v1/clubs/", HTTP_X_FORWARDED_FOR="203.0.113.1").status_code == 429
    assert client.get("/api/v1/clubs/", HTTP_X_FORWARDED_FOR="203.0.113.2").status_code == 200


@pytest.mark.parametrize(
    "count, xff, expected",
    [
        (0, "10.9.9.9", "127.0.0.1"),
        (0, None, "127.0.0.1"),
        (1, "203.0.113.5", "203.0.113.5"),
        (1, "10.9.9.9, 203.0.113.5", "203.0.113.5"),
        (1, None, "127.0.0.1"),
        (2, "10.9.9.9, 203.0.113.5, 198.51.100.7", "203.0.113.5"),
        (2, "203.0.113.5, 198.51.100.7", "203.0.113.5"),
        (2, "198.51.100.7", "127.0.0.1"),  # did not pass both proxies
        (1, "not-an-address", "127.0.0.1"),
    ],
)
def test_client_ip_takes_the_nth_entry_from_the_right(count, xff, expected):
    extra = {"REMOTE_ADDR": "127.0.0.1"}
    if xff is not None:
        extra["HTTP_X_FORWARDED_FOR"] = xff
    with override_settings(TRUSTED_PROXY_COUNT=count):
        assert client_ip(RequestFactory().get("/", **extra)) == expected
