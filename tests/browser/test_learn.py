"""Learning on a phone (390×844, zh-CN; Playwright + the system's Chromium), issue 41 part 3:
a lesson answered wrongly, then rightly, with its explanation each time and the learner's
progress kept; every lesson's position fits the screen with no scrolling and tap targets of
44 px; the guide's cards are the table's own faces; at a real table (uvicorn, Celery, Redis)
the ? opens the rule of the moment and a refused play links to its rule. Screenshots go to
var/screenshots/."""

import os
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from clubs.models import User
from learn.lessons import COURSES
from learn.models import LessonProgress
from learn.positions import BOMB_LOOP

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
sys.path.insert(0, os.path.dirname(__file__))  # test_table_layout's seeded tables


PASSWORD = "Long-Pass-phrase-77"
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
W, H = 390, 844

#: Where the things one acts with are: every card to pick, every button, the result box and the
#: task; and whether the page scrolls at all.
BOXES = """() => {
  const box = (el) => { const r = el.getBoundingClientRect();
    return {x: r.left, y: r.top, w: r.width, h: r.height, name: el.textContent.trim().slice(0, 20)}; };
  const all = (sel) => [...document.querySelectorAll(sel)].map(box);
  return {
    cards: all('.hand-pick .pick'), buttons: all('.lesson-page button, .lesson-page .button, .lesson-bar a'),
    result: all('#result'), task: all('.task'),
    scrollHeight: document.documentElement.scrollHeight, scrollWidth: document.documentElement.scrollWidth,
    fontSize: parseFloat(getComputedStyle(document.querySelector('.task')).fontSize),
  };
}"""


def on_screen(b):
    return (
        b["x"] >= -0.5
        and b["y"] >= -0.5
        and b["x"] + b["w"] <= W + 0.5
        and b["y"] + b["h"] <= H + 0.5
    )


def assert_fits(page, shot):
    """Everything needed to act is on the one screen, big enough to tap and to read."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{shot}.png"))
    m = page.evaluate(BOXES)
    assert m["scrollHeight"] <= H and m["scrollWidth"] <= W, (
        shot,
        m["scrollHeight"],
        m["scrollWidth"],
    )
    for kind in ("cards", "buttons", "result", "task"):
        for b in m[kind]:
            assert on_screen(b), (shot, kind, b)
    for b in m["cards"] + m["buttons"]:
        assert b["w"] >= 44 and b["h"] >= 44, (shot, b)
    assert m["fontSize"] >= 17
    return m


RECORD_VIOLATIONS = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(e.violatedDirective + " " + (e.blockedURI || "inline"));
});
"""


def watched(page):
    """Record the page's Content-Security-Policy violations and console errors."""
    page.add_init_script(RECORD_VIOLATIONS)
    errors = []

    def record(message):
        where = message.location.get("url", "")
        # the browser's own favicon request is no page's doing
        if message.type == "error" and not where.endswith("/favicon.ico"):
            errors.append(f"{message.text} {where}")

    page.on("console", record)
    return errors


