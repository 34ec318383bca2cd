"""A person signs up, creates a club; a second person signs up on a phone and joins it."""

import re

from playwright.sync_api import expect

from clubs.models import Club, Membership, Role, User
from outbox import notices
from outbox.models import Kind


def sign_up(page, username, display_name):
    page.goto("/accounts/signup/")
    page.fill("#id_username", username)
    page.fill("#id_email", f"{username}@example.com")
    page.fill("#id_display_name", display_name)
    page.fill("#id_password1", "Long-Pass-phrase-77")
    page.fill("#id_password2", "Long-Pass-phrase-77")
    page.click("form.form button[type=submit]")


def test_sign_up_create_club_and_join_as_second_user(new_page, live_server):
    owner_page = new_page(locale="zh-CN")
    sign_up(owner_page, "laozhang", "老张")
    expect(owner_page.locator("h1")).to_have_text("您好，老张")

    owner_page.get_by_role("link", name="创建俱乐部").first.click()
    owner_page.fill("#id_name", "Nanping Evening Club")
    owner_page.fill("#id_city", "南平")
    owner_page.get_by_label("申请制：由管理员同意或拒绝").check()
    owner_page.get_by_role("button", name="创建俱乐部").click()
    expect(owner_page.locator("h1")).to_have_text("Nanping Evening Club")
    expect(owner_page.locator(".messages")).to_contain_text("您是会长")
    club = Club.objects.get(name="Nanping Evening Club")
    assert Membership.objects.get(club=club).role == Role.OWNER

    # The second player uses a phone and an English browser.
    player_page = new_page(locale="en-GB", mobile=True)
    sign_up(player_page, "ahmei", "阿梅")
    expect(player_page.locator("h1")).to_have_text("Hello, 阿梅")
    player_page.goto(f"/clubs/{club.slug}/")
    player_page.fill("#id_message", "I play on Saturdays")
    player_page.get_by_role("button", name="Ask to join").click()
    expect(player_page.locator(".messages")).to_contain_text("Your request is sent")

    owner_page.get_by_role("link", name="管理会员").click()
    expect(owner_page.locator("main")).to_contain_text("I play on Saturdays")
    owner_page.get_by_role("button", name="同意 阿梅").click()
    expect(owner_page.locator(".messages")).to_contain_text("已同意申请")

    player_page.reload()
    expect(player_page.locator(".actions")).to_contain_text("You are a member of this club")
    expect(player_page.locator(".members")).to_contain_text("阿梅")
    assert Membership.objects.get(club=club, user__username="ahmei").role == Role.MEMBER

    # The page fits a phone screen: nothing overflows horizontally.
    width = player_page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390


def test_language_switch_and_invitation_link(new_page, live_server):
    page = new_page(locale="zh-CN")
    sign_up(page, "xiaochen", "小陈")
    page.select_option("#language-select", "en")
    expect(page.locator("h1")).to_have_text("Hello, 小陈")
    page.get_by_role("link", name="Create a club").first.click()
    page.fill("#id_name", "Invite Only")
    page.get_by_label("By invitation link only").check()
    page.get_by_role("button", name="Create the club").click()
    page.get_by_role("link", name="Manage members").click()
    page.get_by_role("button", name="Create an invitation link").click()
    link = page.locator("input.copy").first.input_value()
    assert re.search(r"/invite/[\w-]+/$", link)

    guest = new_page(locale="zh-CN")
    sign_up(guest, "guest1", "客人")
    guest.goto(link)
    guest.get_by_role("button", name="加入这个俱乐部").click()
    expect(guest.locator(".messages")).to_contain_text("欢迎加入Invite Only")


UNLABELLED_FIELDS_JS = """
() => Array.from(document.querySelectorAll('input, select, textarea'))
  .filter(el => el.type !== 'hidden' && el.type !== 'submit')
  .filter(el => !(el.labels && el.labels.length) && !el.getAttribute('aria-label'))
  .map(el => el.outerHTML)
"""


def test_every_form_field_has_a_label_and_pages_have_one_h1(new_page, live_server):
    page = new_page(locale="zh-CN", mobile=True)
    for url in ("/accounts/signup/", "/accounts/login/", "/accounts/password_reset/", "/clubs/"):
        page.goto(url)
        assert page.evaluate(UNLABELLED_FIELDS_JS) == [], url
        assert page.locator("h1").count() == 1, url
        assert page.evaluate("document.documentElement.lang") == "zh-hans"
    sign_up(page, "labels", "Labels")
    # a full page of long notices (and a second page) for the phone-width check of the list
    user = User.objects.get(username="labels")
    for i in range(21):
        notices.record(
            user=user,
            key=f"browser:{i}:user:{user.pk}",
            kind=Kind.TOURNAMENTS,
            text=f"春季瑞士赛第{i}轮已开始：第3桌，搭档：老张，对手：阿梅、WangXiaomingTheSecond",
            url="/clubs/",
        )
    for url in (
        "/accounts/profile/",
        "/clubs/new/",
        "/accounts/password_change/",
        "/notifications/",
    ):
        page.goto(url)
        assert page.evaluate(UNLABELLED_FIELDS_JS) == [], url
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, url
    # the list marked the page it showed read: the header counts the one left on page 2
    assert page.locator(".notifications li").count() == 20
    expect(page.locator("[data-notifications] .badge")).to_have_text("1")
