"""A league appeal on a phone (issue 45, item 4; 390×844, zh-CN): a player seated at a
finished fixture's table finds 申诉 on the fixture's page, files a written appeal, and the
third member of the season's appeals committee casts the deciding vote; the fixture's page
then shows the corrected result and the decided appeal.
Screenshots: var/screenshots/issue45-league-appeal-*.png."""

from playwright.sync_api import expect

from clubs.models import Club, Membership, Role, User
from officials import services
from officials.models import Appeal, AppealStatus
from tests.browser.test_leagues import PASSWORD, fits_the_phone, log_in
from tests.browser.test_officials import SHOTS, narrow, on_screen, people
from tests.leagues.leaguekit import finished_fixture


def test_a_league_appeal_filed_and_decided_on_a_phone(new_page, live_server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    club = Club.objects.create(name="南通保二俱乐部", slug="nantong")
    owner = User.objects.create_user("host", password=PASSWORD, display_name="老王")
    Membership.objects.create(club=club, user=owner, role=Role.OWNER)
    seated = people(club, "p", 4)
    committee = people(club, "c", 3)
    season, fixture, table = finished_fixture(club, seated)
    for member in committee:
        services.appoint(owner, season, member, "committee")

    # a player of the away pair finds 申诉 on the fixture's page, on screen
    filer = seated[1]
    page = new_page(locale="zh-CN", mobile=True)
    log_in(page, filer.username)
    page.goto(f"/leagues/fixtures/{fixture.pk}/")
    link = page.locator("[data-appeal-table='1']")
    expect(link).to_contain_text("申诉")
    on_screen(page, link)
    fits_the_phone(page)
    page.screenshot(path=str(SHOTS / "issue45-league-appeal-fixture.png"))
    link.click()
    expect(page.locator("#appeal-target")).to_have_value(str(table.pk))
    page.locator("#appeal-text").fill("最后一副的升级记错了，我们应当是 A 过。")
    submit = page.locator("form[data-appeal-form] button")
    on_screen(page, submit)
    narrow(page)
    page.screenshot(path=str(SHOTS / "issue45-league-appeal-form.png"))
    with page.expect_navigation(timeout=60000):
        submit.click()
    expect(page.locator("[data-status]")).to_have_text("等待仲裁委员会裁决")
    expect(page.locator("[data-fixture-link]")).to_contain_text("东方红 – 长江")
    appeal = Appeal.objects.get(filed_by=filer)
    assert appeal.table_id == table.pk and appeal.game_id is None
    assert (appeal.before0, appeal.before1) == (12, 5)

    # the committee decides: two votes by the services, the third on a phone
    services.cast_vote(committee[0], appeal, "uphold", "记分表显示 5:12", score0=5, score1=12)
    services.cast_vote(committee[1], appeal, "dismiss", "证据不足")
    page = new_page(locale="zh-CN", mobile=True)
    log_in(page, committee[2].username)
    page.goto(f"/officials/seasons/{season.pk}/")
    listed = page.locator(f"[data-appeals] a[href='/officials/appeals/{appeal.pk}/']")
    expect(listed).to_contain_text("第 1 桌")  # the committee's page lists the league appeal
    listed.click()
    page.screenshot(path=str(SHOTS / "issue45-league-appeal-vote.png"))
    vote = page.locator("form[data-vote-form] button")
    on_screen(page, vote)
    page.select_option("#vote-verdict", value="uphold")
    page.select_option("#vote-score0", index=5)
    page.select_option("#vote-score1", index=12)
    page.locator("#vote-reason").fill("核对了记分表")
    narrow(page)
    with page.expect_navigation(timeout=60000):
        vote.click()
    expect(page.locator("[data-status]")).to_have_text("申诉成立")
    expect(page.locator("[data-after]")).to_be_visible()
    page.screenshot(path=str(SHOTS / "issue45-league-appeal-decided.png"), full_page=True)
    assert Appeal.objects.get(pk=appeal.pk).status == AppealStatus.UPHELD
    table.refresh_from_db()
    assert (table.home_score, table.away_score, table.winner) == (5, 12, 1)

    # the filer's fixture page: the corrected result and the decided appeal
    page = new_page(locale="zh-CN", mobile=True)
    log_in(page, filer.username)
    page.goto(f"/leagues/fixtures/{fixture.pk}/")
    expect(page.locator("[data-fixture-appeals]")).to_contain_text("申诉成立")
    expect(page.locator("main")).to_contain_text("5 : 12")
    fits_the_phone(page)
    page.screenshot(path=str(SHOTS / "issue45-league-appeal-after.png"))
