"""A duplicate event's round page (复式赛, issue 45) on a phone at 390×844, in both languages:
while a table plays it says the comparison comes later; once every table has finished, each
deal's comparison — the table, the entries in each direction, their result in levels and the
duplicate points they scored — fits the screen's width, and the standings rank by it.
Screenshots in var/screenshots/."""

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import time_machine
from django.utils import timezone
from playwright.sync_api import expect

from clubs.models import Club, Membership, Role, User
from engine.match import Match as EngineMatch
from matches.models import Match
from matches.services import clock, presence
from tournaments.services import entries as entry_services
from tournaments.services import rounds as round_services
from tournaments.services import schedule as schedule_services
from tournaments.services import setup as setup_services

SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
START = datetime(2030, 6, 1, 9, 0, tzinfo=UTC)
PASSWORD = "Long-Pass-phrase-77"


def drive(match_id, until):
    """Act for the seat to move (every seat on auto-play) until ``until(engine)`` or the end."""
    for _ in range(5000):
        match = Match.objects.get(pk=match_id)
        if match.status == "finished" or until(EngineMatch.from_json(match.snapshot)):
            return match
        clock.act_on_deadline(match_id, match.version, force=True)
    raise AssertionError("the match did not get there")


@pytest.fixture
def event(live_server, no_deadline_tasks, settings):
    """A Guandan duplicate event of four pairs (two tables) whose round 1 has started."""
    settings.MATCHES_BOT_DELAY_SECONDS = 0
    owner = User.objects.create_user("laozhang", password=PASSWORD, display_name="老张")
    club = Club.objects.create(name="复式掼蛋会", slug="fushi")
    Membership.objects.create(club=club, user=owner, role=Role.OWNER)
    names = ["东方红", "西湖龙井", "南京长江大桥", "北斗七星", "黄山", "泰山", "长城", "黄河"]
    people = []
    for i in range(8):
        user = User.objects.create_user(f"d{i}", password=PASSWORD, display_name=names[i])
        Membership.objects.create(club=club, user=user, role=Role.MEMBER)
        people.append(user)
    event = setup_services.create_tournament(
        owner,
        club,
        name="复式掼蛋赛",
        variant="guandan",
        format="swiss",
        unit_kind="pair",
        rounds_planned=1,
        starts_at=START,
        registration_closes=START - timedelta(minutes=5),
        online=True,
        time_limit_minutes=1,
        duplicate=True,
    )
    setup_services.publish(owner, event, now=START - timedelta(days=1))
    before = START - timedelta(hours=1)
    for k in range(4):
        a, b = people[2 * k], people[2 * k + 1]
        entry_services.register(a, event, partner=b, now=before)
        entry_services.answer_invitation(b, event, accept=True, now=before)
        entry_services.check_in(b, event, now=START - timedelta(minutes=10))
    # opening tables broadcasts through async_to_sync: not in the thread of Playwright's loop
    with ThreadPoolExecutor(1) as pool:
        rnd = pool.submit(round_services.start_round, owner, event, now=START).result()
    return event, rnd


def finish(rnd):
    """Every table plays one action of its first deal, then the match time runs out: each
    ends after that deal (auto-play)."""
    matches = [Match.objects.get(table_id=g.table_id) for g in rnd.games.all()]
    for match in matches:
        for seat in range(4):
            presence.set_autoplay(match.pk, seat, "disconnect")
        drive(match.pk, lambda e: len(e.deal.log) >= 1)
    with time_machine.travel(timezone.now() + timedelta(minutes=1, seconds=1), tick=False):
        for match in matches:
            assert clock.apply_time_limit(match.pk)
    for match in matches:
        drive(match.pk, lambda e: False)
    schedule_services.tick(START + timedelta(minutes=2))


def fits(page):
    """Nothing is wider than the phone's screen, and no cell of the comparison overflows its
    box (those that do are named)."""
    overflowing = page.evaluate(
        """() => [...document.querySelectorAll('#duplicate *')]
        .filter(e => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
        .map(e => e.tagName + ' ' + e.textContent.replace(/\\s+/g, ' ').slice(0, 30))"""
    )
    assert overflowing == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    for right in page.locator("#duplicate table, #duplicate h3").evaluate_all(
        "els => els.map(e => e.getBoundingClientRect().right)"
    ):
        assert right <= 390


