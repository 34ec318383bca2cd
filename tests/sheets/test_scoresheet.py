"""Score sheets: services, idempotency, confirmation, disputes, ladder recording, API, permissions."""

import uuid

import pytest
from django.core import mail
from django.test import Client
from rest_framework.test import APIClient

from clubs.models import Club, Membership, Role, User
from engine.match import TableMatch
from ladder.models import RatedResult
from sheets import selectors, services
from sheets.models import ScoreSheet, SheetEntry, SheetStatus

pytestmark = pytest.mark.django_db


def user(name, **extra):
    return User.objects.create_user(
        username=name, password="pw-Secret-123", email=f"{name}@example.com", **extra
    )


@pytest.fixture
def club():
    return Club.objects.create(name="南通保二俱乐部", slug="nantong")


@pytest.fixture
def people(club):
    owner = user("owner", language="en")
    Membership.objects.create(club=club, user=owner, role=Role.OWNER)
    players = [user(f"p{i}", display_name=f"玩家{i}") for i in range(4)]
    for p in players:
        Membership.objects.create(club=club, user=p, role=Role.MEMBER)
    outsider = user("outsider")
    return {"owner": owner, "players": players, "outsider": outsider}


def start(club, scorer, players, variant="bao2", options=None, rated=True):
    specs = [services.PlayerSpec(user_id=p.pk) for p in players]
    return services.start_sheet(
        scorer, club, variant=variant, players=specs, options=options or {}, rated=rated
    )


def deal(finish, **extra):
    return {"deal": {"finish": finish, **extra}}


def play_to_end(sheet, scorer):
    """Team 0 takes 1st and 2nd every deal: +3 per deal, 8 deals to reach 23 (2A) then win."""
    while not sheet.state["over"]:
        services.add_entry(scorer, sheet, deal([0, 2]), uuid.uuid4())
        sheet.refresh_from_db()
    return sheet


def test_start_sheet_validates_players_and_options(club, people):
    p = people["players"]
    with pytest.raises(services.SheetError) as err:
        start(club, p[0], p[:3])
    assert err.value.field == "players"
    with pytest.raises(services.SheetError) as err:
        start(club, p[0], p, options={"colour_twos": "yes"})
    assert err.value.field == "options"
    with pytest.raises(services.SheetError) as err:
        start(club, p[0], p, variant="guandan", options={"colour_twos": True})
    assert err.value.code == "bad_option"
    with pytest.raises(services.SheetError) as err:
        start(club, p[0], [p[0], p[1], p[0], p[2]])
    assert err.value.code == "duplicate_player"
    with pytest.raises(services.NotAllowed):
        start(club, people["outsider"], p)
    with pytest.raises(services.SheetError) as err:
        start(club, p[0], [p[0], p[1], p[2], people["outsider"]])
    assert err.value.code == "not_member"
    assert ScoreSheet.objects.count() == 0
    guests = [services.PlayerSpec(user_id=p[0].pk)] + [
        services.PlayerSpec(guest_name=n) for n in ("老王", "小李", "阿梅")
    ]
    sheet = services.start_sheet(p[0], club, variant="bao2", players=guests)
    assert [pl.name for pl in sheet.players.order_by("seat")] == ["玩家0", "老王", "小李", "阿梅"]
    assert sheet.state["levels"] == [0, 0] and sheet.state["level_rank"] == "3"


def test_admitted_players_of_another_club_sit_and_keep_the_sheet(club, people):
    """A caller that checked its players (an inter-club league) admits non-members."""
    p, outsider = people["players"], people["outsider"]
    seats = [services.PlayerSpec(user_id=u.pk) for u in (p[0], p[1], p[2], outsider)]
    with pytest.raises(services.SheetError) as err:  # admitted to sit, not to keep it
        services.start_sheet(
            people["owner"], club, variant="bao2", players=seats, scorer=user("stranger")
        )
    assert err.value.code == "not_member" and err.value.field == "scorer"
    with pytest.raises(services.SheetError) as err:
        services.start_sheet(people["owner"], club, variant="bao2", players=seats)
    assert err.value.code == "not_member"
    sheet = services.start_sheet(
        people["owner"],
        club,
        variant="bao2",
        players=seats,
        scorer=outsider,
        admitted=[outsider.pk],
    )
    assert sheet.scorer == outsider and sheet.players.get(seat=3).user == outsider
    services.add_entry(outsider, sheet, deal([1, 3]), uuid.uuid4())  # the scorer scores
    with pytest.raises(services.NotAllowed):
        services.add_entry(p[1], sheet, deal([0, 2]), uuid.uuid4())


