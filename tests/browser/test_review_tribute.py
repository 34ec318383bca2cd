"""A review's moments outside the play of tricks on the replay page, in a real browser
(Playwright + the system's Chromium) on a phone, 390×844: a tribute (进贡) and a return (还贡)
moment named as such, in plain words, inside the screen's width; a screenshot saved."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from clubs import services as club_services
from clubs.models import Membership, Role, User
from matches import broadcast, schedule
from reviews.models import MatchReview, ReviewStatus
from tests.reviews.conftest import finish_match

pytestmark = pytest.mark.django_db(transaction=True)
SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


def costly(step, kind, played, best, levels):
    """A decision of seat 0 outside play the review found costly (its numbers are the
    review's to compute, tested in tests/reviews: here they are fixed, as a worker writes
    them)."""
    return {
        "step": step,
        "deal_no": 1,
        "phase": kind,
        "played": {"kind": kind, "cards": [played]},
        "best": {"kind": kind, "cards": [best]},
        "same": False,
        "levels": levels,
        "levels_se": 0.3,
        "win": 0.0,
        "win_se": 0.0,
        "worlds": 40,
    }


def test_tribute_and_return_moments_on_a_phone(new_page, monkeypatch):
    monkeypatch.setattr(schedule, "schedule_deadline", lambda *a: None)
    monkeypatch.setattr(schedule, "schedule_time_limit", lambda *a: None)
    # nobody is connected (and Playwright's loop runs in this thread): no broadcasts
    monkeypatch.setattr(broadcast, "_send", lambda *a, **k: None)
    people = [
        User.objects.create_user(f"rt{i}", display_name=f"老{'王李张赵'[i]}") for i in range(4)
    ]
    club = club_services.create_club(people[0], name="进贡复盘俱乐部")
    for user in people[1:]:
        Membership.objects.create(club=club, user=user, role=Role.MEMBER)
    match = finish_match(club, people, seed="tribute")
    decisions = [costly(4, "tribute", "HA", "SA", -0.9), costly(9, "return", "SK", "S3", -1.6)]
    MatchReview.objects.create(
        match=match,
        status=ReviewStatus.DONE,
        complete=True,
        seats=[{"seat": 0, "decisions": decisions, "complete": True}],
    )
    page = new_page(locale="zh-CN", mobile=True, scale=1)
    page.goto(f"/matches/tables/{match.table_id}/replay/")
    back = page.locator("li[data-review-step='9']")
    expect(back.locator(".review-phase")).to_have_text("还贡")
    expect(back).to_contain_text("这里还贡♠3比还贡♠K更好：预计多升 1.6 级（± 0.3）。")
    paid = page.locator("li[data-review-step='4']")
    expect(paid.locator(".review-phase")).to_have_text("进贡")
    expect(paid).to_contain_text("这里进贡♠A比进贡♥A更好：预计多升 0.9 级（± 0.3）。")
    back.scroll_into_view_if_needed()
    for item in (back, paid):
        box = item.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390
        badge = item.locator(".review-phase").bounding_box()
        assert badge["x"] >= 0 and badge["x"] + badge["width"] <= 390
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "issue46-review-tribute-phone.png"))
