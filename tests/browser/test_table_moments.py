"""Issue 43, points 2–5, in a real browser (Playwright + the system's Chromium) against the
real stack (uvicorn, a Celery worker for the bots, Redis), at 390×844, 844×390, 768×1024 and
1366×768: the table at text size 特大 still on one screen; the ⚙ settings (alert, sound, voice,
vibration on by default, the text size) and the spoken plays; a browser without speech plays
on silently; a bot's clock without the alarm colour; what auto-play did while the player was
away, dismissed once; an unseated referee's control apart from every control of the bar, and
a seated admin with no referee control over 托管 (four sizes); after the match, its replay and
再来一局; the replay's auto-play.

Screenshots go to var/screenshots/ for a person to look at."""

import os
import re
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))

from seated_person import AWAY  # noqa: E402
from stack import Stack  # noqa: E402
from test_table_layout import (  # noqa: E402
    SLOW_CLOCKS,
    VIEWPORTS,
    check_one_screen,
    resized,
    seed_where,
    wait_to_act,
    wind_up,
)

pytestmark = pytest.mark.layout
SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"

# A person in seat 0 of a club table (bots elsewhere), their text size set; an admin of the
# club (not seated: the referee) with a session too.
SETUP = """
from django.db import transaction
from clubs.models import Club, Membership, Role
from matches.models import Seat, Table
from matches.services import tables
from bench.tables import _user, session_cookie
with transaction.atomic():
    n = Table.objects.count()
    person = _user(f"moments-{n}")
    person.language = "zh-hans"
    person.text_size = TEXT_SIZE
    person.save(update_fields=["language", "text_size"])
    admin = _user(f"moments-admin-{n}")
    club, _ = Club.objects.get_or_create(slug="moments", defaults={"name": "moments"})
    Membership.objects.get_or_create(club=club, user=person, defaults={"role": PERSON_ROLE})
    Membership.objects.get_or_create(club=club, user=admin, defaults={"role": Role.ADMIN})
    table = tables.open_table(person, club, variant=VARIANT, options=OPTIONS, time_limit_seconds=LIMIT)
    Seat.objects.filter(table=table, index__gte=1).update(bot="heuristic")
    match = tables.start_match(table, seed=SEED)
out = {"table": table.pk, "match": match.pk, "session": session_cookie(person).split("=", 1)[1],
       "admin": session_cookie(admin).split("=", 1)[1]}
"""

# The match ends: its time limit is run out and auto-play finishes the last deal for seat 0.
FINISH = """
import time
from django.utils import timezone
from matches.models import Match
from matches.services import clock, presence
match = Match.objects.get(pk=MATCH)
presence.set_autoplay(match.pk, 0, "disconnect")
Match.objects.filter(pk=match.pk).update(ends_at=timezone.now())
clock.apply_time_limit(match.pk)
end = time.monotonic() + 120
while time.monotonic() < end:
    match.refresh_from_db()
    if match.status == "finished":
        break
    if match.deadline_version == match.version:
        clock.act_on_deadline(match.pk, match.version, force=True)
    time.sleep(0.05)
out = {"status": match.status, "version": match.version}
"""


@pytest.fixture(scope="module")
def stack(browser, shared_stack):
    # the run's one stack (tests/conftest.py): this module only adds tables and people to it
    return shared_stack


#: (stack, table id) of every table this module's tests opened, till the test's end.
OPENED = []


@pytest.fixture(autouse=True)
def wound_up(stack):
    """After each test, the matches of its tables on the shared stack end with the deal in
    progress (test_table_layout.wind_up); the slow bots' stack is stopped anyway."""
    yield
    wind_up(stack, OPENED)


@pytest.fixture
def slow_bots(browser):
    # bots that take 8 s a play: their clocks count down through the last 5 s, where a
    # person's clock turns to the alarm colour (a stack of its own, for the one test that
    # uses it: stopped as soon as that test is over)
    stack = Stack(bot_delay=8.0, sweep_seconds=1.0).start()
    yield stack
    stack.stop()