def test_deal_entries_follow_the_engine_and_undo(club, people):
    p = people["players"]
    sheet = start(club, p[0], p, options={"colour_twos": True})
    out = services.add_entry(
        p[0],
        sheet,
        deal([1, 3], bao2=[None, {"twos": 2, "red": 1}], twos_left=[{"twos": 1}, None, None, None]),
        uuid.uuid4(),
    )
    assert out.created
    sheet.refresh_from_db()
    expected = TableMatch("bao2", {"colour_twos": True})
    expected.apply(
        deal([1, 3], bao2=[None, {"twos": 2, "red": 1}], twos_left=[{"twos": 1}, None, None, None])
    )
    assert sheet.state == expected.state()
    # 3 (double win) + 3 (保2: one red = 2, one black = 1) + 1 closed black 2 = 7 → level index 7
    assert sheet.state["levels"] == [0, 7] and sheet.state["level_rank"] == "T"
    services.add_entry(p[0], sheet, deal([0, 1, 2]), uuid.uuid4())
    sheet.refresh_from_db()
    assert sheet.state["levels"] == [2, 7]
    services.undo_last(p[0], sheet, uuid.uuid4())
    sheet.refresh_from_db()
    assert sheet.state == expected.state()
    assert [r["kind"] for r in selectors.sheet_record(sheet)] == ["deal"]
    assert SheetEntry.objects.filter(sheet=sheet).count() == 3  # the log keeps everything


def test_refused_entry_changes_nothing_and_names_the_field(club, people):
    p = people["players"]
    sheet = start(club, p[0], p)
    for entry, field in [
        (deal([0, 1]), "finish"),
        (deal([0, 0, 1]), "finish"),
        (deal([0, 2], bao2=[None, {"twos": 2}]), "bao2"),
        (deal([0, 2], immune=True), "immune"),
        (deal([0, 1, 2], twos_left=[{"twos": 1}, None, None, None]), "twos_left"),
        (
            deal([0, 2], bao2=[{"twos": 8}, None], twos_left=[None, {"twos": 1}, None, None]),
            "twos_left",
        ),
        (deal([0, 2], tribute=1), "tribute"),
    ]:
        with pytest.raises(services.SheetError) as err:
            services.add_entry(p[0], sheet, entry, uuid.uuid4())
        assert err.value.field == field, entry
        assert err.value.message
    sheet.refresh_from_db()
    assert sheet.version == 0 and sheet.state["deals"] == 0


def test_same_key_is_stored_once(club, people):
    p = people["players"]
    sheet = start(club, p[0], p)
    key = uuid.uuid4()
    first = services.add_entry(p[0], sheet, deal([0, 2]), key)
    again = services.add_entry(p[0], sheet, deal([0, 2]), key)
    assert first.created and not again.created and again.entry.pk == first.entry.pk
    undo_key = uuid.uuid4()
    services.undo_last(p[0], sheet, undo_key)
    services.undo_last(p[0], sheet, undo_key)
    sheet.refresh_from_db()
    assert sheet.version == 2 and sheet.state["deals"] == 0


def test_only_scorer_and_admins_enter(club, people):
    p = people["players"]
    sheet = start(club, p[0], p)
    with pytest.raises(services.NotAllowed):
        services.add_entry(p[1], sheet, deal([0, 2]), uuid.uuid4())
    with pytest.raises(services.NotAllowed):
        services.undo_last(people["outsider"], sheet, uuid.uuid4())
    services.add_entry(people["owner"], sheet, deal([0, 2]), uuid.uuid4())


def test_confirmation_needs_both_sides_then_records_in_ladder(club, people, monkeypatch):
    p = people["players"]
    sheet = play_to_end(start(club, p[0], p), p[0])
    assert sheet.status == SheetStatus.FINISHED
    assert sheet.state["result"] == {"winner": 0, "score": [23, 0], "reason": "last_level"}
    with pytest.raises(services.SheetError):
        services.add_entry(p[0], sheet, deal([0, 2]), uuid.uuid4())
    with pytest.raises(services.NotAllowed):
        services.confirm(people["outsider"], sheet)
    assert selectors.sheet_json(sheet, p[0])["can"]["confirm"]
    services.confirm(p[0], sheet)
    assert not selectors.sheet_json(sheet, p[0])["can"]["confirm"]  # once is enough
    assert selectors.sheet_json(sheet, p[1])["can"]["confirm"]
    services.confirm(p[2], sheet)  # the same side twice is not enough
    sheet.refresh_from_db()
    assert sheet.status == SheetStatus.FINISHED
    assert selectors.confirmed_result(sheet) is None
    services.confirm(p[3], sheet)
    sheet.refresh_from_db()
    assert sheet.status == SheetStatus.CONFIRMED
    result = selectors.confirmed_result(sheet)
    assert result.sides == [[p[0].pk, p[2].pk], [p[1].pk, p[3].pk]]
    assert result.scores == (23, 0) and result.winner == 0
    rated = RatedResult.objects.get(source="sheet", source_id=str(sheet.pk))
    assert (rated.score0, rated.score1, rated.club_id) == (23, 0, club.pk)
    assert selectors.confirmed_results(club=club) == [result]
    with pytest.raises(services.SheetError):
        services.undo_last(p[0], sheet, uuid.uuid4())


