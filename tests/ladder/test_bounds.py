"""Huge numbers in the ladders' query strings answer, never 500 (issue 20, item 14); on SQLite
a number over 2**63 - 1 cannot even be bound to a query, on PostgreSQL an offset overflows."""

import pytest

from ladder.apply import apply_result
from ladder.models import Ladder

pytestmark = pytest.mark.django_db

HUGE = "9" * 30


@pytest.fixture
def ladder(make_users, club, record):
    users = make_users(4, prefix="ab")
    apply_result(record([users[:2], users[2:]], (12, 3), club=club))
    return Ladder.objects.get(club=club)


@pytest.mark.parametrize("club_param", [HUGE, str(2**63), "²", "-1", "0"])
def test_a_club_filter_naming_no_club_lists_no_ladder(client, ladder, club_param):
    response = client.get("/api/v1/ladders/", {"club": club_param})
    assert response.status_code == 200
    assert response.json()["results"] == []
    assert client.get("/ladder/", {"club": club_param}).status_code == 200


def test_the_club_filter_still_finds_the_club(client, ladder):
    response = client.get("/api/v1/ladders/", {"club": str(ladder.club_id)})
    assert [row["id"] for row in response.json()["results"]] == [ladder.pk]


@pytest.mark.parametrize("page", [HUGE, str(2**62), str(2**63)])
@pytest.mark.parametrize("query", ["", "ab"])
def test_a_huge_page_shows_the_last_page(client, ladder, page, query):
    api = client.get(
        f"/api/v1/ladders/{ladder.pk}/leaderboard/",
        {"q": query, "page": page, "scope": "all" if not query else "ranked"},
    )
    assert api.status_code == 200
    assert api.json()["page"] >= 1
    web = client.get(f"/ladder/{ladder.pk}/", {"q": query, "page": page})
    assert web.status_code == 200
    huge_size = client.get(
        f"/api/v1/ladders/{ladder.pk}/leaderboard/", {"q": query, "page_size": HUGE}
    )
    assert huge_size.status_code == 200
