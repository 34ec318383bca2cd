"""Issue 45 on a phone (390×844, zh-CN): an organiser finds the league from the header and
the club page, removes a division added by mistake after moving its team, starts the season;
a season form with three errors shows them all at once, beside their fields."""

from pathlib import Path

from django.conf import settings
from playwright.sync_api import expect

from clubs.models import Club, Membership, Role, User
from leagues.models import Season, SeasonStatus
from leagues.services import entries, setup
from tests.browser.test_leagues import PASSWORD, fits_the_phone, log_in

SHOTS = Path(settings.BASE_DIR) / "var" / "screenshots"


def team(club, admin, season, prefix, division=None):
    players = [
        User.objects.create_user(f"{prefix}{i}", password=PASSWORD, display_name=f"{prefix}选手{i}")
        for i in range(4)
    ]
    Membership.objects.bulk_create(Membership(club=club, user=u) for u in players)
    return entries.enter_team(
        admin,
        season,
        club,
        name=f"{prefix}队",
        captain=players[0],
        players=players,
        division=division,
    )


def test_an_organiser_finds_the_league_and_unsticks_the_season(new_page, live_server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    club = Club.objects.create(name="南通保二俱乐部", slug="nantong")
    owner = User.objects.create_user("host", password=PASSWORD, display_name="老王")
    Membership.objects.create(club=club, user=owner, role=Role.OWNER)
    league = setup.create_league(owner, club, name="南通联赛")
    season = setup.create_season(
        owner, league, name="2030 春季", variant="bao2", starts_on="2030-03-04"
    )
    first = season.divisions.get()
    setup.add_division(owner, season, "乙级")  # by mistake
    team(club, owner, season, "a", division=first)
    team(club, owner, season, "b")  # lands in 乙级, the lowest

    page = new_page(locale="zh-CN", mobile=True)
    log_in(page, "host")
    page.goto(f"/clubs/{club.slug}/")
    expect(page.locator("header nav a", has_text="联赛")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.locator("#club-leagues").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "issue45-club-leagues.png"))
    page.locator(".club-section a", has_text="南通联赛").click()
    page.locator("a", has_text="2030 春季").click()
    page.locator("form[action$='/do/start/'] button").click()
    expect(page.locator(".messages")).to_contain_text("乙级")
    fits_the_phone(page)
    # move b's team up, then remove the empty division (it asks first)
    page.locator("form.move-entry button").first.click()
    expect(page.locator(".messages")).to_contain_text("已移到")
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("button", has_text="删除这个组别").click()
    expect(page.locator(".messages")).to_contain_text("已删除")
    page.screenshot(path=str(SHOTS / "issue45-season-divisions.png"), full_page=True)
    page.locator("form[action$='/do/start/'] button").click()
    expect(page.locator(".messages")).to_contain_text("赛季已经开始")
    assert Season.objects.get(pk=season.pk).status == SeasonStatus.RUNNING


def test_three_errors_at_once_on_the_season_form(new_page, live_server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    club = Club.objects.create(name="南通保二俱乐部", slug="nantong")
    owner = User.objects.create_user("host", password=PASSWORD, display_name="老王")
    Membership.objects.create(club=club, user=owner, role=Role.OWNER)
    league = setup.create_league(owner, club, name="南通联赛")
    page = new_page(locale="zh-CN", mobile=True)
    log_in(page, "host")
    page.goto(f"/leagues/{league.pk}/seasons/new/")
    page.fill("#id_name", "2020 春季")
    page.fill("#id_points_win", "1")
    page.fill("#id_points_draw", "2")
    page.fill("#id_swiss_rounds", "99")
    page.fill("#id_starts_on", "2020-03-04")
    page.evaluate(
        "document.querySelectorAll('[required],[max],[min]').forEach(e => {e.removeAttribute('required'); e.removeAttribute('max'); e.removeAttribute('min')})"
    )
    page.locator("main form button[type=submit]").click()
    # each of the three fields has its own message beside it
    for field in ("points_draw", "swiss_rounds", "starts_on"):
        expect(
            page.locator(f"#id_{field}").locator("xpath=..").locator(".errorlist")
        ).to_have_count(1)
    text = page.locator("main").inner_text()
    assert "积分须从胜到负递减" in text and "2020-03-04 已经过去" in text
    assert "season_points_ordered" not in text and "约束" not in text
    page.screenshot(path=str(SHOTS / "issue45-three-errors.png"), full_page=True)
