"""Clearer moments (issue 43, points 4 and 5): 再来一局 with the same seats, what auto-play did
while a player was away (their own seat's actions only), a specific reason for a refused
selection."""

import pytest
from django.core.cache import cache
from django.test import override_settings
from django.utils import translation
from matchkit import make_user, run_until_over

from engine.cards import parse_cards
from matches import selectors, store
from matches.messages import MatchError
from matches.models import Actor, Match, Table, TableKind, TableStatus
from matches.services import again, away, clock, practice, presence, tables


@pytest.fixture(autouse=True)
def clean_cache():
    cache.clear()
    yield
    cache.clear()


def finish(match):
    """End ``match`` soon: its time limit runs out, the bots and auto-play finish the deal."""
    presence_seats = [s for s, info in enumerate(match.seats) if not info.get("bot")]
    for seat in presence_seats:
        presence.set_autoplay(match.pk, seat, "disconnect")
    match.refresh_from_db()
    if match.ends_at is None:
        Match.objects.filter(pk=match.pk).update(ends_at=match.started_at)
    else:
        Match.objects.filter(pk=match.pk).update(ends_at=match.ends_at.replace(year=2000))
    clock.apply_time_limit(match.pk)
    return run_until_over(match.pk)


def bot_table(club, players, humans=1, variant="guandan"):
    table = tables.open_table(players[0], club, variant=variant, time_limit_seconds=60)
    for seat in range(1, humans):
        tables.take_seat(players[seat], table, seat)
    for seat in range(humans, 4):
        tables.add_bot(players[0], table, seat, "random")
    return table


@override_settings(MATCHES_BOT_DELAY_SECONDS=0)
def test_play_again_opens_the_same_seats_and_starts_when_everyone_came(club, players, scheduled):
    table = bot_table(club, players, humans=2)
    with pytest.raises(MatchError) as refused:
        again.play_again(players[0], table)
    assert refused.value.code == "not_finished"
    old = finish(Match.objects.get(table=table))
    assert old.status == "finished"
    # a stranger to the match is refused, nothing opened
    with pytest.raises(MatchError) as refused:
        again.play_again(players[2], table)
    assert refused.value.code == "not_seated" and Table.objects.count() == 1
    new = again.play_again(players[1], table)
    assert new.pk != table.pk and new.status == TableStatus.OPEN
    assert new.variant == table.variant and new.options == table.options and new.club == club
    seats = list(new.seats.order_by("index"))
    assert [s.user_id for s in seats] == [None, players[1].pk, None, None]
    assert [s.bot for s in seats] == ["", "", "random", "random"]
    # asking twice: the same table
    assert again.play_again(players[1], table).pk == new.pk
    # the other player comes to the same table, in their old seat: it starts
    assert again.play_again(players[0], table).pk == new.pk
    new.refresh_from_db()
    assert new.status == TableStatus.PLAYING
    match = Match.objects.get(table=new)
    assert [s["user"] for s in match.seats] == [players[0].pk, players[1].pk, None, None]
    assert Table.objects.count() == 2


@override_settings(MATCHES_BOT_DELAY_SECONDS=0)
def test_play_again_refuses_competition_tables(club, players, scheduled):
    table = tables.open_table(players[0], club, variant="guandan", competition=True, sit=False)
    for seat in range(4):
        tables.take_seat(players[seat], table, seat)
    finish(Match.objects.get(table=table))
    with pytest.raises(MatchError) as refused:
        again.play_again(players[0], table)
    assert refused.value.code == "again_competition"
    assert not again.offered(players[0], table, Match.objects.get(table=table))
    assert Table.objects.count() == 1


@override_settings(MATCHES_BOT_DELAY_SECONDS=0)
def test_a_practice_table_is_played_again_as_practice_with_its_bots(db, scheduled):
    person = make_user("learner")
    table = practice.start_practice(person, variant="guandan", strength="random")
    finish(Match.objects.get(table=table))
    new = again.play_again(person, table)
    assert new.kind == TableKind.PRACTICE and new.pk != table.pk
    assert [s.bot for s in new.seats.order_by("index")] == ["", "random", "random", "random"]
    assert Match.objects.filter(table=new, status="playing").exists()


@override_settings(MATCHES_BOT_DELAY_SECONDS=0)
def test_the_again_page_redirects_to_the_new_table_or_tells_the_refusal(
    client, club, players, scheduled
):
    table = bot_table(club, players)
    client.force_login(players[0])
    response = client.post(f"/matches/tables/{table.pk}/again/")
    assert response.status_code == 302 and response.url == f"/matches/tables/{table.pk}/"
    assert Table.objects.count() == 1
    finish(Match.objects.get(table=table))
    response = client.post(f"/matches/tables/{table.pk}/again/")
    new = Table.objects.exclude(pk=table.pk).get()
    assert response.status_code == 302 and response.url == f"/matches/tables/{new.pk}/"
    assert client.get(f"/matches/tables/{table.pk}/again/").status_code == 405


