"""A rated Red Two (honger) live match feeds the ladder exactly once, with the sides revealed
by its last deal (ladder.services.match_sides).

The matches are played to the end through the live-play services (people on auto-play, the
clock forced as the matches tests do); the seeds are chosen so the last deal is a partnership
after the partnerships changed, a solo (1 against 3), or ends level (the seats are on
auto-play, so the heuristic bot plays them; the tests check the mode they rely on).
"""

import math

import pytest
from django.test import override_settings

from clubs import services as club_services
from clubs.models import Membership, Role, User
from engine.match import Match as EngineMatch
from ladder import services as ladder_services
from ladder.apply import apply_result
from ladder.models import Ladder, RatedResult, Rating, RatingChange
from matches import schedule, store
from matches.models import Match, Seat
from matches.services import clock as match_clock
from matches.services import play, presence, tables


@pytest.fixture
def people(transactional_db):
    return [
        User.objects.create_user(username=f"rt{i}", email=f"rt{i}@example.com", password="pw")
        for i in range(4)
    ]


@pytest.fixture
def red_two_club(people):
    club = club_services.create_club(people[0], name="南平红二俱乐部")
    for user in people[1:]:
        Membership.objects.create(club=club, user=user, role=Role.MEMBER)
    return club


@pytest.fixture
def clock(monkeypatch):
    """The tests drive the clock themselves (match_clock.act_on_deadline), as tests/matches do."""
    monkeypatch.setattr(schedule, "schedule_deadline", lambda *a: None)
    monkeypatch.setattr(schedule, "schedule_time_limit", lambda *a: None)
    store._engines.clear()


def play_rated_red_two(club, people, seed, deals=2):
    """Open a rated Red Two table, seat the four people, start with ``seed``, put every seat on
    auto-play and force the clock until the match is over."""
    table = tables.open_table(
        people[0], club, variant="honger", rated=True, options={"deals": deals}
    )
    for i in (1, 2):
        tables.take_seat(people[i], table, i)
    Seat.objects.filter(table=table, index=3).update(user=people[3])
    table.refresh_from_db()
    match = tables.start_match(table, seed=seed)
    for seat in range(4):
        presence.set_autoplay(match.pk, seat, "timeout")
    for _ in range(5000):
        match.refresh_from_db()
        if match.status == "finished":
            return match
        match_clock.act_on_deadline(match.pk, match.version, force=True)
    raise AssertionError("the match did not finish")


def seed_ratings(people, ratings):
    """Give the four people distinct starting ratings in the platform Red Two ladder."""
    ladder = Ladder.objects.create(club=None, variant="honger")
    for user, rating in zip(people, ratings, strict=True):
        Rating.objects.create(ladder=ladder, user=user, rating=rating, recent=[])
    return ladder


def expected_changes(sides, scores, ratings):
    """The issue's formulas, written out: team means, E, M = ln(1+margin)*2.2/(2.2+0.001*dR)
    (draw: M = 1), change = K*M*(S-E) with K = 16 for a provisional player."""
    means = [sum(ratings[u] for u in side) / len(side) for side in sides]
    out = {}
    for s, side in enumerate(sides):
        own, other = means[s], means[1 - s]
        expected = 1 / (1 + 10 ** ((other - own) / 400))
        if scores[0] == scores[1]:
            score, multiplier = 0.5, 1.0
        else:
            winner = 0 if scores[0] > scores[1] else 1
            score = 1.0 if s == winner else 0.0
            gap = means[winner] - means[1 - winner]
            multiplier = math.log1p(abs(scores[0] - scores[1])) * 2.2 / (2.2 + 0.001 * gap)
        for user in side:
            out[user] = (
                expected,
                score,
                multiplier,
                ratings[user] + 16 * multiplier * (score - expected),
            )
    return out


def check_rated_once(match, people, ladder, start):
    """The match is one RatedResult with the last deal's revealed sides and the sums of the
    match totals; each player has exactly one change, by the issue's formulas."""
    engine = EngineMatch.from_json(match.snapshot)
    revealed = engine.deals[-1]["sides"]
    totals = match.result["score"]
    seat_user = [s["user"] for s in match.seats]
    (result,) = RatedResult.objects.filter(source="live", source_id=str(match.pk))
    sides = [sorted(seat_user[seat] for seat in side) for side in revealed]
    stored = [
        sorted(result.players.filter(side=s).values_list("user_id", flat=True)) for s in (0, 1)
    ]
    assert stored == sides
    scores = [sum(totals[seat] for seat in side) for side in revealed]
    assert [result.score0, result.score1] == scores
    changes = RatingChange.objects.filter(ladder=ladder, result=result)
    assert changes.count() == 4
    want = expected_changes(sides, scores, start)
    for change in changes:
        expected, score, multiplier, after = want[change.user_id]
        assert change.before == pytest.approx(start[change.user_id])
        assert change.expected == pytest.approx(expected)
        assert change.score == score
        assert change.multiplier == pytest.approx(multiplier)
        assert change.after == pytest.approx(after)
        assert Rating.objects.get(ladder=ladder, user_id=change.user_id).matches == 1
    return engine, sides, scores


