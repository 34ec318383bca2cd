"""A user's notifications (issue 22): every notice in one list with an unread count in the
header, e-mail preferences per kind, the signed one-click unsubscribe link (RFC 8058), and the
e-mails for a join request, a registration and the final standings, each sent exactly once."""

from datetime import timedelta

import pytest
from django.core import signing
from django.db import transaction
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from clubs import services as club_services
from clubs.models import Club, JoinPolicy, Membership, Role
from outbox import notices
from outbox import services as outbox
from outbox.models import Kind, MutedKind, Notification, OutboxMessage
from tests.tournaments.test_tournament_services import START, make_tournament
from tournaments import notifications as tournament_notifications
from tournaments import selectors
from tournaments.models import TournamentNotice
from tournaments.services import entries as entry_services
from tournaments.services import setup as setup_services

SITE = "https://clubs.example.org:8443"


def tell(user, key, kind=Kind.CLUB, subject="Hello", url="/clubs/"):
    return outbox.tell_user(
        key=key, user=user, kind=kind, rendered=outbox.Rendered(subject, "Body"), url=url
    )


@pytest.mark.django_db
def test_preferences_per_kind_are_on_by_default_and_a_bad_change_changes_nothing(make_users):
    (user,) = make_users(1)
    assert notices.email_preferences(user) == dict.fromkeys(Kind.values, True)
    after = notices.set_email_preferences(user, {"results": False, "club": False})
    assert after == {**dict.fromkeys(Kind.values, True), "results": False, "club": False}
    assert notices.set_email_preferences(user, {"club": True})["club"] is True
    for bad in ({"nonsense": False}, {"results": "no"}, {"results": True, "spam": False}, []):
        with pytest.raises(notices.NoticeError) as error:
            notices.set_email_preferences(user, bad)
        assert error.value.code == "bad_kind"
    assert list(MutedKind.objects.filter(user=user).values_list("kind", flat=True)) == ["results"]


@pytest.mark.django_db
def test_a_kind_turned_off_lands_in_the_list_but_sends_no_email(make_users, settings):
    settings.SITE_URL = SITE
    user, other = make_users(2)
    notices.set_email_preferences(user, {"results": False})
    assert tell(user, "r:1:user", kind=Kind.RESULTS) is None
    mail = tell(user, "c:1:user", kind=Kind.CLUB)
    assert tell(user, "c:1:user", kind=Kind.CLUB, subject="again").pk == mail.pk  # once per key
    assert [n.key for n in notices.notices_of(user)] == ["c:1:user", "r:1:user"]  # newest first
    assert Notification.objects.get(key="c:1:user").text == "Hello"
    assert not OutboxMessage.objects.filter(key="r:1:user").exists()
    # every e-mail carries its signed one-click link, on SITE_URL, in the body and the header
    assert mail.unsubscribe_url.startswith(f"{SITE}/notifications/unsubscribe/")
    assert mail.unsubscribe_url in mail.body and f"{SITE}/notifications/" in mail.body
    # nobody else's list; marking read is per user
    assert notices.unread_count(other) == 0 and notices.unread_count(user) == 2
    theirs = tell(other, "c:2:other")
    assert theirs is not None
    assert notices.mark_read(user, [Notification.objects.get(key="c:2:other").pk]) == 0
    assert notices.mark_read(user) == 2 and notices.unread_count(other) == 1


@pytest.mark.django_db
def test_the_unsubscribe_link_works_with_one_post_and_no_login(make_users, settings):
    settings.LANGUAGE_CODE = "zh-hans"
    (user,) = make_users(1)
    token = notices.unsubscribe_token(user, Kind.TOURNAMENTS)
    url = reverse("outbox:unsubscribe", args=[token])
    browser = Client(enforce_csrf_checks=True)  # as a mail client: no session, no CSRF token
    page = browser.get(url)
    assert page.status_code == 200 and "<form" in page.content.decode()
    assert notices.emails_wanted(user, Kind.TOURNAMENTS)  # a GET (a mail scanner) changes nothing
    done = browser.post(url, {"List-Unsubscribe": "One-Click"})
    assert done.status_code == 200
    assert notices.email_preferences(user) == {
        **dict.fromkeys(Kind.values, True),
        "tournaments": False,
    }
    assert browser.post(url).status_code == 200  # twice: still off, nothing else changes
    assert list(MutedKind.objects.filter(user=user).values_list("kind", flat=True)) == [
        "tournaments"
    ]


