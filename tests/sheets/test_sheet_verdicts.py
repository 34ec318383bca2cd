"""Who confirms a score sheet when the sides change between deals, one open dispute per player,
and huge player ids (issue 20, items 3, 5 and 14)."""

import uuid

import pytest
from django.core import mail
from django.test import Client
from rest_framework.test import APIClient

from clubs.models import Club, Membership, Role, User
from games.variants import game
from outbox.models import OutboxMessage
from sheets import selectors, services
from sheets.models import SheetStatus, SheetVerdict

pytestmark = pytest.mark.django_db

HUGE = 10**30


def user(name, **extra):
    return User.objects.create_user(
        username=name, password="pw-Secret-123", email=f"{name}@example.com", **extra
    )


@pytest.fixture
def club():
    return Club.objects.create(name="南平红二俱乐部", slug="nanping")


@pytest.fixture
def people(club):
    owner = user("owner", language="en")
    Membership.objects.create(club=club, user=owner, role=Role.OWNER)
    admin = user("admin", language="zh-hans")
    Membership.objects.create(club=club, user=admin, role=Role.ADMIN)
    players = [user(f"p{i}", display_name=f"玩家{i}") for i in range(4)]
    Membership.objects.bulk_create(Membership(club=club, user=p, role=Role.MEMBER) for p in players)
    return {"owner": owner, "admin": admin, "players": players}


def red_two_deal(h2):
    return {"deal": {"mode": "partnership", "h2": h2, "finish": [0, 1, 2, 3]}}


def finished_red_two(club, players):
    sheet = services.start_sheet(
        players[0],
        club,
        variant="honger",
        players=[services.PlayerSpec(user_id=p.pk) for p in players],
        options={"deals": 1},
    )
    # ♥2 with seats 0 and 1: they are partners this deal, whatever their seats' parity
    services.add_entry(players[0], sheet, red_two_deal([0, 1]), uuid.uuid4())
    sheet.refresh_from_db()
    assert sheet.status == SheetStatus.FINISHED
    return sheet


def finished_bao2(club, players):
    sheet = services.start_sheet(
        players[0],
        club,
        variant="bao2",
        players=[services.PlayerSpec(user_id=p.pk) for p in players],
        rated=False,
    )
    while not sheet.state["over"]:
        services.add_entry(players[0], sheet, {"deal": {"finish": [0, 2]}}, uuid.uuid4())
        sheet.refresh_from_db()
    return sheet


def test_red_two_sides_change_between_deals():
    assert not game("honger").fixed_sides


def test_two_of_four_red_two_players_cannot_confirm_but_all_four_can(club, people):
    p = people["players"]
    sheet = finished_red_two(club, p)
    # the two partners of the deal (one of each seat parity: what used to be enough)
    services.confirm(p[0], sheet)
    services.confirm(p[1], sheet)
    sheet.refresh_from_db()
    assert sheet.status == SheetStatus.FINISHED
    assert selectors.confirmed_result(sheet) is None  # no tournament game can take it yet
    services.confirm(p[2], sheet)
    sheet.refresh_from_db()
    assert sheet.status == SheetStatus.FINISHED  # three of four are not enough either
    services.confirm(p[3], sheet)
    sheet.refresh_from_db()
    assert sheet.status == SheetStatus.CONFIRMED
    assert selectors.confirmed_result(sheet).seat_totals == [2, 2, -2, -2]  # 0+1 won


def test_a_club_admin_confirms_a_red_two_sheet_alone(club, people):
    p = people["players"]
    sheet = finished_red_two(club, p)
    services.confirm(p[0], sheet)
    services.confirm(people["admin"], sheet)  # e.g. the organiser of the club's tournament
    sheet.refresh_from_db()
    assert sheet.status == SheetStatus.CONFIRMED


def test_red_two_confirmations_before_an_undo_do_not_count(club, people):
    p = people["players"]
    sheet = finished_red_two(club, p)
    for player in p[:3]:
        services.confirm(player, sheet)
    services.undo_last(p[0], sheet, uuid.uuid4())
    services.add_entry(p[0], sheet, red_two_deal([0, 2]), uuid.uuid4())
    sheet.refresh_from_db()
    services.confirm(p[3], sheet)
    sheet.refresh_from_db()
    assert sheet.status == SheetStatus.FINISHED


