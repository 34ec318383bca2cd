"""A newcomer reaches a practice table on a phone (390×844, zh-CN; Playwright + the system's
Chromium) against the real stack — uvicorn, a Celery worker (the bots' turns), Redis — and the
taps and typed fields are counted (issue 41, part 1):

- a visitor: the logged-out home page → 试玩 → their first own turn, as a guest (target: at
  most 3 taps, nothing typed); then the guest signs up and finds the same table on the home
  page;
- a new account: sign-up → 练习 (the home page's practice form) → the first own turn.

Every page on the way is no wider than the phone and its controls are at least 44 px tall.
Screenshots go to var/screenshots/; the counts are printed and written to
var/screenshots/practice-journeys.json.
"""

import json
import os
import re
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
sys.path.insert(0, os.path.dirname(__file__))

from test_journeys import MEASURE  # noqa: E402

SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
PASSWORD = "Long-Pass-phrase-77"
MAX_TAPS = 3


@pytest.fixture(scope="module")
def stack(browser, shared_stack):
    # the run's one stack (tests/conftest.py): the people here are new accounts (and one new
    # guest), counted before and after, so others' users and tables do not matter
    return shared_stack


USERS = "from clubs.models import User\nout = User.objects.count()"
#: The practice tables the tests reached, till the test's end.
OPENED = []


@pytest.fixture(autouse=True)
def wound_up(stack):
    """After each test, its practice tables' matches end with the deal in progress
    (bench.tables.wind_up): a closed page leaves its seat on auto-play, which the shared
    stack's worker would play on to the match's end beside the tests that follow."""
    yield
    if OPENED:
        tables = list(OPENED)
        OPENED.clear()
        stack.query(f"from bench.tables import wind_up\nout = wind_up({tables!r})")


class Counted:
    """A phone page whose taps and typed fields are counted."""

    def __init__(self, page):
        self.page = page
        self.taps = 0
        self.fields = 0

    def tap(self, locator):
        self.taps += 1
        locator.tap()

    def type(self, selector, text):
        self.fields += 1
        self.page.fill(selector, text)


def phone(browser, stack):
    context = browser.new_context(
        locale="zh-CN",
        base_url=stack.http,
        viewport={"width": 390, "height": 844},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    context.set_default_timeout(20000)
    return context, context.new_page()


def fits(page, shot):
    """The page is no wider than the phone and its controls are big enough to tap."""
    page.screenshot(path=str(SHOTS / f"{shot}.png"), full_page=True)
    measured = page.evaluate(MEASURE)
    assert measured["width"] == 390
    assert measured["scrollWidth"] <= 390, (shot, measured)
    assert measured["wide"] == [], (shot, measured["wide"][:10])
    assert measured["small"] == [], (shot, measured["small"][:10])


def first_own_turn(page, shot):
    """Wait until it is seat 0's turn at the table page, with the hand shown; screenshot."""
    app = page.locator("#table-app")
    expect(app).to_have_attribute("data-you", "0")
    page.wait_for_function(
        "() => document.querySelector('#table-app').dataset.turn === '0'", timeout=60000
    )
    expect(page.locator(".hand .card-button").first).to_be_visible()
    page.screenshot(path=str(SHOTS / f"{shot}.png"))


def record(name, counted):
    path = SHOTS / "practice-journeys.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    data[name] = {"taps": counted.taps, "typed_fields": counted.fields}
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1))
    print(f"\n{name}: {counted.taps} taps, {counted.fields} typed fields")