def open_page(
    browser,
    stack,
    size,
    variant="guandan",
    text_size="standard",
    seed=None,
    limit=0,
    who="session",
    init="",
    role="MEMBER",
    options=None,
    scale=1,
):
    """The page of a new table (the person in seat 0, bots elsewhere) for ``who`` at
    ``size``; ``scale``: a touch screen's device pixel ratio (the layout in CSS px is the same
    at 1 and 2; 2 where a screenshot should look like a phone's)."""
    seed = seed or seed_where(variant, lambda obs: obs["phase"] == "play")
    code = (
        SETUP.replace("VARIANT", repr(variant))
        .replace("OPTIONS", repr(options or {}))
        .replace("SEED", repr(seed))
        .replace("TEXT_SIZE", repr(text_size))
        .replace("LIMIT", str(limit))
        .replace("PERSON_ROLE", f"Role.{role}")
    )
    info = stack.query(code)
    OPENED.append((stack, info["table"]))
    width, height = VIEWPORTS[size]
    context = browser.new_context(
        locale="zh-CN",
        base_url=stack.http,
        viewport={"width": width, "height": height},
        is_mobile=width < 1000,
        has_touch=width < 1000,
        device_scale_factor=scale if width < 1000 else 1,
    )
    context.set_default_timeout(30000)  # as expect(): a loaded machine is slow
    context.add_cookies([{"name": "sessionid", "value": info[who], "url": stack.http}])
    if init:
        context.add_init_script(init)
    page = context.new_page()
    page.goto(f"/matches/tables/{info['table']}/")
    page.info = info
    page.touch = width < 1000
    return context, page


# The server's hint has arrived: cards chosen, or Pass suggested (or the turn went on).
HINTED = """() => !!document.querySelector('.hand .card-button.selected, button[data-act=pass].suggest')
  || document.querySelector('#table-app').dataset.turn !== '0'"""


def press(page, locator):
    (locator.tap if page.touch else locator.click)()


def overlap(a, b):
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


@pytest.mark.parametrize("variant", ["bao2", "guandan", "honger", "shuangkou2"])
def test_at_text_size_extra_large_the_table_still_fits_one_screen(browser, stack, variant):
    # one table, the page measured at the four sizes while it is the person's turn
    context, page = open_page(
        browser, stack, "phone", variant=variant, text_size="xlarge", options=SLOW_CLOCKS
    )
    try:
        assert page.evaluate("document.documentElement.className") == "text-xlarge"
        wait_to_act(page, "play")
        for size in resized(page):
            m = check_one_screen(page, f"textsize-xlarge-{variant}-{size}")
            # the words did grow: the bar's and the buttons' type is 1.3 × the standard size
            bar = page.evaluate(
                "parseFloat(getComputedStyle(document.querySelector('.live .bar')).fontSize)"
            )
            button = page.evaluate(
                "parseFloat(getComputedStyle(document.querySelector('.controls .buttons button')).fontSize)"
            )
            assert bar >= 19 and button >= 24, (size, bar, button, m["vw"])
    finally:
        context.close()


