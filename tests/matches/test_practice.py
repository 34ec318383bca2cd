"""Practice against bots (issue 41, part 1): a club-less, unrated table where one person plays
the bots at once; nobody else ever sees it, and it never reaches a ladder."""

import json
import os
import sys

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser
from django.db import IntegrityError, transaction
from django.test import Client, override_settings
from django.utils import timezone
from matchkit import make_user, run_until_over

from clubs import guests
from clubs import services as club_services
from config.asgi import application
from games.variants import Variant, game
from ladder.models import Ladder, RatedResult
from matches.models import Match, Table, TableKind, TableStatus
from matches.services import clock, play, practice, presence, tables

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))

from hidden import check_frames  # noqa: E402


def cookie_of(user):
    if user is None:
        return ""
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


# --- the service -----------------------------------------------------------------------------


@pytest.mark.parametrize("strength", practice.STRENGTHS)
def test_the_person_takes_seat_0_and_bots_the_others_and_the_match_starts(db, scheduled, strength):
    guest = guests.create_guest("203.0.113.1")
    table = practice.start_practice(guest, variant="bao2", strength=strength)
    table.refresh_from_db()
    assert (table.kind, table.club_id, table.rated, table.competition) == (
        TableKind.PRACTICE,
        None,
        False,
        False,
    )
    assert not table.clocks and table.time_limit_seconds == 0  # nobody is hurried
    assert not table.spectators_allowed and table.options == {"show_history": True}
    assert table.status == TableStatus.PLAYING
    seats = list(table.seats.order_by("index"))
    assert seats[0].user_id == guest.pk and not seats[0].bot
    assert [(s.user_id, s.bot) for s in seats[1:]] == [(None, strength)] * 3
    match = Match.objects.get(table=table)
    assert match.status == "playing" and match.seats[0]["user"] == guest.pk
    assert match.ends_at is None


def test_every_game_can_be_practised(db, scheduled):
    user = make_user("learner")
    with override_settings(MATCHES_PRACTICE_TABLES_MAX=10):
        for variant, _label in Variant.choices:
            table = practice.start_practice(user, variant=variant, strength="random")
            assert table.seats.count() == game(variant).seats
            assert table.seats.filter(user=user).get().index == 0


def test_bad_input_and_strangers_are_refused_having_created_nothing(db, scheduled):
    user = make_user("learner")
    for kwargs, code in (
        ({"variant": "poker"}, "bad_variant"),
        ({"strength": "grandmaster"}, "bad_options"),
        ({"strength": ""}, "bad_options"),
    ):
        with pytest.raises(tables.MatchError) as refused:
            practice.start_practice(user, **kwargs)
        assert refused.value.code == code
    for nobody in (None, AnonymousUser()):
        with pytest.raises(tables.MatchError) as refused:
            practice.start_practice(nobody)
        assert refused.value.code == "login_required"
    assert not Table.objects.exists()


@override_settings(MATCHES_PRACTICE_TABLES_MAX=2)
def test_a_person_has_at_most_a_few_practice_tables_unfinished(db, scheduled):
    user = make_user("learner")
    first = practice.start_practice(user)
    practice.start_practice(user)
    with pytest.raises(tables.MatchError) as refused:
        practice.start_practice(user)
    assert refused.value.code == "practice_limit" and "2" in refused.value.message
    assert Table.objects.count() == 2
    Table.objects.filter(pk=first.pk).update(status=TableStatus.FINISHED)
    practice.start_practice(user)  # a finished one does not count
    assert practice.unfinished_practice(make_user("other")) == []


