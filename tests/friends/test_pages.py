"""The friends' pages: the home page's way in, opening a table with one tap per game, the
host taking someone off a seat, and what a guest is told."""

import pytest
from django.test import Client

from friends import services
from friends.models import Admission
from matches.models import Table


def client_of(user):
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(user)
    return client


def test_the_home_page_leads_to_friends_tables_except_for_guests(people):
    assert "和朋友打牌" in client_of(people["host"]).get("/").content.decode()
    assert 'href="/friends/"' not in client_of(people["guest"]).get("/").content.decode()
    page = client_of(people["guest"]).get("/friends/").content.decode()
    assert "游客只能打练习桌" in page and 'name="variant"' not in page


@pytest.mark.parametrize("variant", ["bao2", "shuangkou2"])
def test_one_tap_opens_a_table_of_the_game(people, variant):
    host = client_of(people["host"])
    page = host.get("/friends/").content.decode()
    assert f'name="variant" value="{variant}"' in page
    response = host.post("/friends/open/", {"variant": variant})
    table = Table.objects.get(kind="friends")
    assert response.status_code == 302 and response["Location"] == f"/matches/tables/{table.pk}/"
    assert table.variant == variant and table.created_by == people["host"]


def test_a_bad_game_and_a_guest_change_nothing(people):
    response = client_of(people["host"]).post("/friends/open/", {"variant": "poker"})
    assert response.status_code == 400 and "未知的游戏" in response.content.decode()
    response = client_of(people["guest"]).post("/friends/open/", {"variant": "bao2"})
    assert response.status_code == 403
    assert not Table.objects.exists()


def test_the_host_takes_a_friend_off_through_the_page(people):
    host, (a, *_) = people["host"], people["friends"]
    room = services.open_room(host, variant="bao2")
    services.join_by_code(a, room.code, "10.0.0.1")
    page = f"/matches/tables/{room.table_id}/"
    assert "移出朋友1" in client_of(host).get(page).content.decode()
    friend = client_of(a)
    friend.post(f"/friends/tables/{room.table_id}/remove/", {"seat": 0})
    assert "只有房主可以这样做" in friend.get(page).content.decode()
    response = client_of(host).post(f"/friends/tables/{room.table_id}/remove/", {"seat": "1"})
    assert response.status_code == 302 and response["Location"] == page
    assert room.table.seats.get(index=1).user is None
    assert Admission.objects.get(user=a).removed
    # the removed friend sees the table no more, and the link says why
    assert client_of(a).get(page).status_code == 404
    response = client_of(a).get(f"/friends/t/{room.token}/")
    assert response.status_code == 200 and "房主已把您移出这张牌桌" in response.content.decode()


def test_the_admin_lists_and_shows_rooms(people, admin_client):
    room = services.open_room(people["host"], variant="bao2")
    services.join_by_code(people["friends"][0], room.code, "10.0.0.1")
    assert admin_client.get(f"/admin/friends/room/?q={room.code}").status_code == 200
    page = admin_client.get(f"/admin/friends/room/{room.pk}/change/").content.decode()
    assert room.code in page and "朋友1" in page


def test_the_link_survives_logging_in(people):
    room = services.open_room(people["host"], variant="bao2")
    link = f"/friends/t/{room.token}/"
    visitor = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    page = visitor.get(link).content.decode()
    assert f'href="/accounts/login/?next={link}"' in page
    # the log-in page's sign-up link keeps it too, and sign-up's log-in link
    login_page = visitor.get(f"/accounts/login/?next={link}").content.decode()
    assert f"/accounts/signup/?next={link}" in login_page
    signup_page = visitor.get(f"/accounts/signup/?next={link}").content.decode()
    assert f"/accounts/login/?next={link}" in signup_page
    response = visitor.post(
        "/accounts/login/", {"username": "f1", "password": "pw-Secret-123", "next": link}
    )
    assert response.status_code == 302 and response["Location"] == link
    response = visitor.get(link)
    assert response["Location"] == f"/matches/tables/{room.table_id}/"
    assert room.table.seats.get(index=1).user == people["friends"][0]
