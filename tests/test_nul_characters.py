"""NUL characters anywhere in a request get a translated 400, never a 500 (PostgreSQL refuses NUL).

These are database tests, so ``./test`` also runs them against a throwaway PostgreSQL.
"""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from clubs.models import Club, User

ZH = "请求中含有空字符"


def make_user(username="nul-tester"):
    return User.objects.create_user(username=username, password="pw-Secret-123")


def assert_json_refusal(response):
    assert response.status_code == 400
    assert response["Content-Type"].startswith("application/json")
    body = json.loads(response.content)
    assert body["code"] == "nul_character"
    assert "NUL" in body["detail"]


@pytest.mark.django_db
def test_search_query_with_nul_is_a_translated_html_400(client):
    response = client.get("/clubs/", {"q": "a\x00b"}, HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html")
    assert ZH in response.content.decode()


@pytest.mark.django_db
def test_english_visitors_get_the_english_message(client):
    response = client.get("/clubs/?q=%00", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 400
    assert "NUL character" in response.content.decode()


@pytest.mark.django_db
def test_ordinary_search_still_works(client):
    response = client.get("/clubs/", {"q": "Nanping"})
    assert response.status_code == 200


@pytest.mark.django_db
def test_api_query_parameter_with_nul_is_json_400(client):
    assert_json_refusal(client.get("/api/v1/clubs/?search=%00"))


@pytest.mark.django_db
def test_nul_in_query_parameter_name_is_refused(client):
    assert_json_refusal(client.get("/api/v1/clubs/?%00=1"))


@pytest.mark.django_db
def test_nul_in_the_path_is_refused(client):
    response = client.get("/invite/ab%00cd/")
    assert response.status_code == 400
    assert_json_refusal(client.get("/api/v1/clubs/a%00b/"))


@pytest.mark.django_db
def test_form_post_with_nul_changes_nothing(client):
    user = make_user()
    client.force_login(user)
    response = client.post("/clubs/new/", {"name": "Bad\x00Club", "description": ""})
    assert response.status_code == 400
    assert not Club.objects.exists()


@pytest.mark.django_db
def test_multipart_field_with_nul_is_refused_but_file_contents_may_hold_nul(client):
    client.force_login(make_user())
    upload = SimpleUploadedFile("a.bin", b"binary \x00 content is fine")
    response = client.post("/clubs/new/", {"name": "Bad\x00Club", "file": upload})
    assert response.status_code == 400
    assert not Club.objects.exists()
    upload = SimpleUploadedFile("a.bin", b"binary \x00 content is fine")
    response = client.post("/clubs/new/", {"name": "", "file": upload})
    assert response.status_code == 200  # the form's own validation answers


@pytest.mark.django_db
def test_json_body_with_escaped_nul_is_refused_and_changes_nothing(client):
    client.force_login(make_user())
    response = client.post(
        "/api/v1/clubs/",
        data='{"name": "Bad\\u0000Club"}',
        content_type="application/json",
    )
    assert_json_refusal(response)
    assert not Club.objects.exists()


@pytest.mark.django_db
def test_json_key_with_nul_is_refused(client):
    client.force_login(make_user())
    response = client.patch(
        "/api/v1/me/", data='{"display\\u0000name": "x"}', content_type="application/json"
    )
    assert_json_refusal(response)


@pytest.mark.django_db
def test_urlencoded_patch_with_nul_is_refused(client):
    client.force_login(make_user())
    response = client.patch(
        "/api/v1/me/",
        data="display_name=a%00b",
        content_type="application/x-www-form-urlencoded",
    )
    assert_json_refusal(response)


@pytest.mark.django_db
def test_escaped_backslash_u0000_is_ordinary_text(client):
    user = make_user()
    client.force_login(user)
    response = client.patch(
        "/api/v1/me/",
        data=json.dumps({"display_name": "\\u0000"}),
        content_type="application/json",
    )
    assert response.status_code == 200
    user.refresh_from_db()
    assert user.display_name == "\\u0000"


@pytest.mark.django_db
def test_session_cookie_with_nul_is_refused(client):
    client.cookies["sessionid"] = "abc\x00def"
    response = client.get("/clubs/")
    assert response.status_code == 400


@pytest.mark.django_db
def test_token_header_with_nul_is_refused(client):
    assert_json_refusal(client.get("/api/v1/me/", HTTP_AUTHORIZATION="Token abc\x00def"))
