"""The live table fits one screen (Playwright + the system's Chromium, against the real stack:
uvicorn, a Celery worker for the bots' turns, Redis): at four screen sizes and in every game,
when it is the person's turn, the whole hand, the action buttons, the current trick and the
clock are inside the viewport without scrolling, nothing is wider than the screen, buttons are
at least 44 px, card corners at least 18 px, and every card can be tapped at its corner; also
in Bao 2's return (还贡) and immune window, and with the show_history panel open (off: nothing
of it is shown or sent).

Screenshots go to var/screenshots/ (not committed) for a person to look at."""

import json
import os
import random
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from engine.bots import HeuristicBot
from engine.match import Match as EngineMatch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))

from hidden import card_tokens  # noqa: E402

pytestmark = pytest.mark.layout
SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
VIEWPORTS = {
    "phone": (390, 844),
    "phone-landscape": (844, 390),
    "tablet": (768, 1024),
    "laptop": (1366, 768),
}
GAMES = ["bao2", "guandan", "honger", "shuangkou2"]

# A table with the person in seat 0 and heuristic bots elsewhere, started with a chosen seed
# (the match of a full table starts at once; seats are filled without it, then it is started).
SETUP = """
from django.db import transaction
from clubs.models import Club, Membership
from matches.models import Seat
from matches.services import tables
from bench.tables import _user, session_cookie
from matches.models import Table
with transaction.atomic():
    person = _user(f"layout-{Table.objects.count()}")
    person.language = LANGUAGE
    person.save(update_fields=["language"])
    club, _ = Club.objects.get_or_create(slug="layout", defaults={"name": "layout"})
    Membership.objects.get_or_create(club=club, user=person)
    table = tables.open_table(person, club, variant=VARIANT, options=OPTIONS)
    Seat.objects.filter(table=table, index__gte=1).update(bot="heuristic")
    tables.start_match(table, seed=SEED)
out = {"table": table.pk, "session": session_cookie(person).split("=", 1)[1], "name": person.name}
"""


@pytest.fixture(scope="module")
def stack(browser, shared_stack):
    # the run's one stack (tests/conftest.py): this module only adds tables and people to it,
    # so its tests may run on any worker (tests/conftest.py's SPREAD)
    return shared_stack


#: (stack, table id) of every table this module's tests opened, till the test's end.
OPENED = []


def wind_up(stack, opened):
    """End the matches of the tables of ``opened`` on ``stack`` with their deal in progress
    (bench.tables.wind_up), and forget every table of ``opened``: a page closed leaves its
    seat on auto-play, and the stack's worker would play the match on to its end, deal after
    deal, beside the tests that follow."""
    tables = [table for on, table in opened if on is stack]
    opened.clear()
    if tables:
        stack.query(f"from bench.tables import wind_up\nout = wind_up({tables!r})")


@pytest.fixture(autouse=True)
def wound_up(stack):
    """After each test, its tables' matches end with the deal in progress."""
    yield
    wind_up(stack, OPENED)


def seed_where(variant, wanted, tries=400):
    """A seed whose first deal's state satisfies ``wanted(observation of seat 0)``."""
    rng = random.Random(variant)
    for _ in range(tries):
        seed = f"{rng.getrandbits(48):x}"
        if wanted(EngineMatch.new(variant, seed, {}).observation(0)):
            return seed
    raise AssertionError(f"no seed found for {variant}")


