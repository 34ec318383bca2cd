"""Guest accounts (issue 41, part 1): a visitor plays practice tables before signing up.

A guest is made per client address at most GUESTS_PER_ADDRESS_PER_HOUR an hour; it reaches no
club (so no members-only page and no rated table), writes nothing through the API; signing up
keeps the same account with its games; unused guests are removed by beat's task, never an
account that signed up.
"""

from datetime import timedelta

import pytest
from django.conf import settings
from django.test import Client, override_settings
from django.utils import timezone

from clubs import guests, services
from clubs.models import Invitation, JoinPolicy, User, Visibility
from clubs.tasks import remove_unused_guests_task
from matches.models import Table
from matches.services import practice, tables

PASSWORD = "Long-Pass-phrase-77"


@pytest.fixture
def no_tasks(monkeypatch):
    """Practice tables start matches: their deadline tasks are not queued here."""
    from matches import schedule

    monkeypatch.setattr(schedule, "schedule_deadline", lambda *a: None)
    monkeypatch.setattr(schedule, "schedule_time_limit", lambda *a: None)


def guest_client(guest):
    client = Client()
    client.force_login(guest)
    return client


# --- creation and its limit ------------------------------------------------------------------


def test_a_guest_is_a_made_up_account_without_a_password(db):
    guest = guests.create_guest("203.0.113.5", language="en")
    assert guest.is_guest and guests.is_guest(guest)
    assert guest.username.startswith(guests.USERNAME_PREFIX)
    assert not guest.has_usable_password()
    assert guest.language == "en" and guest.name.startswith("Guest ")
    assert guest.last_login is not None
    assert not guests.is_guest(User.objects.create_user("full", password=PASSWORD))


@override_settings(GUESTS_PER_ADDRESS_PER_HOUR=2)
def test_guest_creation_is_limited_per_client_address(db):
    guests.create_guest("203.0.113.5")
    guests.create_guest("203.0.113.5")
    with pytest.raises(guests.GuestLimit) as refused:
        guests.create_guest("203.0.113.5")
    assert refused.value.code == "guest_limit" and refused.value.status == 429
    assert User.objects.filter(is_guest=True).count() == 2
    guests.create_guest("198.51.100.7")  # another address has its own count
    assert User.objects.filter(is_guest=True).count() == 3


