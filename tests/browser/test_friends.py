"""A friends' table (好友房) on phones (390×844, zh-CN) against the real stack (uvicorn, a Celery
worker, Redis): a host opens one from the home page; a friend who has no account opens the
shared link, signs up and is seated; another signs up, taps 好友房 and types the 6-digit code;
the host puts a bot in the last seat and all three are at the live table with their cards.
Taps and typed fields are counted (printed, and bounded here), controls measured at 44 px and
nothing may be wider than the phone. Screenshots go to var/screenshots/friends-*.png."""

import os
import re
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))


SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
WIDTH = 390
PASSWORD = "Long-Pass-phrase-77"

#: The page's elements wider than the viewport, and the controls under 44 px in ``root``
#: (buttons, button-like links, fields, disclosure summaries; links inside running text are
#: left out, as WCAG 2.5.8 leaves them).
MEASURE = """(root) => {
  const width = document.documentElement.clientWidth;
  const visible = (el) => { const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden'; };
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + ' ' +
    (el.textContent || el.value || '').trim().slice(0, 20);
  const wide = [...document.body.querySelectorAll('*')].filter(visible)
    .filter((el) => el.getBoundingClientRect().right > width + 1).map(name);
  const small = [...document.querySelectorAll(root)].flatMap((r) => [...r.querySelectorAll(
      'button, a.button, select, summary, ' +
      'input:not([type=hidden]):not([type=radio]):not([type=checkbox])')]).filter(visible)
    .filter((el) => { const r = el.getBoundingClientRect(); return r.height < 44 || r.width < 44; })
    .map((el) => name(el) + ' ' + Math.round(el.getBoundingClientRect().width) + 'x' +
      Math.round(el.getBoundingClientRect().height));
  return {scrollWidth: document.documentElement.scrollWidth, width, wide, small};
}"""


@pytest.fixture(scope="module")
def stack(browser, shared_stack):
    # the run's one stack (tests/conftest.py): this module only adds rooms and people to it;
    # its invitation links name the stack's own address (SITE_URL)
    return shared_stack


class Phone:
    """A phone's browser context that counts the taps and the fields typed into."""

    def __init__(self, browser, stack, name):
        self.name = name
        self.context = browser.new_context(
            locale="zh-CN",
            base_url=stack.http,
            viewport={"width": WIDTH, "height": 844},
            device_scale_factor=2,
            is_mobile=True,
            has_touch=True,
        )
        self.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=stack.http)
        self.context.set_default_timeout(20000)
        self.page = self.context.new_page()
        self.taps = 0
        self.fields = 0

    def tap(self, locator):
        locator.tap()
        self.taps += 1

    def type(self, selector, text):
        self.page.fill(selector, text)
        self.fields += 1

    def fits(self, shot, root="main"):
        """Screenshot; nothing wider than the phone; the controls in ``root`` ≥ 44 px."""
        self.page.screenshot(path=str(SHOTS / f"friends-{shot}.png"), full_page=True)
        measured = self.page.evaluate(MEASURE, root)
        assert measured["width"] == WIDTH
        assert measured["scrollWidth"] <= WIDTH, (shot, measured)
        assert measured["wide"] == [], (shot, measured["wide"][:10])
        assert measured["small"] == [], (shot, measured["small"][:10])

    def sign_up(self, username, display_name):
        """Fill in and send the sign-up form this page shows (5 fields, 1 tap)."""
        self.type("#id_username", username)
        self.type("#id_email", f"{username}@example.com")
        self.type("#id_display_name", display_name)
        self.type("#id_password1", PASSWORD)
        self.type("#id_password2", PASSWORD)
        self.tap(self.page.locator("main form button[type=submit]"))


def at_live_table(phone, cards):
    """The live table shows this phone's own hand (``cards`` dealt; the match goes on, so a
    seat may already have played some)."""
    hand = phone.page.locator(".hand .card-button")
    expect(hand.first).to_be_visible(timeout=30000)
    assert 0 < hand.count() <= cards


