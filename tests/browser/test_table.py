"""A person plays a deal of Bao 2 against three bots on the table page (Playwright + the
system's Chromium), against the real stack: daphne, a Celery worker (the bots' turns) and
Redis."""

import json
import os
import sys

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))

from stack import Stack  # noqa: E402


@pytest.fixture(scope="module")
def stack(browser):
    stack = Stack(bot_delay=0.0, sweep_seconds=1.0).start()
    yield stack
    stack.stop()


def open_table_page(browser, stack, mobile):
    info = stack.query(
        "from matches.bench import person_against_bots\n"
        "out = person_against_bots(time_limit_seconds=5)"
    )
    options = {"locale": "zh-CN", "base_url": stack.http}
    if mobile:
        options.update(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
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


def click_on_my_turn(page, name):
    """Click the button ``name`` while it is still the person's turn; False when the turn
    ended first (the last frames of a match, or the clock, re-render the page and can take the
    button away between two tries)."""
    for _ in range(30):
        if not my_turn(page):
            return False
        try:
            page.get_by_role("button", name=name).click(timeout=1000)
            return True
        except PlaywrightTimeoutError:
            continue
    raise AssertionError(f"could not click {name}")


def play_one_turn(page):
    """Hint, then Play what it selected; Pass if there is nothing to play. A deal's summary
    (the deal ended before the match's time limit: another deal follows) is closed first."""
    summary = page.locator(".modal button[data-act=close]")
    if summary.count():
        summary.click()
    version = page.locator("#table-app").get_attribute("data-version")
    phase = page.locator("#table-app").get_attribute("data-phase")
    if phase == "immune":
        played = click_on_my_turn(page, "不要")
    elif not click_on_my_turn(page, "提示"):
        played = False
    else:
        try:
            page.locator(".card-button.selected").first.wait_for(timeout=3000)
        except PlaywrightTimeoutError:
            played = click_on_my_turn(page, "不要")
        else:
            played = click_on_my_turn(page, "出牌")
            choice = page.locator(".choices button")
            if played and choice.count():
                choice.first.click()
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
        page.screenshot(path=os.path.join(stack.tmp.parent, "table-failure.png"), full_page=True)
        raise
    finally:
        context.close()


def play_the_deal(page, stack, info):
    app = page.locator("#table-app")
    expect(app).to_have_attribute("data-you", "0")
    # 27 cards, sorted by rank, the level card shown; Chinese labels
    expect(page.locator(".hand .card-button")).to_have_count(27, timeout=20000)
    expect(page.locator(".info-bar")).to_contain_text("级牌")
    # an illegal selection is explained before anything is sent
    page.wait_for_function("() => document.querySelector('#table-app').dataset.turn === '0'")
    if app.get_attribute("data-phase") == "play":
        cards = page.locator(".hand .card-button")
        labels = [cards.nth(i).inner_text() for i in range(27)]
        # two cards of different ranks, no joker and no heart (a heart of the level rank is
        # wild and would pair with anything)
        plain = [i for i, label in enumerate(labels) if label[:1] in "♠♣♦"]
        pair = next(((a, b) for a in plain for b in plain if labels[a][1:] != labels[b][1:]), None)
        if pair is not None:
            cards.nth(pair[0]).click()
            cards.nth(pair[1]).click()
            expect(page.locator(".refusal")).to_be_visible()
            page.get_by_role("button", name="清除").click()
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
    # the match (limited to this one deal) ends with its summary
    expect(page.locator(".modal")).to_contain_text("比赛结束")
    data = stack.query(
        "from matches.models import Match\n"
        f"m = Match.objects.get(table_id={info['table']})\n"
        "out = {'status': m.status, 'actors': sorted(set(m.events.filter(seat=0)"
        ".values_list('actor', flat=True))), 'deals': m.result['deals']}"
    )
    assert data["status"] == "finished" and data["actors"] == ["player"], json.dumps(data)
    assert data["deals"] >= 1 and turns > 3
