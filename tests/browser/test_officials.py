"""Referees and appeals on a phone (issue 45, item 4; 390×844, zh-CN): the organiser
appoints a referee from the club page's link; a player files a written appeal; the third
member of the appeals committee casts the deciding vote and the corrected result shows.
Screenshots: var/screenshots/issue45-officials-*.png."""

from datetime import timedelta
from pathlib import Path

import time_machine
from django.conf import settings
from playwright.sync_api import expect

from clubs.models import Club, Membership, Role, User
from officials import services
from officials.models import Appeal, AppealStatus, Official
from tests.browser.test_leagues import PASSWORD, log_in
from tests.tournaments.test_tournament_ladder import START, running_round
from tournaments.models import Game
from tournaments.services import results as result_services
from tournaments.services import schedule as schedule_services

SHOTS = Path(settings.BASE_DIR) / "var" / "screenshots"
AFTER = START + timedelta(minutes=40)


def on_screen(page, locator):
    """The element is inside the 390×844 viewport without scrolling, and tall enough to tap."""
    box = locator.bounding_box()
    assert box is not None
    assert box["y"] >= 0 and box["y"] + box["height"] <= 844, box
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    assert box["height"] >= 44, box


def narrow(page):
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def people(club, prefix, n):
    users = [
        User.objects.create_user(
            f"{prefix}{i}", password=PASSWORD, display_name=f"{prefix}选手{i}", email=""
        )
        for i in range(n)
    ]
    Membership.objects.bulk_create(Membership(club=club, user=u) for u in users)
    return users


def test_appoint_appeal_and_decide_on_a_phone(new_page, live_server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    club = Club.objects.create(name="南通保二俱乐部", slug="nantong")
    owner = User.objects.create_user("host", password=PASSWORD, display_name="老王")
    Membership.objects.create(club=club, user=owner, role=Role.OWNER)
    players = people(club, "p", 8)
    committee = people(club, "c", 3)
    (referee,) = people(club, "r", 1)
    t, (game, other) = running_round(club, owner, players, rounds_planned=2)
    with time_machine.travel(AFTER, tick=False):
        result_services.set_result(owner, game, 12, 5, now=AFTER)
        result_services.set_result(owner, other, 9, 3, now=AFTER)
        schedule_services.tick(AFTER)
    for member in committee:
        services.appoint(owner, t, member, "committee")

    # the organiser appoints a referee, from the club page's section
    page = new_page(locale="zh-CN", mobile=True)
    log_in(page, "host")
    page.goto(f"/clubs/{club.slug}/")
    page.locator("#club-officials ~ p a").click()
    page.locator("a", has_text=t.name).click()
    expect(page.locator("h1")).to_have_text("裁判与申诉")
    page.select_option("#appoint-user", value=str(referee.pk))
    page.select_option("#appoint-role", value="referee")
    button = page.locator("form[data-appoint] button")
    on_screen(page, button)
    narrow(page)
    with page.expect_navigation(timeout=60000):
        button.click()
    expect(page.locator(".messages")).to_be_visible()
    expect(page.locator("[data-officials]")).to_contain_text("r选手0")
    page.screenshot(path=str(SHOTS / "issue45-officials-appoint.png"))
    assert Official.objects.filter(user=referee, role="referee").exists()

    # a player of the game that lost 12:5 files a written appeal
    entries = {e.pk: e for e in t.entries.all()}
    filer = entries[game.side1[0]].player1
    page = new_page(locale="zh-CN", mobile=True)
    log_in(page, filer.username)
    page.goto(f"/officials/tournaments/{t.pk}/")
    link = page.locator("[data-file-appeal]")
    on_screen(page, link)
    link.click()
    page.locator("#appeal-text").fill("第8副的贡牌记错了，请核对记分表。")
    submit = page.locator("form[data-appeal-form] button")
    on_screen(page, submit)
    narrow(page)
    page.screenshot(path=str(SHOTS / "issue45-officials-appeal-form.png"))
    with page.expect_navigation(timeout=60000):
        submit.click()
    expect(page.locator("[data-status]")).to_have_text("等待仲裁委员会裁决")
    appeal = Appeal.objects.get(filed_by=filer)
    assert appeal.game_id == game.pk and appeal.subject == "result"

    # the committee decides: two votes by the services, the third on a phone
    services.cast_vote(committee[0], appeal, "uphold", "记分表显示 5:12", score0=5, score1=12)
    services.cast_vote(committee[1], appeal, "dismiss", "证据不足")
    page = new_page(locale="zh-CN", mobile=True)
    log_in(page, committee[2].username)
    page.goto(f"/officials/appeals/{appeal.pk}/")
    vote = page.locator("form[data-vote-form] button")
    on_screen(page, vote)
    page.select_option("#vote-verdict", value="uphold")
    # by position: a plain string would match a label first ("5" is a level's name)
    page.select_option("#vote-score0", index=5)  # 8
    page.select_option("#vote-score1", index=12)  # 3（第2轮）
    page.locator("#vote-reason").fill("核对了记分表")
    narrow(page)
    page.screenshot(path=str(SHOTS / "issue45-officials-vote.png"))
    with page.expect_navigation(timeout=60000):  # the decision rebuilds a ladder: a loaded CI
        vote.click()
    expect(page.locator("[data-status]")).to_have_text("申诉成立")
    expect(page.locator("[data-after]")).to_be_visible()
    expect(page.locator("[data-votes] li")).to_have_count(3)
    page.screenshot(path=str(SHOTS / "issue45-officials-decided.png"), full_page=True)
    game = Game.objects.get(pk=game.pk)
    assert (game.score0, game.score1, game.winner) == (5, 12, 1)
    assert Appeal.objects.get(pk=appeal.pk).status == AppealStatus.UPHELD
    # the round's page shows who changed the result and why
    page.goto(f"/tournaments/{t.pk}/rounds/1/")
    expect(page.locator("main")).to_contain_text("核对了记分表")
