"""A player's statistics on a phone (390×844, Playwright + the system's Chromium): the period
tabs and the first game's key figures on the first screen, tap targets of 44 px, nothing wider
than the screen; the period switch works. Screenshots under var/screenshots/."""

from __future__ import annotations

import sys
from pathlib import Path

from django.test import Client

from clubs.models import Club, Membership, Role, User

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "records"))
from kit import engine_match, store_match  # noqa: E402

from records import services  # noqa: E402

SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
WIDE = """() => { const vw = document.documentElement.clientWidth;
  const wide = [...document.querySelectorAll('body *')].filter((e) => {
    const r = e.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || e.matches('.skip-link, .visually-hidden')) return false;
    return r.left < -0.5 || r.right > vw + 0.5; }).map((e) => e.tagName + '.' + e.className);
  return {vw, scroll: document.documentElement.scrollWidth, wide: wide.slice(0, 8)}; }"""


def test_player_statistics_on_a_phone(new_page, live_server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    club = Club.objects.create(name="南平保二会", slug="nanping")
    names = ["老王", "小李", "阿华", "美玲"]
    users = []
    for i, name in enumerate(names):
        user = User.objects.create_user(f"rp{i}", display_name=name)
        Membership.objects.create(club=club, user=user, role=Role.OWNER if i == 0 else Role.MEMBER)
        users.append(user)
    bao2 = engine_match("bao2", 3, 2)
    for _ in range(5):
        services.record_live_match(store_match(bao2, club, users).pk)
    services.record_live_match(store_match(engine_match("guandan", 2, 2), club, users).pk)
    browser_client = Client()
    browser_client.force_login(users[0])
    page = new_page(locale="zh-CN", mobile=True)
    page.context.add_cookies(
        [
            {
                "name": "sessionid",
                "value": browser_client.cookies["sessionid"].value,
                "url": live_server.url,
            }
        ]
    )
    response = page.goto(f"/records/players/{users[0].pk}/")
    assert response is not None and response.status == 200
    page.screenshot(path=str(SHOTS / "records-player-390x844.png"))
    page.screenshot(path=str(SHOTS / "records-player-390x844-full.png"), full_page=True)
    measured = page.evaluate(WIDE)
    assert measured["scroll"] <= measured["vw"] and measured["wide"] == [], measured
    tabs = page.locator(".period-tabs a")
    assert tabs.count() == 3
    for k in range(3):
        box = tabs.nth(k).bounding_box()
        assert box is not None and box["height"] >= 44 and box["y"] + box["height"] <= 844
    first = page.locator(".game-stats").first
    assert "保2" in first.locator("h2").inner_text()
    figures = first.locator(".figures").bounding_box()
    assert figures is not None and figures["y"] + figures["height"] <= 844  # on the first screen
    text = first.inner_text()
    assert "保2成功" in text and "双上" in text and "100%" in text  # team 0 won all five
    # this season, then all time: the same matches (all played now)
    tabs.nth(1).click()
    page.wait_for_url("**period=season")
    assert page.locator(".game-stats").count() == 2
    assert page.locator(".period-tabs a[aria-current=page]").inner_text() == "本季"
    # the honours: this month's best partnership shows on the player's page
    honours = page.locator(".honours").inner_text()
    assert "最佳搭档" in honours and "阿华" in honours
