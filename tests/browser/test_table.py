"""A person plays a deal of Bao 2 against three bots on the table page by tapping, on a phone
(390×844; Playwright + the system's Chromium), against the real stack: uvicorn, a Celery worker
(the bots' turns) and Redis. On every turn the hand and the buttons are on the one screen."""

import json
import os
import sys
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))


CORNER = {"x": 8, "y": 16}
SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


@pytest.fixture(scope="module")
def stack(browser, shared_stack):
    # the run's one stack (tests/conftest.py): this module only adds tables and people to it
    return shared_stack


def open_table_page(browser, stack, mobile):
    info = stack.query("from bench.tables import person_against_bots\nout = person_against_bots()")
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
    context.add_cookies([{"name": "sessionid", "value": info["session"], "url": stack.http}])
    page = context.new_page()
    page.goto(f"/matches/tables/{info['table']}/")
    return context, page, info


def my_turn(page):
    """True while the match goes on and seat 0 (the person) is to act."""
    data = page.locator("#table-app")
    return data.get_attribute("data-over") != "1" and data.get_attribute("data-turn") == "0"


ON_SCREEN = """() => {
  const vw = document.documentElement.clientWidth, vh = window.innerHeight;
  const out = [...document.querySelectorAll('.hand .card-button, .controls button')].filter((e) => {
    const r = e.getBoundingClientRect();
    return r.left < -0.5 || r.top < -0.5 || r.right > vw + 0.5 || r.bottom > vh + 0.5; });
  return {off: out.length, scroll: document.documentElement.scrollHeight > vh
    || document.documentElement.scrollWidth > vw};
}"""


HINTED = """() => !!document.querySelector('.hand .card-button.selected, button[data-act=pass].suggest')
  || document.querySelector('#table-app').dataset.turn !== '0'"""


def tap_on_my_turn(page, name):
    """Tap the button ``name`` while it is still the person's turn; False when the turn
    ended first (the last frames of a match, or the clock, re-render the page and can take the
    button away between two tries)."""
    for _ in range(30):
        if not my_turn(page):
            return False
        try:
            page.get_by_role("button", name=name).tap(timeout=1000)
            return True
        except PlaywrightTimeoutError:
            continue
    raise AssertionError(f"could not tap {name}")


def retap_hint(page):
    """Clear the hint's selection and tap the same cards one by one at their corners, as a
    player would; False when the turn ended meanwhile."""
    chosen = page.eval_on_selector_all(
        ".hand .card-button.selected", "els => els.map((e) => e.dataset.index)"
    )
    if not tap_on_my_turn(page, "清除"):
        return False
    for index in chosen:
        if not my_turn(page):
            return False
        page.locator(f".hand .card-button[data-index='{index}']").tap(position=CORNER)
        page.locator(f".hand .card-button[data-index='{index}'].selected").wait_for(timeout=15000)
    return True


def play_one_turn(page):
    """Hint, tap the cards it selected, then Play; Pass if there is nothing to play. A deal's summary
    (the deal ended before the match's time limit: another deal follows) is dismissed first.
    Before acting, everything needed to act is on the one screen."""
    summary = page.locator(".summary button[data-act=dismiss]")
    if summary.count():
        summary.tap()
    assert page.evaluate(ON_SCREEN) == {"off": 0, "scroll": False}
    version = page.locator("#table-app").get_attribute("data-version")
    phase = page.locator("#table-app").get_attribute("data-phase")
    if phase == "immune":
        played = tap_on_my_turn(page, "不要")
    elif not tap_on_my_turn(page, "提示"):
        played = False
    else:
        # the server's hints arrive: cards selected, or Pass suggested (nothing beats the trick)
        page.wait_for_function(HINTED, timeout=30000)
        if not page.locator(".hand .card-button.selected").count():
            played = tap_on_my_turn(page, "不要")
        else:
            played = retap_hint(page) and tap_on_my_turn(page, "出牌")
            choice = page.locator(".choices button")
            if played and choice.count():
                choice.first.tap()
    if played:
        page.wait_for_function(
            "v => document.querySelector('#table-app').dataset.version !== v", arg=version
        )


@pytest.mark.parametrize("mobile", [True])
def test_a_person_plays_a_deal_of_bao2_against_three_bots(browser, stack, mobile):
    context, page, info = open_table_page(browser, stack, mobile)
    try:
        play_the_deal(page, stack, info)
    except Exception:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "bao2-deal-failure.png"), full_page=True)
        raise
    finally:
        context.close()


def play_the_deal(page, stack, info):
    app = page.locator("#table-app")
    expect(app).to_have_attribute("data-you", "0")
    # 27 cards, sorted by rank, the level card shown; Chinese labels
    expect(page.locator(".hand .card-button")).to_have_count(27, timeout=20000)
    expect(page.locator(".bar")).to_contain_text("级牌")
    # an illegal selection is explained before anything is sent
    page.wait_for_function("() => document.querySelector('#table-app').dataset.turn === '0'")
    if app.get_attribute("data-phase") == "play":
        cards = page.locator(".hand .card-button")
        codes = [cards.nth(i).locator(".face").get_attribute("data-card") for i in range(27)]
        # two cards of different ranks, no joker and no heart (a heart of the level rank is
        # wild and would pair with anything)
        plain = [i for i, code in enumerate(codes) if code[0] in "SCD" and code not in ("SB", "HR")]
        pair = next(((a, b) for a in plain for b in plain if codes[a][1] != codes[b][1]), None)
        if pair is not None:
            # a finger taps a card at its visible corner (the cards overlap)
            cards.nth(pair[0]).tap(position=CORNER)
            cards.nth(pair[1]).tap(position=CORNER)
            expect(page.locator(".refusal")).to_be_visible()
            page.get_by_role("button", name="清除").tap()
    turns = 0
    while app.get_attribute("data-over") != "1":
        page.wait_for_function(
            "() => { const d = document.querySelector('#table-app').dataset;"
            " return d.over === '1' || d.turn === '0'; }",
            timeout=60000,
        )
        if app.get_attribute("data-over") == "1":
            break
        play_one_turn(page)
        turns += 1
        assert turns < 200
        if turns == 1:  # someone has acted: the time runs out now, this deal is the last
            assert stack.query(
                f"from bench.tables import last_deal\nout = last_deal({info['table']})"
            )
    # the match (limited to this one deal) ends with its summary
    expect(page.locator(".summary")).to_contain_text("比赛结束")
    page.screenshot(path=str(SCREENSHOTS / "bao2-phone-match-over.png"))
    box = page.locator(".summary").bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= 844 and box["width"] <= 390
    # every player is named from this seat, the reason is translated
    summary = page.locator(".summary").inner_text()
    assert "对家" in summary and "机器人" not in summary and "deals" not in summary, summary
    data = stack.query(
        "from matches.models import Match\n"
        f"m = Match.objects.get(table_id={info['table']})\n"
        "out = {'status': m.status, 'actors': sorted(set(m.events.filter(seat=0)"
        ".values_list('actor', flat=True))), 'deals': m.result['deals']}"
    )
    assert data["status"] == "finished" and data["actors"] == ["player"], json.dumps(data)
    assert data["deals"] >= 1 and turns > 3
