"""Who may see, join and watch a friends' table — the permission matrix through the pages and
the real websocket (ASGI application, session auth, Redis channel layer) — and the hidden
information: no card a seat holds reaches anyone else, checked frame by frame."""

import html
import json
import os
import sys

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client, override_settings
from matchkit import make_user

from clubs import services as club_services
from clubs.models import Visibility
from config.asgi import application
from friends import services
from friends.models import Admission
from matches.models import Match, MatchEvent, Table
from matches.services import clock, tables

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from hidden import card_tokens, check_frames  # noqa: E402

pytestmark = pytest.mark.integration


def client_of(user, language="zh-hans"):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    if user is not None:
        client.force_login(user)
    return client


def cookie_of(user):
    if user is None:
        return ""
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


def socket(table_id, cookie):
    headers = [(b"origin", b"http://testserver")]
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    return WebsocketCommunicator(application, f"/ws/tables/{table_id}/", headers=headers)


@pytest.fixture
def cast(people):
    """A friends' table with its host and one friend seated (by code), and everyone else:
    a stranger, a member (an admin) of a members-only club, a guest, the anonymous visitor."""
    host, (friend, *_rest) = people["host"], people["friends"]
    room = services.open_room(host, variant="bao2")
    services.join_by_code(friend, room.code, "10.0.0.1")
    owner = make_user("owner")
    club = club_services.create_club(owner, name="Members only")
    club.visibility = Visibility.MEMBERS
    club.save()
    return {
        "room": room,
        "table": room.table,
        "host": host,
        "friend": friend,
        "stranger": make_user("stranger"),
        "club_member": owner,
        "guest": people["guest"],
        "anonymous": None,
        "late": people["friends"][1],
        "spare": people["friends"][2],
    }


def wrong(code):
    return f"{(int(code) + 1) % 10**6:06d}"


