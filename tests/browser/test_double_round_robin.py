"""The double round robin (双循环赛, 第二十七条三, issue 45) set on a phone (390×844, zh-CN): the
organiser chooses 双循环赛 in the settings' 轮次与排名 section; asked of a Swiss event it is
refused beside its field, the section open; for the round robin it is saved, the pages name
the format 双循环赛 and the event has twice the rounds. Screenshots in var/screenshots/."""

from playwright.sync_api import expect

from tests.browser.test_tournament_brackets import (
    SHOTS,
    choose_setting,
    fits,
    log_in,
    offline_pair_event,
)
from tournaments import selectors
from tournaments.models import Tournament


def test_a_double_round_robin_chosen_on_a_phone(new_page, live_server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    owner, club, players, t = offline_pair_event(
        ("laowang", "老王"), ("淮安掼蛋会", "huaian"), "p", 8, "双循环邀请赛", "round_robin"
    )
    assert selectors.total_rounds(t) == 3

    phone = new_page(locale="zh-CN", mobile=True)
    log_in(phone, "laowang")
    phone.goto(f"/tournaments/{t.pk}/edit/")
    # asked of a Swiss event: refused beside the field, in words, nothing saved
    phone.select_option("#id_format", "swiss")
    section, choice = choose_setting(phone, "cycles", "循环次数", "2")
    help_text = section.locator(".field", has=choice).locator(".helptext")
    expect(help_text).to_contain_text("第二十七条")
    assert fits(phone, help_text)["width"] <= 390
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.screenshot(path=str(SHOTS / "issue45-double-round-robin-choice-phone.png"))
    phone.get_by_role("button", name="保存").click()
    error = phone.locator(".field.has-error", has=phone.locator("#id_cycles"))
    expect(error).to_contain_text("双循环赛属于循环赛")
    expect(phone.locator("#form-errors")).to_contain_text("循环次数")
    box = fits(phone, error)
    assert box["width"] <= 390
    phone.screenshot(path=str(SHOTS / "issue45-double-round-robin-refused-phone.png"))
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    t.refresh_from_db()
    assert (t.format, t.cycles) == ("round_robin", 1)

    # for the round robin it is saved: twice the rounds, named 双循环赛
    phone.select_option("#id_format", "round_robin")
    expect(phone.locator("#id_cycles")).to_have_value("2")
    save = phone.get_by_role("button", name="保存")
    save.scroll_into_view_if_needed()
    assert fits(phone, save)["height"] >= 44
    save.click()
    expect(phone.locator(".messages")).to_contain_text("已保存")
    t = Tournament.objects.get(pk=t.pk)
    assert (t.format, t.cycles) == ("round_robin", 2)
    assert selectors.total_rounds(t) == 6
    expect(phone.locator("main")).to_contain_text("双循环赛")
    phone.goto(f"/tournaments/{t.pk}/")
    expect(phone.locator("main")).to_contain_text("双循环赛")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.screenshot(path=str(SHOTS / "issue45-double-round-robin-event-phone.png"))
