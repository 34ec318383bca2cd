"""An organiser accepts a withdrawal after the start on a phone (390×844, zh-CN, issue 45,
第二十三、二十四条): on the run page the withdraw button asks for the reason; the entry's game
of the round is forfeited; in a round robin played under half, its results are annulled, and
the standings page says so — the entry marked 退赛（第2轮）, a section naming the reason and
成绩注销 — all within the phone's width. Screenshots in var/screenshots/."""

from django.utils import timezone
from playwright.sync_api import expect

from tests.browser.test_tournament_brackets import SHOTS, log_in, offline_pair_event
from tournaments.models import Entry, GameSource, GameStatus, Round, RoundStatus
from tournaments.services import results as result_services
from tournaments.services import rounds as round_services


def inside(locator):
    """The element lies within the 390 px viewport's width."""
    box = locator.bounding_box()
    assert box is not None
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    return box


def test_an_organiser_accepts_a_withdrawal_and_the_standings_show_it(new_page, live_server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    owner, club, players, t = offline_pair_event(
        ("laozhang", "老张"), ("扬州掼蛋会", "yangzhou"), "w", 8, "循环赛", "round_robin"
    )
    now = timezone.now()
    round_services.start_round(owner, t, now)
    for game in Round.objects.get(tournament=t, number=1).games.all():
        result_services.set_result(owner, game, 8, 2, now=now)
    Round.objects.filter(tournament=t, number=1).update(status=RoundStatus.FINISHED)
    round_services.start_round(owner, t, now)
    gone = Entry.objects.get(tournament=t, player1=players[0])  # 1 of 3 opponents played

    phone = new_page(locale="zh-CN", mobile=True)
    phone.on("dialog", lambda dialog: dialog.accept())
    log_in(phone, "laozhang")
    phone.goto(f"/tournaments/{t.pk}/run/")
    reason = phone.locator(f"#reason-{gone.pk}")
    expect(reason).to_be_visible()
    inside(reason)
    row = phone.locator("tr", has=reason)
    button = row.get_by_role("button", name="退赛")
    inside(button)
    # without a reason the browser asks for one; nothing is sent
    button.click()
    gone.refresh_from_db()
    assert gone.status == "checked_in" or gone.status == "registered"
    reason.fill("家中有急事")
    button.click()
    expect(phone.locator(".messages")).to_contain_text("已完成")
    expect(phone.locator("main")).to_contain_text("退赛（第2轮）")
    phone.screenshot(path=str(SHOTS / "issue45-withdrawal-run.png"))
    gone.refresh_from_db()
    assert gone.status == "withdrawn"
    game = next(
        g
        for g in Round.objects.get(tournament=t, number=2).games.all()
        if gone.pk in g.side0 + g.side1
    )
    assert (game.status, game.source) == (GameStatus.FINISHED, GameSource.FORFEIT)

    phone.goto(f"/tournaments/{t.pk}/standings/")
    section = phone.locator("#withdrawals")
    expect(section).to_contain_text("退赛（第2轮）")
    expect(section).to_contain_text("成绩注销")
    expect(section).to_contain_text("家中有急事")
    inside(section)
    assert gone.name not in phone.locator("table.standings").inner_text()  # not ranked
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390
    phone.screenshot(path=str(SHOTS / "issue45-withdrawal-standings.png"), full_page=True)
