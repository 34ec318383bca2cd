"""Score sheet texts on a phone (issue 22): a new sheet never reads "第一副打 3null"; at the end
the levels climbed and the levels reached are labelled apart, never "4:5" beside "7:8"."""

from playwright.sync_api import expect

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
