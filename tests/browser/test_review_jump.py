"""A moment of the strong bot's review moves the replay to it, in a real browser (Playwright +
the system's Chromium) on a phone, 390×844: its button is a tap target, and a tap shows that
action on the replay (its position, the slider) with the replay's controls back on screen."""

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


def costly(step, levels):
    """A decision of seat 0 the review found costly at ``step`` (the review's numbers are its
    own to compute, tested in tests/reviews: here they are fixed, as a worker writes them)."""
    return {
        "step": step,
        "deal_no": 0,
        "played": {"kind": "play", "cards": ["S3"], "type": "single", "key": "3"},
        "best": {"kind": "play", "cards": ["SK", "HK"], "type": "pair", "key": "K"},
        "same": False,
        "levels": levels,
        "levels_se": 0.2,
        "win": 0.0,
        "win_se": 0.0,
        "worlds": 20,
    }


def test_a_moment_jumps_the_replay_to_its_action(new_page, monkeypatch):
    monkeypatch.setattr(schedule, "schedule_deadline", lambda *a: None)
    monkeypatch.setattr(schedule, "schedule_time_limit", lambda *a: None)
    # nobody is connected (and Playwright's loop runs in this thread): no broadcasts
    monkeypatch.setattr(broadcast, "_send", lambda *a, **k: None)
    people = [
        User.objects.create_user(f"rj{i}", display_name=f"老{'王李张赵'[i]}") for i in range(4)
    ]
    club = club_services.create_club(people[0], name="复盘跳转俱乐部")
    for user in people[1:]:
        Membership.objects.create(club=club, user=user, role=Role.MEMBER)
    match = finish_match(club, people, seed="jump")
    assert match.version > 20
    MatchReview.objects.create(
        match=match,
        status=ReviewStatus.DONE,
        complete=True,
        seats=[{"seat": 0, "decisions": [costly(5, -1.0), costly(17, -2.0)], "complete": True}],
    )
    page = new_page(locale="zh-CN", mobile=True, scale=1)
    page.goto(f"/matches/tables/{match.table_id}/replay/")
    expect(page.locator("#replay-pos")).to_have_text(f"0 / {match.version}")
    jump = page.locator("button[data-review-jump='17']")  # the costliest moment, first
    expect(jump).to_have_text("第 1 副，第 17 步")
    jump.scroll_into_view_if_needed()
    box = jump.bounding_box()
    assert box["height"] >= 44 and box["x"] >= 0 and box["x"] + box["width"] <= 390
    jump.tap()
    expect(page.locator("#replay-pos")).to_have_text(f"17 / {match.version}")
    assert page.locator("#replay-slider").input_value() == "17"
    expect(jump).to_have_attribute("aria-pressed", "true")
    slider = page.locator("#replay-slider").bounding_box()
    assert 0 <= slider["y"] and slider["y"] + slider["height"] <= 844  # back on screen
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "issue46-review-jump-phone.png"))
    other = page.locator("button[data-review-jump='5']")
    other.scroll_into_view_if_needed()
    other.tap()
    expect(page.locator("#replay-pos")).to_have_text(f"5 / {match.version}")
    expect(jump).to_have_attribute("aria-pressed", "false")
