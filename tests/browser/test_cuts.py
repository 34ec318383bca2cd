"""Low-position elimination on a phone (390×844, zh-CN, issue 45, 第二十九条): the organiser
writes the cut plan as "round:kept" in the tournament form (a mistyped part, then a round with
no round after it, are refused beside the field in words), the run page says the plan in
words, and after the cut the standings list the entries out below those still playing, each
marked "第 2 轮后淘汰". Screenshots in var/screenshots/."""

from datetime import timedelta
from pathlib import Path

from django.utils import timezone
from playwright.sync_api import expect

from clubs.models import Club, Membership, Role, User
from tournaments.models import Entry, GameStatus, Round, Tournament
from tournaments.services import entries as entry_services
from tournaments.services import results as result_services
from tournaments.services import schedule as schedule_services
from tournaments.services import setup as setup_services

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


def play_round(owner, t, number):
    rnd = Round.objects.get(tournament=t, number=number)
    for game in rnd.games.exclude(status=GameStatus.BYE).order_by("number"):
        result_services.set_result(owner, game, 10, 4 + game.number % 3)


def test_the_cut_plan_in_the_form_and_the_entries_out_in_the_standings(new_page, live_server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    owner = User.objects.create_user("laowang", password=PASSWORD, display_name="老王")
    club = Club.objects.create(name="盐城掼蛋会", slug="yancheng")
    Membership.objects.create(club=club, user=owner, role=Role.OWNER)
    players = [
        User.objects.create_user(f"p{i}", password=PASSWORD, display_name=f"选手{i}")
        for i in range(16)
    ]
    Membership.objects.bulk_create(Membership(club=club, user=u, role=Role.MEMBER) for u in players)

    phone = new_page(locale="zh-CN", mobile=True, scale=1)
    log_in(phone, "laowang")
    phone.goto(f"/tournaments/clubs/{club.slug}/new/")
    phone.fill("#id_name", "积分编排赛")
    phone.select_option("#id_variant", "guandan")
    phone.select_option("#id_format", "swiss")
    phone.fill("#id_rounds_planned", "3")
    starts = timezone.localtime() + timedelta(minutes=20)
    phone.fill("#id_starts_at", starts.strftime("%Y-%m-%dT%H:%M"))
    phone.locator("summary", has_text="对局").click()
    phone.locator("#id_online").uncheck()
    phone.locator("summary", has_text="轮次与排名").click()
    field = phone.locator("#id_cuts")
    expect(field).to_have_attribute("placeholder", "3:12, 5:6")
    inside(field, tap=True)
    expect(phone.locator(".field", has=field)).to_contain_text("第 3 轮后排名前 12")
    # a part that cannot be read: named, the value kept, the section open
    field.fill("x, 5:4")
    phone.get_by_role("button", name="保存").click()
    expect(phone.locator("#form-errors")).to_contain_text("“x”不是一项淘汰")
    expect(phone.locator("#id_cuts")).to_have_value("x, 5:4")
    assert not Tournament.objects.exists()
    # a cut after the last round: refused by the service, in words, beside the field
    phone.locator("#id_cuts").fill("5:4")
    phone.get_by_role("button", name="保存").click()
    error = phone.locator(".field.has-error", has=phone.locator("#id_cuts"))
    expect(error).to_contain_text("第 1 次淘汰：轮次应为 1 到 2")
    inside(error)
    phone.screenshot(path=str(SHOTS / "issue45-cuts-form-error-phone.png"), full_page=True)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    assert not Tournament.objects.exists()
    # full-width colon, as a Chinese keyboard types it
    phone.locator("#id_cuts").fill("2：4")
    phone.get_by_role("button", name="保存").click()
    expect(phone.locator(".messages")).to_contain_text("比赛已创建为草稿")
    t = Tournament.objects.get()
    assert t.cuts == [{"after_round": 2, "keep": 4}]
    expect(phone.locator("#cut-plan")).to_contain_text(
        "低位淘汰：第 2 轮后排名前 4 的参赛方继续比赛"
    )

    setup_services.publish(owner, t)
    for a, b in zip(players[0::2], players[1::2], strict=True):
        entry_services.register(a, t, partner=b)
        entry_services.answer_invitation(b, t, accept=True)
        entry_services.check_in(a, t)
    t.refresh_from_db()
    now = t.starts_at
    schedule_services.tick(now)
    for number in (1, 2):
        play_round(owner, t, number)
        now += timedelta(minutes=1)
        schedule_services.tick(now)
    out = list(Entry.objects.filter(tournament=t, eliminated_after_round=2))
    assert len(out) == 4
    third = Round.objects.get(tournament=t, number=3)
    assert sum(len(g.side0 + g.side1) for g in third.games.all()) == 4

    phone.goto(f"/tournaments/{t.pk}/standings/")
    rows = phone.locator("table.standings tbody tr")
    expect(rows).to_have_count(8)
    for i in range(8):
        badge = rows.nth(i).locator(".badge.eliminated")
        if i < 4:
            expect(badge).to_have_count(0)
        else:
            expect(badge).to_have_text("第 2 轮后淘汰")
            inside(badge)
    names_out = {e.name for e in out}
    for i in range(4, 8):
        assert rows.nth(i).locator(".names a").inner_text() in names_out
    expect(phone.locator("#cut-note")).to_contain_text("后淘汰的在前")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.screenshot(path=str(SHOTS / "issue45-cuts-standings-phone.png"), full_page=True)

    phone.goto(f"/tournaments/{t.pk}/run/")
    marked = phone.locator(".entries-table .badge.eliminated")
    expect(marked).to_have_count(4)
    expect(marked.first).to_have_text("第 2 轮后淘汰")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
