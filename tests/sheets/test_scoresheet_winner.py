"""A confirmed score sheet of a level game tells the ladder who won: a Bao 2 or Guandan match
that ends with level scores because one team passed the top level is rated as that team's win,
while a match that ends level by time stays a draw."""

import uuid

import pytest

from clubs.models import Club, Membership, Role, User
from ladder.apply import apply_result
from ladder.models import RatedResult, Rating, RatingChange
from sheets import selectors, services
from sheets.models import SheetStatus

pytestmark = pytest.mark.django_db


@pytest.fixture
def club():
    return Club.objects.create(name="南通保二俱乐部", slug="nantong")


@pytest.fixture
def players(club):
    out = []
    for i in range(4):
        person = User.objects.create_user(username=f"w{i}", email=f"w{i}@example.com")
        Membership.objects.create(club=club, user=person, role=Role.MEMBER)
        out.append(person)
    return out


def confirmed_sheet(club, players, variant, finishes, *, time_up=False):
    """Start a rated sheet, enter the deals (``finishes``, then time up if asked), and have a
    player of each side confirm it."""
    scorer = players[0]
    sheet = services.start_sheet(
        scorer,
        club,
        variant=variant,
        players=[services.PlayerSpec(user_id=p.pk) for p in players],
        rated=True,
    )
    for finish in finishes:
        services.add_entry(scorer, sheet, {"deal": {"finish": finish}}, uuid.uuid4())
    if time_up:
        services.add_entry(scorer, sheet, {"time_up": True}, uuid.uuid4())
    sheet.refresh_from_db()
    assert sheet.status == SheetStatus.FINISHED
    services.confirm(players[0], sheet)
    services.confirm(players[1], sheet)
    sheet.refresh_from_db()
    assert sheet.status == SheetStatus.CONFIRMED
    return sheet


def both_at_the_top_then_side_1_passes(top):
    """Side 0 climbs to the top level 3 at a time, then side 1 climbs there too and, as the
    level team at the top, passes it (1st and 2nd again)."""
    ups = -(-top // 3)
    return [[0, 2]] * ups + [[1, 3]] * (ups + 1)


@pytest.mark.parametrize(("variant", "top"), [("bao2", 23), ("guandan", 12)])
def test_level_scores_with_a_winner_are_rated_as_that_sides_win(club, players, variant, top):
    sheet = confirmed_sheet(club, players, variant, both_at_the_top_then_side_1_passes(top))
    assert sheet.state["result"] == {"winner": 1, "score": [top, top], "reason": "last_level"}
    result = selectors.confirmed_result(sheet)
    assert result.scores == (top, top) and result.winner == 1

    rated = RatedResult.objects.get(source="sheet", source_id=str(sheet.pk))
    # stored as the win it was, by the smallest margin (one level), not as a draw
    assert (rated.score0, rated.score1) == (top, top + 1)
    assert rated.winning_side == 1

    outcomes = apply_result(rated)
    assert [o.action for o in outcomes] == ["applied", "applied"]  # platform and club ladders
    changes = RatingChange.objects.filter(result=rated, ladder__club=club)
    by_user = {c.user_id: c for c in changes}
    winners, losers = {players[1].pk, players[3].pk}, {players[0].pk, players[2].pk}
    assert set(by_user) == winners | losers
    for uid in winners:
        assert by_user[uid].score == 1.0 and by_user[uid].after > by_user[uid].before
    for uid in losers:
        assert by_user[uid].score == 0.0 and by_user[uid].after < by_user[uid].before
    ratings = {r.user_id: r for r in Rating.objects.filter(ladder__club=club)}
    assert all(ratings[uid].wins == 1 and ratings[uid].draws == 0 for uid in winners)
    assert all(ratings[uid].wins == 0 and ratings[uid].draws == 0 for uid in losers)


def test_level_scores_at_time_up_stay_a_draw(club, players):
    sheet = confirmed_sheet(club, players, "bao2", [[0, 2], [1, 3]], time_up=True)
    assert sheet.state["result"] == {"winner": None, "score": [3, 3], "reason": "time"}
    rated = RatedResult.objects.get(source="sheet", source_id=str(sheet.pk))
    assert (rated.score0, rated.score1) == (3, 3) and rated.winning_side is None
    apply_result(rated)
    changes = RatingChange.objects.filter(result=rated, ladder__club=club)
    assert changes.count() == 4 and all(c.score == 0.5 for c in changes)
    ratings = Rating.objects.filter(ladder__club=club)
    assert all(r.draws == 1 and r.wins == 0 for r in ratings)


def test_a_plain_win_keeps_its_level_margin(club, players):
    # side 0 climbs to 23 and passes 2A at once: 23:0, the margin stays 23 levels
    sheet = confirmed_sheet(club, players, "bao2", [[0, 2]] * 9)
    rated = RatedResult.objects.get(source="sheet", source_id=str(sheet.pk))
    assert (rated.score0, rated.score1) == (23, 0) and rated.winning_side == 0
