"""A finished single elimination's final placings on a phone (390×844, zh-CN, issue 45): the
standings page opens with 最终名次, one line per entry with its band (1, 2, 3–4, 5–8), each
entry's name a tap target of 44 px, nothing wider than the viewport; the table below ranks by
the same bands. Screenshot in var/screenshots/."""

from datetime import timedelta
from pathlib import Path

from playwright.sync_api import expect

from tournaments.models import GameStatus, Round, TournamentStatus
from tournaments.services import results as result_services
from tournaments.services import schedule as schedule_services

from .test_tournament_brackets import fits, log_in, offline_pair_event

SHOTS = Path("var/screenshots")


def test_a_knockouts_final_placings_on_a_phone(new_page, live_server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    owner, _club, _players, t = offline_pair_event(
        ("laozhao", "老赵"), ("盐城掼蛋会", "yancheng"), "q", 16, "单败淘汰赛", "elimination"
    )
    now = t.starts_at
    schedule_services.tick(now)
    for number in (1, 2, 3):
        rnd = Round.objects.get(tournament=t, number=number)
        for game in rnd.games.exclude(status=GameStatus.BYE):
            result_services.set_result(owner, game, 12, 5, winner=0, now=now)
        now += timedelta(minutes=1)
        schedule_services.tick(now)
    t.refresh_from_db()
    assert t.status == TournamentStatus.FINISHED

    phone = new_page(locale="zh-CN", mobile=True)
    log_in(phone, "laozhao")
    phone.goto(f"/tournaments/{t.pk}/standings/")
    section = phone.locator("#placings")
    expect(section.locator("h2")).to_have_text("最终名次")
    lines = section.locator("li")
    expect(lines).to_have_count(8)
    places = section.locator(".place").all_inner_texts()
    assert places == ["1", "2", "3–4", "3–4", "5–8", "5–8", "5–8", "5–8"]
    # the first lines are on screen without scrolling, each name a tap target
    first = fits(phone, lines.nth(0))
    assert first["y"] + first["height"] <= 844
    for i in range(8):
        link = lines.nth(i).locator("a")
        box = fits(phone, link)
        assert box["height"] >= 44, box
    size = phone.evaluate(
        "parseFloat(getComputedStyle(document.querySelector('#placings li')).fontSize)"
    )
    assert size >= 16
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    # the table ranks by the same bands
    table_places = phone.locator("table.standings tbody td[data-label='#']").all_inner_texts()
    assert [p.strip() for p in table_places] == places
    phone.screenshot(path=str(SHOTS / "issue45-knockout-placings-phone.png"), full_page=True)
