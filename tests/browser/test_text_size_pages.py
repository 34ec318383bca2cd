"""Text size 特大 on every kind of page (issue 43, point 2), on a phone (390×844, Playwright +
the system's Chromium): the size chosen on the profile reaches every page (each app's pages a
signed-in club owner reaches without further data: clubs, lobby, practice, lessons and the
four games' rules, ladders, notifications, friends' tables, leagues, tournaments, score
sheets, the account's forms; a finished table and its replay), and nothing is wider than the
screen. The live table at 特大 (on one screen, at four sizes) is checked in
test_table_moments.py. A visitor's size (a cookie) too. Screenshots under var/screenshots/."""

import os
import sys
from pathlib import Path

import pytest
from django.test import override_settings
from playwright.sync_api import expect

from clubs.models import Club, Membership, Role, User
from ladder.models import Ladder

PASSWORD = "Long-Pass-phrase-77"
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
WIDE = """() => { const vw = document.documentElement.clientWidth;
  const wide = [...document.querySelectorAll('body *')].filter((e) => {
    const r = e.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || e.matches('.skip-link, .visually-hidden')) return false;
    // inside a box that scrolls by itself (a wide table's wrapper) is fine
    for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
      const s = getComputedStyle(p); if (s.overflowX === 'auto' || s.overflowX === 'scroll' || s.overflowX === 'hidden') return false; }
    return r.left < -0.5 || r.right > vw + 0.5; }).map((e) => e.tagName + '.' + e.className);
  return {vw, scroll: document.documentElement.scrollWidth, wide: wide.slice(0, 8),
    size: document.documentElement.className,
    font: parseFloat(getComputedStyle(document.documentElement).fontSize)}; }"""


def _check(page, url, name):
    response = page.goto(url)
    assert response is not None and response.status == 200, (url, response and response.status)
    m = page.evaluate(WIDE)
    # the whole page, at a device pixel ratio of 1 (a phone's 2 would be four times the
    # pixels of pages many screens long: what is checked is in CSS px)
    page.screenshot(path=str(SHOTS / f"textsize-xlarge-{name}.png"), full_page=True)
    assert (
        m["size"] == "text-xlarge" and m["font"] >= 23
    )  # 145 %: the standard size is 18 px, (url, m)
    assert m["scroll"] <= m["vw"] and m["wide"] == [], (url, m)


def test_extra_large_text_on_every_page_fits_the_phone(new_page, live_server, no_deadline_tasks):
    SHOTS.mkdir(parents=True, exist_ok=True)
    owner = User.objects.create_user("laowang", password=PASSWORD, display_name="老王")
    club = Club.objects.create(name="南平保二会", slug="nanping")
    Membership.objects.create(club=club, user=owner, role=Role.OWNER)
    ladder = Ladder.objects.filter(club=club).first()
    phone = new_page(locale="zh-CN", mobile=True, scale=1)
    # a visitor: the size kept in a cookie
    phone.goto("/")
    phone.evaluate(
        "fetch('/text-size/', {method: 'POST', headers: {'X-CSRFToken': (document.cookie.match(/csrftoken=([^;]+)/) || [])[1] || '', 'Accept': 'application/json', 'Content-Type': 'application/x-www-form-urlencoded'}, body: 'size=xlarge'}).then((r) => r.status)"
    )
    for url, name in (
        ("/", "home"),
        ("/clubs/", "clubs"),
        (f"/clubs/{club.slug}/", "club"),
        ("/accounts/login/", "login"),
        ("/accounts/signup/", "signup"),
        ("/learn/", "learn"),
    ):
        _check(phone, url, f"visitor-{name}")
    # a person: the profile's choice, on every page
    phone.goto("/accounts/login/")
    phone.fill("#id_username", "laowang")
    phone.fill("#id_password", PASSWORD)
    phone.locator("main form button[type=submit]").click()
    phone.wait_for_url("**/")
    phone.goto("/accounts/profile/")
    phone.locator("input[name=text_size][value=xlarge]").check()
    phone.locator("form:has(input[value=profile]) button[type=submit]").click()
    expect(phone.locator(".message.success")).to_be_visible()
    assert User.objects.get(pk=owner.pk).text_size == "xlarge"
    pages = [
        ("/", "home"),
        ("/accounts/profile/", "profile"),
        (f"/clubs/{club.slug}/", "club"),
        (f"/matches/clubs/{club.slug}/tables/", "lobby"),
        ("/matches/practice/", "practice"),
        ("/learn/", "learn"),
        ("/learn/rules/bao2/", "rules"),
        ("/learn/rules/guandan/", "rules-guandan"),
        ("/learn/rules/honger/", "rules-honger"),
        ("/learn/rules/shuangkou2/", "rules-shuangkou2"),
        ("/clubs/", "clubs"),
        ("/clubs/new/", "club-new"),
        (f"/clubs/{club.slug}/edit/", "club-edit"),
        (f"/clubs/{club.slug}/manage/", "club-manage"),
        ("/notifications/", "notifications"),
        ("/ladder/", "ladders"),
        ("/friends/", "friends"),
        ("/leagues/", "leagues"),
        ("/leagues/mine/", "league-fixtures"),
        (f"/leagues/clubs/{club.slug}/new/", "league-new"),
        (f"/tournaments/clubs/{club.slug}/", "tournaments"),
        (f"/tournaments/clubs/{club.slug}/new/", "tournament-new"),
        (f"/matches/sheets/club/{club.slug}/", "sheets"),
        (f"/matches/sheets/new/{club.slug}/", "sheet-new"),
        ("/accounts/password_change/", "password-change"),
    ]
    if ladder is not None:
        pages += [
            (f"/ladder/{ladder.pk}/", "leaderboard"),
            (f"/ladder/{ladder.pk}/players/{owner.pk}/", "player"),
        ]
    for url, name in pages:
        _check(phone, url, name)


@override_settings(MATCHES_BOT_DELAY_SECONDS=0)
@pytest.mark.django_db(transaction=True)
def test_extra_large_text_on_a_finished_table_and_its_replay(new_page, monkeypatch, live_server):
    sys.path.insert(0, os.path.dirname(__file__))
    from test_replay import two_deal_match

    SHOTS.mkdir(parents=True, exist_ok=True)
    _, match = two_deal_match(monkeypatch)
    phone = new_page(locale="zh-CN", mobile=True, scale=1)
    phone.context.add_cookies([{"name": "text_size", "value": "xlarge", "url": live_server.url}])
    _check(phone, f"/matches/tables/{match.table_id}/replay/", "replay")
    _check(phone, f"/matches/tables/{match.table_id}/", "finished-table")