def test_undo_after_a_confirmation_makes_it_stale(club, people):
    p = people["players"]
    sheet = play_to_end(start(club, p[0], p), p[0])
    services.confirm(p[1], sheet)
    services.undo_last(p[0], sheet, uuid.uuid4())
    services.add_entry(p[0], sheet, deal([0, 2]), uuid.uuid4())
    sheet.refresh_from_db()
    services.confirm(p[0], sheet)
    sheet.refresh_from_db()
    assert sheet.status == SheetStatus.FINISHED  # blue's confirmation was for an older record


def test_dispute_emails_admins_and_admin_settles(
    club, people, celery_eager, django_capture_on_commit_callbacks
):
    p = people["players"]
    sheet = play_to_end(start(club, p[0], p, rated=False), p[0])
    with django_capture_on_commit_callbacks(execute=True):
        services.dispute(p[1], sheet, "第三副的保2不对")
    sheet.refresh_from_db()
    assert sheet.status == SheetStatus.DISPUTED
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["owner@example.com"]
    assert "Disputed result" in mail.outbox[0].subject  # the owner reads English
    assert "Deal 8" in mail.outbox[0].body
    with pytest.raises(services.SheetError):
        services.confirm(p[0], sheet)  # players cannot override a dispute
    admin_client = Client()
    admin_client.force_login(people["owner"])
    page = admin_client.get(f"/matches/sheets/club/{club.slug}/").content.decode()
    assert "disputes-h" in page and f"/matches/sheets/{sheet.pk}/" in page
    member_client = Client()
    member_client.force_login(p[0])
    assert (
        "disputes-h" not in member_client.get(f"/matches/sheets/club/{club.slug}/").content.decode()
    )
    services.confirm(people["owner"], sheet)
    sheet.refresh_from_db()
    assert sheet.status == SheetStatus.CONFIRMED
    assert not RatedResult.objects.exists()  # unrated sheet


def test_guests_block_ladder_but_admin_can_confirm(club, people):
    p = people["players"]
    specs = [services.PlayerSpec(user_id=p[0].pk), services.PlayerSpec(guest_name="客人")]
    sheet = services.start_sheet(
        p[0], club, variant="shuangkou2", players=specs, options={"deals": 1}
    )
    services.add_entry(
        p[0], sheet, {"deal": {"winner": 1, "cards_left": 10, "bombs": [[], [6]]}}, uuid.uuid4()
    )
    sheet.refresh_from_db()
    # 10 cards x 2 (a 6-line bomb: m = 2^(6-5)) + 1 (its contribution, 6 - 5)
    assert sheet.state["result"]["score"] == [-21, 21]
    services.confirm(people["owner"], sheet)
    sheet.refresh_from_db()
    assert sheet.status == SheetStatus.CONFIRMED
    assert selectors.confirmed_result(sheet).sides is None
    assert not RatedResult.objects.exists()


def test_referee_cards_and_time_up(club, people):
    p = people["players"]
    sheet = start(club, p[0], p)
    for e in [
        deal([0, 2]),
        deal([0, 2]),
        {"card": "yellow", "team": 0},
        {"card": "red", "team": 1},
    ]:
        services.add_entry(p[0], sheet, e, uuid.uuid4())
    sheet.refresh_from_db()
    assert sheet.state["levels"] == [5, 0] and sheet.state["yellows"] == [1, 0]
    services.add_entry(p[0], sheet, {"time_up": True}, uuid.uuid4())
    sheet.refresh_from_db()
    assert sheet.status == SheetStatus.FINISHED
    assert sheet.state["result"] == {"winner": 0, "score": [5, 0], "reason": "time"}


