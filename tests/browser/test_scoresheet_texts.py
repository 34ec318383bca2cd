"""Score sheet texts on a phone (issue 22): a new sheet never reads "第一副打 3null"; at the end
the levels climbed and the levels reached are labelled apart, never "4:5" beside "7:8"; the
match clock counts from the server's start time and steps by one second, on a phone whose own
clock is wrong."""

from datetime import timedelta

from django.utils import timezone
from playwright.sync_api import expect

from sheets.models import ScoreSheet
from tests.browser.test_scoresheet import log_in, setup_club, start_sheet, tap_finish


def test_next_card_and_result_texts(new_page, live_server):
    club, users = setup_club()
    page = new_page(locale="zh-CN", mobile=True)
    page.on("dialog", lambda dialog: dialog.accept())
    log_in(page, "player1")
    start_sheet(page, club, users[:4])
    next_card = page.locator("#next-card")
    expect(next_card).to_contain_text("3")
    assert "null" not in next_card.inner_text()
    tap_finish(page, "老张", "小陈")
    page.get_by_role("button", name="记录本副").click()
    assert "null" not in next_card.inner_text()
    page.locator("[data-action=time-up]").click()
    result = page.locator("#result")
    expect(result).to_contain_text("升级数（红方 : 蓝方）")
    expect(result.locator(".reached")).to_contain_text("打到（红方 : 蓝方）：")
    reached = result.locator(".reached").inner_text().split("：")[-1].strip()
    assert reached == " : ".join(
        [page.get_by_test_id("level-0").inner_text(), page.get_by_test_id("level-1").inner_text()]
    )
    assert "null" not in result.inner_text()
    page.screenshot(path="var/screenshots/scoresheet-result.png", full_page=True)


#: This phone's clock runs two hours fast: the sheet's clock must not depend on it.
FAST_PHONE = """(() => {
  const skew = 2 * 3600 * 1000;
  const RealDate = Date;
  class PhoneDate extends RealDate {
    constructor(...args) { if (args.length) super(...args); else super(RealDate.now() + skew); }
    static now() { return RealDate.now() + skew; }
  }
  window.Date = PhoneDate;
})();"""

#: Samples of the shown clock every 50 ms for ``ms`` milliseconds: [page time, text].
SAMPLE = """(ms) => new Promise((done) => {
  const el = document.getElementById('clock');
  const out = [];
  const start = performance.now();
  const timer = setInterval(() => {
    out.push([performance.now(), el.textContent]);
    if (performance.now() - start > ms) { clearInterval(timer); done(out); }
  }, 50);
})"""


def seconds(text):
    minutes, secs = text.split(":")[-2:]
    return int(minutes) * 60 + int(secs)


def test_the_clock_ticks_steadily_from_the_server_time(new_page, live_server):
    club, users = setup_club()
    page = new_page(locale="zh-CN", mobile=True)
    page.add_init_script(FAST_PHONE)
    log_in(page, "player1")
    sheet = start_sheet(page, club, users[:4])  # a 60-minute limit: the clock counts down
    ScoreSheet.objects.filter(pk=sheet.pk).update(started_at=timezone.now() - timedelta(minutes=5))
    page.reload()
    expect(page.locator("#clock")).not_to_be_empty()
    # 9 s: long enough to take in one of the page's refreshes (every 8 s)
    samples = page.evaluate(SAMPLE, 9000)
    shown = [seconds(text) for _t, text in samples]
    assert abs(shown[0] - 55 * 60) <= 3, samples[0]  # from the server's start, not the phone's
    steps = [b - a for a, b in zip(shown, shown[1:], strict=False)]
    assert set(steps) <= {0, -1}, samples  # never back, never a skipped second
    changes = [samples[i + 1][0] for i, step in enumerate(steps) if step]
    assert len(changes) >= 8
    gaps = [b - a for a, b in zip(changes, changes[1:], strict=False)]
    assert all(700 <= gap <= 1300 for gap in gaps), gaps
