"""The statistics app: a finished match recorded once into per-player facts and tallies, what
does not count, the periods, the honours, and who may see them (pages and API)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from kit import engine_match, store_match

from clubs.models import Club, Membership, Role, Visibility
from engine.facts import match_facts
from records import honours, periods, selectors, services
from records.models import Honour, MatchRecord, PlayerMatch, Tally

pytestmark = pytest.mark.django_db

BAO2 = engine_match("bao2", 3, 2)
GUANDAN = engine_match("guandan", 2, 2)


def _totals(user, period="all"):
    out = {}
    for t in Tally.objects.filter(user=user, period=period, kind="total"):
        for k, v in t.counters.items():
            out[k] = out.get(k, 0) + v
    return out


def test_a_finished_match_is_recorded_once(club, members):
    users = members(4)
    match = store_match(BAO2, club, users)
    assert services.record_live_match(match.pk) is True
    assert services.record_live_match(match.pk) is False  # a redelivered task changes nothing
    assert MatchRecord.objects.count() == 1 and PlayerMatch.objects.count() == 4
    facts = match_facts("bao2", 3, None, BAO2.log)
    for seat, user in enumerate(users):
        got = _totals(user)
        expected = dict(facts.seats[seat].counters)
        assert got.pop("timed_decisions") == expected["decisions"]
        assert got.pop("think_ms") == 2000 * expected["decisions"]  # 2 s each (the kit)
        assert got == expected
    row = PlayerMatch.objects.get(user=users[0])
    assert row.partner_id == users[2].pk and row.outcome == "won"
    # each period has the match once: all time, this month, this season
    assert Tally.objects.filter(user=users[0], kind="total").count() == 3


def test_tables_with_a_bot_and_practice_tables_are_not_recorded(club, members):
    users = members(4)
    with_bot = store_match(BAO2, club, users, bot="heuristic")
    practice = store_match(GUANDAN, None, users, rated=False, kind="practice")
    assert services.record_live_match(with_bot.pk) is False
    assert services.record_live_match(practice.pk) is False
    assert not MatchRecord.objects.exists() and not Tally.objects.exists()
    assert services.unrecorded_matches() == []  # nor does the sweep pick them


def test_the_sweep_finds_a_match_whose_task_was_lost(club, members):
    users = members(4)
    match = store_match(GUANDAN, club, users)
    assert services.unrecorded_matches() == [match.pk]
    services.record_live_match(match.pk)
    assert services.unrecorded_matches() == []


def test_rated_and_casual_are_kept_apart_and_periods_by_date(club, members):
    users = members(4)
    now = timezone.now()
    services.record_live_match(store_match(BAO2, club, users, rated=True).pk)
    services.record_live_match(store_match(BAO2, club, users, rated=False).pk)
    old = now - timedelta(days=400)
    services.record_live_match(store_match(BAO2, club, users, ended_at=old).pk)
    stats = selectors.player_statistics(users[0], users[0], periods.current("month"))
    assert [(g.variant, g.rated, g.get("matches")) for g in stats] == [
        ("bao2", True, 1),
        ("bao2", False, 1),
    ]
    every = selectors.player_statistics(users[0], users[0], "all")
    assert [(g.rated, g.get("matches")) for g in every] == [(True, 2), (False, 1)]
    assert every[0].partners[0].user == users[2] and every[0].partners[0].matches == 2
    assert {p.user for p in every[0].opponents} == {users[1], users[3]}


def test_honours_of_a_club_month(club, members):
    users = members(4)
    for _ in range(5):  # five matches: the partnership 0 & 2 wins them all
        services.record_live_match(store_match(BAO2, club, users).pk)
    key = periods.current("month")
    found = {h.code: h for h in Honour.objects.filter(club=club, period=key)}
    pair = found["best_partnership"]
    assert {pair.user_id, pair.partner_id} == {users[0].pk, users[2].pk}
    assert pair.value == 100.0 and pair.matches == 5
    # 保2 made: seats 0 and 1 made one each per match; the lower id holds a tie
    assert found["bao2_made"].user_id == min(users[0].pk, users[1].pk)
    assert found["bao2_made"].value == 5
    assert found["most_matches"].value == 5
    assert "most_improved" not in found  # no ladder here
    shown = selectors.club_honours(club)
    assert [h.kind.code for h in shown["month"]][:2] == ["bao2_made", "double_up"] or [
        h.kind.code for h in shown["month"]
    ][0] == "bao2_made"


def test_no_honour_from_matches_with_bots(club, members):
    users = members(4)
    for _ in range(6):
        services.record_live_match(store_match(BAO2, club, users, bot="search").pk)
    assert honours.compute(club.pk, periods.current("month")) == []
    assert not Honour.objects.exists()


def test_most_improved_reads_the_club_ladder(club, members):
    from ladder.models import Ladder, RatedResult, RatingChange

    users = members(4)
    ladder = Ladder.objects.create(club=club, variant="bao2")
    now = timezone.now()
    for n in range(3):
        result = RatedResult.objects.create(
            source="live",
            source_id=f"r{n}",
            variant="bao2",
            club=club,
            ended_at=now,
            score0=23,
            score1=5,
        )
        for side, user in ((0, users[0]), (1, users[1])):
            RatingChange.objects.create(
                ladder=ladder,
                user=user,
                result=result,
                ended_at=now,
                side=side,
                before=1500,
                after=1510 if side == 0 else 1495,
                expected=0.5,
                score=1 - side,
                k=16,
                multiplier=1,
            )
    rows = {h.code: h for h in honours.compute(club.pk, periods.current("season"))}
    assert rows["most_improved"].user_id == users[0].pk and rows["most_improved"].value == 30


def _members_only(club):
    club.visibility = Visibility.MEMBERS
    club.save(update_fields=["visibility"])


def test_members_only_club_statistics_are_for_members(client, club, members, make_users):
    users = members(4)
    (stranger,) = make_users(1, prefix="x")
    services.record_live_match(store_match(BAO2, club, users).pk)
    _members_only(club)
    key = periods.current("month")
    assert selectors.player_statistics(stranger, users[0], key) == []
    assert selectors.player_statistics(None, users[0], key) == []
    assert len(selectors.player_statistics(users[1], users[0], key)) == 1
    assert selectors.player_honours(stranger, users[0]) == []
    # the API and the page say the same
    client.force_login(stranger)
    body = client.get(f"/api/v1/players/{users[0].pk}/statistics/").json()
    assert body["games"] == []
    refused = client.get(f"/api/v1/clubs/{club.slug}/honours/")
    assert refused.status_code == 404 and refused.json()["code"] == "members_only"
    page = client.get(f"/records/players/{users[0].pk}/")
    assert page.status_code == 200 and "bao2_made" not in page.content.decode()
    client.force_login(users[1])
    body = client.get(f"/api/v1/players/{users[0].pk}/statistics/?period=all").json()
    assert body["games"][0]["counters"]["bao2_made"] == 1
    assert client.get(f"/api/v1/clubs/{club.slug}/honours/").status_code == 200


def test_clubless_tables_are_shown_only_to_the_player(client, make_users):
    users = make_users(4)
    services.record_live_match(store_match(GUANDAN, None, users, rated=False, kind="friends").pk)
    key = periods.current("month")
    assert len(selectors.player_statistics(users[0], users[0], key)) == 1
    assert selectors.player_statistics(users[1], users[0], key) == []


def test_a_bad_period_is_refused_clearly(client, club, members):
    users = members(4)
    client.force_login(users[0])
    answer = client.get(f"/api/v1/players/{users[0].pk}/statistics/?period=decade")
    assert answer.status_code == 400 and answer.json()["code"] == "bad_period"
    page = client.get(f"/records/players/{users[0].pk}/?period=decade")
    assert page.status_code == 400
    assert client.get("/records/players/999999/").status_code == 404


def test_the_page_reads_in_a_constant_number_of_queries(client, club, members, make_users):
    users = members(4)
    client.force_login(users[0])
    services.record_live_match(store_match(BAO2, club, users).pk)

    def count():
        with CaptureQueriesContext(connection) as queries:
            assert client.get(f"/records/players/{users[0].pk}/?period=all").status_code == 200
        return len(queries)

    few = count()
    others = make_users(6, prefix="o")
    more_club = Club.objects.create(name="第二俱乐部", slug="second")
    for user in [*users, *others]:
        Membership.objects.get_or_create(club=more_club, user=user, role=Role.MEMBER)
    for k in range(6):
        four = [users[0], others[k], users[2], others[(k + 1) % 6]]
        services.record_live_match(store_match(GUANDAN, more_club, four).pk)
        services.record_live_match(store_match(BAO2, club, users, rated=False).pk)
    assert count() == few
