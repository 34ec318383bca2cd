"""On phones (390×844): a captain proposes a fixture's time, the other captain accepts it,
both submit their line-ups, the captain adds a player to the roster; the pages never scroll
sideways and every button and link of the page is at least 44 px tall."""

from datetime import timedelta

from django.utils import timezone
from playwright.sync_api import expect

from clubs.models import Club, Membership, Role, User
from leagues.models import FixtureStatus, LineUp
from leagues.services import entries, setup

PASSWORD = "Long-Pass-phrase-77"


def log_in(page, username):
    page.goto("/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.locator("main form button[type=submit]").click()


def fits_the_phone(page):
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    small = page.evaluate(
        """[...document.querySelectorAll('main button, main a, main select, main input:not([type=hidden])')]
        .filter(e => e.offsetParent !== null && e.getBoundingClientRect().height < 44)
        .map(e => e.outerHTML.slice(0, 80))"""
    )
    assert small == []


def make_team(club, admin, season, prefix, n=4):
    players = [
        User.objects.create_user(f"{prefix}{i}", password=PASSWORD, display_name=f"{prefix}选手{i}")
        for i in range(n)
    ]
    Membership.objects.bulk_create(Membership(club=club, user=u) for u in players)
    entry = entries.enter_team(
        admin, season, club, name=f"{prefix}队", captain=players[0], players=players
    )
    return entry, players


def test_captains_agree_a_time_and_submit_line_ups_on_phones(new_page, live_server):
    host = Club.objects.create(name="南通保二俱乐部", slug="nantong")
    guest = Club.objects.create(name="如皋俱乐部", slug="rugao")
    host_admin = User.objects.create_user("host", password=PASSWORD)
    guest_admin = User.objects.create_user("guest", password=PASSWORD)
    Membership.objects.create(club=host, user=host_admin, role=Role.OWNER)
    Membership.objects.create(club=guest, user=guest_admin, role=Role.OWNER)
    league = setup.create_league(host_admin, host, name="江苏团体联赛", inter_club=True)
    setup.invite_club(host_admin, league, guest)
    season = setup.create_season(
        host_admin, league, name="春季", variant="bao2", starts_on=timezone.localdate()
    )
    home, home_players = make_team(host, host_admin, season, "nt")
    away, away_players = make_team(guest, guest_admin, season, "rg")
    setup.start_season(host_admin, season)
    fixture = season.rounds.get(number=1).fixtures.get()
    url = f"/leagues/fixtures/{fixture.pk}/"

    # The home captain proposes tomorrow evening.
    first = new_page(locale="zh-CN", mobile=True)
    log_in(first, "nt0")
    first.goto("/leagues/")
    expect(first.locator(".next")).to_contain_text("nt队")
    fits_the_phone(first)
    first.goto(url)
    fits_the_phone(first)
    when = timezone.localtime() + timedelta(days=1)
    when = when.replace(hour=19, minute=30)
    first.fill("#id_time-when", when.strftime("%Y-%m-%dT%H:%M"))
    first.locator("[data-propose]").click()
    expect(first.locator(".messages")).to_contain_text("已提议时间")
    expect(first.locator("[data-status]")).to_contain_text("已提议时间")

    # The away captain accepts it.
    second = new_page(locale="zh-CN", mobile=True)
    log_in(second, "rg0")
    second.goto(url)
    fits_the_phone(second)
    second.locator("[data-accept]").click()
    expect(second.locator("[data-status]")).to_contain_text("时间已约定")
    fixture.refresh_from_db()
    assert fixture.status == FixtureStatus.AGREED
    assert timezone.localtime(fixture.agreed_at).strftime("%H:%M") == "19:30"

    # Both submit line-ups; neither sees the other's before both are in.
    for page, players in ((first, home_players), (second, away_players)):
        page.goto(url)
        for table in (1, 2):
            for seat in (1, 2):
                player = players[(table - 1) * 2 + seat - 1]
                page.select_option(f"#id_lineup-t{table}p{seat}", str(player.pk))
        page.locator("[data-lineup]").click()
        expect(page.locator(".messages")).to_contain_text("出场名单已提交")
        if page is first:
            expect(page.locator(f"[data-lineup-of='{away.pk}']")).to_have_count(0)
            expect(page.locator(f"[data-lineup-of='{home.pk}']")).to_contain_text("nt选手3")
    expect(second.locator(f"[data-lineup-of='{home.pk}']")).to_contain_text("nt选手3")
    first.reload()
    expect(first.locator(f"[data-lineup-of='{away.pk}']")).to_contain_text("rg选手1")
    fits_the_phone(first)
    assert LineUp.objects.filter(fixture=fixture).count() == 2
    for path in (
        f"/leagues/{league.pk}/",
        f"/leagues/seasons/{season.pk}/",
        f"/leagues/seasons/{season.pk}/rounds/1/",
        f"/leagues/entries/{home.pk}/",
        "/leagues/mine/",
    ):
        first.goto(path)
        expect(first.locator("h1")).to_be_visible()
        fits_the_phone(first)

    # The home captain adds a fifth member of the club to the roster, on the phone.
    extra = User.objects.create_user("nt4", password=PASSWORD, display_name="nt选手4")
    Membership.objects.create(club=host, user=extra)
    first.goto(f"/leagues/entries/{home.pk}/")
    first.locator("[data-edit-roster]").click()
    expect(first.locator("h1")).to_contain_text("编辑队员名单")
    fits_the_phone(first)
    first.locator(f"[data-roster] input[value='{extra.pk}']").check()
    first.locator("[data-roster] button[type=submit]").click()
    expect(first.locator(".messages")).to_contain_text("队员名单已保存")
    assert home.team.members.filter(user=extra).exists()
