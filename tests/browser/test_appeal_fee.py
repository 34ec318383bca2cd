"""The appeal fee on a phone (issue 45, item 4; 第三十九条一.4, 二.4; 390×844, zh-CN): the
organiser sets a fee of 200 yuan beside the appeal time; the player reads the fee and the rule
(向组委会缴纳；申诉成立则退回) on the appeal form before filing; the chief referee marks the fee
received, which opens the ruling, and upholds the appeal: the fee is refunded, the history
says so and the filer is told once. Screenshots: var/screenshots/issue45-appeal-fee-*.png."""

from datetime import timedelta

import time_machine
from playwright.sync_api import expect

from clubs.models import Club, Membership, Role, User
from officials import services
from officials.models import Appeal, AppealStatus, FeeState, Panel
from outbox.models import Notification
from tests.browser.test_leagues import PASSWORD, fits_the_phone, log_in
from tests.browser.test_officials import SHOTS, narrow, on_screen, people
from tests.tournaments.test_tournament_ladder import START, running_round
from tournaments.models import Game
from tournaments.services import results as result_services
from tournaments.services import schedule as schedule_services

AFTER = START + timedelta(minutes=40)


def fits(locator):
    """Inside the phone's width and tall enough to tap (below the fold is allowed)."""
    box = locator.bounding_box()
    assert box is not None
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    assert box["height"] >= 44, box


def test_the_appeal_fee_set_shown_received_and_refunded_on_a_phone(new_page, live_server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    club = Club.objects.create(name="南通保二俱乐部", slug="nantong")
    owner = User.objects.create_user("host", password=PASSWORD, display_name="老王")
    Membership.objects.create(club=club, user=owner, role=Role.OWNER)
    players = people(club, "p", 8)
    committee = people(club, "c", 3)
    (chief,) = people(club, "k", 1)
    t, (game, other) = running_round(club, owner, players, rounds_planned=2)
    with time_machine.travel(AFTER, tick=False):
        result_services.set_result(owner, game, 12, 5, now=AFTER)
        result_services.set_result(owner, other, 9, 3, now=AFTER)
        schedule_services.tick(AFTER)
    services.appoint(owner, t, chief, "chief")
    for member in committee:
        services.appoint(owner, t, member, "committee")

    # the organiser sets the fee in the appeal settings, beside the appeal time
    page = new_page(locale="zh-CN", mobile=True)
    log_in(page, "host")
    page.goto(f"/officials/tournaments/{t.pk}/")
    fee = page.locator("#appeal-fee")
    fee.scroll_into_view_if_needed()
    expect(page.locator("label[for=appeal-fee]")).to_have_text("申诉费（元，0 为不收）")
    fits(fee)
    fee.fill("200")
    save = page.locator("form:has(#appeal-fee) button")
    fits(save)
    narrow(page)
    with page.expect_navigation(timeout=60000):
        save.click()
    expect(page.locator(".messages")).to_be_visible()
    expect(page.locator("[data-fee-rule]")).to_have_text(
        "申诉费：200 元，向组委会缴纳；申诉成立则退回。"
    )
    page.locator("#appeal-fee").scroll_into_view_if_needed()
    expect(page.locator("#appeal-fee")).to_have_value("200")
    page.screenshot(path=str(SHOTS / "issue45-appeal-fee-settings.png"))
    assert Panel.objects.get(tournament=t).appeal_fee == 200

    # the player reads the fee and the rule before filing, on screen
    entries = {e.pk: e for e in t.entries.all()}
    filer = entries[game.side1[0]].player1
    page = new_page(locale="zh-CN", mobile=True)
    log_in(page, filer.username)
    page.goto(f"/officials/tournaments/{t.pk}/appeal/")
    rule = page.locator("[data-fee-rule]")
    expect(rule).to_have_text("申诉费：200 元，向组委会缴纳；申诉成立则退回。")
    box = rule.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 844, box
    page.locator("#appeal-text").fill("第8副的贡牌记错了，请核对记分表。")
    submit = page.locator("form[data-appeal-form] button")
    on_screen(page, submit)
    fits_the_phone(page)
    page.screenshot(path=str(SHOTS / "issue45-appeal-fee-form.png"))
    with page.expect_navigation(timeout=60000):
        submit.click()
    expect(page.locator("[data-fee-state]")).to_have_text("申诉费待缴")
    expect(page.locator("[data-fee-form]")).to_have_count(0)  # the filer never marks it
    appeal = Appeal.objects.get(filed_by=filer)
    assert (appeal.fee, appeal.fee_state) == (200, FeeState.DUE)

    # the chief referee marks the fee received: only then the ruling's form
    page = new_page(locale="zh-CN", mobile=True)
    log_in(page, chief.username)
    page.goto(f"/officials/appeals/{appeal.pk}/")
    expect(page.locator("[data-ruling-form]")).to_have_count(0)
    mark = page.locator("form[data-fee-form] button")
    expect(mark).to_have_text("登记已收到申诉费")
    on_screen(page, mark)
    narrow(page)
    page.screenshot(path=str(SHOTS / "issue45-appeal-fee-due.png"))
    with page.expect_navigation(timeout=60000):
        mark.click()
    expect(page.locator("[data-fee-state]")).to_have_text("申诉费已收")
    give = page.locator("form[data-ruling-form] button")
    page.select_option("#vote-verdict", value="uphold")
    page.select_option("#vote-score0", index=5)
    page.select_option("#vote-score1", index=12)
    page.locator("#vote-reason").fill("核对了记分表")
    give.scroll_into_view_if_needed()
    fits(give)
    narrow(page)
    with page.expect_navigation(timeout=60000):
        give.click()
    expect(page.locator("[data-status]")).to_have_text("裁判长已裁决")
    expect(page.locator("[data-fee-state]")).to_have_text("申诉费已退回")
    history = page.locator("[data-history] li")
    expect(history).to_have_count(4)
    expect(page.locator("[data-history] li[data-step=fee_refunded]")).to_contain_text(
        "申诉方胜诉，退回申诉费 200 元。"
    )
    expect(page.locator("[data-history] li[data-step=fee_received]")).to_contain_text("k选手0")
    narrow(page)
    page.screenshot(path=str(SHOTS / "issue45-appeal-fee-refunded.png"), full_page=True)
    appeal.refresh_from_db()
    assert (appeal.status, appeal.fee_state) == (AppealStatus.RULED, FeeState.REFUNDED)
    game = Game.objects.get(pk=game.pk)
    assert (game.score0, game.score1) == (5, 12)
    refunds = Notification.objects.filter(key__contains=f":{appeal.pk}:fee-refunded")
    assert list(refunds.values_list("user_id", flat=True)) == [filer.pk]