def test_fixed_sides_still_need_one_player_of_each_side(club, people):
    p = people["players"]
    sheet = finished_bao2(club, p)
    services.confirm(p[0], sheet)
    services.confirm(p[1], sheet)
    sheet.refresh_from_db()
    assert sheet.status == SheetStatus.CONFIRMED


def test_one_open_dispute_per_player_and_sheet(
    club, people, celery_eager, django_capture_on_commit_callbacks, settings
):
    settings.SITE_URL = "https://bao2.example.org"
    p = people["players"]
    sheet = finished_bao2(club, p)
    with django_capture_on_commit_callbacks(execute=True):
        services.dispute(p[1], sheet, "第三副不对")
    assert sorted(m.to[0] for m in mail.outbox) == ["admin@example.com", "owner@example.com"]
    # the link to settle it is on the site's address
    assert f"https://bao2.example.org/matches/sheets/{sheet.pk}/" in mail.outbox[0].body
    keys = set(OutboxMessage.objects.values_list("key", flat=True))
    verdict = SheetVerdict.objects.get(sheet=sheet, kind="dispute")
    assert keys == {
        f"sheet-dispute:{verdict.pk}:user:{people['owner'].pk}",
        f"sheet-dispute:{verdict.pk}:user:{people['admin'].pk}",
    }
    for _ in range(3):
        with pytest.raises(services.SheetError) as refused:
            with django_capture_on_commit_callbacks(execute=True):
                services.dispute(p[1], sheet, "again")
        assert refused.value.code == "already_disputed"
        assert refused.value.message == "您已对此结果提出异议，俱乐部管理员会处理。"
    assert len(mail.outbox) == 2 and OutboxMessage.objects.count() == 2
    assert SheetVerdict.objects.filter(sheet=sheet, kind="dispute").count() == 1
    # another player may still raise their own dispute (and the admins hear of it once)
    with django_capture_on_commit_callbacks(execute=True):
        services.dispute(p[2], sheet)
    assert len(mail.outbox) == 4


def test_a_second_dispute_through_the_api_is_a_translated_400(
    club, people, celery_eager, django_capture_on_commit_callbacks
):
    p = people["players"]
    sheet = finished_bao2(club, p)
    api = APIClient()
    api.force_authenticate(p[1])
    with django_capture_on_commit_callbacks(execute=True):
        first = api.post(f"/api/v1/sheets/{sheet.pk}/dispute/", {"reason": "x"}, format="json")
    assert first.status_code == 200
    sent = len(mail.outbox)
    with django_capture_on_commit_callbacks(execute=True):
        again = api.post(
            f"/api/v1/sheets/{sheet.pk}/dispute/",
            {"reason": "x"},
            format="json",
            HTTP_ACCEPT_LANGUAGE="zh-hans",
        )
    assert again.status_code == 400
    assert again.json() == {
        "detail": "您已对此结果提出异议，俱乐部管理员会处理。",
        "code": "already_disputed",
    }
    assert len(mail.outbox) == sent


@pytest.mark.parametrize("huge", [HUGE, 2**63])
def test_huge_player_ids_are_refused_not_a_500(club, people, huge):
    owner = people["owner"]
    api = APIClient()
    api.force_authenticate(owner)
    response = api.post(
        "/api/v1/sheets/",
        {"club": club.slug, "variant": "shuangkou2", "players": [{"user": huge}, {"guest": "客"}]},
        format="json",
    )
    assert response.status_code == 400
    assert "players" in response.json()
    with pytest.raises(services.SheetError) as refused:
        services.start_sheet(
            owner,
            club,
            variant="shuangkou2",
            players=[services.PlayerSpec(user_id=huge), services.PlayerSpec(guest_name="客")],
        )
    assert refused.value.field == "players"
    web = Client()
    web.force_login(owner)
    page = web.post(
        f"/matches/sheets/new/{club.slug}/",
        {
            "variant": "shuangkou2",
            "seat0_user": str(huge),
            "seat1_guest": "客",
            "time_limit_minutes": 0,
            "deals": 1,
        },
    )
    assert page.status_code == 200  # the form again, with its error
    assert not club.score_sheets.exists()
