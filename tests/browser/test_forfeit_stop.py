"""An organiser rules a forfeit with the levels at the stop on a phone (390×844, zh-CN, issue
45, 第十六条四): on the run page, under the game's result form, 判负（填写中止时的级数） opens a
form of the side that forfeits and each side's level at the stop by name; submitted empty it
names all three fields at once (each side by its names, as the form) and changes nothing; side 2 forfeiting with side 1 at 8 and side
2 at 2 stores 19:7 级分 (over 18: as it stood). Every control within the width and tall
enough to tap (44 px). Screenshots in var/screenshots/."""

from django.utils import timezone
from playwright.sync_api import expect

from tests.browser.test_tournament_brackets import SHOTS, log_in, offline_pair_event
from tournaments.models import GameSource, GameStatus, Round, Tournament
from tournaments.services import rounds as round_services


def tappable(locator):
    """Within the 390 px width and at least 44 px tall."""
    box = locator.bounding_box()
    assert box is not None
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    assert box["height"] >= 44, box
    return box


def test_an_organiser_rules_a_forfeit_with_the_levels_at_the_stop(new_page, live_server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    owner, _club, _players, t = offline_pair_event(
        ("laoli", "老李"), ("泰州掼蛋会", "taizhou"), "f", 4, "判负测试赛", "swiss"
    )
    Tournament.objects.filter(pk=t.pk).update(scoring="national")
    round_services.start_round(owner, t, timezone.now())
    game = Round.objects.get(tournament=t, number=1).games.get()

    phone = new_page(locale="zh-CN", mobile=True)
    log_in(phone, "laoli")
    phone.goto(f"/tournaments/{t.pk}/run/")
    details = phone.locator(f"#forfeit-{game.pk}")
    summary = details.locator("summary")
    expect(summary).to_have_text("判负（填写中止时的级数）")
    tappable(summary)
    summary.click()
    side = phone.locator(f"#ff-{game.pk}")
    stop0, stop1 = phone.locator(f"#fs0-{game.pk}"), phone.locator(f"#fs1-{game.pk}")
    button = details.get_by_role("button", name="记录判负")
    for control in (side, stop0, stop1, button):
        control.scroll_into_view_if_needed()
        tappable(control)
    expect(phone.locator(f"label[for=fs0-{game.pk}]")).to_contain_text("中止时")
    phone.screenshot(path=str(SHOTS / "issue45-forfeit-stop-form.png"))

    # empty: all three fields named at once, nothing stored
    button.click()
    message = phone.locator(".messages")
    sides = [" / ".join(t.entries.get(pk=pk).name for pk in side) for side in game.sides]
    for field in ("被判负方：", f"{sides[0]} 中止时的级数：", f"{sides[1]} 中止时的级数："):
        expect(message).to_contain_text(field)
    game.refresh_from_db()
    assert game.status != GameStatus.FINISHED
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.screenshot(path=str(SHOTS / "issue45-forfeit-stop-refused.png"))

    # side 2 forfeits, side 1 at 8 and side 2 at 2 when the game stopped
    phone.locator(f"#forfeit-{game.pk} summary").click()
    phone.locator(f"#ff-{game.pk}").select_option(value="1")
    phone.locator(f"#fs0-{game.pk}").select_option(label="8")
    phone.locator(f"#fs1-{game.pk}").select_option(label="2")
    phone.locator(f"#forfeit-{game.pk}").get_by_role("button", name="记录判负").click()
    expect(phone.locator(".messages")).to_contain_text("已完成")
    game.refresh_from_db()
    assert (game.status, game.source, game.winner) == (GameStatus.FINISHED, GameSource.FORFEIT, 0)
    assert (game.grade0, game.grade1) == (19, 7)
    expect(phone.locator("main")).to_contain_text("中止时级数 8 : 2")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.screenshot(path=str(SHOTS / "issue45-forfeit-stop-done.png"))
