"""A club admin referees a live Bao 2 table on a phone (390×844; Playwright + the system's
Chromium) against the real stack (uvicorn, a Celery worker, Redis): the console opens over the
spectator view, fits the screen, and a yellow card lowers the team's level for every seat; a
seated player's page announces the card, whom it hits, why and the level it cost, until play
resumes."""

import os
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))


from matches.selectors import level_names  # noqa: E402

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
PHONE = {"width": 390, "height": 844}

# Play the first deal to its end as the four people would (the heuristic's choices), so a
# team stands above level 0; then give the owner of the club a session.
FIRST_DEAL = """
from clubs.models import User
from engine.match import Match as EngineMatch
from bench.tables import session_cookie
from matches.models import Match
from matches.services import clock, play
match = Match.objects.get(pk={match})
for _ in range(2000):
    match.refresh_from_db()
    engine = EngineMatch.from_json(match.snapshot)
    if engine.deals:
        break
    seat = match.to_move
    action = clock.bot_action(engine, seat, "heuristic", match.version)
    user = User.objects.get(pk=match.seats[seat]["user"])
    play.submit_action(match.pk, action.to_json(), seat=seat, user=user)
owner = User.objects.get(username="e2e-owner")
out = {{"levels": engine.levels, "session": session_cookie(owner).split("=", 1)[1]}}
"""

# The next play of the match (what the heuristic would do, seat by seat, through the same
# service as people): tribute and return first if the new deal has them.
NEXT_PLAY = """
from clubs.models import User
from matches import store
from matches.models import Match
from matches.services import clock, play
match = Match.objects.get(pk={match})
for _ in range(20):
    match.refresh_from_db()
    engine = store.engine_of(match)
    seat = engine.actors()[0]
    action = clock.bot_action(engine, seat, "heuristic", match.version)
    user = User.objects.get(pk=match.seats[seat]["user"])
    play.submit_action(match.pk, action.to_json(), seat=seat, user=user)
    if action.kind in ("play", "immune"):
        break
out = {{"kind": action.kind}}
"""

OBSERVATIONS = """
from matches import store
from matches.models import Match
match = Match.objects.get(pk={match})
engine = store.engine_of(match)
event = match.events.order_by("-seq").first()
out = {{
    "levels": [engine.observation(s)["levels"] for s in range(4)] + [
        engine.observation(None)["levels"]
    ],
    "yellow": [engine.observation(s)["cards"]["yellow"] for s in range(4)],
    "event": [event.actor, event.action],
}}
"""


@pytest.fixture(scope="module")
def stack(browser, shared_stack):
    # the run's one stack (tests/conftest.py): this module only adds tables and people to it
    return shared_stack


def phone(browser, stack, session):
    context = browser.new_context(
        locale="zh-CN",
        base_url=stack.http,
        viewport=PHONE,
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    context.set_default_timeout(20000)
    context.add_cookies([{"name": "sessionid", "value": session, "url": stack.http}])
    return context


def inside(box):
    return (
        box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= PHONE["width"]
        and box["y"] + box["height"] <= PHONE["height"]
    )


def test_the_referee_gives_a_yellow_card_and_the_level_drops(browser, stack):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    [table] = stack.setup_tables(1, no_clocks=True)
    done = stack.query(FIRST_DEAL.format(match=table["match"]))
    levels = done["levels"]
    team = 0 if levels[0] > 0 else 1
    assert levels[team] > 0
    referee = phone(browser, stack, done["session"])
    player = phone(browser, stack, table["cookies"][1].split("=", 1)[1])
    try:
        seat_page = player.new_page()
        seat_page.goto(f"/matches/tables/{table['table']}/")
        expect(seat_page.locator("#table-app")).to_have_attribute("data-you", "1")
        page = referee.new_page()
        page.goto(f"/matches/tables/{table['table']}/")
        toggle = page.get_by_role("button", name="裁判")
        assert inside(toggle.bounding_box())
        toggle.tap()
        panel = page.locator("#referee-panel")
        expect(panel).to_be_visible()
        page.select_option("#referee-sanction", "yellow")
        page.select_option("#referee-target", str(team))
        page.fill("#referee-reason", "拖延时间")
        for element in ("#referee-sanction", "#referee-target", "#referee-reason"):
            assert inside(page.locator(element).bounding_box()), element
        apply = page.get_by_role("button", name="执行处罚")
        assert inside(apply.bounding_box()) and apply.bounding_box()["height"] >= 44
        apply.tap()
        expect(page.locator(".referee-message")).to_contain_text("已执行处罚")
        page.screenshot(path=str(SCREENSHOTS.joinpath("referee-yellow-phone.png")))
        seen = stack.query(OBSERVATIONS.format(match=table["match"]))
        dropped = levels[:]
        dropped[team] -= 1
        assert seen["levels"] == [dropped] * 5
        assert all(cards[team] == 1 for cards in seen["yellow"])
        actor, action = seen["event"]
        assert actor == "referee" and action["sanction"] == "yellow"
        assert action["reason"] == "拖延时间" and action["target"] == team
        # every seat and spectator is told: the card, whom it hits (named from the seat), the
        # reason and the level it cost that team
        names = [name for name, _round in level_names("bao2")]
        banner = seat_page.locator(".sanction")
        expect(banner).to_contain_text("裁判")
        expect(banner).to_contain_text("黄牌")
        expect(banner).to_contain_text("你" if team == 1 else "上家")
        expect(banner).to_contain_text("原因：拖延时间")
        us = "我方" if team == 1 else "对方"
        expect(banner.locator(".drop")).to_have_text(
            f"{us}级数：{names[levels[team]]} → {names[dropped[team]]}"
        )
        assert inside(banner.bounding_box())
        expect(page.locator(".sanction")).to_contain_text("黄牌")
        seat_page.screenshot(path=str(SCREENSHOTS.joinpath("referee-yellow-seat-phone.png")))
        # a player of the table has no console, and a refused sanction is explained
        assert seat_page.locator("#referee").count() == 0
        page.fill("#referee-reason", "   ")
        page.evaluate("document.querySelector('#referee-reason').removeAttribute('required')")
        apply.tap()
        expect(page.locator(".referee-message.error")).to_contain_text("原因")
        # the announcement stays until play resumes
        expect(banner).to_be_visible()
        stack.query(NEXT_PLAY.format(match=table["match"]))
        expect(banner).to_have_count(0)
        expect(page.locator(".sanction")).to_have_count(0)
    finally:
        referee.close()
        player.close()
        # the match ends with the deal in progress: the seats left on auto-play would
        # otherwise be played on by the shared stack's worker to the end of the match
        stack.query(f"from bench.tables import wind_up\nout = wind_up([{table['table']}])")