@pytest.mark.django_db
def test_a_tampered_or_foreign_link_is_refused_and_changes_nothing(make_users, settings):
    settings.LANGUAGE_CODE = "zh-hans"
    (user,) = make_users(1)
    token = notices.unsubscribe_token(user, Kind.LEAGUES)
    head, _sep, signature = token.rpartition(":")
    tampered = f"{head}:{signature[::-1]}"
    other_salt = signing.dumps({"u": user.pk, "k": "leagues"}, salt="another.purpose")
    no_such_kind = signing.dumps({"u": user.pk, "k": "spam"}, salt=notices.UNSUBSCRIBE_SALT)
    no_such_user = signing.dumps({"u": 10**9, "k": "club"}, salt=notices.UNSUBSCRIBE_SALT)
    browser = Client(enforce_csrf_checks=True)
    for bad in (tampered, other_salt, no_such_kind, no_such_user, "x"):
        for method in (browser.get, browser.post):
            answer = method(reverse("outbox:unsubscribe", args=[bad]))
            assert answer.status_code == 400
            assert "退订链接无效" in answer.content.decode()
    assert not MutedKind.objects.exists()
    # a good link turns off its own kind only
    notices.unsubscribe(token)
    assert notices.email_preferences(user)["leagues"] is False
    assert notices.email_preferences(user)["club"] is True


@pytest.mark.django_db
def test_the_list_page_the_header_count_and_the_profile_preferences(client, make_users):
    user, other = make_users(2)
    for i in range(23):
        tell(user, f"c:{i}:user", subject=f"Notice {i}")
    tell(other, "c:x:other", subject="Not yours")
    client.force_login(user)
    home = client.get("/").content.decode()
    assert "data-notifications>" in home and ">23</span>" in home
    first = client.get(reverse("outbox:notifications")).content.decode()
    assert "Notice 22" in first and "Notice 3" in first and "Notice 2<" not in first
    assert first.index("Notice 22") < first.index("Notice 21")  # newest first
    assert "Not yours" not in first
    assert notices.unread_count(user) == 3  # the 20 shown are read; page 2 still waits
    second = client.get(reverse("outbox:notifications") + "?page=2").content.decode()
    assert "Notice 0" in second and notices.unread_count(user) == 0
    assert (
        "</span></a>" not in client.get("/").content.decode().split("data-notifications>")[1][:80]
    )
    # the profile page shows the preferences; unticking a kind turns its e-mails off
    profile = client.get(reverse("profile")).content.decode()
    assert 'name="email_results"' in profile and "checked" in profile
    ticked = {f"email_{k}": "on" for k in Kind.values if k != "sheets"}
    assert client.post(reverse("outbox:preferences"), ticked).status_code == 302
    assert notices.email_preferences(user)["sheets"] is False
    assert notices.email_preferences(user)["results"] is True


@pytest.mark.django_db
def test_the_api_reads_and_changes_the_preferences_and_lists_notices(make_users):
    user, other = make_users(2)
    tell(user, "c:1:user")
    tell(other, "c:1:other")
    api = APIClient()
    url = "/api/v1/me/email-preferences/"
    assert api.get(url).status_code in (401, 403)
    api.force_authenticate(user)
    assert api.get(url).json() == dict.fromkeys(Kind.values, True)
    changed = api.patch(url, {"leagues": False}, format="json")
    assert changed.status_code == 200 and changed.json()["leagues"] is False
    bad = api.patch(url, {"leagues": True, "spam": False}, format="json")
    assert bad.status_code == 400 and bad.json()["code"] == "bad_kind"
    assert notices.email_preferences(user)["leagues"] is False  # the bad change changed nothing
    listed = api.get("/api/v1/me/notifications/").json()
    assert [n["text"] for n in listed["results"]] == ["Hello"] and listed["count"] == 1