def test_a_visitor_plays_the_bots_as_a_guest_then_signs_up(browser, stack):
    SHOTS.mkdir(parents=True, exist_ok=True)
    context, page = phone(browser, stack)
    try:
        me = Counted(page)
        page.goto("/")
        expect(page.locator(".practice-form")).to_be_visible()
        # the choices come chosen (保2, 普通): one tap starts
        expect(page.get_by_role("radio", name="保2")).to_be_checked()
        expect(page.get_by_role("radio", name="普通")).to_be_checked()
        fits(page, "practice-home-logged-out")
        users = stack.query(USERS)
        me.tap(page.get_by_role("button", name="试玩"))
        page.wait_for_url("**/matches/tables/*/")
        first_own_turn(page, "practice-guest-first-turn")
        record("visitor: home → 试玩 → first own turn", me)
        assert me.taps <= MAX_TAPS and me.fields == 0
        table_url = page.url
        # one new account, a guest: the one person at the table, seated there only
        table = int(re.search(r"/tables/(\d+)/$", table_url).group(1))
        OPENED.append(table)
        guest = stack.query(
            "from clubs.models import User\n"
            f"u = User.objects.get(seats__table_id={table})\n"
            "out = {'pk': u.pk, 'guest': u.is_guest, 'users': User.objects.count(),\n"
            "       'seats': list(u.seats.values_list('table_id', flat=True))}"
        )
        assert guest["guest"] and guest["users"] == users + 1, (guest, users)
        assert len(guest["seats"]) == 1 and table_url.endswith(f"/tables/{guest['seats'][0]}/")

        # the guest signs up from the header: the same account, the table still theirs
        page.goto("/")
        fits(page, "practice-home-guest")
        page.locator("header").get_by_role("link", name="注册").tap()
        expect(page.locator("main")).to_contain_text("游客")
        page.fill("#id_username", "xiaoming")
        page.fill("#id_email", "xiaoming@example.com")
        page.fill("#id_password1", PASSWORD)
        page.fill("#id_password2", PASSWORD)
        page.locator("main form button[type=submit]").tap()
        expect(page.locator(".messages")).to_contain_text("保留")
        mine = page.locator(".my-games")
        expect(mine.locator(f"a[href='/matches/tables/{guest['seats'][0]}/']")).to_be_visible()
        fits(page, "practice-home-after-guest-sign-up")
        # the guest's account became xiaoming's: no account more than before 试玩 but the guest
        after = stack.query(
            f"from clubs.models import User\nu = User.objects.get(pk={guest['pk']})\n"
            "out = [u.username, u.is_guest, User.objects.count()]"
        )
        assert after == ["xiaoming", False, users + 1]
    finally:
        context.close()


def test_a_new_account_signs_up_and_practises(browser, stack):
    SHOTS.mkdir(parents=True, exist_ok=True)
    context, page = phone(browser, stack)
    try:
        me = Counted(page)
        page.goto("/accounts/signup/")
        me.type("#id_username", "ahua")
        me.type("#id_email", "ahua@example.com")
        me.type("#id_password1", PASSWORD)
        me.type("#id_password2", PASSWORD)
        me.tap(page.locator("main form button[type=submit]"))
        expect(page.locator(".messages")).to_contain_text("欢迎")
        signed_up = me.taps
        # the home page leads with practice, then joining a club, then creating one
        form = page.locator(".practice-form")
        expect(form).to_be_visible()
        join = page.get_by_role("heading", name="加入俱乐部")
        create = page.get_by_role("heading", name="创建俱乐部")
        assert form.bounding_box()["y"] < join.bounding_box()["y"] < create.bounding_box()["y"]
        fits(page, "practice-home-new-account")
        me.tap(page.get_by_role("radio", name="掼蛋"))  # another game: one more tap
        me.tap(page.get_by_role("button", name="开始"))
        page.wait_for_url("**/matches/tables/*/")
        OPENED.append(int(re.search(r"/tables/(\d+)/$", page.url).group(1)))
        first_own_turn(page, "practice-new-account-first-turn")
        record("new account: sign-up → 练习 → first own turn", me)
        assert me.taps - signed_up <= 2  # from the home page: the game, then 开始
        assert me.fields == 4  # the sign-up form only
        table = stack.query(
            "from matches.models import Table\nt = Table.objects.get(created_by__username='ahua')\n"
            "out = [t.kind, t.variant, t.club_id, t.rated, list(t.seats.values_list('bot', flat=True))]"
        )
        assert table == [
            "practice",
            "guandan",
            None,
            False,
            ["", "heuristic", "heuristic", "heuristic"],
        ]
        # the practice page itself offers the table in play, and fits the phone
        page.goto("/matches/practice/")
        expect(page.locator(".practice-resume a.button")).to_have_count(1)
        fits(page, "practice-page")
    finally:
        context.close()