def test_a_duplicate_rounds_deals_compared_on_a_phone(new_page, event):
    SHOTS.mkdir(parents=True, exist_ok=True)
    tournament, rnd = event
    url = f"/tournaments/{tournament.pk}/rounds/1/"
    page = new_page(locale="zh-CN", mobile=True)
    page.goto(url)
    expect(page.locator("#duplicate-sealed")).to_contain_text("所有牌桌结束后")
    expect(page.locator("#deal-1")).to_have_count(0)

    with ThreadPoolExecutor(1) as pool:  # the tables' moves broadcast, as above
        pool.submit(finish, rnd).result()
    page.goto(url)
    deal = page.locator("#deal-1")
    expect(deal.locator("h3")).to_contain_text("第 1 副")
    expect(deal.locator("h3")).to_contain_text("2 桌")
    expect(deal.locator("thead")).to_contain_text("复式分")
    expect(deal.locator("tbody.direction-0 th")).to_have_text("第一方")
    expect(deal.locator("tbody.direction-1 th")).to_have_text("第二方")
    rows = deal.locator("tbody tr:not(:first-child)")
    expect(rows).to_have_count(4)  # two tables, two directions
    texts = rows.all_inner_texts()
    for entry in tournament.entries.all():
        assert sum(entry.name in t for t in texts) == 1, entry.name
    # in each direction the two tables share the top (2): 2 + 0 or 1 + 1
    for direction in (0, 1):
        cells = deal.locator(f"tbody.direction-{direction} tr td:last-child").all_inner_texts()
        assert sorted(int(c) for c in cells) in ([0, 2], [1, 1])
    deal.scroll_into_view_if_needed()
    fits(page)
    for link in deal.locator("a").all():
        box = link.bounding_box()
        assert box["height"] >= 44 and box["x"] + box["width"] <= 390
    size = deal.locator("td").first.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert size >= 15
    page.screenshot(path=str(SHOTS / "duplicate-round-zh.png"), full_page=True)

    # the standings rank by the comparison, its column first
    page.goto(f"/tournaments/{tournament.pk}/standings/")
    expect(page.locator("#duplicate-note")).to_contain_text("复式得分率")
    first = page.locator("table.standings tbody tr").first
    expect(first.locator("td[data-label='复式得分率（%）']")).to_have_count(1)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390

    english = new_page(locale="en", mobile=True)
    english.goto(url)
    deal = english.locator("#deal-1")
    expect(deal.locator("h3")).to_contain_text("Deal 1")
    expect(deal.locator("h3")).to_contain_text("2 tables")
    expect(deal.locator("thead")).to_contain_text("Duplicate points")
    expect(english.locator("#duplicate")).to_contain_text("Every table played the same deals")
    deal.scroll_into_view_if_needed()
    fits(english)
    english.screenshot(path=str(SHOTS / "duplicate-round-en.png"), full_page=True)


def test_the_duplicate_box_of_the_tournament_form(new_page, live_server):
    owner = User.objects.create_user("laoli", password=PASSWORD, display_name="老李")
    club = Club.objects.create(name="复式保二会", slug="fushi-bao2")
    Membership.objects.create(club=club, user=owner, role=Role.OWNER)
    page = new_page(locale="zh-CN", mobile=True)
    page.goto("/accounts/login/")
    page.fill("#id_username", "laoli")
    page.fill("#id_password", PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.goto(f"/tournaments/clubs/{club.slug}/new/")
    page.fill("#id_name", "复式红二")
    page.select_option("#id_variant", "honger")
    page.select_option("#id_unit_kind", "individual")
    page.locator("summary", has_text="对局").click()
    box = page.locator("#id_duplicate")
    box.check()
    label = page.locator("label[for=id_duplicate]")
    assert label.bounding_box()["height"] >= 44
    starts = timezone.localtime() + timedelta(days=1)
    page.fill("#id_starts_at", starts.strftime("%Y-%m-%dT%H:%M"))
    page.get_by_role("button", name="保存").click()
    # refused beside the box, in the organiser's language, and nothing is created
    expect(page.locator("main")).to_contain_text("复式赛只能在保2或掼蛋中进行")
    assert not club.tournaments.exists()
    page.select_option("#id_variant", "guandan")
    page.select_option("#id_unit_kind", "pair")
    if not page.locator("#id_duplicate").is_visible():
        page.locator("summary", has_text="对局").click()
    expect(page.locator("#id_duplicate")).to_be_checked()
    page.get_by_role("button", name="保存").click()
    expect(page.locator(".messages")).to_contain_text("比赛已创建为草稿")
    assert club.tournaments.get().duplicate