def test_a_host_invites_by_link_and_by_code_and_friends_join_through_sign_up(browser, stack):
    SHOTS.mkdir(parents=True, exist_ok=True)
    stack.query(
        "from clubs.models import User\n"
        f"User.objects.create_user('laozhang', password='{PASSWORD}', display_name='老张')\n"
        "out = True"
    )

    # the host: from the home page to an open friends' table of 保2 in two taps
    host = Phone(browser, stack, "host")
    page = host.page
    page.goto("/accounts/login/")
    page.fill("#id_username", "laozhang")
    page.fill("#id_password", PASSWORD)
    page.locator("main form button[type=submit]").tap()
    page.wait_for_url(f"{stack.http}/")
    host.fits("home", root="section[aria-labelledby=friends-title]")  # the rest is not ours
    host.tap(page.get_by_role("link", name="和朋友打牌"))
    expect(page.locator("h1")).to_have_text("好友房")
    host.fits("start")
    host.tap(page.get_by_role("button", name="保2"))
    page.wait_for_url(re.compile(r".*/matches/tables/\d+/$"))
    opening_taps = host.taps
    assert opening_taps == 2
    panel = page.locator("section.friends-invite")
    expect(panel).to_contain_text("邀请好友")
    code = re.sub(r"\D", "", panel.locator("[data-room-code]").inner_text())
    assert len(code) == 6
    link = page.locator("#invite-link").input_value()
    assert re.fullmatch(re.escape(stack.http) + r"/friends/t/[\w-]{40,}/", link)
    expect(panel.locator("details.qr svg")).to_have_count(1)
    host.fits("host-invite")
    # the share button: no share sheet in this browser, so the link is copied
    host.tap(panel.get_by_role("button", name="分享邀请"))
    expect(panel.locator("[data-invite-status]")).to_have_text(
        "链接已复制，粘贴到聊天里发给朋友吧。"
    )
    assert page.evaluate("navigator.clipboard.readText()") == link

    # friend 1 opens the link from a chat: the preview, sign up, seated at once
    linker = Phone(browser, stack, "link")
    lpage = linker.page
    lpage.goto(link)
    expect(lpage.locator("h1")).to_have_text("老张邀请您来打保2")
    assert (
        lpage.locator('meta[property="og:title"]').get_attribute("content") == "老张邀请您来打保2"
    )
    assert (
        lpage.locator('meta[property="og:image"]')
        .get_attribute("content")
        .endswith("/static/img/friends-og.png")
    )
    assert code in lpage.locator('meta[property="og:description"]').get_attribute("content")
    linker.fits("link-preview")
    linker.tap(lpage.locator("main").get_by_role("link", name="注册"))
    linker.sign_up("ahmei", "阿梅")
    lpage.wait_for_url(re.compile(r".*/matches/tables/\d+/$"))
    expect(lpage.locator(".seat-list li[data-seat='1'] .seat-name")).to_have_text("阿梅")
    linker.fits("link-seated")

    # friend 2 got the code by phone: sign up from the home page, 好友房, type the code
    coder = Phone(browser, stack, "code")
    cpage = coder.page
    cpage.goto("/")
    coder.tap(cpage.locator("main").get_by_role("link", name="注册"))
    coder.sign_up("xiaoli", "小李")
    cpage.wait_for_url(f"{stack.http}/")
    coder.tap(cpage.get_by_role("link", name="和朋友打牌"))
    # a wrong code first: a clear error, nothing changes
    wrong = f"{(int(code) + 1) % 10**6:06d}"
    coder.type("#id_code", wrong)
    coder.tap(cpage.get_by_role("button", name="加入"))
    expect(cpage.locator("#code-error")).to_have_text(
        "没有用这个房间号开着的好友房，请核对六位数字。"
    )
    coder.fits("code-wrong")
    wrong_taps, wrong_fields = 1, 1
    coder.type("#id_code", f"{code[:3]} {code[3:]}")
    coder.tap(cpage.get_by_role("button", name="加入"))
    cpage.wait_for_url(re.compile(r".*/matches/tables/\d+/$"))
    expect(cpage.locator(".seat-list li[data-seat='2'] .seat-name")).to_have_text("小李")

    # the host's page follows the seats as they fill (the table's socket reloads it)
    expect(page.locator(".seat-list li[data-seat='1'] .seat-name")).to_have_text("阿梅")
    expect(page.locator(".seat-list li[data-seat='2'] .seat-name")).to_have_text("小李")
    expect(page.get_by_role("button", name="移出阿梅")).to_be_visible()
    host.fits("host-full-but-one")
    # a bot in the last seat: the match starts, and everyone is at the live table
    host.tap(page.locator(".seat-list li[data-seat='3']").get_by_role("button", name="加机器人"))
    for phone in (host, linker, coder):
        at_live_table(phone, 27)
        phone.page.screenshot(path=str(SHOTS / f"friends-live-{phone.name}.png"))
        assert phone.page.evaluate("document.documentElement.scrollWidth") <= WIDTH
    figures = {
        "host (home → open table)": (opening_taps, 0),
        "host (share, then the bot)": (host.taps - opening_taps, 0),
        "by link (preview → seated)": (linker.taps, linker.fields),
        "by code (home → seated)": (coder.taps - wrong_taps, coder.fields - wrong_fields),
    }
    print("\nfriends' table journey (taps, typed fields):", figures)
    assert linker.taps == 2 and linker.fields == 5
    assert coder.taps - wrong_taps == 4 and coder.fields - wrong_fields == 6
    table = int(re.search(r"/tables/(\d+)/", page.url).group(1))
    for phone in (host, linker, coder):
        phone.context.close()
    # the match ends with the deal in progress: the seats left on auto-play would otherwise
    # be played on by the shared stack's worker to the end of the match
    stack.query(f"from bench.tables import wind_up\nout = wind_up([{table}])")


def test_the_share_sheet_is_used_where_the_browser_has_one(browser, stack):
    """With the Web Share API the invitation goes to the phone's share sheet (the call's
    title, text and link are recorded here), not to the clipboard."""
    stack.query(
        "from clubs.models import User\n"
        f"User.objects.create_user('sharer', password='{PASSWORD}', display_name='分享者')\n"
        "out = True"
    )
    phone = Phone(browser, stack, "share")
    page = phone.page
    page.add_init_script(
        "navigator.share = (data) => { window.__shared = data; return Promise.resolve(); };"
        "navigator.canShare = () => true;"
    )
    page.goto("/accounts/login/")
    page.fill("#id_username", "sharer")
    page.fill("#id_password", PASSWORD)
    page.locator("main form button[type=submit]").tap()
    page.wait_for_url(f"{stack.http}/")
    page.goto("/friends/")
    page.get_by_role("button", name="掼蛋").tap()
    page.wait_for_url(re.compile(r".*/matches/tables/\d+/$"))
    page.get_by_role("button", name="分享邀请").tap()
    shared = page.evaluate("window.__shared")
    assert shared["url"] == page.locator("#invite-link").input_value()
    assert shared["title"] == "分享者邀请您来打掼蛋"
    assert "房间号" in shared["text"]
    expect(page.locator("[data-invite-status]")).to_have_text("")
    phone.context.close()