def log_in(page, username):
    page.goto("/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.locator("main form button[type=submit]").click()


def pick(page, card):
    page.locator(f'.hand-pick .pick:has(input[value="{card}"])').first.tap()


def test_a_lesson_answered_wrongly_then_rightly(new_page, live_server):
    user = User.objects.create_user("learner", password=PASSWORD)
    page = new_page(mobile=True)
    errors = watched(page)
    log_in(page, "learner")
    page.goto("/")
    page.get_by_role("link", name="学打牌").first.tap()
    expect(page.locator("h1")).to_have_text("学打牌")
    page.screenshot(path=str(SHOTS / "learn-index-phone.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= W
    page.locator('a[href="/learn/lessons/bao2/"]').first.tap()
    page.screenshot(path=str(SHOTS / "learn-course-phone.png"), full_page=True)
    heights = page.eval_on_selector_all(
        ".lesson-list a", "els => els.map((e) => e.getBoundingClientRect().height)"
    )
    assert len(heights) == len(COURSES["bao2"]) and min(heights) >= 44
    page.locator('a[href="/learn/lessons/bao2/little-2/"]').tap()
    # the table's own card faces (static/js/cards.js), the level card marked
    expect(page.locator(".hand-pick .face")).to_have_count(4)
    expect(page.locator(".situation .face")).to_have_count(1)
    assert_fits(page, "learn-lesson-phone")

    # wrong: ♠2 without the initiative; the engine refuses it and the lesson says why
    pick(page, "S2")
    page.get_by_role("button", name="出牌").tap()
    result = page.locator("#result")
    expect(result).to_have_attribute("data-right", "0")
    expect(result).to_contain_text("主动出牌权")
    expect(result.locator(".refused")).to_be_visible()
    assert_fits(page, "learn-lesson-wrong-phone")
    row = LessonProgress.objects.get(user=user, lesson="little-2")
    assert row.tries == 1 and row.solved_at is None

    # right: ♣9
    pick(page, "C9")
    page.get_by_role("button", name="出牌").tap()
    expect(result).to_have_attribute("data-right", "1")
    expect(result).to_contain_text("♣9")
    expect(page.get_by_role("link", name="下一课")).to_be_visible()
    assert_fits(page, "learn-lesson-right-phone")
    row.refresh_from_db()
    assert row.tries == 2 and row.solved_at is not None

    # the rule it teaches, in the guide
    page.get_by_role("link", name="阅读这条规则").tap()
    expect(page).to_have_url(f"{live_server.url}/learn/rules/bao2/#little-2")
    expect(page.locator("#little-2")).to_be_in_viewport()
    page.screenshot(path=str(SHOTS / "learn-guide-little-2-phone.png"))
    # the lesson list ticks it
    page.goto("/learn/lessons/bao2/")
    expect(page.locator("li.solved")).to_have_count(1)
    assert page.evaluate("window.__csp") == [] and errors == []


def test_every_lesson_fits_a_phone(new_page, live_server):
    page = new_page(mobile=True)
    for course, lessons in COURSES.items():
        for item in lessons:
            page.goto(f"/learn/lessons/{course}/{item.slug}/")
            if item.kind == "play":
                expect(page.locator(".hand-pick .face").first).to_be_visible()
            assert_fits(page, f"learn-{course}-{item.slug}-phone")


def test_the_guide_draws_the_tables_card_faces(new_page, live_server):
    page = new_page(mobile=True)
    errors = watched(page)
    page.goto("/learn/rules/bao2/")
    loop = page.locator('[data-example="bomb_loop"]')
    expect(loop.locator(".face.mini")).to_have_count(sum(len(c.split()) for _t, c in BOMB_LOOP))
    assert page.locator(".face-slot").count() == 0  # every card drawn
    assert page.evaluate("window.__csp") == [] and errors == []
    assert page.evaluate("document.documentElement.scrollWidth") <= W
    page.screenshot(path=str(SHOTS / "learn-guide-bao2-phone.png"), full_page=True)
    for anchor in ("bombs", "immune", "guan2", "tribute", "settle"):
        page.locator(f"#{anchor}").screenshot(
            path=str(SHOTS / f"learn-guide-bao2-{anchor}-phone.png")
        )


# --------------------------------------------------------------------------- at the table
@pytest.fixture(scope="module")
def stack(browser, shared_stack):
    # the run's one stack (tests/conftest.py): this module only adds tables and people to it
    return shared_stack


def test_the_table_links_to_the_rules(browser, stack):
    info = stack.query("from bench.tables import person_against_bots\nout = person_against_bots()")
    context = browser.new_context(
        locale="zh-CN",
        base_url=stack.http,
        viewport={"width": W, "height": H},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    context.set_default_timeout(20000)
    context.add_cookies([{"name": "sessionid", "value": info["session"], "url": stack.http}])
    page = context.new_page()
    try:
        page.goto(f"/matches/tables/{info['table']}/")
        app = page.locator("#table-app")
        expect(page.locator(".hand .card-button")).to_have_count(27, timeout=30000)
        # "?" in the bar, 44 px, opens the guide of this game in a new tab (the table stays)
        ask = page.locator('.bar button[data-act="rules"]')
        expect(ask).to_be_visible()
        # the bar is drawn again as each state arrives, so the button may be replaced between
        # two reads: its box is read in the page, from one element
        box = ask.evaluate("e => e.getBoundingClientRect().toJSON()")
        assert box["width"] >= 44 and box["height"] >= 44 and box["x"] + box["width"] <= W
        with context.expect_page() as opened:
            ask.tap()
        guide = opened.value
        guide.wait_for_load_state()
        assert "/learn/rules/bao2/" in guide.url
        guide.close()
        # a refused selection links to its rule: a natural 2 without the initiative (the
        # little 2s), else two cards of different ranks (combinations)
        page.wait_for_function(
            "() => { const d = document.querySelector('#table-app').dataset;"
            " return d.turn === '0' && d.phase === 'play'; }",
            timeout=60000,
        )
        cards = page.locator(".hand .card-button")
        codes = [
            cards.nth(i).locator(".face").get_attribute("data-card") for i in range(cards.count())
        ]
        initiative = page.locator(".my-facts .badge.init").count() > 0
        twos = [i for i, c in enumerate(codes) if c[1:] == "2" and c not in ("SB", "HR")]
        if twos and not initiative:
            cards.nth(twos[0]).tap(position={"x": 8, "y": 16})
            anchor = "#little-2"
        else:
            plain = [i for i, c in enumerate(codes) if c[0] in "SCD" and c not in ("SB",)]
            a, b = next((a, b) for a in plain for b in plain if codes[a][1] != codes[b][1])
            cards.nth(a).tap(position={"x": 8, "y": 16})
            cards.nth(b).tap(position={"x": 8, "y": 16})
            anchor = "#combos"
        link = page.locator(".refusal a.rule-link")
        expect(link).to_be_visible()
        assert link.get_attribute("href").endswith(f"/learn/rules/bao2/{anchor}")
        assert link.get_attribute("target") == "_blank"
        page.screenshot(path=str(SHOTS / "learn-table-refusal-rule-phone.png"))
        # while the refusal is shown, the ? opens the same rule
        with context.expect_page() as opened:
            ask.tap()
        guide = opened.value
        guide.wait_for_load_state()
        assert guide.url.endswith(f"/learn/rules/bao2/{anchor}"), guide.url
        guide.close()
        assert app.get_attribute("data-over") == "0"
    finally:
        context.close()


def _opens_rule(context, page, anchor):
    """The bar's ? opens the guide at ``anchor`` in a new tab; the table stays open."""
    button = page.locator('.bar button[data-act="rules"]')
    box = button.bounding_box()
    assert box["width"] >= 44 and box["height"] >= 44
    with context.expect_page() as opened:
        button.tap()
    guide = opened.value
    guide.wait_for_load_state()
    assert guide.url.endswith(f"/learn/rules/bao2/#{anchor}"), guide.url
    expect(guide.locator(f"#{anchor}")).to_be_in_viewport()
    guide.screenshot(path=str(SHOTS / f"learn-table-rule-{anchor}-phone.png"))
    guide.close()
    assert not page.is_closed()


def test_the_tables_question_mark_opens_the_immune_window_rule(browser, stack):
    from test_table_layout import SLOW_CLOCKS, open_table, play_until, seed_reaching, wait_to_act

    seed = seed_reaching("bao2", lambda m: m.deal.phase == "immune" and m.to_move() == 0)
    context, page = open_table(browser, stack, "bao2", "phone", seed, options=SLOW_CLOCKS)
    try:
        play_until(stack, page, "engine.deal.phase == 'immune' and engine.to_move() == 0")
        wait_to_act(page, "immune")
        _opens_rule(context, page, "immune")
    finally:
        context.close()


def test_the_tables_question_mark_opens_the_tribute_rule(browser, stack):
    from test_table_layout import SLOW_CLOCKS, open_table, play_until, seed_reaching, wait_to_act

    seed = seed_reaching("bao2", lambda m: m.deal.phase == "return" and m.to_move() == 0, deals=2)
    context, page = open_table(browser, stack, "bao2", "phone", seed, options=SLOW_CLOCKS)
    try:
        play_until(stack, page, "engine.deal.phase == 'return' and engine.to_move() == 0")
        wait_to_act(page, "return")
        _opens_rule(context, page, "tribute")
    finally:
        context.close()