# Every seat plays as the heuristic bot would, through the same service as a person (seat 0)
# or a bot (the others), until the engine's state satisfies UNTIL (a Python expression of
# ``engine``): the stack's own bots play the same deterministic line, so whichever of the two
# submits an action first, the deal is the same, and the deal goes at the pace of the service
# rather than of the worker's task round trips. Between deals seat 0 dismisses the summary,
# so the bots' clocks need not wait out the pause.
PLAY_UNTIL = """
import time
from engine.bots import HeuristicBot
from matches.messages import MatchError
from matches.models import Actor, Match
from matches.services import play
from matches.store import engine_of
match = Match.objects.get(table_id=TABLE)
end = time.monotonic() + 120
while time.monotonic() < end:
    match.refresh_from_db()
    engine = engine_of(match)
    if engine.over or (UNTIL):
        break
    if DISMISS and 0 in (match.summary_pending() or []):
        play.dismiss_summary(match.pk, 0, engine.deal_no - 1)
    actors = engine.actors()
    if actors:
        seat = actors[0]
        act = HeuristicBot().choose(engine.observation(seat), lambda: engine.legal_actions(seat))
        try:
            play.submit_action(match.pk, act, seat=seat, actor=Actor.PLAYER if seat == 0 else
                Actor.BOT, expected_version=match.version)
        except MatchError:
            pass
    else:
        time.sleep(0.02)
obs = engine.observation(0)
out = {"deal": engine.deal_no, "reached": bool(UNTIL), "phase": obs["phase"],
       "history": obs.get("history"), "tricks": len(engine.deal.history), "trick": obs["trick"]}
"""
PLAY_FIRST_DEAL = PLAY_UNTIL.replace("UNTIL", "engine.deal_no >= 1").replace("DISMISS", "False")


def play_until(stack, page, until):
    """Play seat 0 of the page's table until ``until`` holds; the state then (seat 0's)."""
    code = PLAY_UNTIL.replace("TABLE", str(page.info["table"]))
    out = stack.query(code.replace("UNTIL", until).replace("DISMISS", "True"))
    assert out["reached"], out
    return out


def seed_reaching(variant, wanted, deals=1, tries=400):
    """A seed where four heuristic bots reach a state with ``wanted(match)`` within the first
    ``deals`` deals (the stack's bots and seat 0 play the same deterministic line)."""
    rng = random.Random(f"{variant}-reaching")
    bot = HeuristicBot()
    for _ in range(tries):
        seed = f"{rng.getrandbits(48):x}"
        match = EngineMatch.new(variant, seed, {})
        while match.deal_no < deals and not match.over:
            if wanted(match):
                return seed
            seat = match.actors()[0]
            match.apply(
                bot.choose(match.observation(seat), lambda s=seat, m=match: m.legal_actions(s))
            )
    raise AssertionError(f"no seed found for {variant}")


SEEN_TRIBUTES = """() => {
  window.tributeLines = [];
  new MutationObserver(() => {
    for (const el of document.querySelectorAll('.tribute')) window.tributeLines.push(el.textContent);
  }).observe(document.querySelector('#table-app'), {childList: true, subtree: true});
}"""


def first_deal_by_bots(seed):
    """The engine's match after four heuristic bots played the first deal of ``seed``."""
    match = EngineMatch.new("bao2", seed, {})
    bot = HeuristicBot()
    while match.deal_no == 0:
        seat = match.actors()[0]
        match.apply(bot.choose(match.observation(seat), lambda s=seat: match.legal_actions(s)))
    return match


def open_table(
    browser,
    stack,
    variant,
    size,
    seed,
    locale="zh-CN",
    options=None,
    frames=None,
    scale=1,
    init="",
):
    """The person's page at a new table; ``frames``: a list that gets every websocket frame
    the page receives (parsed); ``scale``: the device pixel ratio of a touch screen (the
    layout in CSS px is the same at 1 and 2: 2 only where a screenshot should look like a
    phone's, as it costs Chromium four times the pixels); ``init``: a script run before the
    page's own."""
    language = "en" if locale.startswith("en") else "zh-hans"
    code = (
        SETUP.replace("VARIANT", repr(variant))
        .replace("SEED", repr(seed))
        .replace("LANGUAGE", repr(language))
        .replace("OPTIONS", repr(options or {}))
    )
    info = stack.query(code)
    OPENED.append((stack, info["table"]))
    info["seed"] = seed
    width, height = VIEWPORTS[size]
    context = browser.new_context(
        locale=locale,
        base_url=stack.http,
        viewport={"width": width, "height": height},
        is_mobile=width < 1000,
        has_touch=width < 1000,
        device_scale_factor=scale if width < 1000 else 1,
    )
    context.set_default_timeout(30000)  # as expect(): a loaded machine is slow
    context.add_cookies([{"name": "sessionid", "value": info["session"], "url": stack.http}])
    if init:
        context.add_init_script(init)
    page = context.new_page()
    if frames is not None:
        page.on(
            "websocket",
            lambda ws: ws.on("framereceived", lambda payload: frames.append(json.loads(payload))),
        )
    page.goto(f"/matches/tables/{info['table']}/")
    page.info = info
    page.touch = width < 1000
    return context, page