# ------------------------------------------------------------------------------- API


def api_for(u):
    client = APIClient()
    client.force_authenticate(u)
    return client


def test_api_create_entries_undo_confirm(club, people):
    p = people["players"]
    client = api_for(p[0])
    body = {
        "club": club.slug,
        "variant": "bao2",
        "players": [{"user": p[0].pk}, {"user": p[1].pk}, {"user": p[2].pk}, {"guest": "老王"}],
        "options": {"colour_twos": True, "time_limit_minutes": 45},
    }
    res = client.post("/api/v1/sheets/", body, format="json")
    assert res.status_code == 201, res.json()
    sheet = res.json()
    assert sheet["time_limit_seconds"] == 2700 and sheet["can"]["score"]
    url = f"/api/v1/sheets/{sheet['id']}/"
    key = str(uuid.uuid4())
    entry = {"key": key, "deal": {"finish": [0, 2], "bao2": [{"twos": 1, "red": 1}, None]}}
    res = client.post(url + "entries/", entry, format="json")
    assert res.status_code == 201 and res.json()["created"]
    assert res.json()["sheet"]["state"]["levels"] == [5, 0]
    res = client.post(url + "entries/", entry, format="json")
    assert res.status_code == 200 and not res.json()["created"]
    assert res.json()["sheet"]["state"]["levels"] == [5, 0]
    res = client.post(url + "undo/", {"key": str(uuid.uuid4())}, format="json")
    assert res.status_code == 201 and res.json()["sheet"]["state"]["levels"] == [0, 0]
    assert client.get(url).json()["record"] == []
    assert client.get("/api/v1/sheets/").json()[0]["id"] == sheet["id"]
    res = client.post(url + "confirm/")
    assert res.status_code == 400 and res.json()["code"] == "not_finished"


@pytest.mark.parametrize(
    "body, field",
    [
        ({}, "key"),
        ({"key": "not-a-uuid", "time_up": True}, "key"),
        ({"key": str(uuid.uuid4())}, "entry"),
        ({"key": str(uuid.uuid4()), "deal": {"finish": [0, 2]}, "time_up": True}, "entry"),
        ({"key": str(uuid.uuid4()), "deal": {"finish": [7, 2]}}, "deal"),
        ({"key": str(uuid.uuid4()), "deal": {"finish": "0,2"}}, "deal"),
        ({"key": str(uuid.uuid4()), "deal": {"finish": [0, 1]}}, "deal"),
        (
            {"key": str(uuid.uuid4()), "deal": {"finish": [0, 2], "bao2": [None, {"twos": 3}]}},
            "deal",
        ),
        (
            {
                "key": str(uuid.uuid4()),
                "deal": {"finish": [0, 2], "bao2": [{"twos": 1, "red": 2}, None]},
            },
            "deal",
        ),
        ({"key": str(uuid.uuid4()), "deal": {"winner": 1, "cards_left": 3}}, "deal"),
        ({"key": str(uuid.uuid4()), "card": "green", "team": 0}, "card"),
        ({"key": str(uuid.uuid4()), "card": "yellow"}, "team"),
        ({"key": str(uuid.uuid4()), "deal": "everything"}, "deal"),
    ],
)
def test_api_bad_entries_are_400_with_field_errors(club, people, body, field):
    p = people["players"]
    sheet = start(club, p[0], p)
    res = api_for(p[0]).post(f"/api/v1/sheets/{sheet.pk}/entries/", body, format="json")
    assert res.status_code == 400, res.content
    assert field in res.json(), res.json()
    sheet.refresh_from_db()
    assert sheet.version == 0


@pytest.mark.parametrize(
    "body, field",
    [
        ({"club": "nantong", "variant": "chess", "players": []}, "variant"),
        ({"club": "nantong", "variant": "bao2", "players": [{"user": 1}]}, "players"),
        ({"club": "nantong", "variant": "bao2", "players": "abcd"}, "players"),
        ({"variant": "bao2", "players": []}, "club"),
        (
            {
                "club": "nantong",
                "variant": "bao2",
                "players": [{"guest": "a"}] * 4,
                "options": {"deals": 3},
            },
            "options",
        ),
        ({"club": "nantong", "variant": "bao2", "players": [{"guest": ""}] * 4}, "players"),
    ],
)
def test_api_bad_sheet_is_400(club, people, body, field):
    res = api_for(people["players"][0]).post("/api/v1/sheets/", body, format="json")
    assert res.status_code == 400, res.content
    assert field in res.json(), res.json()
    assert not ScoreSheet.objects.exists()


