"""``/api/v1/auth/token/``: an API key for a username and password, and its revocation."""

import pytest
import yaml
from axes.models import AccessAttempt
from django.conf import settings
from rest_framework.test import APIClient

from clubs.models import ApiToken, User

URL = "/api/v1/auth/token/"
PASSWORD = "Right-password-1"

LOCKED_ZH = "登录失败次数太多。请等 15 分钟后再试，或者重设密码。"

pytestmark = pytest.mark.django_db


@pytest.fixture
def player(db):  # db: each test gets its own cache, so throttle counts never leak between tests
    return User.objects.create_user("player", password=PASSWORD)


def sign_in(client, username="player", password=PASSWORD, **extra):
    return client.post(URL, {"username": username, "password": password, **extra}, format="json")


def test_sign_in_returns_a_working_key_and_replaces_the_previous_one(player):
    client = APIClient()
    response = sign_in(client)
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"token", "name", "prefix"} and body["name"] == "api"
    assert body["token"].startswith(body["prefix"])
    token = ApiToken.objects.get(user=player)
    assert token.digest == ApiToken.digest_of(body["token"]) and token.name == "api"
    me = APIClient()
    me.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    assert me.get("/api/v1/me/").json()["username"] == "player"
    # a second sign-in issues a fresh key for the same token name; the old key stops working
    again = sign_in(client).json()
    assert again["token"] != body["token"]
    assert ApiToken.objects.filter(user=player).count() == 1
    assert me.get("/api/v1/me/").status_code == 401
    # another name is another token; the profile page's tokens are left alone
    assert sign_in(client, name="laptop").json()["name"] == "laptop"
    assert sorted(ApiToken.objects.filter(user=player).values_list("name", flat=True)) == [
        "api",
        "laptop",
    ]


def test_wrong_password_is_a_translated_400_keyed_by_field(player):
    client = APIClient()
    response = sign_in(client, password="wrong")
    assert response.status_code == 400
    assert response.json() == {"non_field_errors": ["用户名或密码不正确，无法登录。"]}
    english = client.post(
        URL,
        {"username": "player", "password": "wrong"},
        format="json",
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert english.json() == {
        "non_field_errors": ["Unable to log in with that username and password."]
    }
    unknown = sign_in(client, username="nobody")  # same answer: no hint that it does not exist
    assert unknown.status_code == 400 and unknown.json() == response.json()
    missing = client.post(URL, {"username": "player"}, format="json")
    assert missing.status_code == 400 and list(missing.json()) == ["password"]
    not_strings = client.post(URL, {"username": ["x"], "password": {"a": 1}}, format="json")
    assert not_strings.status_code == 400
    assert set(not_strings.json()) == {"username", "password"}
    assert not ApiToken.objects.exists()
    assert AccessAttempt.objects.get(username="player").failures_since_start == 2


def test_locked_out_after_the_configured_number_of_failures(player):
    client = APIClient()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert sign_in(client, password="wrong").status_code == 400
    locked = sign_in(client, password="wrong")
    assert locked.status_code == settings.AXES_HTTP_RESPONSE_CODE == 429
    assert locked.json()["code"] == "locked_out"
    assert locked.json()["detail"] == LOCKED_ZH
    # locked even with the right password, and the web login is locked too
    right = sign_in(client)
    assert right.status_code == 429 and right.json()["code"] == "locked_out"
    assert not ApiToken.objects.exists()
    web = client.post("/accounts/login/", {"username": "player", "password": PASSWORD})
    assert web.status_code in (403, 429)


def test_revoke_then_the_key_is_refused(player):
    client = APIClient()
    key = sign_in(client).json()["token"]
    assert client.delete(URL).status_code == 401  # no token: nothing to revoke
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.delete(URL).status_code == 204
    assert not ApiToken.objects.exists()
    refused = client.get("/api/v1/me/")
    assert refused.status_code == 401 and refused.json()["code"] == "authentication_failed"
    assert client.delete(URL).status_code == 401


def test_session_cookie_cannot_revoke(player):
    client = APIClient()
    client.force_login(player)
    sign_in(APIClient())
    assert client.delete(URL).status_code == 401
    assert ApiToken.objects.count() == 1


def test_schema_documents_the_endpoint(client):
    schema = yaml.safe_load(client.get("/api/schema/").content)
    operations = schema["paths"][URL]
    assert set(operations) >= {"post", "delete"}
    assert {"200", "400", "429"} <= set(operations["post"]["responses"])
    assert "204" in operations["delete"]["responses"]
    body = operations["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    fields = schema["components"]["schemas"][body.rsplit("/", 1)[-1]]
    assert {"username", "password"} <= set(fields["required"])


def test_rate_limited_like_other_anonymous_endpoints(player, monkeypatch):
    from rest_framework.throttling import AnonRateThrottle

    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "2/min", "user": "9/min"})
    client = APIClient()
    assert sign_in(client).status_code == 200
    assert sign_in(client, password="wrong").status_code == 400
    throttled = sign_in(client)
    assert throttled.status_code == 429 and throttled.json()["code"] == "throttled"


def test_malformed_bodies_are_400_not_500(player):
    client = APIClient()
    bad_json = client.post(URL, "{not json", content_type="application/json")
    assert bad_json.status_code == 400 and bad_json.json()["code"] == "parse_error"
    assert client.post(URL, [1, 2], format="json").status_code == 400
    long_name = sign_in(client, name="x" * 61)
    assert long_name.status_code == 400 and list(long_name.json()) == ["name"]
    blank_name = sign_in(client, name="   ")
    assert blank_name.status_code == 400 and list(blank_name.json()) == ["name"]
    assert not ApiToken.objects.exists()
