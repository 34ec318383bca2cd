"""Ranked name search (ladder.selectors.leaderboard with a query): each hit keeps its rank in
the whole ranked leaderboard, whatever the ties, the page, and the other hits around it.

The ranks are counted segment by segment between consecutive hits; these tests compare every
page against the rank worked out in Python from the full ranked list.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from clubs.models import User
from ladder import selectors
from ladder.models import Ladder, Rating

NAMES = ["张伟", "王芳", "Li Na", "liu yang", "Chen Jie", "陈杰", "ZHAO Lei", "赵磊"]


@pytest.fixture
def board(db):
    """70 players: ratings with many ties, some provisional, some inactive, names in Chinese and
    Latin (mixed case) in both the username and the display name."""
    ladder = Ladder.objects.create(variant="guandan")
    now = timezone.now()
    users = []
    for i in range(70):
        name = NAMES[i % len(NAMES)]
        users.append(
            User.objects.create_user(
                username=f"{'Player' if i % 2 else 'player'}{i:02d}",
                display_name=f"{name}{i:02d}",
            )
        )
    for i, user in enumerate(users):
        Rating.objects.create(
            ladder=ladder,
            user=user,
            rating=1500.0 + 25 * ((i * 7) % 9),  # 9 distinct values: ties everywhere
            matches=40 if i % 11 else 5,
            provisional=not i % 11,
            last_played=now - timedelta(weeks=1 if i % 13 else ladder.activity_weeks + 3),
            recent=[],
        )
    return ladder


def expected_hits(ladder, needle):
    """(user id, rank) of the matching players, ranks from the whole ranked list."""
    ranked = list(selectors.ranked_ratings(ladder).select_related("user"))
    needle = needle.casefold()
    return [
        (r.user_id, position)
        for position, r in enumerate(ranked, start=1)
        if needle in r.user.username.casefold() or needle in r.user.display_name.casefold()
    ]


@pytest.mark.parametrize(
    "needle", ["player", "PLAYER1", "layer3", "li", "LIU Y", "zhao", "陈", "张伟", "赵磊0", "芳1"]
)
def test_search_ranks_every_hit_as_in_the_whole_leaderboard(board, needle):
    want = expected_hits(board, needle)
    assert want  # the needle matches someone ranked
    for per_page in (1, 3, 50):
        got = []
        page = 1
        while True:
            result = selectors.leaderboard(board, query=needle, page=page, per_page=per_page)
            assert result.total == len(want)
            got.extend((r.user_id, r.rank) for r in result.rows)
            if not result.has_next:
                break
            page += 1
        assert got == want


def test_search_is_case_insensitive_part_of_the_name_in_chinese_and_latin(board):
    user = User.objects.get(username="Player03")  # display name "liu yang03"
    for needle in ("liu", "LIU YANG0", "Yang03", "yer03", "PLAYER03"):
        hits = [r.user_id for r in selectors.leaderboard(board, query=needle, per_page=200).rows]
        assert user.pk in hits, needle
    chinese = User.objects.get(username="Player05")  # display name "陈杰05"
    for needle in ("陈杰", "杰0", "陈杰05"):
        hits = [r.user_id for r in selectors.leaderboard(board, query=needle, per_page=200).rows]
        assert chinese.pk in hits, needle
    assert (
        selectors.leaderboard(board, query="陈杰05").rows[0].rank
        == dict(expected_hits(board, "陈杰05"))[chinese.pk]
    )


def test_provisional_and_inactive_players_are_not_found_in_the_ranked_search(board):
    provisional = User.objects.get(username="player22")  # i = 22: provisional
    inactive = User.objects.get(username="Player13")  # i = 13: inactive
    for user in (provisional, inactive):
        assert selectors.leaderboard(board, query=user.username).rows == []
        everyone = selectors.leaderboard(board, query=user.username, scope="all")
        assert [r.user_id for r in everyone.rows] == [user.pk]


def test_a_page_past_the_end_of_a_search_shows_its_last_page(board):
    want = expected_hits(board, "player")
    result = selectors.leaderboard(board, query="player", page=999, per_page=10)
    assert result.page == result.num_pages == -(-len(want) // 10)
    assert [(r.user_id, r.rank) for r in result.rows] == want[(result.page - 1) * 10 :]