@override_settings(MATCHES_BOT_DELAY_SECONDS=0)
def test_partnership_last_deal_rates_the_revealed_pairs_once(
    red_two_club, people, clock, celery_eager
):
    ladder = seed_ratings(people, [1400.0, 1500.0, 1600.0, 1700.0])
    start = {u.pk: r.rating for u in people for r in Rating.objects.filter(user=u)}
    # seed rt2: deal 1 partners seats 0+1, deal 2 (the last) seats 0+2: the later one counts
    match = play_rated_red_two(red_two_club, people, "rt2")
    engine, sides, scores = check_rated_once(match, people, ladder, start)
    assert [d["mode"] for d in engine.deals] == ["partnership", "partnership"]
    assert engine.deals[0]["sides"] != engine.deals[-1]["sides"]
    assert all(len(side) == 2 for side in sides) and scores[0] != scores[1]
    assert scores[0] + scores[1] == 0  # Red Two points are zero-sum
    # the club's ladder got the same result once too
    club_ladder = Ladder.objects.get(club=red_two_club, variant="honger")
    assert RatingChange.objects.filter(ladder=club_ladder).count() == 4
    # recording and applying again (a duplicate hand-over or task run) changes nothing
    match = Match.objects.select_related("table").get(pk=match.pk)
    play._record_rated_result(match)
    result = RatedResult.objects.get(source="live", source_id=str(match.pk))
    outcomes = apply_result(result)
    assert {o.action for o in outcomes} == {"skipped"}
    assert RatedResult.objects.count() == 1
    assert RatingChange.objects.count() == 8


@override_settings(MATCHES_BOT_DELAY_SECONDS=0)
def test_solo_last_deal_rates_one_against_three(red_two_club, people, clock, celery_eager):
    ladder = seed_ratings(people, [1450.0, 1550.0, 1500.0, 1600.0])
    start = {u.pk: r.rating for u in people for r in Rating.objects.filter(user=u)}
    # seed rt6: the last deal is a solo by seat 1, who ends the match ahead
    match = play_rated_red_two(red_two_club, people, "rt6")
    engine, sides, scores = check_rated_once(match, people, ladder, start)
    last = engine.deals[-1]
    assert last["mode"] == "solo"
    solo = people[last["sides"][0][0]].pk
    assert sides[0] == [solo] and len(sides[1]) == 3
    winner_side = 0 if scores[0] > scores[1] else 1
    for change in RatingChange.objects.filter(ladder=ladder):
        won = change.user_id in sides[winner_side]
        assert (change.after > change.before) == won


@override_settings(MATCHES_BOT_DELAY_SECONDS=0)
def test_level_sides_are_a_draw(red_two_club, people, clock, celery_eager):
    ladder = seed_ratings(people, [1500.0, 1500.0, 1500.0, 1500.0])
    start = {u.pk: 1500.0 for u in people}
    # seed rt15: totals +2/-2/+2/-2, but the last deal's pairs (seats 0+3, 1+2) sum to 0 each
    match = play_rated_red_two(red_two_club, people, "rt15")
    assert any(match.result["score"])
    _, _, scores = check_rated_once(match, people, ladder, start)
    assert scores == [0, 0]
    assert set(RatingChange.objects.filter(ladder=ladder).values_list("score", flat=True)) == {0.5}
    assert set(Rating.objects.filter(ladder=ladder).values_list("rating", flat=True)) == {1500.0}


def test_no_finished_deal_means_nothing_revealed():
    assert ladder_services.match_sides("honger", [1, 2, 3, 4], [0, 0, 0, 0], []) is None
    partnership = {"mode": "partnership", "sides": [[1, 3], [0, 2]]}
    assert ladder_services.match_sides(
        "honger", [11, 12, 13, 14], [3, -3, 1, -1], [partnership]
    ) == (
        [[12, 14], [11, 13]],
        [-4, 4],
    )
