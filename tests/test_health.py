import json

import pytest
from django.test import override_settings


@pytest.mark.embedded  # the embedded default's database and Redis report too
@pytest.mark.django_db
def test_healthz_reports_database_and_redis(admin_client):
    response = admin_client.get("/healthz")  # the details are for staff
    assert response.status_code == 200
    body = json.loads(response.content)
    assert body["status"] == "ok"
    assert body["database"]["ok"] is True
    assert body["redis"]["ok"] is True
    from django.db import connection

    assert body["database"]["vendor"] == connection.vendor


@pytest.mark.django_db
def test_healthz_reports_redis_down_with_503(admin_client, tmp_path):
    with override_settings(REDIS_URL=f"unix://{tmp_path}/nothing-here.sock"):
        response = admin_client.get("/healthz")
    assert response.status_code == 503
    body = json.loads(response.content)
    assert body["status"] == "error"
    assert body["redis"]["ok"] is False
    assert body["database"]["ok"] is True


@pytest.mark.django_db
def test_healthz_refuses_post(client):
    assert client.post("/healthz").status_code == 405


@pytest.mark.django_db
def test_healthz_tells_anonymous_callers_only_ok_or_failing(client, tmp_path):
    assert json.loads(client.get("/healthz").content) == {"status": "ok"}
    socket_path = f"{tmp_path}/nothing-here.sock"
    with override_settings(REDIS_URL=f"unix://{socket_path}"):
        response = client.get("/healthz")
    assert response.status_code == 503
    assert json.loads(response.content) == {"status": "error"}
    assert socket_path not in response.content.decode()