@override_settings(GUESTS_PER_ADDRESS_PER_HOUR=1, TRUSTED_PROXY_COUNT=0)
def test_the_try_button_counts_the_real_address_not_a_forged_header(db, no_tasks):
    first = Client(REMOTE_ADDR="203.0.113.9")
    assert first.post("/matches/practice/", {"game": "bao2"}).status_code == 302
    forged = Client(REMOTE_ADDR="203.0.113.9", HTTP_X_FORWARDED_FOR="10.0.0.1")
    response = forged.post("/matches/practice/", {"game": "bao2"}, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.status_code == 429
    assert "游客" in response.content.decode()  # the reason, translated
    assert User.objects.filter(is_guest=True).count() == 1
    assert "_auth_user_id" not in forged.session


# --- what a guest cannot reach ---------------------------------------------------------------


@pytest.fixture
def owner(db):
    return User.objects.create_user("owner", password=PASSWORD)


@pytest.fixture
def guest(db):
    return guests.create_guest("203.0.113.5")


def test_a_guest_joins_creates_and_is_invited_into_no_club(owner, guest):
    open_club = services.create_club(owner, name="Open", join_policy=JoinPolicy.OPEN)
    by_request = services.create_club(owner, name="Asked", join_policy=JoinPolicy.REQUEST)
    invitation = services.create_invitation(owner, open_club)
    for action in (
        lambda: services.join_club(guest, open_club),
        lambda: services.join_club(guest, by_request),
        lambda: services.accept_invitation(guest, invitation.token),
        lambda: services.create_club(guest, name="Mine"),
        lambda: services.create_api_token(guest, "script"),
    ):
        with pytest.raises(services.NotAllowed) as refused:
            action()
        assert refused.value.code == "guest"
    assert not guest.memberships.exists() and not guest.api_tokens.exists()
    assert Invitation.objects.get(pk=invitation.pk).uses == 0
    assert not by_request.join_requests.exists()


def test_a_guest_sees_no_members_only_club_and_opens_no_rated_table(owner, guest):
    private = services.create_club(owner, name="Private", visibility=Visibility.MEMBERS)
    client = guest_client(guest)
    page = client.get(f"/clubs/{private.slug}/", HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 200 and not page.context["visible"]
    assert client.get(f"/matches/clubs/{private.slug}/tables/").status_code == 404
    assert client.get(f"/ladder/clubs/{private.slug}/").status_code in (404, 302)
    public = services.create_club(owner, name="Public")
    with pytest.raises(tables.MatchError) as refused:
        tables.open_table(guest, public, variant="bao2", rated=True)
    assert refused.value.code == "not_member"
    table = tables.open_table(owner, public, variant="bao2", rated=True)
    with pytest.raises(tables.MatchError):
        tables.take_seat(guest, table, 1)
    assert not table.seats.filter(user=guest).exists()
    # the web forms refuse too: joining, creating a club
    response = client.post(f"/clubs/{public.slug}/join/", follow=True)
    assert not guest.memberships.exists() and response.status_code == 200
    response = client.post("/clubs/new/", {"name": "Mine", "join_policy": "open"})
    assert not guest.memberships.exists()


def test_a_guest_writes_nothing_through_the_api(owner, guest):
    from rest_framework.test import APIClient

    club = services.create_club(owner, name="Open", join_policy=JoinPolicy.OPEN)
    api = APIClient()
    api.force_login(guest)
    assert api.get("/api/v1/clubs/").status_code == 200  # reading is fine
    refused = api.post("/api/v1/clubs/", {"name": "Mine"}, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "permission_denied"
    refused = api.post(f"/api/v1/clubs/{club.slug}/join/", {}, format="json")
    assert refused.status_code == 403
    assert not guest.memberships.exists()
    assert api.post("/api/v1/auth/token/", {}, format="json").status_code in (400, 401, 403)
    assert not guest.api_tokens.exists()
    # a full account still writes through the session
    member = APIClient()
    member.force_login(User.objects.create_user("full", password=PASSWORD))
    assert member.post(f"/api/v1/clubs/{club.slug}/join/", {}, format="json").status_code < 300


def test_a_guests_profile_page_is_the_sign_up_page(guest):
    response = guest_client(guest).get("/accounts/profile/")
    assert response.status_code == 302 and response["Location"] == "/accounts/signup/"


# --- signing up keeps the account ------------------------------------------------------------


def test_signing_up_converts_the_guest_in_place_keeping_its_games(guest, no_tasks):
    User.objects.filter(pk=guest.pk).update(language="en")
    table = practice.start_practice(guest, variant="bao2")
    client = guest_client(guest)
    page = client.get("/accounts/signup/")
    assert page.context["guest"] and page.context["form"].initial["language"] == "en"
    response = client.post(
        "/accounts/signup/",
        {
            "username": "xiaoming",
            "email": "xiaoming@example.com",
            "display_name": "小明",
            "language": "zh-hans",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    assert response.status_code == 302
    user = User.objects.get(pk=guest.pk)
    assert (user.username, user.email, user.display_name) == (
        "xiaoming",
        "xiaoming@example.com",
        "小明",
    )
    assert not user.is_guest and user.check_password(PASSWORD)
    assert User.objects.count() == 1  # no second account
    assert table.seats.get(index=0).user_id == user.pk  # the game stays theirs
    assert int(client.session["_auth_user_id"]) == user.pk  # still signed in
    assert client.get("/accounts/profile/").status_code == 200


def test_a_refused_sign_up_leaves_the_guest_unchanged(owner, guest):
    for username in ("owner", "guest-mine"):
        with pytest.raises(services.ClubError):
            guests.convert_guest(guest, username=username, password=PASSWORD)
    with pytest.raises(services.ClubError):
        guests.convert_guest(guest, username="fine", password="123")  # too weak
    guest.refresh_from_db()
    assert guest.is_guest and guest.username.startswith("guest-")
    assert not guest.has_usable_password()
    with pytest.raises(services.ClubError) as refused:
        guests.convert_guest(owner, username="other", password=PASSWORD)
    assert refused.value.code == "not_guest"


# --- expiry ----------------------------------------------------------------------------------


def test_unused_guests_are_removed_and_never_a_signed_up_account(db, no_tasks):
    long_ago = timezone.now() - timedelta(days=settings.GUESTS_EXPIRE_DAYS + 1)
    unused = guests.create_guest("203.0.113.1")
    practice_table = practice.start_practice(unused)
    recent = guests.create_guest("203.0.113.2")
    converted = guests.create_guest("203.0.113.3")
    guests.convert_guest(converted, username="kept", password=PASSWORD)
    full = User.objects.create_user("old-timer", password=PASSWORD)
    never_logged_in = guests.create_guest("203.0.113.4")
    User.objects.filter(pk__in=[unused.pk, converted.pk, full.pk]).update(last_login=long_ago)
    User.objects.filter(pk=never_logged_in.pk).update(last_login=None, date_joined=long_ago)

    assert remove_unused_guests_task() == 2
    remaining = set(User.objects.values_list("username", flat=True))
    assert remaining == {recent.username, "kept", "old-timer"}
    assert not Table.objects.filter(pk=practice_table.pk).exists()  # its practice table too
    assert guests.remove_unused_guests() == 0  # idempotent


def test_playing_keeps_a_guest(db, no_tasks):
    guest = guests.create_guest("203.0.113.1")
    long_ago = timezone.now() - timedelta(days=settings.GUESTS_EXPIRE_DAYS + 1)
    User.objects.filter(pk=guest.pk).update(last_login=long_ago)
    guest.refresh_from_db()
    practice.start_practice(guest)  # in use again
    assert guests.remove_unused_guests() == 0
    assert User.objects.filter(pk=guest.pk, is_guest=True).exists()


def test_a_guest_signed_up_during_the_sweep_is_kept(db, monkeypatch):
    long_ago = timezone.now() - timedelta(days=settings.GUESTS_EXPIRE_DAYS + 1)
    guest = guests.create_guest("203.0.113.1")
    User.objects.filter(pk=guest.pk).update(last_login=long_ago)
    real_atomic = guests.transaction.atomic
    state = {"signed_up": False}

    def sign_up_first(*args, **kwargs):
        # the guest signs up after the sweep listed it, before its delete's transaction
        if not state["signed_up"]:
            state["signed_up"] = True
            guests.convert_guest(User.objects.get(pk=guest.pk), username="late", password=PASSWORD)
            User.objects.filter(pk=guest.pk).update(last_login=long_ago)
        return real_atomic(*args, **kwargs)

    monkeypatch.setattr(guests.transaction, "atomic", sign_up_first)
    assert guests.remove_unused_guests() == 0
    assert state["signed_up"]
    assert User.objects.get(pk=guest.pk).username == "late"


def test_beat_runs_the_sweep():
    entry = settings.CELERY_BEAT_SCHEDULE["clubs-guests-sweep"]
    assert entry["task"] == "clubs.tasks.remove_unused_guests_task"
    assert entry["schedule"] > 0
