"""Smaller holes of issue 20, item 5: password-reset flooding, /healthz details (see
tests/test_health.py), the Content-Security-Policy, Secure cookies in production and origins with
another port (websockets and CSRF)."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.core import mail
from django.test import Client, override_settings

from clubs import services
from clubs.models import Invitation, User
from config.asgi import application
from tests import dbcache

ROOT = Path(__file__).resolve().parent.parent.parent
RESET = "/accounts/password_reset/"
TOO_MANY_EN = "Too many password reset requests. Wait an hour and try again."


# --- password-reset requests -------------------------------------------------------------------


# (the db fixture, not the mark: it gives each test its own cache prefix, so its own counters)
@override_settings(PASSWORD_RESET_LIMIT_PER_EMAIL=3, PASSWORD_RESET_LIMIT_PER_IP=10)
def test_password_reset_requests_are_limited_per_address(db):
    User.objects.create_user("victim", password="x-Secret-123", email="victim@example.com")
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    for _ in range(3):
        assert client.post(RESET, {"email": "victim@example.com"}).status_code == 302
    assert len(mail.outbox) == 3
    refused = client.post(RESET, {"email": "Victim@Example.com"}, REMOTE_ADDR="10.0.0.9")
    assert refused.status_code == 200 and TOO_MANY_EN in refused.content.decode()
    chinese = Client().post(RESET, {"email": "victim@example.com"}, REMOTE_ADDR="10.0.0.8")
    assert "密码重设请求太多" in chinese.content.decode()
    assert len(mail.outbox) == 3  # nothing sent beyond the limit, from any address


@override_settings(PASSWORD_RESET_LIMIT_PER_EMAIL=3, PASSWORD_RESET_LIMIT_PER_IP=10)
def test_password_reset_requests_are_limited_per_client(db):
    for n in range(12):
        User.objects.create_user(f"u{n}", password="x-Secret-123", email=f"u{n}@example.com")
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    codes = [
        client.post(
            RESET, {"email": f"u{n}@example.com"}, HTTP_X_FORWARDED_FOR=f"10.1.0.{n}"
        ).status_code
        for n in range(12)
    ]
    assert codes == [302] * 10 + [200] * 2  # a spoofed X-Forwarded-For gives no fresh allowance
    assert len(mail.outbox) == 10
    other = Client().post(RESET, {"email": "u11@example.com"}, REMOTE_ADDR="10.2.0.1")
    assert other.status_code == 302 and len(mail.outbox) == 11


# --- Content-Security-Policy -------------------------------------------------------------------

INLINE_HANDLER = re.compile(r"<[^>]+\son[a-z]+\s*=", re.IGNORECASE)
SCRIPT_TAG = re.compile(r"<script\b([^>]*)>", re.IGNORECASE)


def assert_policy_allows_the_page(response):
    policy = response["Content-Security-Policy"]
    directives = dict(
        (part.split()[0], part.split()[1:]) for part in policy.split(";") if part.strip()
    )
    assert directives["script-src"] == ["'self'"]
    assert directives["object-src"] == ["'none'"] and directives["frame-ancestors"] == ["'none'"]
    html = response.content.decode()
    assert not INLINE_HANDLER.search(html), INLINE_HANDLER.search(html).group(0)
    for attributes in SCRIPT_TAG.findall(html):
        # every script is a file from this site, or a data block the browser does not run
        assert "src=" in attributes or 'type="application/json"' in attributes, attributes


@pytest.mark.django_db
def test_every_page_kind_carries_a_policy_its_markup_keeps():
    owner = User.objects.create_user("owner", password="x-Secret-123", is_staff=True)
    club = services.create_club(owner, name="Nanping Bao 2")
    other = User.objects.create_user("other", password="x-Secret-123")
    services.join_club(other, club)
    services.create_invitation(owner, club, expires_in_days=3, max_uses=5)
    services.create_api_token(owner, "laptop")
    anonymous, signed_in = Client(), Client()
    signed_in.force_login(owner)
    pages = [
        (anonymous, "/"),
        (anonymous, "/accounts/login/"),
        (anonymous, RESET),
        (anonymous, "/accounts/signup/"),
        (anonymous, f"/clubs/{club.slug}/"),
        (signed_in, "/accounts/profile/"),
        (signed_in, f"/clubs/{club.slug}/manage/"),
        (signed_in, "/api/docs/"),
        (signed_in, "/admin/"),
    ]
    for client, url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        assert_policy_allows_the_page(response)
    assert Invitation.objects.exists()


# --- production: Secure cookies and check --deploy ----------------------------------------------

PRODUCTION_ENV = {
    "SECRET_KEY": "a-production-secret-" + "x" * 60,
    "ALLOWED_HOSTS": "cards.example.com",
    "DATABASE_URL": "",
    "REDIS_URL": "",
}


def run_production(tmp_path, *args):
    env = {
        **{k: v for k, v in os.environ.items() if k not in {"DEBUG", "CSRF_TRUSTED_ORIGINS"}},
        **PRODUCTION_ENV,
        "VAR_DIR": str(tmp_path),
    }
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_check_deploy_is_clean_in_production(tmp_path):
    result = run_production(tmp_path, "manage.py", "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_every_cookie_is_secure_in_production(tmp_path):
    script = """