def press(page, locator, **kwargs):
    """Tap on touch screens, click with the mouse elsewhere."""
    (locator.tap if page.touch else locator.click)(**kwargs)


def wait_to_act(page, phase=None):
    condition = "d.acting === '1'" + (f" && d.phase === '{phase}'" if phase else "")
    page.wait_for_function(
        f"() => {{ const d = document.querySelector('#table-app').dataset; return {condition}; }}",
        timeout=60000,
    )


MEASURE = """() => {
  const vw = document.documentElement.clientWidth, vh = window.innerHeight;
  const rect = (e) => { const r = e.getBoundingClientRect();
    return {x: r.left, y: r.top, r: r.right, b: r.bottom, w: r.width, h: r.height}; };
  const all = (sel) => [...document.querySelectorAll(sel)].map(rect);
  const cards = [...document.querySelectorAll('.hand .card-button')];
  const tappable = cards.map((c) => { const r = c.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + 6, r.top + 14);
    return !!hit && hit.closest('.card-button') === c; });
  const font = (sel) => [...document.querySelectorAll(sel)].map((e) => parseFloat(getComputedStyle(e).fontSize));
  const wide = [...document.querySelectorAll('#table-app *')].filter((e) => {
    const r = e.getBoundingClientRect(); return r.width > 0 && (r.left < -0.5 || r.right > vw + 0.5); })
    .map((e) => e.className || e.tagName);
  return {vw, vh, scrollW: document.documentElement.scrollWidth, scrollH: document.documentElement.scrollHeight,
    hand: all('.hand .card-button'), buttons: all('#table-app button:not(.card-button)'),
    actions: all('.controls .buttons button'), trick: all('.trick, .explain'), clock: all('.controls .clock'),
    tappable, rankFont: font('.hand .ix b'), suitFont: font('.hand .ix i'), wide,
    rows: document.querySelector('#table-app').dataset.handRows};
}"""


def inside(box, m):
    return (
        box["x"] >= -0.5
        and box["y"] >= -0.5
        and box["r"] <= m["vw"] + 0.5
        and box["b"] <= m["vh"] + 0.5
    )


