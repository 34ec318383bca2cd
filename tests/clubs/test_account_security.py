"""Accounts after a password change or reset, and email changes (issue 20, item 4).

A stolen session must not become a permanent takeover: a new password ends every other session
and revokes every API token; the email address (where resets go) changes only with the current
password, and the old address is told.
"""

import re

import pytest
from django.core import mail
from django.test import Client
from rest_framework.test import APIClient

from clubs import services
from clubs.models import ApiToken, User

PASSWORD = "pw-Secret-123"
NEW_PASSWORD = "Brand-new-pass-42"

pytestmark = pytest.mark.django_db


@pytest.fixture
def player(db):
    return User.objects.create_user(
        "player", password=PASSWORD, email="old@example.com", language="en"
    )


def signed_in(user):
    client = Client()
    response = client.post("/accounts/login/", {"username": user.username, "password": PASSWORD})
    assert response.status_code == 302
    return client


def token_client(user):
    _token, key = services.create_api_token(user, "laptop")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get("/api/v1/me/").status_code == 200
    return api


def test_password_change_revokes_tokens_and_ends_other_sessions(player):
    api = token_client(player)
    other = signed_in(player)
    current = signed_in(player)
    response = current.post(
        "/accounts/password_change/",
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 302
    assert not ApiToken.objects.filter(user=player).exists()
    assert api.get("/api/v1/me/").status_code == 401
    assert other.get("/accounts/profile/").status_code == 302  # to the login page
    assert current.get("/accounts/profile/").status_code == 200  # the changer stays signed in


def test_password_reset_revokes_tokens_and_ends_every_session(player):
    api = token_client(player)
    other = signed_in(player)
    anonymous = Client()
    anonymous.post("/accounts/password_reset/", {"email": "old@example.com"})
    link = re.search(r"https?://[^/\s]+(/accounts/reset/\S+/)", mail.outbox[-1].body).group(1)
    form_url = anonymous.get(link)["Location"]  # Django swaps the token for a session key
    response = anonymous.post(
        form_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    )
    assert response.status_code == 302
    player.refresh_from_db()
    assert player.check_password(NEW_PASSWORD)
    assert not ApiToken.objects.filter(user=player).exists()
    assert api.get("/api/v1/me/").status_code == 401
    assert other.get("/accounts/profile/").status_code == 302


def test_signing_in_keeps_tokens(player):
    """Only a new password revokes: a login (which may rehash the password) does not."""
    api = token_client(player)
    signed_in(player)
    player.refresh_from_db()
    player.display_name = "P"
    player.save()
    assert api.get("/api/v1/me/").status_code == 200


def test_api_email_change_needs_the_current_password_and_notifies_the_old_address(
    player, django_capture_on_commit_callbacks
):
    api = token_client(player)
    mail.outbox.clear()
    refused = api.patch(
        "/api/v1/me/", {"email": "thief@example.com"}, format="json", HTTP_ACCEPT_LANGUAGE="en"
    )
    assert refused.status_code == 400 and refused.json()["code"] == "password_required"
    assert refused.json()["detail"] == "Enter your current password to change your email address."
    wrong = api.patch(
        "/api/v1/me/",
        {"email": "thief@example.com", "current_password": "guess"},
        format="json",
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    assert wrong.status_code == 400 and wrong.json()["code"] == "password_required"
    assert wrong.json()["detail"] == "输入当前密码才能修改电子邮箱。"
    player.refresh_from_db()
    assert player.email == "old@example.com" and mail.outbox == []
    # other fields still change without the password; the same address is no change
    same = api.patch(
        "/api/v1/me/", {"email": "old@example.com", "display_name": "Ming"}, format="json"
    )
    assert same.status_code == 200 and mail.outbox == []
    with django_capture_on_commit_callbacks(execute=True):
        changed = api.patch(
            "/api/v1/me/",
            {"email": "new@example.com", "current_password": PASSWORD},
            format="json",
        )
    assert changed.status_code == 200 and changed.json()["email"] == "new@example.com"
    assert "current_password" not in changed.json()
    player.refresh_from_db()
    assert player.email == "new@example.com"
    assert [m.to for m in mail.outbox] == [["old@example.com"]]
    notice = mail.outbox[0]
    assert notice.subject == "Your email address was changed"
    assert "player" in notice.body and "new@example.com" in notice.body


def test_web_email_change_needs_the_current_password(player, django_capture_on_commit_callbacks):
    client = signed_in(player)
    mail.outbox.clear()
    fields = {
        "action": "profile",
        "display_name": "",
        "email": "thief@example.com",
        "language": "zh-hans",
        "time_zone": "Asia/Shanghai",
    }
    refused = client.post("/accounts/profile/", fields)
    assert refused.status_code == 200
    assert "Enter your current password to change your email address." in refused.content.decode()
    player.refresh_from_db()
    assert (player.email, player.language) == ("old@example.com", "en")
    assert mail.outbox == []
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/accounts/profile/", {**fields, "current_password": PASSWORD})
    assert response.status_code == 302
    player.refresh_from_db()
    assert player.email == "thief@example.com"
    assert [m.to for m in mail.outbox] == [["old@example.com"]]
    assert mail.outbox[0].subject == "您的电子邮箱已修改"  # in the account's (new) language