def test_the_away_summary_tells_only_the_seats_own_actions(club, players, scheduled, client):
    table = tables.open_table(players[0], club, variant="guandan", sit=False)
    for seat in range(4):
        tables.take_seat(players[seat], table, seat)
    match = Match.objects.get(table=table)
    assert away.away_summary(match, 0) is None
    # seat 0 drops out; every seat's clock runs out a few times (the others by the clock)
    presence.set_autoplay(match.pk, 0, "disconnect")
    for _ in range(12):
        match.refresh_from_db()
        clock.act_on_deadline(match.pk, match.version, force=True)
    match.refresh_from_db()
    summary = away.away_summary_for(players[0], match)
    assert summary is not None
    mine = list(match.events.filter(seat=0, actor=Actor.AUTOPLAY).order_by("seq"))
    played = [e.action["play"] for e in mine if e.action.get("play")]
    # the same cards, in reading order (tests/matches/test_away_order.py)
    assert [sorted(p["cards"]) for p in summary["plays"]] == [sorted(p) for p in played]
    assert summary["passes"] == sum(1 for e in mine if e.action.get("pass"))
    assert summary["upto"] == mine[-1].seq
    # nothing of another seat: every card named was played by seat 0 itself
    named = [c for p in summary["plays"] for c in p["cards"]]
    assert sorted(named) == sorted(c for p in played for c in p)
    # seat 1 was played by its clock (then by auto-play once its clock ran out in a row): the
    # clock's own actions are not told (its player was there), auto-play's are
    s1 = away.away_summary(match, 1)
    theirs = list(match.events.filter(seat=1).order_by("seq"))
    assert {e.actor for e in theirs} <= {Actor.CLOCK, Actor.AUTOPLAY}
    auto = [e for e in theirs if e.actor == Actor.AUTOPLAY]
    if auto:
        assert s1 is not None and (s1["since"], s1["upto"]) == (auto[0].seq, auto[-1].seq)
    else:
        assert s1 is None
    # a spectator or a stranger is refused
    stranger = make_user("stranger")
    with pytest.raises(MatchError) as refused:
        away.away_summary_for(stranger, match)
    assert refused.value.code == "not_seated"
    client.force_login(stranger)
    response = client.get(f"/matches/tables/{table.pk}/away/")
    assert response.status_code == 403 and response.json()["code"] in (
        "not_seated",
        "members_only",
        "not_member",
    )
    client.force_login(players[0])
    response = client.get(f"/matches/tables/{table.pk}/away/")
    assert response.status_code == 200 and response.json()["summary"]["upto"] == mine[-1].seq
    # once the player acts themselves, there is nothing to tell any more
    match.refresh_from_db()
    engine = store.engine_of(match)
    if 0 in engine.actors():
        from matches.services import play

        play.submit_action(
            match.pk, engine.legal_actions(0)[0], seat=0, expected_version=match.version
        )
        assert away.away_summary(Match.objects.get(pk=match.pk), 0) is None


def _engine_at_play(club, players, variant="guandan"):
    table = tables.open_table(players[0], club, variant=variant, sit=False)
    for seat in range(4):
        tables.take_seat(players[seat], table, seat)
    match = Match.objects.get(table=table)
    engine = store.engine_of(match)
    return match, engine


def test_a_selection_that_makes_nothing_names_its_cards(club, players, scheduled):
    match, engine = _engine_at_play(club, players)
    seat = engine.actors()[0]
    hand = engine.observation(seat)["hand"]
    ranks = {}
    for c in hand:
        ranks.setdefault(c[1], c)
    two = list(ranks.values())[:2]  # two cards of different ranks
    with translation.override("zh-hans"):
        with pytest.raises(MatchError) as refused:
            selectors.check_selection(engine, seat, two)
    assert refused.value.code == "invalid_combo"
    message = refused.value.message
    assert "组不成牌型" in message and "两张牌同点数才是对子" in message and "点数不同" in message
    with translation.override("en"):
        with pytest.raises(MatchError) as refused:
            selectors.check_selection(engine, seat, two)
    assert "make no combination" in refused.value.message
    # not your turn: said so
    other = (seat + 1) % 4
    card = engine.observation(other)["hand"][:1]
    with translation.override("zh-hans"), pytest.raises(MatchError) as refused:
        selectors.check_selection(engine, other, card)
    assert refused.value.code == "not_your_turn" and "还没轮到你" in refused.value.message


def test_a_play_that_does_not_beat_names_both_plays(club, players, scheduled):
    from engine.variants import combo_rules
    from matches.refusals import explain

    rules = combo_rules("guandan", "2")
    observation = {"standing": {"type": "pair", "cards": ["SK", "HK"], "seat": 1}}
    with translation.override("zh-hans"):
        error = explain("does_not_beat", "", parse_cards(["S9", "H9"]), "pair", rules, observation)
        assert error.code == "does_not_beat"
        assert error.message == "你的对子（♠9 ♥9）压不过桌上的对子（♠K ♥K）。"
        error = explain(
            "needs_initiative", "", parse_cards(["S2", "H2"]), "pair", combo_rules("bao2", "3"), {}
        )
        assert error.message.startswith("♠2 ♥2：没有主动出牌权")