import json, django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from django.test import Client, override_settings
from clubs.models import User
# (no collectstatic here: the manifest storage of production would miss the static files)
override_settings(STORAGES={
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}).enable()
User.objects.create_user("p", password="x-Secret-123", language="en")
client = Client(HTTP_HOST="cards.example.com")
client.get("/accounts/login/", secure=True)  # sets the CSRF cookie
client.post("/accounts/login/", {"username": "p", "password": "x-Secret-123"}, secure=True)
client.post("/i18n/setlang/", {"language": "en"}, secure=True)
client.post("/accounts/profile/", {"action": "profile", "display_name": "", "email": "",
            "language": "en", "time_zone": "UTC"}, secure=True)
print(json.dumps({name: bool(c["secure"]) for name, c in client.cookies.items()}))
"""
    # a copy of a database migrated once (tests/dbcache.py): the script's migrate then has
    # nothing to do, where migrating from nothing took over two minutes on a loaded machine
    dbcache.sqlite_copy(dict(os.environ), tmp_path / "db.sqlite3")
    result = run_production(
        tmp_path,
        "-c",
        "import os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'config.settings')\n" + script,
    )
    assert result.returncode == 0, result.stderr
    cookies = json.loads(result.stdout.strip().splitlines()[-1])
    assert {"csrftoken", "sessionid", "django_language"} <= set(cookies)
    assert all(cookies.values()), cookies


# --- origins with another port ------------------------------------------------------------------


def handshake(origin, host="testserver"):
    headers = [(b"origin", origin.encode())]
    if host is not None:
        headers.append((b"host", host.encode()))

    async def attempt():
        comm = WebsocketCommunicator(application, "/ws/tables/999999/", headers=headers)
        connected, _ = await comm.connect()
        if connected:
            await comm.disconnect()
        return connected

    return async_to_sync(attempt)()


@pytest.mark.django_db(transaction=True)
def test_websocket_from_another_port_of_the_same_host_is_refused():
    assert handshake("http://testserver") is True
    assert handshake("http://testserver:8001") is False
    assert handshake("http://testserver:8001", host="testserver:8000") is False
    assert handshake("http://testserver:8000", host="testserver:8000") is True
    assert handshake("http://evil.example", host="evil.example") is False  # not an allowed host
    assert handshake("http://testserver:8001", host=None) is False
    assert handshake("null") is False
    with override_settings(CSRF_TRUSTED_ORIGINS=["http://testserver:8001"]):
        assert handshake("http://testserver:8001") is True


@pytest.mark.django_db
def test_csrf_refuses_a_post_from_another_port():
    User.objects.create_user("p", password="x-Secret-123")
    client = Client(enforce_csrf_checks=True)
    client.get("/accounts/login/")
    token = client.cookies["csrftoken"].value
    fields = {"username": "p", "password": "x-Secret-123", "csrfmiddlewaretoken": token}
    refused = client.post("/accounts/login/", fields, HTTP_ORIGIN="http://testserver:8001")
    assert refused.status_code == 403
    accepted = client.post("/accounts/login/", fields, HTTP_ORIGIN="http://testserver")
    assert accepted.status_code == 302
