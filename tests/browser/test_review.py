"""The strong bot's review on the replay page and the share page, in a real browser
(Playwright + the system's Chromium) on a phone, 390×844, in Chinese: the review's costliest
moments are readable below the replay without pushing its controls off the first screen,
nothing is wider than the screen, the share button is a tap target, the card fits."""

from pathlib import Path

import pytest
from django.test import override_settings
from playwright.sync_api import expect

from clubs import services as club_services
from clubs.models import Membership, Role, User
from matches import broadcast, schedule
from reviews import services
from reviews.models import MatchReview
from tests.reviews.conftest import finish_match

pytestmark = pytest.mark.django_db(transaction=True)
SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
PASSWORD = "x-Secret-123"


def sign_in(page, username):
    page.goto("/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.locator("form.narrow button[type=submit]").click()
    page.wait_for_load_state()


def reviewed_match():
    people = [
        User.objects.create_user(f"rb{i}", password=PASSWORD, display_name=f"老{'王李张赵'[i]}")
        for i in range(4)
    ]
    club = club_services.create_club(people[0], name="南通保二俱乐部")
    for user in people[1:]:
        Membership.objects.create(club=club, user=user, role=Role.MEMBER)
    match = finish_match(club, people, seed="browser")
    review = services.review_match(match.pk)
    seats = review.seats
    # one moment of seat 0 made certain, so the page's words can be checked
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
    return people, match


@override_settings(REVIEWS_SEARCH_MS=5, REVIEWS_EVAL_MS=10, REVIEWS_MATCH_SECONDS=20)
def test_a_review_on_the_replay_page_and_its_share_page_on_a_phone(new_page, monkeypatch):
    monkeypatch.setattr(schedule, "schedule_deadline", lambda *a: None)
    monkeypatch.setattr(schedule, "schedule_time_limit", lambda *a: None)
    # nobody is connected (and Playwright's loop runs in this thread): no broadcasts
    monkeypatch.setattr(broadcast, "_send", lambda *a, **k: None)
    people, match = reviewed_match()
    page = new_page(locale="zh-CN", mobile=True)
    sign_in(page, "rb0")
    page.goto(f"/matches/tables/{match.table_id}/replay/")
    # the replay's controls stay on the first screen
    slider = page.locator("#replay-slider").bounding_box()
    assert slider["y"] + slider["height"] <= 844
    review = page.locator("#review")
    review.scroll_into_view_if_needed()
    expect(review).to_be_visible()
    expect(review.locator("h2")).to_have_text("高手机器人复盘")
    mine = review.locator("article.review-seat").first
    expect(mine.locator("h3")).to_have_text("你")
    moment = mine.locator(
        "li", has_text="这里出对K（♠K ♥K）比出3（♠3）更好：预计多升 1.0 级（± 0.2）。"
    )
    expect(moment).to_be_visible()
    for box in (review.bounding_box(), moment.bounding_box()):
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert float(moment.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")) >= 14
    share = review.get_by_role("link", name="分享战绩")
    assert share.bounding_box()["height"] >= 44
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    moment.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "issue46-review-replay-phone.png"))
    share.tap()
    page.wait_for_load_state()
    assert (
        page.locator('meta[property="og:image"]')
        .get_attribute("content")
        .endswith(f"/reviews/card/{match.table_id}/zh-hans.png")
    )
    card = page.locator("img.share-card")
    expect(card).to_be_visible()
    expect(card).to_have_js_property("complete", True)
    assert card.evaluate("img => img.naturalWidth") == 1200
    box = card.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    expect(page.locator(".share-rows li").first).to_contain_text("第一名")
    page.screenshot(path=str(SCREENSHOTS / "issue46-share-phone.png"), full_page=True)