@pytest.mark.django_db(transaction=True)
def test_join_registration_and_final_standings_arrive_once_each(
    smtp, eager, club, club_admin, members, make_users, settings
):
    settings.SITE_URL = SITE
    (applicant,) = make_users(1, prefix="new")
    admin2, plain = members(2)
    Membership.objects.filter(user=admin2).update(role=Role.ADMIN)
    Club.objects.filter(pk=club.pk).update(join_policy=JoinPolicy.REQUEST)
    club.refresh_from_db()
    with transaction.atomic():
        request = club_services.join_club(applicant, club, message="我想加入")
    a, b = members(2)
    t = make_tournament(club, club_admin, checkin_required=False)
    setup_services.publish(club_admin, t, now=START - timedelta(days=10))
    with transaction.atomic():
        entry = entry_services.register(
            club_admin, t, player=a, partner=b, now=START - timedelta(hours=3)
        )
    with transaction.atomic():
        lines = selectors.standings(t)
        assert tournament_notifications.notify_final_standings(t, lines) == 2
        # a second call (a reopened and finished again tournament) tells nobody again
        assert tournament_notifications.notify_final_standings(t, lines) == 0
    assert TournamentNotice.objects.filter(tournament=t, url__endswith="/standings/").count() == 2
    keys = {
        f"join-request:{request.pk}:user:{club_admin.pk}": club_admin.email,
        f"join-request:{request.pk}:user:{admin2.pk}": admin2.email,
        f"registered:{entry.pk}:user:{a.pk}": a.email,
        f"registered:{entry.pk}:user:{b.pk}": b.email,
        f"final:{t.pk}:user:{a.pk}": a.email,
        f"final:{t.pk}:user:{b.pk}": b.email,
    }
    assert smtp.wait_received(set(keys.values()), timeout=30)
    received = smtp.received
    by_id = {m.message_id: m for m in received}
    sent = OutboxMessage.objects.filter(key__in=keys)
    assert sorted(sent.values_list("key", flat=True)) == sorted(keys)
    assert len(received) == len(keys) == len(by_id)  # each exactly once, nothing else
    for message in sent:
        got = by_id[message.message_id]
        assert got.to == keys[message.key]
        assert got.list_unsubscribe == f"<{message.unsubscribe_url}>"
        assert got.list_unsubscribe_post == "List-Unsubscribe=One-Click"
        assert SITE in got.body and "localhost" not in got.body
    join_mail = by_id[sent.get(key__startswith="join-request", to=club_admin.email).message_id]
    assert f"{SITE}/clubs/{club.slug}/manage/" in join_mail.body and "我想加入" in join_mail.body
    final_mail = by_id[sent.get(key=f"final:{t.pk}:user:{a.pk}").message_id]
    assert entry.name in final_mail.body and f"{SITE}/tournaments/{t.pk}/standings/" in (
        final_mail.body
    )
    # plain members are not told of join requests; every notice is in its user's list
    assert not Notification.objects.filter(user=plain).exists()
    assert Notification.objects.filter(user=a, kind=Kind.TOURNAMENTS).count() == 2


@pytest.mark.django_db
def test_the_admin_lists_notices(admin_client, make_users):
    (user,) = make_users(1)
    tell(user, "c:admin:user", subject="Seen by the admin")
    page = admin_client.get("/admin/outbox/notification/")
    assert page.status_code == 200 and "Seen by the admin" in page.content.decode()


@pytest.mark.django_db
def test_a_partner_who_accepts_gets_the_registration_confirmation(club, club_admin, members):
    a, b = members(2)
    t = make_tournament(club, club_admin, checkin_required=False)
    setup_services.publish(club_admin, t, now=START - timedelta(days=10))
    early = START - timedelta(hours=3)
    pending = entry_services.register(a, t, partner=b, now=early)
    assert not OutboxMessage.objects.filter(key__startswith=f"registered:{pending.pk}:").exists()
    entry_services.answer_invitation(b, t, accept=True, now=early)
    confirmed = OutboxMessage.objects.filter(key__startswith=f"registered:{pending.pk}:")
    # the partner is confirmed; the player who registered was told by the acceptance notice
    assert [m.to for m in confirmed] == [b.email]
    assert t.name in confirmed.get().body
    assert Notification.objects.filter(user=a, key__startswith=f"partner:{pending.pk}:").exists()