def test_the_settings_switches_are_on_by_default_and_the_table_speaks(browser, stack):
    # a voice of the device's own (headless Chromium has none): every utterance is recorded
    init = """
      window.spoken = []; window.vibrations = [];
      navigator.vibrate = (p) => { window.vibrations.push(p); return true; };
      window.SpeechSynthesisUtterance = class { constructor(text) { this.text = text; } };
      const voice = { lang: "zh-CN", name: "test", localService: true };
      Object.defineProperty(window, "speechSynthesis", { value: {
        getVoices: () => [voice], speak: (u) => window.spoken.push(u.text), cancel() {} } });
    """
    # a phone's pixel density: the settings' screenshot is what a phone shows
    context, page = open_page(browser, stack, "phone", variant="bao2", init=init, scale=2)
    try:
        wait_to_act(page, "play")
        # 提醒 on by default: vibrated and said at the turn
        page.wait_for_function("() => window.spoken.includes('轮到你了')")
        assert page.evaluate("window.vibrations")[:1] == [200]
        press(page, page.locator("button[data-voice=panel]"))
        panel = page.locator("#table-settings")
        expect(panel).to_be_visible()
        switches = panel.locator(".switch")
        expect(switches).to_have_count(4)
        for k in range(4):
            expect(switches.nth(k)).to_have_attribute("aria-checked", "true")
        page.screenshot(path=str(SCREENSHOTS / "moments-settings-phone.png"))
        box = panel.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390 and box["y"] + box["height"] <= 844
        # the voice off: kept on this phone
        press(page, panel.locator("[data-voice=voice]"))
        expect(panel.locator("[data-voice=voice]")).to_have_attribute("aria-checked", "false")
        assert page.evaluate("localStorage.getItem('table.voice')") == "0"
        press(page, panel.locator("[data-voice=voice]"))
        # the text size from the table's menu: at once, and kept on the account
        # (the account keeps it once the page's request is answered: awaited, then reloaded)
        saved = page.evaluate("document.documentElement.dataset.textSizeUrl")
        with page.expect_response(lambda r: r.url.endswith(saved) and r.request.method == "POST"):
            press(page, panel.locator("[data-text-size=large]"))
        page.wait_for_function("() => document.documentElement.classList.contains('text-large')")
        page.reload()
        assert page.evaluate("document.documentElement.className") == "text-large"
        # plays are said as they come, named from this seat
        page.evaluate("window.spoken = []")
        hand = page.locator(".hand .card-button").first
        wait_to_act(page, "play")
        press(page, page.locator("button[data-act=hint]"))
        page.wait_for_function(HINTED)
        press(page, page.locator("button[data-act=play]"))
        page.wait_for_function(
            "() => window.spoken.some((t) => /^(下家|对家|上家) /.test(t))", timeout=30000
        )
        said = page.evaluate("window.spoken")
        assert any(t.startswith("你 ") for t in said) or said, said
        assert hand is not None
    finally:
        context.close()


def test_without_speech_the_table_plays_on_silently(browser, stack):
    # a browser with no speech synthesis at all (and no vibration): nothing fails, the turn,
    # the plays and the settings panel work as before
    init = """
      delete window.speechSynthesis; delete window.SpeechSynthesisUtterance;
      Object.defineProperty(window, "speechSynthesis", { value: undefined });
      Object.defineProperty(navigator, "vibrate", { value: undefined });
    """
    context, page = open_page(browser, stack, "phone", variant="guandan", init=init)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        assert page.evaluate("window.speechSynthesis === undefined")
        wait_to_act(page, "play")
        version = int(page.locator("#table-app").get_attribute("data-version"))
        press(page, page.locator("button[data-act=hint]"))
        page.wait_for_function(HINTED)
        press(page, page.locator("button[data-act=play]"))
        # the bots answer: the plays come in, and are drawn
        page.wait_for_function(
            f"() => Number(document.querySelector('#table-app').dataset.version) >= {version + 2}",
            timeout=30000,
        )
        press(page, page.locator("button[data-voice=panel]"))
        expect(page.locator("#table-settings")).to_be_visible()
        press(page, page.locator("#table-settings [data-voice=voice]"))
        expect(page.locator("#table-settings [data-voice=voice]")).to_have_attribute(
            "aria-checked", "false"
        )
        assert errors == [], errors
    finally:
        context.close()


