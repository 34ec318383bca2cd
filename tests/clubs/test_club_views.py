import pytest
from django.core import mail

from clubs import selectors, services
from clubs.models import Invitation, JoinPolicy, JoinRequest, Role, User


def test_public_pages_render_for_anonymous(client, club):
    for url in ("/", "/clubs/", f"/clubs/{club.slug}/", "/clubs/?q=Nanping", "/accounts/login/"):
        response = client.get(url)
        assert response.status_code == 200, url
    assert "Nanping Bao 2" in client.get("/clubs/?q=nanping").content.decode()
    assert "Nanping Bao 2" not in client.get("/clubs/?q=zzz").content.decode()


def test_admin_pages_are_403_for_members_and_ok_for_admins(client, club, member, club_admin):
    client.force_login(member)
    assert client.get(f"/clubs/{club.slug}/manage/").status_code == 403
    assert client.get(f"/clubs/{club.slug}/edit/").status_code == 403
    response = client.post(f"/clubs/{club.slug}/edit/", {"name": "Hijack", "join_policy": "open"})
    assert response.status_code == 403
    club.refresh_from_db()
    assert club.name == "Nanping Bao 2"
    client.force_login(club_admin)
    assert client.get(f"/clubs/{club.slug}/manage/").status_code == 200
    response = client.post(
        f"/clubs/{club.slug}/edit/",
        {"name": "Nanping Bao 2", "city": "南平", "description": "", "join_policy": "open"},
    )
    assert response.status_code == 302
    club.refresh_from_db()
    assert club.join_policy == "open" and club.city == "南平"


def test_signup_logs_in_and_respects_next(client, db):
    response = client.post(
        "/accounts/signup/?next=/clubs/",
        {
            "username": "newplayer",
            "email": "new@example.com",
            "display_name": "新人",
            "language": "zh-hans",
            "password1": "Very-long-pass-42",
            "password2": "Very-long-pass-42",
        },
    )
    assert response.status_code == 302 and response["Location"] == "/clubs/"
    user = User.objects.get(username="newplayer")
    assert user.display_name == "新人"
    assert client.get("/accounts/profile/").status_code == 200


def test_signup_errors_rerender_the_form(client, db):
    response = client.post(
        "/accounts/signup/",
        {"username": "", "email": "bad", "password1": "a", "password2": "b", "language": "en"},
    )
    assert response.status_code == 200
    assert response.context["form"].errors
    assert not User.objects.exists()


def test_create_club_through_the_web(client, outsider):
    client.force_login(outsider)
    response = client.post(
        "/clubs/new/",
        {"name": "Putian Club", "city": "莆田", "description": "x", "join_policy": "open"},
    )
    assert response.status_code == 302
    club = selectors.clubs_of_user(outsider).get()
    assert response["Location"] == f"/clubs/{club.slug}/"
    assert selectors.role_of(outsider, club) == Role.OWNER


def test_request_accept_flow_through_the_web(client, club, outsider, club_admin):
    client.force_login(outsider)
    client.post(f"/clubs/{club.slug}/join/", {"message": "hello"})
    join_request = JoinRequest.objects.get(user=outsider)
    client.force_login(club_admin)
    page = client.get(f"/clubs/{club.slug}/manage/").content.decode()
    assert "outsider" in page and "hello" in page
    client.post(f"/clubs/{club.slug}/requests/{join_request.pk}/", {"answer": "accept"})
    assert selectors.role_of(outsider, club) == Role.MEMBER


def test_refused_web_action_shows_message_and_changes_nothing(client, club, owner):
    client.force_login(owner)
    response = client.post(f"/clubs/{club.slug}/leave/", follow=True)
    messages = [str(m) for m in response.context["messages"]]
    assert any("transfer" in m.lower() or "转让" in m for m in messages)
    assert selectors.role_of(owner, club) == Role.OWNER


def test_member_actions_through_the_web(client, club, owner, member, club_admin):
    membership = selectors.membership_of(member, club)
    client.force_login(club_admin)
    client.post(f"/clubs/{club.slug}/members/{membership.pk}/", {"action": "make_admin"})
    assert selectors.role_of(member, club) == Role.MEMBER  # admins cannot promote
    client.force_login(owner)
    client.post(f"/clubs/{club.slug}/members/{membership.pk}/", {"action": "make_admin"})
    assert selectors.role_of(member, club) == Role.ADMIN
    client.post(f"/clubs/{club.slug}/members/{membership.pk}/", {"action": "transfer"})
    assert selectors.role_of(member, club) == Role.OWNER
    assert selectors.role_of(owner, club) == Role.ADMIN


def test_invitation_page_flow(client, owner, outsider):
    club = services.create_club(owner, name="Closed", join_policy=JoinPolicy.INVITATION)
    client.force_login(owner)
    client.post(f"/clubs/{club.slug}/invitations/", {"expires_in_days": 3, "max_uses": ""})
    invitation = Invitation.objects.get(club=club)
    assert invitation.max_uses is None
    client.logout()
    url = f"/invite/{invitation.token}/"
    assert client.get(url).status_code == 200
    assert client.post(url)["Location"].startswith("/accounts/login/")
    client.force_login(outsider)
    response = client.post(url)
    assert response.status_code == 302 and response["Location"] == f"/clubs/{club.slug}/"
    assert selectors.role_of(outsider, club) == Role.MEMBER
    assert client.get("/invite/unknown-token/").status_code == 404