def test_api_permissions(club, people):
    p = people["players"]
    sheet = start(club, p[0], p)
    url = f"/api/v1/sheets/{sheet.pk}/"
    assert APIClient().get(url).status_code in (401, 403)
    assert api_for(people["outsider"]).get(url).status_code == 404
    assert api_for(people["outsider"]).get("/api/v1/sheets/").json() == []
    res = api_for(p[1]).post(
        url + "entries/", {"key": str(uuid.uuid4()), "time_up": True}, format="json"
    )
    assert res.status_code == 403 and res.json()["code"] == "not_allowed"
    assert api_for(p[1]).post(url + "void/").status_code == 403
    assert api_for(people["owner"]).post(url + "void/").status_code == 200
    sheet.refresh_from_db()
    assert sheet.status == SheetStatus.VOIDED
    body = {"club": club.slug, "variant": "guandan", "players": [{"guest": "a"}] * 4}
    assert (
        api_for(people["outsider"]).post("/api/v1/sheets/", body, format="json").status_code == 403
    )
    assert api_for(p[0]).get("/api/v1/sheets/abc/").status_code == 404


def test_schema_has_the_sheet_endpoints(client):
    res = client.get("/api/schema/", {"format": "json"})
    paths = res.json()["paths"]
    for path in (
        "/api/v1/sheets/",
        "/api/v1/sheets/{id}/entries/",
        "/api/v1/sheets/{id}/undo/",
        "/api/v1/sheets/{id}/confirm/",
        "/api/v1/sheets/{id}/dispute/",
    ):
        assert path in paths, path


def test_pages(club, people, client):
    p = people["players"]
    client.force_login(p[0])
    res = client.post(
        f"/matches/sheets/new/{club.slug}/",
        {
            "variant": "bao2",
            "seat0_user": p[0].pk,
            "seat1_user": p[1].pk,
            "seat2_guest": "老王",
            "seat3_user": p[3].pk,
            "time_limit_minutes": 60,
            "deals": 8,
            "rated": "on",
        },
    )
    sheet = ScoreSheet.objects.get()
    assert res.status_code == 302 and res.url == f"/matches/sheets/{sheet.pk}/"
    page = client.get(res.url)
    assert page.status_code == 200 and "sheet-data" in page.content.decode()
    assert client.get(f"/matches/sheets/club/{club.slug}/").status_code == 200
    res = client.post(
        f"/matches/sheets/new/{club.slug}/",
        {"variant": "bao2", "time_limit_minutes": 5, "deals": 8},
    )
    assert res.status_code == 200 and ScoreSheet.objects.count() == 1
    client.force_login(people["outsider"])
    assert client.get(f"/matches/sheets/{sheet.pk}/").status_code == 404
    assert client.get(f"/matches/sheets/new/{club.slug}/").status_code == 403


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_concurrent_resends_store_one_entry():
    """Four requests with the same key (a phone resending its queue from several tabs) at once:
    one entry is stored; on SQLite writers are serialised, on PostgreSQL the sheet row lock is."""
    club = Club.objects.create(name="并发俱乐部", slug="concurrent")
    players = [user(f"c{i}") for i in range(4)]
    for p in players:
        Membership.objects.create(club=club, user=p, role=Role.MEMBER)
    sheet = start(club, players[0], players)
    key = uuid.uuid4()
    from django.db import connection
    from matchkit import at_once

    if connection.vendor != "postgresql":
        pytest.skip("concurrent writers need PostgreSQL; SQLite serialises them")
    created, errors = at_once(
        lambda: services.add_entry(players[0], sheet, deal([0, 2]), key).created
    )
    assert errors == []
    assert sorted(created) == [False, False, False, True]
    sheet.refresh_from_db()
    assert sheet.version == 1 and sheet.state["levels"] == [3, 0]
    assert SheetEntry.objects.filter(sheet=sheet).count() == 1


def test_the_service_worker_is_public_javascript_never_cached_and_keeps_the_sheet_files(client):
    from django.templatetags.static import static

    from sheets.views import SHEET_CACHE

    res = client.get("/matches/sheets/sw.js")
    assert res.status_code == 200
    assert res["Content-Type"].startswith("text/javascript")
    assert res["Cache-Control"] == "no-cache"
    body = res.content.decode()
    assert f'const CACHE = "{SHEET_CACHE}";' in body
    for name in ("css/site.css", "css/scoresheet.css", "js/site.js", "js/scoresheet.js"):
        assert f'"{static(name)}"' in body