def test_back_from_a_drop_out_the_player_is_told_what_auto_play_did(browser, stack):
    context, page = open_page(browser, stack, "phone", variant="guandan")
    try:
        wait_to_act(page, "play")
        page.context.set_offline(True)
        done = stack.query(AWAY.replace("MATCH", str(page.info["match"])))
        assert done["auto"] >= 2
        page.context.set_offline(False)
        page.reload()
        summary = page.locator(".away-summary")
        expect(summary).to_be_visible()
        expect(summary).to_contain_text("你不在时，托管替你")
        assert summary.locator("li").count() >= 1
        page.screenshot(path=str(SCREENSHOTS / "moments-away-phone.png"))
        press(page, summary.locator("[data-moment=away-dismiss]"))
        expect(summary).to_have_count(0)
        seen = int(page.evaluate(f"localStorage.getItem('table.away.{page.info['table']}')"))
        # told once: not again after a reload, unless auto-play acted again meanwhile (a
        # reload is a drop-out too)
        page.reload()
        expect(page.locator("#table-app")).to_have_attribute("data-started", "1")
        page.wait_for_timeout(1500)
        now = page.evaluate(
            f"fetch('/matches/tables/{page.info['table']}/away/').then((r) => r.json())"
        )["summary"]
        if now is None or now["upto"] == seen:
            expect(page.locator(".away-summary")).to_have_count(0)
        else:
            assert now["upto"] > seen
            expect(page.locator(".away-summary")).to_have_count(1)
    finally:
        context.close()


BOT_CLOCK = """() => { const c = document.querySelector('.clock[data-clock="1"]');
  if (!c) return null;
  const s = getComputedStyle(c);
  return {text: c.textContent, low: c.classList.contains('low'), bot: c.classList.contains('bot'),
    color: s.color, background: s.backgroundColor}; }"""


def test_a_bots_clock_has_no_alarm_colour(browser, slow_bots):
    # the bot after seat 0 (seat 1) leads the first deal: its clock runs from the start
    seed = seed_where("guandan", lambda obs: obs["phase"] == "play" and obs["turn"] == 1)
    context, page = open_page(browser, slow_bots, "phone", variant="guandan", seed=seed, limit=0)
    try:
        page.wait_for_function(
            "() => { const c = document.querySelector('.clock[data-clock=\"1\"]');"
            " return c && parseInt(c.textContent) <= 4; }",
            timeout=60000,
        )
        clock = page.evaluate(BOT_CLOCK)
        page.screenshot(path=str(SCREENSHOTS / "moments-bot-clock-phone.png"))
        # 4 s or less left: a person's clock would be white on red (.low)
        assert clock["bot"] and not clock["low"], clock
        assert clock["background"] in ("rgba(0, 0, 0, 0)", "transparent"), clock
        red, green, blue = (int(v) for v in re.findall(r"\d+", clock["color"])[:3])
        assert not (red > 150 and green < 100 and blue < 100), clock  # not red
        assert (red, green, blue) != (255, 255, 255), clock  # not the alarm's white
    finally:
        context.close()


def test_an_unseated_referees_control_covers_no_other_control(browser, stack):
    # one table a text size, its page measured at the four sizes
    for text_size in ("standard", "xlarge"):
        context, page = open_page(
            browser,
            stack,
            "phone",
            variant="bao2",
            who="admin",
            text_size=text_size,
            options=SLOW_CLOCKS,
        )
        try:
            toggle = page.locator(".referee-toggle")
            expect(toggle).to_be_visible()
            expect(page.locator(".live .bar")).to_be_visible()
            page.wait_for_timeout(500)
            for size in resized(page):
                ref = toggle.bounding_box()
                assert ref["width"] >= 44 and ref["height"] >= 44, (size, text_size, ref)
                others = page.locator(
                    ".live .bar a, .live .bar button, .live .strip, .live .controls button"
                )
                for k in range(others.count()):
                    box = others.nth(k).bounding_box()
                    if box:
                        assert not overlap(ref, box), (size, text_size, k, ref, box)
                # a tap at the centre of each bar control reaches it, not the referee's control
                hits = page.evaluate(
                    """() => [...document.querySelectorAll('.live .bar button, .live .bar a')].map((e) => {
                      const r = e.getBoundingClientRect();
                      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
                      return !!hit && (hit === e || e.contains(hit)); })"""
                )
                assert all(hits), (size, text_size, hits)
                page.screenshot(path=str(SCREENSHOTS / f"moments-referee-{size}-{text_size}.png"))
        finally:
            context.close()


