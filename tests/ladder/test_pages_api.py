"""Leaderboard and player pages, and the ladder REST API."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from clubs.models import User
from ladder import selectors
from ladder.apply import apply_result
from ladder.models import Ladder, Rating, RatingChange


def fill_ladder(ladder, n, *, provisional_every=0, inactive_every=0):
    """n rated players with distinct ratings (player i has rating 2000 - i)."""
    now = timezone.now()
    users = User.objects.bulk_create(
        [User(username=f"u{ladder.pk}_{i:05d}", display_name=f"棋手{i}") for i in range(n)]
    )
    ratings = []
    for i, user in enumerate(users):
        provisional = bool(provisional_every) and i % provisional_every == 0
        inactive = bool(inactive_every) and i % inactive_every == 1
        ratings.append(
            Rating(
                ladder=ladder,
                user=user,
                rating=2000.0 - i,
                matches=10 if provisional else 40,
                wins=5 if provisional else 22,
                provisional=provisional,
                last_played=now - timedelta(weeks=ladder.activity_weeks + 2 if inactive else 1),
                recent=[1990.0 - i],
            )
        )
    Rating.objects.bulk_create(ratings)
    return users


@pytest.fixture
def ladder(db):
    return Ladder.objects.create(variant="bao2")


@pytest.mark.django_db
def test_leaderboard_lists_ranked_players_only(ladder):
    users = fill_ladder(ladder, 30, provisional_every=5, inactive_every=7)
    board = selectors.leaderboard(ladder, per_page=100)
    shown = [r.user_id for r in board.rows]
    expected = [u.pk for i, u in enumerate(users) if i % 5 != 0 and i % 7 != 1]
    assert shown == expected
    assert [r.rank for r in board.rows] == list(range(1, len(expected) + 1))
    everyone = selectors.leaderboard(ladder, scope="all", per_page=100)
    assert len(everyone.rows) == 30 and all(r.rank is None for r in everyone.rows)


@pytest.mark.django_db
def test_leaderboard_search_keeps_the_true_rank(ladder):
    users = fill_ladder(ladder, 40)
    board = selectors.leaderboard(ladder, query="棋手17")
    assert [r.user_id for r in board.rows] == [users[17].pk]
    assert board.rows[0].rank == 18
    assert selectors.leaderboard(ladder, query="nobody-like-this").rows == []


@pytest.mark.django_db
def test_leaderboard_pagination_and_clamping(ladder):
    fill_ladder(ladder, 25)
    page2 = selectors.leaderboard(ladder, page=2, per_page=10)
    assert [r.rank for r in page2.rows] == list(range(11, 21))
    assert page2.num_pages == 3 and page2.has_next and page2.has_previous
    assert selectors.leaderboard(ladder, page=99, per_page=10).page == 3
    assert selectors.leaderboard(ladder, page=-4, per_page=10).page == 1


@pytest.mark.django_db
def test_leaderboard_query_count_does_not_grow_with_page_size(ladder, django_assert_num_queries):
    fill_ladder(ladder, 120)
    with django_assert_num_queries(2):  # count (then cached) and the page with its users
        assert selectors.leaderboard(ladder, per_page=5).total == 120
    for per_page in (1, 10, 100):
        with django_assert_num_queries(1):
            board = selectors.leaderboard(ladder, per_page=per_page)
            assert len(board.rows) == per_page
            assert [r.user.name for r in board.rows]  # users are loaded, no extra queries
    with django_assert_num_queries(2):
        rows = selectors.leaderboard(ladder, query="棋手1", per_page=100).rows
        assert len(rows) > 10 and all(r.rank for r in rows)


@pytest.mark.django_db
def test_leaderboard_page_and_api_queries_are_constant(client, db):
    small = Ladder.objects.create(variant="bao2")
    big = Ladder.objects.create(variant="guandan")
    fill_ladder(small, 3)
    fill_ladder(big, 80)
    counts = {}
    for name, ladder in (("small", small), ("big", big)):
        with CaptureQueriesContext(connection) as page_queries:
            response = client.get(reverse("ladder:leaderboard", args=[ladder.pk]))
        assert response.status_code == 200
        with CaptureQueriesContext(connection) as api_queries:
            api = client.get(f"/api/v1/ladders/{ladder.pk}/leaderboard/?page_size=200")
        assert api.status_code == 200
        counts[name] = (len(page_queries), len(api_queries))
    assert counts["small"] == counts["big"]


@pytest.mark.django_db
def test_leaderboard_page_renders_ranks_and_question_marks(client, ladder):
    fill_ladder(ladder, 6, provisional_every=3)
    ranked = client.get(reverse("ladder:leaderboard", args=[ladder.pk]))
    html = ranked.content.decode()
    assert "棋手1" in html and "1999" in html
    assert "棋手0" not in html  # provisional: not ranked
    every = client.get(reverse("ladder:leaderboard", args=[ladder.pk]), {"scope": "all"})
    assert "2000?" in every.content.decode()
    bad = client.get(reverse("ladder:leaderboard", args=[ladder.pk]), {"page": "x", "scope": "?"})
    assert bad.status_code == 200
    assert client.get(reverse("ladder:leaderboard", args=[999999])).status_code == 404


@pytest.mark.django_db
def test_player_page_shows_chart_matches_and_partners(client, make_users, record):
    a, b, c, d = make_users(4)
    for i in range(3):
        apply_result(record([[a, b], [c, d]], (10 + i, 3)))
    ladder = Ladder.objects.get()
    response = client.get(reverse("ladder:player", args=[ladder.pk, a.pk]))
    html = response.content.decode()
    assert response.status_code == 200
    assert "<polyline" in html and "<svg" in html
    assert html.count("<tr>") >= 4  # three recent matches and one partner row
    assert b.name in html and c.name in html
    partners = selectors.partners(ladder, a.pk)
    assert [(p.user.pk, p.matches, p.wins) for p in partners] == [(b.pk, 3, 3)]
    nobody = client.get(reverse("ladder:player", args=[ladder.pk, make_users(1)[0].pk]))
    assert nobody.status_code == 200
    assert client.get(reverse("ladder:player", args=[ladder.pk, 10**8])).status_code == 404


@pytest.mark.django_db
def test_ladder_list_page(client, club, make_users, record):
    a, b, c, d = make_users(4)
    apply_result(record([[a, b], [c, d]], (10, 3), club=club))
    html = client.get(reverse("ladder:list")).content.decode()
    assert club.name in html
    assert client.get(reverse("ladder:list"), {"variant": "nonsense"}).status_code == 200


@pytest.mark.django_db
def test_api_ladders_leaderboard_and_player_history(client, club, make_users, record):
    a, b, c, d = make_users(4)
    apply_result(record([[a, b], [c, d]], (10, 3), club=club))
    apply_result(record([[a, c], [b, d]], (2, 9), club=club))
    ladders = client.get("/api/v1/ladders/").json()
    assert ladders["count"] == 2
    club_ladder = Ladder.objects.get(club=club)
    only_club = client.get(f"/api/v1/ladders/?club={club.pk}").json()
    assert [x["id"] for x in only_club["results"]] == [club_ladder.pk]
    assert client.get("/api/v1/ladders/?platform=true").json()["count"] == 1
    board = client.get(f"/api/v1/ladders/{club_ladder.pk}/leaderboard/?scope=all").json()
    assert board["count"] == 4
    row = next(r for r in board["results"] if r["user"]["id"] == a.pk)
    rating_a = Rating.objects.get(ladder=club_ladder, user=a)
    assert row["rating"] == pytest.approx(rating_a.rating)
    assert row["display"].endswith("?") and row["matches"] == 2 and row["win_rate"] == 0.5
    history = client.get(f"/api/v1/ladders/{club_ladder.pk}/players/{a.pk}/").json()
    assert [h["scores"] for h in history["history"]] == [[10, 3], [2, 9]]
    first = history["history"][0]
    stored = RatingChange.objects.get(ladder=club_ladder, user=a, result_id=first["result"])
    assert first["after"] == pytest.approx(stored.after) and first["k"] == 16
    assert first["after"] == pytest.approx(
        first["before"] + first["k"] * first["multiplier"] * (first["score"] - first["expected"])
    )
    mine = client.get(f"/api/v1/players/{a.pk}/ratings/").json()
    assert len(mine) == 2 and mine[0]["ladder"] == Ladder.objects.get(club=None).pk
    assert client.get(f"/api/v1/players/{10**8}/ratings/").status_code == 404
    assert client.get(f"/api/v1/ladders/{club_ladder.pk}/players/{10**8}/").status_code == 404
    assert client.get("/api/v1/ladders/?club=abc").json()["count"] == 0


@pytest.mark.django_db
def test_api_is_read_only_and_rebuild_needs_a_club_admin(
    client, club, club_admin, make_users, record, celery_eager, django_capture_on_commit_callbacks
):
    a, b, c, d = make_users(4)
    apply_result(record([[a, b], [c, d]], (10, 3), club=club))
    club_ladder = Ladder.objects.get(club=club)
    platform = Ladder.objects.get(club=None)
    assert client.post("/api/v1/ladders/", {}).status_code in (401, 403, 405)
    assert client.delete(f"/api/v1/ladders/{club_ladder.pk}/").status_code in (401, 403, 405)
    url = f"/api/v1/ladders/{club_ladder.pk}/rebuild/"
    assert client.post(url).status_code in (401, 403)
    client.force_login(a)
    refused = client.post(url)
    assert refused.status_code == 403 and "code" in refused.json()
    client.force_login(club_admin)
    assert client.post(f"/api/v1/ladders/{platform.pk}/rebuild/").status_code == 403
    before = sorted(Rating.objects.filter(ladder=club_ladder).values_list("user_id", "rating"))
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        accepted = client.post(url)
    assert accepted.status_code == 202 and callbacks
    after = sorted(Rating.objects.filter(ladder=club_ladder).values_list("user_id", "rating"))
    assert after == before


@pytest.mark.django_db
def test_openapi_schema_documents_the_ladder_endpoints(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    paths = schema["paths"]
    assert "/api/v1/ladders/{id}/leaderboard/" in paths
    assert "/api/v1/ladders/{id}/players/{user_id}/" in paths
    assert "/api/v1/players/{user_id}/ratings/" in paths


@pytest.mark.django_db
def test_applying_a_result_refreshes_the_cached_count(
    make_users, record, django_capture_on_commit_callbacks
):
    users = make_users(4)
    ladder = Ladder.objects.create(variant="bao2", provisional_matches=1)
    assert selectors.leaderboard(ladder).total == 0
    with django_capture_on_commit_callbacks(execute=True):
        apply_result(record([users[:2], users[2:]], (5, 1)))
    board = selectors.leaderboard(ladder)
    assert board.total == 4 and len(board.rows) == 4


@pytest.mark.django_db
def test_admin_rebuild_action_keeps_ratings(admin_client, make_users, record):
    a, b, c, d = make_users(4)
    apply_result(record([[a, b], [c, d]], (10, 3)))
    apply_result(record([[a, c], [b, d]], (4, 4)))
    ladder = Ladder.objects.get()
    before = sorted(Rating.objects.values_list("user_id", "rating", "draws"))
    response = admin_client.post(
        reverse("admin:ladder_ladder_changelist"),
        {"action": "rebuild", "_selected_action": [ladder.pk]},
    )
    assert response.status_code == 302
    assert sorted(Rating.objects.values_list("user_id", "rating", "draws")) == before
    assert admin_client.get(reverse("admin:ladder_ratedresult_changelist")).status_code == 200
    assert admin_client.get(reverse("admin:ladder_rating_changelist")).status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize(
    "params",
    [
        "?page=abc&page_size=xyz",
        "?page=-3&page_size=0",
        "?page_size=100000",
        "?scope=everything",
        "?q=" + "王" * 500,
        "?q=%27%22;--",
        "?q=%25_%25&scope=all",
    ],
)
def test_leaderboard_bad_query_strings_get_an_answer_not_an_error(client, ladder, params):
    fill_ladder(ladder, 5)
    api = client.get(f"/api/v1/ladders/{ladder.pk}/leaderboard/{params}")
    assert api.status_code == 200
    body = api.json()
    assert 1 <= body["page_size"] <= selectors.MAX_PER_PAGE and body["page"] >= 1
    page = client.get(reverse("ladder:leaderboard", args=[ladder.pk]) + params)
    assert page.status_code == 200


def test_leaderboard_search_with_a_nul_character_is_refused(client, ladder):
    fill_ladder(ladder, 5)
    api = client.get(f"/api/v1/ladders/{ladder.pk}/leaderboard/?q=%00%27")
    assert api.status_code == 400 and api.json()["code"] == "nul_character"
    page = client.get(reverse("ladder:leaderboard", args=[ladder.pk]) + "?q=a%00")
    assert page.status_code == 400


@pytest.mark.django_db
def test_like_wildcards_in_a_search_are_literal(ladder):
    fill_ladder(ladder, 5)
    assert selectors.leaderboard(ladder, query="%").total == 0
    assert selectors.leaderboard(ladder, query="_", scope="all").total == 5  # usernames u1_00000


@pytest.mark.django_db
def test_empty_ladder_pages(client, ladder):
    assert client.get(reverse("ladder:leaderboard", args=[ladder.pk])).status_code == 200
    body = client.get(f"/api/v1/ladders/{ladder.pk}/leaderboard/?q=x").json()
    assert body["count"] == 0 and body["results"] == []
    assert client.get(f"/api/v1/ladders/{ladder.pk}/leaderboard/?page=9&q=x").status_code == 200


def test_club_page_links_member_names_to_their_player_page(client, club, members, record):
    """Member names on the club page link to the club's first ladder's player page, and
    without a ladder they are plain names."""
    a, b, c, d = members(4)
    html = client.get(reverse("club_detail", args=[club.slug])).content.decode()
    assert a.name in html and "/players/" not in html
    apply_result(record([[a, b], [c, d]], (10, 3), club=club))
    ladder = Ladder.objects.filter(club=club).order_by("variant", "id").first()
    url = reverse("ladder:player", args=[ladder.pk, a.pk])
    html = client.get(reverse("club_detail", args=[club.slug])).content.decode()
    assert f'href="{url}"' in html
    assert client.get(url).status_code == 200