def test_the_practice_page_starts_a_table_for_a_signed_in_person_without_a_club(db, scheduled):
    user = make_user("newcomer")
    client = Client()
    client.force_login(user)
    page = client.get("/matches/practice/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    html = page.content.decode()
    assert page.status_code == 200 and "开始" in html and "试玩" not in html
    assert 'value="bao2" checked' in html and 'value="heuristic" checked' in html
    response = client.post("/matches/practice/", {"game": "guandan", "strength": "search"})
    table = Table.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/matches/tables/{table.pk}/"
    assert (table.variant, table.seats.get(index=1).bot) == ("guandan", "search")
    assert client.get(response["Location"]).status_code == 200
    bad = client.post("/matches/practice/", {"game": "poker"})  # in the profile's language
    assert bad.status_code == 400 and "未知的游戏。" in bad.content.decode()
    assert Table.objects.count() == 1


def test_a_visitor_tries_it_in_one_tap_as_a_guest(db, scheduled):
    client = Client()
    home = client.get("/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "试玩" in home and 'action="/matches/practice/"' in home
    response = client.post("/matches/practice/", {"game": "bao2", "strength": "heuristic"})
    table = Table.objects.get()
    assert response["Location"] == f"/matches/tables/{table.pk}/"
    guest = table.seats.get(index=0).user
    assert guest.is_guest and int(client.session["_auth_user_id"]) == guest.pk
    assert client.get(response["Location"]).status_code == 200


def test_the_home_page_of_someone_without_a_club_leads_with_practice(db, scheduled):
    owner = make_user("owner")
    club_services.create_club(owner, name="南平保二会")
    newcomer = make_user("newcomer")
    client = Client()
    client.force_login(newcomer)
    html = client.get("/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    practice_at = html.index('class="practice-form"')
    join_at = html.index("加入俱乐部")
    create_at = html.index('id="create-club"')
    assert practice_at < join_at < create_at
    assert "南平保二会" in html[join_at:create_at]  # the clubs to join
    # a member's home page keeps its clubs first, practice after
    client.force_login(owner)
    html = client.get("/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert html.index('id="my-clubs"') < html.index('class="practice-form"')
    # a guest is not offered to create or join a club: to sign up
    guest_client = Client()
    guest_client.force_login(guests.create_guest("203.0.113.1"))
    html = guest_client.get("/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert 'id="create-club"' not in html and "/accounts/signup/" in html


def test_a_practice_table_is_on_its_players_home_page(db, scheduled):
    user = make_user("learner")
    table = practice.start_practice(user)
    client = Client()
    client.force_login(user)
    html = client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f"/matches/tables/{table.pk}/" in html and "练习牌桌" in html


# --- never rated -----------------------------------------------------------------------------


def test_a_practice_table_is_never_rated_and_its_match_never_reaches_a_ladder(
    transactional_db, scheduled
):
    user = make_user("learner")
    table = practice.start_practice(user, variant="bao2", strength="random")
    with pytest.raises(IntegrityError), transaction.atomic():
        Table.objects.filter(pk=table.pk).update(rated=True)  # the database refuses
    match = Match.objects.get(table=table)
    presence.set_autoplay(match.pk, 0, "disconnect")
    Match.objects.filter(pk=match.pk).update(ends_at=timezone.now().replace(year=2000))
    clock.apply_time_limit(match.pk)
    match = run_until_over(match.pk)
    assert match.status == "finished" and match.result
    play._record_rated_result(match)  # asked again: still nothing
    assert not RatedResult.objects.exists() and not Ladder.objects.exists()
    assert Table.objects.get(pk=table.pk).status == TableStatus.FINISHED
    assert Table.objects.get(pk=table.pk).rated is False


# --- hidden information ----------------------------------------------------------------------


async def opening(table_id, cookie):
    headers = [(b"origin", b"http://testserver")]
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    comm = WebsocketCommunicator(application, f"/ws/tables/{table_id}/", headers=headers)
    connected, _ = await comm.connect()
    assert connected
    return json.loads(await comm.receive_from(timeout=5)), comm


@pytest.mark.integration
def test_nobody_but_its_player_sees_a_practice_table(transactional_db, scheduled, fresh_layer):
    guest = guests.create_guest("203.0.113.1")
    owner = make_user("owner")
    club_services.create_club(owner, name="Nanping Bao 2")  # a club admin: no power here
    outsider = make_user("outsider")
    table = practice.start_practice(guest, variant="bao2", strength="heuristic")
    match = Match.objects.get(table=table)

    # the pages: only the player
    for user in (owner, outsider, None):
        client = Client()
        if user is not None:
            client.force_login(user)
        assert client.get(f"/matches/tables/{table.pk}/").status_code == 404
    player_page = Client()
    player_page.force_login(guest)
    assert player_page.get(f"/matches/tables/{table.pk}/").status_code == 200

    cookies = {name: cookie_of(u) for name, u in [("owner", owner), ("outsider", outsider)]}
    cookies["anonymous"] = ""
    player_cookie = cookie_of(guest)

    async def scenario():
        refused = {}
        for name, cookie in cookies.items():
            frame, comm = await opening(table.pk, cookie)
            refused[name] = frame
            await comm.disconnect()
        frame, comm = await opening(table.pk, player_cookie)
        frames = [frame]
        # the player leaves their seat to auto-play: the bots and it play on, every frame
        # the player's socket gets is checked below
        await database_sync_to_async(presence.set_autoplay)(match.pk, 0, "disconnect")
        for _ in range(40):
            current = await database_sync_to_async(Match.objects.get)(pk=match.pk)
            if current.status == "finished":
                break
            await database_sync_to_async(clock.act_on_deadline)(
                match.pk, current.version, force=True
            )
        # every frame sent (a receive that times out would cancel the application)
        while not await comm.receive_nothing(timeout=1.5):
            frames.append(json.loads(await comm.receive_from(timeout=5)))
        await comm.disconnect()
        return refused, frames

    refused, frames = async_to_sync(scenario)()
    for name, frame in refused.items():
        assert frame["type"] == "refused" and frame["code"] == "not_allowed", name
    assert frames[0]["type"] == "snapshot" and frames[0]["you"] == 0
    match.refresh_from_db()
    actions = list(match.events.order_by("seq").values_list("action", flat=True))
    assert len(actions) >= 30
    checked = check_frames(match.variant, match.seed, match.options, actions, {0: frames})
    assert checked >= 30