def test_a_seated_admin_has_no_referee_control_and_autoplay_is_free(browser, stack):
    # the case: a club admin seated at their own table saw 裁判 over 托管. No one
    # referees a table they sit at: the page offers no referee control, and 托管 takes taps
    # (one table, its page measured at the four sizes)
    context, page = open_page(
        browser,
        stack,
        "phone",
        variant="bao2",
        role="ADMIN",
        text_size="xlarge",
        options=SLOW_CLOCKS,
    )
    try:
        wait_to_act(page, "play")
        autoplay = page.locator(".live .bar [data-act=autoplay]")
        for size in resized(page):
            expect(autoplay).to_be_visible()
            assert page.locator("#referee, .referee-toggle").count() == 0
            box = autoplay.bounding_box()
            width, height = VIEWPORTS[size]
            assert box["x"] >= 0 and box["x"] + box["width"] <= width and box["y"] >= 0, size
            assert box["height"] >= 44 and box["width"] >= 44, (size, box)
            assert page.evaluate(
                """() => { const e = document.querySelector('.live .bar [data-act=autoplay]');
                  const r = e.getBoundingClientRect();
                  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
                  return !!hit && (hit === e || e.contains(hit)); }"""
            ), size
            page.screenshot(path=str(SCREENSHOTS / f"moments-seated-admin-{size}.png"))
    finally:
        context.close()


def test_after_the_match_its_replay_and_play_again(browser, stack):
    # a phone's pixel density: the screenshots are what a phone shows
    context, page = open_page(browser, stack, "phone", variant="guandan", limit=3600, scale=2)
    try:
        wait_to_act(page, "play")
        done = stack.query(FINISH.replace("MATCH", str(page.info["match"])))
        assert done["status"] == "finished", done
        expect(page.locator("#table-app")).to_have_attribute("data-over", "1", timeout=30000)
        links = page.locator(".after-match")
        expect(links).to_be_visible()
        replay = links.locator("a[data-moment=replay]")
        again = links.locator("[data-moment=again] button")
        expect(replay).to_have_text("看回放")
        expect(again).to_have_text("再来一局")
        for box in (replay.bounding_box(), again.bounding_box()):
            assert box["y"] + box["height"] <= 844 and box["height"] >= 44
        page.screenshot(path=str(SCREENSHOTS / "moments-after-match-phone.png"))
        old = page.info["table"]
        press(page, again)
        page.wait_for_url(lambda url: f"/tables/{old}/" not in url)
        OPENED.append((stack, int(re.search(r"/tables/(\d+)/", page.url).group(1))))
        expect(page.locator("#table-app")).to_have_attribute("data-started", "1")
        expect(page.locator("#table-app")).to_have_attribute("data-you", "0")
        # the replay of the old match plays itself, the last trick kept until the next lead
        page.goto(f"/matches/tables/{old}/replay/")
        expect(page.locator(".replay-auto")).to_be_visible()
        press(page, page.locator(".replay-auto [data-speed=fast]"))
        press(page, page.locator(".replay-auto [data-auto=toggle]"))
        page.wait_for_function(
            "() => Number(document.getElementById('replay-slider').value) >= 6", timeout=60000
        )
        page.wait_for_function(
            "() => document.querySelector('#replay-trick .center').dataset.ended === '1'",
            timeout=60000,
        )
        assert page.locator("#replay-trick .trick-entry").count() >= 1
        page.screenshot(path=str(SCREENSHOTS / "moments-replay-auto-phone.png"))
        press(page, page.locator(".replay-auto [data-auto=toggle]"))
        at = page.evaluate("Number(document.getElementById('replay-slider').value)")
        page.wait_for_timeout(1200)
        assert page.evaluate("Number(document.getElementById('replay-slider').value)") == at
    finally:
        context.close()