def check_one_screen(page, name, cards=None, actions=True, trick=True):
    """Measure the page and assert everything needed to act is on the one screen."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
    m = page.evaluate(MEASURE)
    report = json.dumps({k: m[k] for k in ("vw", "vh", "scrollW", "scrollH", "wide", "rows")})
    assert m["scrollW"] <= m["vw"] and m["scrollH"] <= m["vh"], report
    assert m["wide"] == [], report
    if cards is not None:
        assert len(m["hand"]) == cards, report
    assert m["hand"] and all(inside(b, m) for b in m["hand"]), report
    assert all(m["tappable"]), (m["tappable"], report)
    assert min(m["rankFont"]) >= 18 and min(m["suitFont"]) >= 18, report
    assert int(m["rows"]) <= 2
    assert all(b["h"] >= 44 for b in m["hand"])
    if actions:
        assert m["actions"] and all(inside(b, m) for b in m["actions"]), report
        assert m["clock"] and all(inside(b, m) for b in m["clock"]), report
    if trick:
        assert m["trick"] and all(inside(b, m) for b in m["trick"]), report
    small = [b for b in m["buttons"] if b["w"] < 44 or b["h"] < 44]
    assert small == [], (small, report)
    return m


#: Clocks long enough for a page to be measured at four sizes on a loaded machine.
SLOW_CLOCKS = {"first_action_seconds": 120, "action_seconds": 120}
#: The four sizes in the order a test resizes one page through them: the phone last, where
#: the test goes on to act.
PHONE_LAST = ["phone-landscape", "tablet", "laptop", "phone"]


def resized(page, sizes=PHONE_LAST):
    """Resize the page to each of ``sizes`` in turn (yielding the size's name), the layout
    settled each time: one table and one page measured at every size, instead of a table, a
    browser context and a page load per size (the layout in CSS px depends on the viewport
    alone)."""
    for size in sizes:
        width, height = VIEWPORTS[size]
        page.set_viewport_size({"width": width, "height": height})
        settle(page)
        yield size


@pytest.mark.parametrize("variant", GAMES)
def test_the_play_phase_fits_one_screen(browser, stack, variant):
    # a first deal that opens with play (Red Two: no player holds both ♥2), measured at the
    # four sizes while it is the person's turn
    seed = seed_where(variant, lambda obs: obs["phase"] == "play")
    context, page = open_table(browser, stack, variant, "phone", seed, options=SLOW_CLOCKS)
    try:
        wait_to_act(page, "play")
        for size in resized(page):
            check_one_screen(page, f"{variant}-{size}-play")
            # the other players are named from this seat: 对家 / 上家 / 下家 (two players: 对手)
            strips = page.locator(".strip .who strong").all_inner_texts()
            expected = {"对手"} if variant == "shuangkou2" else {"对家", "上家", "下家"}
            assert set(strips) == expected, size
            assert "轮到你了" in page.title()
    finally:
        context.close()


def test_the_red_two_choice_fits_one_screen_and_explains_its_cost(browser, stack):
    seed = seed_where("honger", lambda obs: obs["phase"] == "choose" and obs["solo"] == 0)
    context, page = open_table(browser, stack, "honger", "phone", seed, options=SLOW_CLOCKS)
    try:
        wait_to_act(page, "choose")
        explain = page.locator(".explain")
        for size in resized(page):
            check_one_screen(page, f"honger-{size}-choose", cards=26)
            expect(explain).to_contain_text("独抱红二")
            for word in ("独打", "投降", "比炸弹", "底分"):
                expect(explain).to_contain_text(word)
            # no team labels before a ♥2 is played: nobody is marked as this seat's partner
            expect(page.locator(".badge.ally")).to_have_count(0)
        # on the phone (the last size): the choice taken
        press(page, page.get_by_role("button", name="独打"))
        wait_to_act(page, "play")
        expect(page.locator(".strip.pos-bottom, .my-facts .badge.solo")).to_have_count(1)
        check_one_screen(page, "honger-phone-solo")
    finally:
        context.close()


def test_bao2_between_deals_the_summary_leaves_the_tribute_on_screen(browser, stack):
    # a seed whose first deal (bots everywhere) leaves seat 0 to pay tribute in the second
    rng = random.Random("tribute")
    for _ in range(40):
        seed = f"{rng.getrandbits(48):x}"
        after = first_deal_by_bots(seed)
        if not after.over and after.observation(0)["phase"] == "tribute" and 0 in after.actors():
            break
    else:
        raise AssertionError("no seed found")
    # one deal played, then the summary and the tribute measured at the four sizes (a phone's
    # pixel density: its screenshot is what a phone shows)
    context, page = open_table(browser, stack, "bao2", "phone", seed, options=SLOW_CLOCKS, scale=2)
    try:
        expect(page.locator(".hand .card-button")).to_have_count(27)
        # more than 10 cards: no one may ask the count, so there is no Ask button
        expect(page.locator(".strip button.ask")).to_have_count(0)
        stack.query(PLAY_FIRST_DEAL.replace("TABLE", str(page.info["table"])))
        wait_to_act(page, "tribute")
        summary = page.locator(".summary")
        expect(summary).to_contain_text("结束")
        expect(summary).to_contain_text("我方")
        # why the levels moved: the engine's breakdown of the deal, as the page words it
        rise = next(
            item["levels"]
            for items in after.deals[0]["breakdown"]
            for item in items
            if item["reason"] == "base"
        )
        expect(summary).to_contain_text({3: "双上 +3", 2: "头游三游 +2", 1: "头游末游 +1"}[rise])
        for size in resized(page):
            m = check_one_screen(page, f"bao2-{size}-tribute", cards=27, trick=False)
            box = summary.bounding_box()
            assert box["y"] >= 0 and box["y"] + box["height"] <= m["vh"], size
            assert page.get_by_role("button", name="进贡").is_visible(), size
        # pay the tribute on the phone: tap a card at its corner, then 进贡; the line names 你
        # (the bots return and play at once, so every tribute line shown is recorded as it
        # appears)
        page.evaluate(SEEN_TRIBUTES)
        card = next(a.to_json()["tribute"] for a in after.legal_actions(0) if a.kind == "tribute")
        button = page.locator(".hand .card-button", has=page.locator(f".face[data-card='{card}']"))
        press(page, button.first, position={"x": 8, "y": 16})
        press(page, page.get_by_role("button", name="进贡"))
        page.wait_for_function("() => window.tributeLines.some((t) => t.includes('你 向'))")
        press(page, page.get_by_role("button", name="关闭"))
        expect(summary).to_have_count(0)
        # once the deal's first card is played the tribute lines go (if seat 0 leads, its
        # lead is played for it here: its clock is long enough for the measuring above)
        play_until(
            stack, page, "engine.deal.phase == 'play' and bool(engine.observation(0)['trick'])"
        )
        page.wait_for_function(
            "() => document.querySelector('.trick .play') !== null", timeout=60000
        )
        expect(page.locator(".tribute")).to_have_count(0)
    finally:
        context.close()


def settle(page):
    """Let a resize reach the page's layout (table.js lays the hand out on resize)."""
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


# Whether an element is seen whole: inside the viewport and not scrolled out of the part of
# the middle that holds it.
SEEN = """(sel) => { const e = document.querySelector(sel); if (!e) return false;
  const r = e.getBoundingClientRect(), c = e.closest('.table-center, .wide').getBoundingClientRect();
  return r.height > 0 && r.top >= Math.max(0, c.top) - 0.5 && r.bottom <= Math.min(innerHeight, c.bottom) + 0.5; }"""


def check_every_size(page, name, seen=(), **kwargs):
    """:func:`check_one_screen` at each of the four sizes, the same page resized; each
    selector of ``seen`` is seen whole at every size."""
    for size, (width, height) in VIEWPORTS.items():
        page.set_viewport_size({"width": width, "height": height})
        settle(page)
        check_one_screen(page, f"{name}-{size}", **kwargs)
        for selector in seen:
            assert page.evaluate(SEEN, selector), (size, selector)


def test_bao2_the_return_fits_one_screen_at_every_size(browser, stack):
    # seat 0 finished high in the first deal, so it returns a card (还贡) in the second
    def returning(match):
        return match.deal.phase == "return" and match.to_move() == 0

    seed = seed_reaching("bao2", returning, deals=2)
    context, page = open_table(browser, stack, "bao2", "phone", seed, options=SLOW_CLOCKS)
    try:
        play_until(stack, page, "engine.deal.phase == 'return' and engine.to_move() == 0")
        wait_to_act(page, "return")
        # what was paid is on the table, the instruction says what to do
        expect(page.locator(".tribute")).to_contain_text("进贡")
        expect(page.locator(".controls")).to_contain_text("还贡")
        # the summary of the first deal is still open: it gives way to the tribute lines
        expect(page.locator(".summary")).to_be_visible()
        check_every_size(page, "bao2-return", cards=28, trick=False, seen=(".tribute",))
        assert page.get_by_role("button", name="还贡").is_visible()
    finally:
        context.close()


def test_bao2_the_immune_window_fits_one_screen_at_every_size(browser, stack):
    # an opponent's 保2 success, and seat 0 decides first: an immune bomb or Pass
    def deciding(match):
        return match.deal.phase == "immune" and match.to_move() == 0

    seed = seed_reaching("bao2", deciding)
    context, page = open_table(browser, stack, "bao2", "phone", seed, options=SLOW_CLOCKS)
    try:
        state = play_until(stack, page, "engine.deal.phase == 'immune' and engine.to_move() == 0")
        wait_to_act(page, "immune")
        expect(page.locator(".banner.immune")).to_contain_text("免疫")
        # the 保2 play is the trick on the table, the way out is 不要
        twos = [e for e in state["trick"] if not e.get("pass")][-1]
        trick = page.locator(f".trick .play[data-seat='{twos['seat']}']")
        expect(trick.locator(".face")).to_have_count(len(twos["cards"]))
        check_every_size(page, "bao2-immune", seen=(".banner.immune", ".trick .play"))
        assert page.get_by_role("button", name="不要").is_visible()
    finally:
        context.close()


# The show_history panel: its words (zh-CN)
HISTORY = "最近出牌"
HISTORY_REACHED = (
    "engine.deal.phase == 'play' and engine.to_move() == 0 and len(engine.deal.history) >= 3"
)


def test_show_history_draws_the_last_trick_and_the_played_cards_on_the_phone(browser, stack):
    seed = seed_where("bao2", lambda obs: obs["phase"] == "play")
    options = {**SLOW_CLOCKS, "show_history": True}
    # a phone's pixel density: the screenshot shows the panel as a phone does
    context, page = open_table(browser, stack, "bao2", "phone", seed, options=options, scale=2)
    try:
        state = play_until(stack, page, HISTORY_REACHED)
        wait_to_act(page, "play")
        history = state["history"]
        assert len(history) >= 3
        toggle = page.get_by_role("button", name=HISTORY)
        press(page, toggle)
        panel = page.locator(".history")
        expect(panel).to_be_visible()
        # the last finished trick, play by play (passes left out), the winning play marked
        last = [e for e in history[-1] if not e.get("pass")]
        plays = panel.locator(".last-trick .play")
        expect(plays).to_have_count(len(last))
        for k, entry in enumerate(last):
            expect(plays.nth(k).locator(".face")).to_have_count(len(entry["cards"]))
        expect(plays.nth(len(last) - 1)).to_have_class("play standing")
        # every card each seat played in this deal, past tricks and the current one
        played = [0, 0, 0, 0]
        for trick in [*history, state["trick"]]:
            for entry in trick:
                played[entry["seat"]] += len(entry.get("cards", []))
        for seat in range(4):
            row = panel.locator(f".played li[data-seat='{seat}'] .face")
            expect(row).to_have_count(played[seat])
        # inside the one screen: nothing needed to act is pushed down or covered
        m = check_one_screen(page, "bao2-phone-history")
        box = panel.bounding_box()
        bottom = page.locator(".bottom").bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= bottom["y"] + 0.5
        center = page.locator(".table-center").bounding_box()
        assert center["height"] >= 60 and center["y"] + center["height"] <= m["vh"]
        for k in range(page.locator(".trick .play").count()):
            play = page.locator(".trick .play").nth(k).bounding_box()
            assert (
                center["y"] - 0.5 <= play["y"] and play["y"] + play["height"] <= bottom["y"] + 0.5
            )
        press(page, panel.get_by_role("button", name="关闭"))
        expect(panel).to_have_count(0)
    finally:
        context.close()


def test_without_show_history_nothing_of_it_is_shown_or_sent(browser, stack):
    seed = seed_where("bao2", lambda obs: obs["phase"] == "play")
    frames = []
    context, page = open_table(browser, stack, "bao2", "phone", seed, frames=frames)
    try:
        state = play_until(stack, page, HISTORY_REACHED)
        assert state["tricks"] >= 3 and state["history"] is None
        wait_to_act(page, "play")
        expect(page.get_by_role("button", name=HISTORY)).to_have_count(0)
        expect(page.locator(".history")).to_have_count(0)
        states = [f for f in frames if "obs" in f]
        assert len(states) >= 10
        # past tricks are under no key: outside the hand, a frame names only the cards of the
        # current trick, the tribute and the marked card
        assert [f["version"] for f in states if "history" in f["obs"]] == []
        for f in states:
            obs = f["obs"]
            shown = {k: v for k, v in obs.items() if k not in ("hand", "trick", "standing")}
            allowed = set(card_tokens([obs["trick"], obs.get("tribute"), obs.get("marked_card")]))
            assert set(card_tokens(shown)) <= allowed, f["version"]
    finally:
        context.close()


def test_alerts_are_on_by_default_and_a_setting_of_this_phone(browser, stack):
    # issue 43: 提醒 at one's turn is on unless this phone turned it off (the ⚙ settings)
    seed = seed_where("bao2", lambda obs: obs["phase"] == "play")
    # vibrations are recorded (headless Chromium has no motor to feel); a phone's pixel
    # density, for the screenshot of the clock running low
    vibrations = "window.vibrations = []; navigator.vibrate = (p) => { window.vibrations.push(p); return true; };"
    context, page = open_table(browser, stack, "bao2", "phone", seed, init=vibrations, scale=2)
    try:
        wait_to_act(page, "play")
        assert "轮到你了" in page.title()
        page.wait_for_function("() => window.vibrations.length === 1")
        assert page.evaluate("window.vibrations") == [200]
        press(page, page.locator("button[data-voice=panel]"))
        toggle = page.locator("#table-settings [data-voice=attention]")
        expect(toggle).to_contain_text("轮到我时提醒")
        expect(toggle).to_have_attribute("aria-checked", "true")
        press(page, toggle)
        expect(toggle).to_have_attribute("aria-checked", "false")
        assert page.evaluate("localStorage.getItem('table.attention')") == "0"
        # kept on this phone: after a reload the turn is not announced
        page.reload()
        wait_to_act(page, "play")
        page.wait_for_timeout(1000)
        assert page.evaluate("window.vibrations") == []
        press(page, page.locator("button[data-voice=panel]"))
        press(page, page.locator("#table-settings [data-voice=attention]"))
        assert page.evaluate("localStorage.getItem('table.attention')") == "1"
        # on again: the clock about to run out (5 s left) is announced
        page.wait_for_function(
            "() => window.vibrations.some((v) => Array.isArray(v))", timeout=40000
        )
        left = int(page.locator(".controls .clock").inner_text().split()[0])
        assert left <= 5
        page.screenshot(path=str(SCREENSHOTS / "bao2-phone-clock-low.png"))
    finally:
        context.close()


def test_in_english_the_players_are_partner_left_and_right(browser, stack):
    seed = seed_where("bao2", lambda obs: obs["phase"] == "play")
    context, page = open_table(browser, stack, "bao2", "laptop", seed, locale="en-US")
    try:
        wait_to_act(page, "play")
        check_one_screen(page, "bao2-laptop-play-en")
        assert set(page.locator(".strip .who strong").all_inner_texts()) == {
            "Partner",
            "Left",
            "Right",
        }
        assert page.title().startswith("It is your turn")
        expect(page.locator(".bar")).to_contain_text("Us")
        expect(page.locator("button[data-voice=panel]")).to_have_attribute("aria-label", "Settings")
    finally:
        context.close()


def test_a_spectator_sees_every_seat_by_name_and_no_hand(browser, stack):
    seed = seed_where("guandan", lambda obs: obs["phase"] == "play")
    context, page = open_table(browser, stack, "guandan", "phone", seed)
    table = page.info["table"]
    watcher = stack.query(
        "from bench.tables import _user, session_cookie\n"
        f"user = _user('watcher-{table}')\n"
        "out = {'session': session_cookie(user).split('=', 1)[1]}"
    )
    width, height = VIEWPORTS["phone"]
    spectator = browser.new_context(
        locale="zh-CN",
        base_url=stack.http,
        viewport={"width": width, "height": height},
        is_mobile=True,
        has_touch=True,
    )
    try:
        spectator.add_cookies(
            [{"name": "sessionid", "value": watcher["session"], "url": stack.http}]
        )
        view = spectator.new_page()
        view.goto(f"/matches/tables/{table}/")
        expect(view.locator("#table-app")).to_have_attribute("data-you", "null")
        expect(view.locator(".strip")).to_have_count(4)
        names = set(view.locator(".strip .who strong").all_inner_texts())
        assert names == {"机器人 2", "机器人 3", "机器人 4", page.info["name"]}
        expect(view.locator(".hand")).to_have_count(0)
        expect(view.locator(".controls")).to_contain_text("观")
        view.screenshot(path=str(SCREENSHOTS / "guandan-phone-spectator.png"))
        m = view.evaluate(MEASURE)
        assert m["scrollW"] <= m["vw"] and m["scrollH"] <= m["vh"] and m["wide"] == []
    finally:
        spectator.close()
        context.close()
