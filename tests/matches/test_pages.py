import pytest
from django.test import override_settings
from matchkit import run_until_over

from matches import selectors
from matches.messages import refusal_message
from matches.models import Match, Table
from matches.services import clock, tables


@pytest.fixture
def logged_in(client, players):
    client.force_login(players[0])
    return client


def test_lobby_lists_tables_and_opens_one(logged_in, club, players, scheduled):
    page = logged_in.get(f"/matches/clubs/{club.slug}/tables/")
    assert page.status_code == 200
    # quick phrases on by default, and said what they are
    assert 'name="phrases_allowed"' in page.content.decode()
    assert "玩家可以发送的固定短句" in page.content.decode()
    response = logged_in.post(
        f"/matches/clubs/{club.slug}/tables/",
        {
            "variant": "bao2",
            "colour_twos": "on",
            "clocks": "on",
            "first_action_seconds": 30,
            "action_seconds": 20,
            "time_limit_minutes": 45,
            "spectators_allowed": "on",
        },
    )
    table = Table.objects.get()
    assert response.status_code == 302 and response.url == f"/matches/tables/{table.pk}/"
    assert table.options == {"first_action_seconds": 30, "action_seconds": 20, "colour_twos": True}
    assert table.spectators_allowed and not table.phrases_allowed  # its box left unticked
    assert table.time_limit_seconds == 45 * 60 and table.seats.get(index=0).user == players[0]
    page = logged_in.get(f"/matches/clubs/{club.slug}/tables/")
    assert f"/matches/tables/{table.pk}/" in page.content.decode()
    # bad input: refused with the form shown again, nothing created
    response = logged_in.post(f"/matches/clubs/{club.slug}/tables/", {"variant": "chess"})
    assert response.status_code == 200 and Table.objects.count() == 1


def test_outsider_cannot_open_a_table(client, club, scheduled):
    response = client.post(f"/matches/clubs/{club.slug}/tables/", {"variant": "bao2"})
    assert response.status_code == 403
    assert not Table.objects.exists()


def test_seats_bots_and_start_from_the_table_page(logged_in, club, players, scheduled):
    table = tables.open_table(players[0], club, variant="bao2")
    page = logged_in.get(f"/matches/tables/{table.pk}/")
    assert page.status_code == 200 and "table-words" in page.content.decode()
    for seat in (1, 2):
        logged_in.post(
            f"/matches/tables/{table.pk}/seat/", {"action": "bot", "seat": seat, "bot": "random"}
        )
    response = logged_in.post(f"/matches/tables/{table.pk}/seat/", {"action": "sit", "seat": 3})
    assert response.status_code == 302  # already seated: refused with a message
    logged_in.post(f"/matches/tables/{table.pk}/seat/", {"action": "garbage"})
    logged_in.post(
        f"/matches/tables/{table.pk}/seat/", {"action": "bot", "seat": 3, "bot": "heuristic"}
    )
    table.refresh_from_db()
    assert table.status == "playing"
    assert [s["bot"] for s in Match.objects.get(table=table).seats] == [
        "",
        "random",
        "random",
        "heuristic",
    ]
    page = logged_in.get(f"/matches/tables/{table.pk}/")
    assert 'data-started="1"' in page.content.decode()


@override_settings(MATCHES_BOT_DELAY_SECONDS=0)
def test_replay_page_of_a_finished_match(logged_in, club, players, scheduled):
    table = tables.open_table(players[0], club, variant="bao2", sit=False, time_limit_seconds=1)
    assert logged_in.get(f"/matches/tables/{table.pk}/replay/").status_code == 404
    for seat in range(4):
        tables.add_bot(players[0], table, seat, "heuristic")
    match = Match.objects.get(table=table)
    Match.objects.filter(pk=match.pk).update(ends_at=match.ends_at.replace(year=2000))
    clock.apply_time_limit(match.pk)
    match = run_until_over(match.pk)
    page = logged_in.get(f"/matches/tables/{table.pk}/replay/")
    assert page.status_code == 200
    steps = page.context["steps"]
    assert len(steps) == match.version + 1
    assert all(len(v["hand"]) == 27 for v in steps[0]["views"])
    # hands are sorted by the variant's card order of each deal's level, as at the table
    orders = page.context["orders"]
    levels = {step["views"][0].get("level") or "" for step in steps}
    assert set(orders) == levels
    first = steps[0]["views"][0]["level"]
    assert orders[first] == selectors.card_order("bao2", first)
    value = orders[first]["value"]
    rank = "23456789TJQKA".index(first)
    assert value[rank] > value[12]  # the level rank ranks above the ace
    assert 'id="replay-orders"' in page.content.decode()


def test_team_levels_named_by_rank_and_round():
    bao2 = selectors.level_names("bao2")
    assert len(bao2) == 24
    assert bao2[0] == ("3", 1) and bao2[7] == ("10", 1) and bao2[11] == ("A", 1)
    assert bao2[12] == ("3", 2) and bao2[23] == ("A", 2)
    guandan = selectors.level_names("guandan")
    assert guandan[0] == ("2", 1) and guandan[12] == ("A", 1) and len(guandan) == 13
    assert selectors.level_names("honger") == ()
    assert selectors.card_order("bao2", "3")["levels"][12] == ["3", 2]


def test_replay_pages_are_cached_and_rate_limited(
    logged_in, club, players, scheduled, settings, monkeypatch
):
    """The steps of a replay are built once per match version; more than the limit of replay
    pages a minute from one address gets 429, with the translated refusal."""
    settings.MATCHES_REPLAYS_PER_MINUTE = 3
    table = tables.open_table(players[0], club, variant="bao2", sit=False, time_limit_seconds=1)
    for seat in range(4):
        tables.add_bot(players[0], table, seat, "heuristic")
    match = Match.objects.get(table=table)
    Match.objects.filter(pk=match.pk).update(ends_at=match.ends_at.replace(year=2000))
    clock.apply_time_limit(match.pk)
    run_until_over(match.pk)
    built = []
    real = selectors.replay_frames
    monkeypatch.setattr(selectors, "replay_frames", lambda m: built.append(m.pk) or real(m))
    first = logged_in.get(f"/matches/tables/{table.pk}/replay/")
    second = logged_in.get(f"/matches/tables/{table.pk}/replay/")
    assert first.status_code == second.status_code == 200
    assert built == [match.pk]  # the second page came from the cache
    assert first.content.count(b'id="replay-steps"') == 1
    assert logged_in.get(f"/matches/tables/{table.pk}/replay/").status_code == 200
    refused = logged_in.get(f"/matches/tables/{table.pk}/replay/")
    assert refused.status_code == 429
    assert refused.content.decode() == refusal_message("rate_limited")
