"""How matches end, on a phone (390×844, zh-CN, issue 45, 第十四条): the organiser chooses the
ending mode in the tournament form (计局制 / 计副制 / 计时制 / 计时计副制); 计时计副制 with
neither the deals nor the minutes, and a start in the past, are three errors said at once
beside their fields; with them filled in the event is created and its page says
"计时计副制：45 分钟或 8 副，先到为止". Screenshots in var/screenshots/."""

from datetime import timedelta
from pathlib import Path

from django.utils import timezone
from playwright.sync_api import expect

from clubs.models import Club, Membership, Role, User
from tournaments.models import Tournament

PASSWORD = "Long-Pass-phrase-77"
SHOTS = Path("var/screenshots")


def log_in(page, username):
    page.goto("/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.locator("main form button[type=submit]").click()


def inside(locator, tap=False):
    """The element is inside the 390 px viewport's width (and a tap target of 44 px)."""
    box = locator.bounding_box()
    assert box is not None
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    if tap:
        assert box["height"] >= 44, box
    return box


def test_the_ending_mode_in_the_form_with_errors_at_once_and_on_the_page(new_page, live_server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    owner = User.objects.create_user("laoli", password=PASSWORD, display_name="老李")
    club = Club.objects.create(name="淮安掼蛋会", slug="huaian")
    Membership.objects.create(club=club, user=owner, role=Role.OWNER)

    phone = new_page(locale="zh-CN", mobile=True, scale=1)
    log_in(phone, "laoli")
    phone.goto(f"/tournaments/clubs/{club.slug}/new/")
    phone.fill("#id_name", "计时计副赛")
    phone.select_option("#id_variant", "guandan")
    phone.fill("#id_rounds_planned", "3")
    past = timezone.localtime() - timedelta(days=2)
    phone.fill("#id_starts_at", past.strftime("%Y-%m-%dT%H:%M"))
    phone.locator("summary", has_text="对局").click()
    ending = phone.locator("#id_ending")
    inside(ending, tap=True)
    labels = ending.locator("option").all_inner_texts()
    for name in ("计局制", "计副制", "计时制", "计时计副制"):
        assert any(label.startswith(name) for label in labels), labels
    ending.select_option("time_deals")
    phone.locator("#id_deals").fill("")
    phone.locator("#id_time_limit_minutes").fill("")
    phone.get_by_role("button", name="保存").click()

    summary = phone.locator("#form-errors")
    expect(summary.locator("li")).to_have_count(3)
    expect(summary).to_contain_text("请填写每场副数")
    expect(summary).to_contain_text("请填写对局限时")
    expect(summary).to_contain_text("已经过去")
    for field in ("#id_deals", "#id_time_limit_minutes"):
        error = phone.locator(".field.has-error", has=phone.locator(field))
        expect(error).to_be_visible()
        inside(error)
        inside(phone.locator(field), tap=True)
    expect(phone.locator("#id_ending")).to_have_value("time_deals")  # the choice is kept
    phone.screenshot(path=str(SHOTS / "issue45-ending-form-errors-phone.png"), full_page=True)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    assert not Tournament.objects.exists()

    starts = timezone.localtime() + timedelta(days=1)
    phone.fill("#id_starts_at", starts.strftime("%Y-%m-%dT%H:%M"))
    phone.locator("#id_deals").fill("8")
    phone.locator("#id_time_limit_minutes").fill("45")
    phone.locator("#id_online").uncheck()
    phone.get_by_role("button", name="保存").click()
    expect(phone.locator(".messages")).to_contain_text("比赛已创建为草稿")
    t = Tournament.objects.get()
    assert t.match_options == {"deals": 8} and t.time_limit_minutes == 45
    expect(phone.locator("#ending")).to_have_text("计时计副制：45 分钟或 8 副，先到为止")
    phone.goto(f"/tournaments/{t.pk}/")
    said = phone.locator("#ending")
    expect(said).to_contain_text("计时计副制：45 分钟或 8 副，先到为止")
    inside(said)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.screenshot(path=str(SHOTS / "issue45-ending-page-phone.png"))
