"""The review on the replay page (through matches' hook), the share page's Open Graph tags and
the result card, in the viewer's language; a members-only club's are shown to nobody else."""

import io
import re

import pytest
from django.test import override_settings
from django.urls import reverse
from PIL import Image

from clubs.models import User, Visibility
from reviews import card as card_module
from reviews import services
from reviews.models import MatchReview

CHEAP = override_settings(REVIEWS_SEARCH_MS=5, REVIEWS_EVAL_MS=10, REVIEWS_MATCH_SECONDS=20)


def costly_review(match):
    """The match's review, with a costly moment of seat 0 made certain (the numbers are the
    review's to compute: this fixes them so the page's words can be checked)."""
    review = services.review_match(match.pk)
    seats = review.seats
    seats[0]["decisions"].append(
        {
            "step": 3,
            "deal_no": 0,
            "played": {"kind": "play", "cards": ["S3"], "type": "single", "key": "3"},
            "best": {"kind": "play", "cards": ["SK", "HK"], "type": "pair", "key": "K"},
            "same": False,
            "levels": -1.0,
            "levels_se": 0.2,
            "win": 0.0,
            "win_se": 0.0,
            "worlds": 20,
        }
    )
    MatchReview.objects.filter(pk=review.pk).update(seats=seats)
    return review


@CHEAP
def test_the_replay_shows_the_costliest_moments_in_both_languages(finished, people, client):
    replay = reverse("matches:replay", args=[finished.table_id])
    client.force_login(people[0])
    pending = client.get(replay, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "高手机器人正在复盘这场比赛" in pending
    costly_review(finished)
    people[0].language = "zh-hans"
    page = client.get(replay, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "高手机器人复盘" in page
    assert "这里出对K（♠K ♥K）比出3（♠3）更好：预计多升 1.0 级（± 0.2）。" in page
    moments = re.findall(r'<li data-review-step="(\d+)">', page)
    assert 1 <= len(re.findall(r'<article class="review-seat" data-seat="0">', page))
    assert len(moments) <= 3 * 4 and "3" in moments
    client.cookies["django_language"] = "en"
    User.objects.filter(pk=people[0].pk).update(language="en")
    page = client.get(replay, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert (
        "Here playing pair of K (♠K ♥K) was better than playing single 3 (♠3): an expected "
        "1.0 levels more (± 0.2)." in page
    )


@CHEAP
def test_no_review_section_for_a_club_that_keeps_reviews_off(finished, club, people, client):
    club.match_reviews = False
    club.save()
    client.force_login(people[1])
    page = client.get(reverse("matches:replay", args=[finished.table_id])).content.decode()
    assert "review-seat" not in page and "data-review-step=" not in page
    assert reverse("reviews:share", args=[finished.table_id]) in page  # sharing stays


def test_the_share_page_has_open_graph_tags_and_the_card(finished, client):
    page = client.get(
        reverse("reviews:share", args=[finished.table_id]), HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert page.status_code == 200
    html = page.content.decode()
    tags = dict(re.findall(r'<meta property="(og:[a-z:]+)" content="([^"]*)"', html))
    assert "掼蛋" in tags["og:title"] and "复盘俱乐部" in tags["og:title"]
    assert "第一名" in tags["og:description"] and "玩家0" in tags["og:description"]
    card_path = reverse("reviews:card", args=[finished.table_id, "zh-hans"])
    assert tags["og:image"] == "http://testserver" + card_path
    png = client.get(card_path)
    assert png.status_code == 200 and png["Content-Type"] == "image/png"
    assert png["Cache-Control"].startswith("public")
    image = Image.open(io.BytesIO(png.content))
    assert image.size == (1200, 630) and image.format == "PNG"
    english = client.get(reverse("reviews:card", args=[finished.table_id, "en"])).content
    assert english != png.content  # another language, another card
    assert client.get(reverse("reviews:card", args=[finished.table_id, "fr"])).status_code == 404


def test_the_card_says_the_result_in_the_viewers_language(finished):
    from django.utils.translation import override

    with override("zh-hans"):
        zh = card_module.result_summary(finished)
    with override("en"):
        en = card_module.result_summary(finished)
    assert [r["place"] for r in zh["rows"]] == ["第一名", "第二名"]
    assert [r["place"] for r in en["rows"]] == ["1st", "2nd"]
    assert zh["title"].startswith("掼蛋") and en["title"].startswith("Guandan")
    assert {r["names"] for r in zh["rows"]} == {"玩家0 · 玩家2", "玩家1 · 玩家3"}


def test_the_card_falls_back_to_english_without_a_cjk_font(finished, monkeypatch):
    monkeypatch.setattr(card_module, "cjk_font_path", lambda: None)
    png = card_module.render_card(finished, "zh-hans")
    assert Image.open(io.BytesIO(png)).size == (1200, 630)
    assert png == card_module.render_card(finished, "en")


@pytest.mark.parametrize("who", ["anonymous", "outsider"])
def test_a_members_only_clubs_result_reaches_no_one_else(finished, club, who, client):
    club.visibility = Visibility.MEMBERS
    club.save()
    if who == "outsider":
        client.force_login(User.objects.create_user("outsider", "o@example.com", "pw"))
    for url in (
        reverse("reviews:share", args=[finished.table_id]),
        reverse("reviews:card", args=[finished.table_id, "zh-hans"]),
        reverse("reviews:card", args=[finished.table_id, "en"]),
    ):
        response = client.get(url)
        assert response.status_code == 404, url
        assert "复盘俱乐部".encode() not in response.content
        assert "玩家".encode() not in response.content


def test_a_members_only_clubs_member_sees_its_card_privately_cached(finished, club, people, client):
    club.visibility = Visibility.MEMBERS
    club.save()
    client.force_login(people[2])
    page = client.get(reverse("reviews:share", args=[finished.table_id]))
    assert page.status_code == 200
    png = client.get(reverse("reviews:card", args=[finished.table_id, "en"]))
    assert png.status_code == 200 and png["Cache-Control"].startswith("private")


def test_no_card_before_the_match_ends(club, people, client):
    from matches.services import tables

    table = tables.open_table(people[0], club, variant="guandan", clocks=False)
    assert client.get(reverse("reviews:share", args=[table.pk])).status_code == 404
    assert client.get(reverse("reviews:card", args=[table.pk, "en"])).status_code == 404
    assert client.get(reverse("reviews:share", args=[999999])).status_code == 404