def test_invitation_links_offer_copy_share_and_a_qr_code_with_their_use_limit(client, owner):
    club = services.create_club(owner, name="Closed", join_policy=JoinPolicy.INVITATION)
    client.force_login(owner)
    client.post(f"/clubs/{club.slug}/invitations/", {"expires_in_days": 3, "max_uses": 5})
    invitation = Invitation.objects.get(club=club)
    page = client.get(f"/clubs/{club.slug}/manage/").content.decode()
    link = f"http://testserver/invite/{invitation.token}/"
    assert f'data-copy="#invitation-{invitation.pk}"' in page and f'data-share="{link}"' in page
    assert '<svg role="img" aria-label="邀请链接"' in page  # the QR code, drawn inline
    assert "已使用 0 / 5 次" in page  # the use limit is shown


def test_profile_tokens_through_the_web(client, member):
    client.force_login(member)
    response = client.post("/accounts/profile/", {"action": "create_token", "name": "phone"})
    key = response.context["new_key"]
    assert key and key in response.content.decode()
    token = member.api_tokens.get()
    response = client.get("/accounts/profile/")
    assert key not in response.content.decode()  # shown once only
    # the header's placeholder is shown as text, not swallowed as an unknown HTML tag
    assert "Authorization: Token &lt;key&gt;" in response.content.decode()
    client.post("/accounts/profile/", {"action": "revoke_token", "token_id": token.pk})
    assert not member.api_tokens.exists()
    response = client.post("/accounts/profile/", {"action": "revoke_token", "token_id": "x"})
    assert response.status_code == 302


def test_profile_edit_sets_language(client, member):
    client.force_login(member)
    response = client.post(
        "/accounts/profile/",
        {
            "action": "profile",
            "display_name": "Ming",
            "email": "m@example.com",
            "language": "en",
            "time_zone": "Europe/London",
            "current_password": "pw-Secret-123",  # a new email address needs the password
        },
    )
    assert response.status_code == 302
    member.refresh_from_db()
    assert (member.language, member.time_zone) == ("en", "Europe/London")
    assert "My profile" in client.get("/accounts/profile/").content.decode()


def test_password_reset_sends_email(client, member):
    member.email = "member@example.com"
    member.save()
    response = client.post("/accounts/password_reset/", {"email": "member@example.com"})
    assert response.status_code == 302
    assert len(mail.outbox) == 1
    assert "/accounts/reset/" in mail.outbox[0].body


def test_password_change_page(client, member):
    client.force_login(member)
    assert client.get("/accounts/password_change/").status_code == 200


@pytest.mark.django_db
def test_login_is_throttled_after_repeated_failures(client):
    User.objects.create_user("victim", password="Right-password-1")
    for _ in range(5):
        response = client.post("/accounts/login/", {"username": "victim", "password": "wrong"})
    assert response.status_code in (403, 429)
    response = client.post(
        "/accounts/login/", {"username": "victim", "password": "Right-password-1"}
    )
    assert response.status_code in (403, 429)  # locked even with the right password
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_login_works_through_the_form(client):
    User.objects.create_user("player", password="Right-password-1")
    response = client.post(
        "/accounts/login/", {"username": "player", "password": "Right-password-1"}
    )
    assert response.status_code == 302
    assert client.session["_auth_user_id"]


def test_admin_lists_and_search_for_every_model(admin_client, club):
    from django.contrib import admin

    from clubs import models

    for model in (
        models.User,
        models.Club,
        models.Membership,
        models.JoinRequest,
        models.Invitation,
        models.ApiToken,
    ):
        assert model in admin.site._registry
        info = model._meta.app_label, model._meta.model_name
        response = admin_client.get(f"/admin/{info[0]}/{info[1]}/?q=a")
        assert response.status_code == 200, info


def test_club_page_includes_sections_of_other_apps(client, club, settings, tmp_path):
    section = tmp_path / "matches" / "_club_section.html"
    section.parent.mkdir()
    section.write_text("<section id='tables'>Tables of {{ club.name }}</section>")
    settings.TEMPLATES = [
        {**settings.TEMPLATES[0], "DIRS": [tmp_path, *settings.TEMPLATES[0]["DIRS"]]}
    ]
    page = client.get(f"/clubs/{club.slug}/").content.decode()
    assert "<section id='tables'>Tables of Nanping Bao 2</section>" in page


def test_admin_can_add_a_user(admin_client):
    assert admin_client.get("/admin/clubs/user/add/").status_code == 200
    response = admin_client.post(
        "/admin/clubs/user/add/",
        {
            "username": "made",
            "password1": "Xy-long-pass-9",
            "password2": "Xy-long-pass-9",
            "usable_password": "true",
        },
    )
    assert response.status_code == 302
    assert User.objects.filter(username="made").exists()
