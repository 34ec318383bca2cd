"""Quick phrases on the table page (issue 41, part 4), on a phone (390×844, zh-CN) against the
real stack (uvicorn, a Celery worker for the bots, Redis): the 💬 button and the phrases are
44 px targets on the one screen, a tapped phrase shows by the speaker's seat on their screen
and a spectator's, and goes away after a few seconds. Screenshots go to var/screenshots/."""

import os
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))


SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
TAP = 44

SETUP = """
from clubs.models import Club, Membership
from bench.tables import _user, person_against_bots, session_cookie
out = person_against_bots(prefix="phrases")
watcher = _user("phrases-watcher")
Membership.objects.get_or_create(club=Club.objects.get(slug="phrases"), user=watcher)
out["watcher"] = session_cookie(watcher).split("=", 1)[1]
"""


@pytest.fixture(scope="module")
def stack(browser, shared_stack):
    # the run's one stack (tests/conftest.py): this module only adds tables and people to it
    return shared_stack


def _page(browser, stack, session, mobile):
    options = {"locale": "zh-CN", "base_url": stack.http}
    if mobile:
        options.update(
            viewport={"width": 390, "height": 844},
            device_scale_factor=2,
            is_mobile=True,
            has_touch=True,
        )
    context = browser.new_context(**options)
    context.set_default_timeout(20000)
    context.add_cookies([{"name": "sessionid", "value": session, "url": stack.http}])
    return context, context.new_page()


def _inside(page, locator):
    """Each element of ``locator`` is at least 44×44 px and inside the viewport."""
    size = page.viewport_size
    for i in range(locator.count()):
        box = locator.nth(i).bounding_box()
        assert box["width"] >= TAP and box["height"] >= TAP, (i, box)
        assert box["x"] >= 0 and box["y"] >= 0, (i, box)
        assert box["x"] + box["width"] <= size["width"] + 0.5, (i, box)
        assert box["y"] + box["height"] <= size["height"] + 0.5, (i, box)


def test_a_phrase_from_the_phone_shows_by_the_seat_for_everyone(browser, stack):
    SHOTS.mkdir(parents=True, exist_ok=True)
    info = stack.query(SETUP)
    player_context, phone = _page(browser, stack, info["session"], mobile=True)
    watcher_context, watcher = _page(browser, stack, info["watcher"], mobile=False)
    try:
        for page in (phone, watcher):
            page.goto(f"/matches/tables/{info['table']}/")
            page.locator("#table-app[data-version]").wait_for()
        expect(watcher.locator("button.phrase-tool")).to_have_count(0)  # spectators only read

        tool = phone.locator("button.phrase-tool")
        expect(tool).to_be_visible()
        expect(tool).to_have_attribute("aria-expanded", "false")
        _inside(phone, tool)
        tool.tap()
        menu = phone.locator("#phrase-menu")
        expect(menu).to_be_visible()
        buttons = menu.locator("button[data-phrase]")
        expect(buttons).to_have_count(8)
        expect(buttons.first).to_have_text("你好！")
        _inside(phone, menu.locator("button"))
        phone.screenshot(path=str(SHOTS / "table-phrases-menu.png"))

        menu.get_by_role("button", name="打得好！").tap()
        expect(menu).to_be_hidden()
        mine = phone.locator(".bottom .phrase-bubble.mine")
        expect(mine).to_have_text("打得好！")
        seen = watcher.locator('.strip[data-seat="0"] .phrase-bubble')
        expect(seen).to_have_text("打得好！")
        phone.screenshot(path=str(SHOTS / "table-phrases-bubble.png"))
        watcher.screenshot(path=str(SHOTS / "table-phrases-spectator.png"))
        # the words stay a few seconds, through the table's own redrawing, then go (awaited
        # with the suite's expect timeout: a loaded machine runs the page's timers late)
        expect(mine).to_have_count(0)
        expect(seen).to_have_count(0)
    finally:
        player_context.close()
        watcher_context.close()
        # the match ends with the deal in progress: the seat left on auto-play would
        # otherwise be played on by the shared stack's worker to the end of the match
        stack.query(f"from bench.tables import wind_up\nout = wind_up([{info['table']}])")
