"""A knockout of best-of-three ties (多局制淘汰赛, 第三十条) on a phone (390×844, zh-CN, issue
45): the organiser chooses the games per tie in the settings form, and the bracket page shows
each tie's games, its score in games won and who goes through. Screenshots in
var/screenshots/issue45-series-*.png."""

from playwright.sync_api import expect

from tests.browser.test_tournament_brackets import (
    SHOTS,
    choose_setting,
    fits,
    log_in,
    offline_pair_event,
)
from tournaments import selectors
from tournaments.models import GameStatus, Round
from tournaments.services import results as result_services
from tournaments.services import rounds as round_services
from tournaments.services import schedule as schedule_services


def test_a_best_of_three_knockout_on_a_phone(new_page, live_server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    owner, _club, _players, t = offline_pair_event(
        ("laozhang", "老张"), ("扬州掼蛋会", "yangzhou"), "q", 8, "多局淘汰赛", "elimination"
    )
    phone = new_page(locale="zh-CN", mobile=True)
    log_in(phone, "laozhang")

    # the games per tie are a setting (对局 section), checked with the others
    phone.goto(f"/tournaments/{t.pk}/edit/")
    section, choice = choose_setting(phone, "series", "每轮对阵局数", "best3")
    expect(section.locator(".field", has=choice).locator(".helptext")).to_contain_text("第三十条")
    phone.screenshot(path=str(SHOTS / "issue45-series-setting-phone.png"))
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    save = phone.get_by_role("button", name="保存")
    save.scroll_into_view_if_needed()
    save.click()
    expect(phone.locator(".messages")).to_contain_text("已保存")
    t.refresh_from_db()
    assert t.series == "best3"

    # two semi-final ties: one won 2-0, the other at 1-1 playing its third game
    round_services.start_round(owner, t)
    semi = Round.objects.get(tournament=t, number=1)
    first, second = semi.games.order_by("number")
    result_services.set_result(owner, first, 12, 7)  # A : 9 for side 1
    result_services.set_result(owner, second, 5, 9)
    games = {g.slot: g for g in semi.games.filter(status=GameStatus.PLAYING)}
    result_services.set_result(owner, games[first.slot], 10, 8)
    result_services.set_result(owner, games[second.slot], 11, 6)
    third = semi.games.get(status=GameStatus.PLAYING)
    assert third.slot == second.slot
    ties = {tie.slot: tie for tie in selectors.ties_of(t)}
    assert ties[first.slot].state.decided and ties[first.slot].state.wins == (2, 0)
    assert ties[second.slot].state.wins == (1, 1)

    phone.goto(f"/tournaments/{t.pk}/bracket/")
    main = phone.locator("main")
    expect(phone.locator("#series-mode")).to_contain_text("每轮对阵：三局二胜")
    done = phone.locator(f'.tie[data-round="1"][data-slot="{first.slot}"]')
    open_tie = phone.locator(f'.tie[data-round="1"][data-slot="{second.slot}"]')
    expect(done.locator(".state")).to_contain_text("晋级")
    expect(done.locator(".unit.winner .total")).to_have_text("胜 2 局")
    expect(done.locator(".games li")).to_have_count(2)
    expect(done.locator(".games li").first).to_contain_text("第 1 局")
    expect(done.locator(".games li").first).to_contain_text("A : 9")
    expect(open_tie.locator(".state")).to_contain_text("对局中")
    expect(open_tie.locator(".games li")).to_have_count(3)
    expect(open_tie.locator(".unit .total").first).to_have_text("胜 1 局")
    for tie in (done, open_tie):
        box = fits(phone, tie)
        assert box["width"] >= 300
        for unit in tie.locator(".unit").all():
            assert fits(phone, unit)["height"] >= 44
    size = phone.evaluate(
        "parseFloat(getComputedStyle(document.querySelector('.series-bracket .unit')).fontSize)"
    )
    assert size >= 16
    # the first tie whole and the second begun on the first screen; nothing wider than it
    assert done.bounding_box()["y"] + done.bounding_box()["height"] <= 844
    assert open_tie.bounding_box()["y"] + 100 <= 844
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    assert "第 1 轮" in main.inner_text()
    phone.screenshot(path=str(SHOTS / "issue45-series-bracket-phone.png"), full_page=True)

    # the third game decides it; the final pairs the two ties' winners
    result_services.set_result(owner, third, 4, 4, winner=0)
    schedule_services.tick()  # the round is done: the next is paired at once
    schedule_services.tick()
    (final,) = Round.objects.get(tournament=t, number=2).games.all()
    winners = {tie.winner_entry for tie in selectors.ties_of(t) if tie.round == 1}
    assert set(final.side0 + final.side1) == winners
    phone.goto(f"/tournaments/{t.pk}/bracket/")
    expect(phone.locator('.tie[data-round="2"]')).to_have_count(1)
    expect(open_tie.locator(".state")).to_contain_text("晋级")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