def test_the_permission_matrix_of_the_pages(cast):
    table, room = cast["table"], cast["room"]
    page = f"/matches/tables/{table.pk}/"
    for name in ("host", "friend"):
        response = client_of(cast[name]).get(page)
        assert response.status_code == 200, name
    # the invitation panel: the code, the link, the QR code; the host's removal buttons
    host_page = client_of(cast["host"]).get(page).content.decode()
    assert room.code in host_page and f"/friends/t/{room.token}/" in host_page
    assert "<svg" in host_page and "移出朋友1" in host_page
    assert "移出" not in client_of(cast["friend"]).get(page).content.decode()
    for name in ("stranger", "club_member", "guest", "anonymous"):
        response = client_of(cast[name]).get(page)
        assert response.status_code == 404, name
        assert room.code not in response.content.decode(), name
    # a stranger with a wrong code: refused, translated, nothing changes
    stranger = client_of(cast["stranger"])
    response = stranger.post("/friends/join/", {"code": wrong(room.code)})
    assert response.status_code == 400
    assert "没有用这个房间号开着的好友房" in response.content.decode()
    english = make_user("english", language="en")
    response = client_of(english, "en").post("/friends/join/", {"code": "12"})
    assert "No friends' table is open with that code" in html.unescape(response.content.decode())
    # and sitting down without an invitation is refused by the service
    response = stranger.post(f"/matches/tables/{table.pk}/seat/", {"action": "sit", "seat": 2})
    assert response.status_code == 302
    assert not table.seats.filter(user=cast["stranger"]).exists()
    assert stranger.get(page).status_code == 404
    # nor may a stranger take someone off a seat
    response = stranger.post(f"/friends/tables/{table.pk}/remove/", {"seat": 1})
    assert table.seats.get(index=1).user_id == cast["friend"].pk
    # a guest with the right code or link: practice only
    guest = client_of(cast["guest"])
    response = guest.post("/friends/join/", {"code": room.code})
    assert response.status_code == 403 and "游客只能打练习桌" in response.content.decode()
    response = guest.get(f"/friends/t/{room.token}/")
    assert response.status_code == 200 and "游客只能打练习桌" in response.content.decode()
    assert not Admission.objects.filter(user=cast["guest"]).exists()
    # the anonymous visitor is sent to log in for the friends' pages
    response = client_of(None).get("/friends/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    # the member of a members-only club gets no further with its club than anyone else
    assert client_of(cast["club_member"]).post("/friends/join/", {"code": "000000"}).status_code
    assert Table.objects.filter(friends_room__isnull=False).count() == 1


def test_the_link_page_shows_a_preview_in_the_viewers_language_and_survives_sign_up(cast):
    room = cast["room"]
    link = f"/friends/t/{room.token}/"
    zh = client_of(None, "zh-CN,zh;q=0.9").get(link).content.decode()
    assert '<meta property="og:title" content="老张邀请您来打保2">' in zh
    assert f"输入房间号 {room.code}" in zh
    site = settings.SITE_URL  # the public address, as e-mails' links use it
    assert f'property="og:image" content="{site}/static/img/friends-og.png"' in zh
    assert f'property="og:url" content="{site}{link}"' in zh
    en = client_of(None, "en-GB,en;q=0.9").get(link).content.decode()
    assert '<meta property="og:title" content="老张 invites you to Bao 2">' in en
    # sign up and log in come back to the link
    assert f"/accounts/signup/?next=/friends/t/{room.token}/" in zh
    visitor = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    response = visitor.post(
        f"/accounts/signup/?next={link}",
        {
            "username": "newcomer",
            "email": "newcomer@example.com",
            "display_name": "新朋友",
            "password1": "Long-Pass-phrase-77",
            "password2": "Long-Pass-phrase-77",
            "language": "zh-hans",
        },
    )
    assert response.status_code == 302 and response["Location"] == link
    response = visitor.get(link)
    assert response.status_code == 302
    assert response["Location"] == f"/matches/tables/{room.table_id}/"
    assert room.table.seats.get(index=2).user.username == "newcomer"
    # an unknown token: not found, no preview
    response = client_of(None).get("/friends/t/" + "x" * 43 + "/")
    assert response.status_code == 404 and "og:title" not in response.content.decode()


def test_the_og_image_is_a_small_png():
    from pathlib import Path

    data = (Path(__file__).resolve().parents[2] / "static/img/friends-og.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) < 100_000
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1200, 630)


@override_settings(FRIENDS_CODE_LOOKUPS_PER_USER=100, FRIENDS_CODE_LOOKUPS_PER_ADDRESS=3)
def test_the_address_limit_believes_forwarded_for_only_through_trusted_proxies(cast):
    stranger = client_of(cast["stranger"])
    code = wrong(cast["room"].code)
    with override_settings(TRUSTED_PROXY_COUNT=0):
        # a forged header per request does not make a new address
        statuses = [
            stranger.post(
                "/friends/join/", {"code": code}, HTTP_X_FORWARDED_FOR=f"10.9.0.{i}"
            ).status_code
            for i in range(4)
        ]
    assert statuses == [400, 400, 400, 429]
    with override_settings(TRUSTED_PROXY_COUNT=1):
        # behind one proxy the client is the last entry: another client, its own count
        response = stranger.post(
            "/friends/join/", {"code": code}, HTTP_X_FORWARDED_FOR="1.1.1.1, 203.0.113.7"
        )
        assert response.status_code == 400


def first_frames(table, users):
    cookies = {name: cookie_of(user) for name, user in users.items()}

    async def scenario():
        out = {}
        for name, cookie in cookies.items():
            comm = socket(table.pk, cookie)
            connected, _ = await comm.connect()
            assert connected
            out[name] = json.loads(await comm.receive_from(timeout=5))
            await comm.disconnect()
        return out

    return async_to_sync(scenario)()


def test_the_permission_matrix_of_the_websocket(cast):
    host, table = cast["host"], cast["table"]
    tables.add_bot(host, table, 2, "heuristic")
    services.join_by_link(cast["spare"], cast["room"].token)  # the last seat: it starts
    services.join_by_link(cast["late"], cast["room"].token)  # in, but no seat is left
    assert Match.objects.filter(table=table).exists()
    frames = first_frames(
        table,
        {n: cast[n] for n in ("host", "friend", "late", "stranger", "club_member", "guest")}
        | {"anonymous": None},
    )
    assert frames["host"]["you"] == 0 and frames["friend"]["you"] == 1
    assert frames["late"]["code"] == "no_spectators"  # no spectators at a friends' table
    for name in ("stranger", "club_member", "guest", "anonymous"):
        assert frames[name]["type"] == "refused" and frames[name]["code"] == "not_allowed", name
    for name in ("late", "stranger", "club_member", "guest", "anonymous"):
        assert not list(card_tokens(frames[name])), name
    # the late friend sees the page (the table is there for them) but no cards
    assert client_of(cast["late"]).get(f"/matches/tables/{table.pk}/").status_code == 200


def test_no_hidden_card_reaches_anyone_else(cast):
    """Two people and two bots play the start of a deal (the clock acts for everyone); every
    frame each person's socket received holds only what that seat may know, and the late
    friend, who is in but not seated, gets no frame with a card."""
    host, friend, table = cast["host"], cast["friend"], cast["table"]
    tables.add_bot(host, table, 2, "heuristic")
    tables.add_bot(host, table, 3, "random")
    services.join_by_link(cast["late"], cast["room"].token)
    match = Match.objects.get(table=table)
    cookies = {0: cookie_of(host), 1: cookie_of(friend), "late": cookie_of(cast["late"])}

    closed = set()

    async def receive(seat, comm, into):
        output = await comm.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            closed.add(seat)
        else:
            into.append(json.loads(output["text"]))

    async def drain(seat, comm, into, version=None):
        """Every frame that came, awaiting the one of ``version`` (the move just made)
        instead of polling for quiet after each move; with None, until nothing more comes."""
        if version is not None:
            while seat not in closed and not any(f.get("version") == version for f in into):
                await receive(seat, comm, into)
            return
        while seat not in closed and not await comm.receive_nothing(timeout=0.2):
            await receive(seat, comm, into)

    async def scenario():
        comms = {seat: socket(table.pk, cookies[seat]) for seat in cookies}
        frames = {seat: [] for seat in comms}
        for comm in comms.values():
            assert (await comm.connect())[0]
        await receive("late", comms["late"], frames["late"])  # refused at once: closed
        for _ in range(40):
            current = await database_sync_to_async(Match.objects.get)(pk=match.pk)
            if current.status == "finished":
                break
            await database_sync_to_async(clock.act_on_deadline)(
                match.pk, current.version, force=True
            )
            for seat in (0, 1):
                await drain(seat, comms[seat], frames[seat], current.version + 1)
        for seat, comm in comms.items():  # and whatever else came (nothing, for the late one)
            await drain(seat, comm, frames[seat])
            if seat not in closed:
                await comm.disconnect()
        return frames

    frames = async_to_sync(scenario)()
    assert [f["code"] for f in frames["late"]] == ["no_spectators"]
    assert not any(list(card_tokens(f)) for f in frames["late"])
    match.refresh_from_db()
    actions = list(
        MatchEvent.objects.filter(match=match).order_by("seq").values_list("action", flat=True)
    )
    assert len(actions) >= 30
    seated = {0: frames[0], 1: frames[1]}
    assert check_frames(match.variant, match.seed, match.options, actions, seated) > 60
