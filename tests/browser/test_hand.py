"""The hand at the live table (static/js/hand.js), in the browser against the real stack, for
all four games at 390×844, 844×390, 768×1024 and 1366×768: the dealt hand (27 cards, 26 in
Red Two) fits without scrolling; every card has a touch region of its own of at least 28 × 44
px in portrait (44 × 44 on a landscape phone); the rank and the suit of every card are
wholly visible (every point of their boxes hits that card: nothing of them is under the next
card); a finger sliding across five cards selects them, and a slide starting on a selected
card puts cards back; a tap on a column's top takes one card of its rank and a tap on the next
strip one more; 理牌 shows the groups the engine computes for the seat's own hand; a card
moved into a group of one's own stays there after a reload and after a reconnect.

Screenshots go to var/screenshots/hand-*.png for a person to look at."""

import json
import os
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

from engine.arrange import arrange
from engine.cards import parse_cards
from engine.match import Match as EngineMatch

sys.path.insert(0, os.path.dirname(__file__))

from touch_regions import TOUCH_REGION  # noqa: E402

pytestmark = pytest.mark.layout
SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
VIEWPORTS = {
    "phone": (390, 844),
    "phone-landscape": (844, 390),
    "tablet": (768, 1024),
    "laptop": (1366, 768),
}
GAMES = ["bao2", "guandan", "honger", "shuangkou2"]
# long clocks: the person's seat must not go on auto-play (and play a card) while measured
OPTIONS = {"first_action_seconds": 600, "action_seconds": 600}

SETUP = """
from django.db import transaction
from clubs.models import Club, Membership
from matches.models import Seat, Table
from matches.services import tables
from bench.tables import _user, session_cookie
with transaction.atomic():
    person = _user(f"hand-{Table.objects.count()}")
    person.language = "zh-hans"
    person.save(update_fields=["language"])
    club, _ = Club.objects.get_or_create(slug="hand", defaults={"name": "hand"})
    Membership.objects.get_or_create(club=club, user=person)
    table = tables.open_table(person, club, variant=VARIANT, options=OPTIONS)
    Seat.objects.filter(table=table, index__gte=1).update(bot="heuristic")
    tables.start_match(table, seed=SEED)
out = {"table": table.pk, "session": session_cookie(person).split("=", 1)[1]}
"""

# seat 0's hand now and its 理牌 groups as the engine computes them
ENGINE_GROUPS = """
from engine.arrange import arrange
from engine.cards import parse_cards
from matches.models import Match
from matches.store import engine_of
engine = engine_of(Match.objects.get(table_id=TABLE))
obs = engine.observation(0)
out = {"hand": obs["hand"], **arrange(engine.variant, obs.get("level"), parse_cards(obs["hand"]))}
"""

# Every hand card: its touch region (tests/browser/touch_regions.py), and whether every point
# of its rank and suit boxes hits it.
REGIONS = (
    "() => {"
    + TOUCH_REGION
    + """
  const out = [];
  for (const b of document.querySelectorAll('.hand .card-button')) {
    const r = b.getBoundingClientRect();
    const {full, w, h} = touchRegion(b);
    const glyph = (sel) => { const q = b.querySelector(sel).getBoundingClientRect();
      if (q.width < 4 || q.height < 8) return false;
      for (let y = q.top + 0.5; y < q.bottom; y += 2) for (let x = q.left + 0.5; x < q.right; x += 2) if (owner(x, y) !== b) return false;
      return q.left >= r.left && q.right <= r.right && q.top >= r.top && q.bottom <= r.bottom; };
    out.push({card: b.querySelector('.face').dataset.card, w, h, full,
      rank: glyph('.ix b'), suit: glyph('.ix i'), x: r.left, y: r.top, r: r.right, b: r.bottom});
  }
  return {cards: out, vw: document.documentElement.clientWidth, vh: innerHeight,
    scrollW: document.documentElement.scrollWidth, scrollH: document.documentElement.scrollHeight,
    handScrollW: document.querySelector('.hand').scrollWidth, handW: document.querySelector('.hand').clientWidth};
}"""
)

GROUPS_SHOWN = """() => { const out = [];
  for (const f of document.querySelectorAll('.hand .hand-frame:not(.part)')) {
    const k = f.dataset.col;
    out.push({kind: f.classList.contains('own') ? 'own' : 'combo',
      cards: [...document.querySelectorAll(`.hand .card-button[data-col="${k}"] .face`)].map((e) => e.dataset.card)}); }
  return out; }"""


#: (stack, table id) of every table this module's tests opened, till the test's end.
OPENED = []


@pytest.fixture(autouse=True)
def wound_up():
    """After each test, its tables' matches end with the deal in progress (a page closed
    leaves its seat on auto-play: the stack's worker would play the match on to its end)."""
    yield
    if OPENED:
        stack = OPENED[0][0]
        tables = [table for _stack, table in OPENED]
        OPENED.clear()
        stack.query(f"from bench.tables import wind_up\nout = wind_up({tables!r})")


def seed_with_groups(variant, wanted=bool, prefix="hand", tries=400):
    """A seed whose seat 0 is dealt at least one bomb or straight flush (``wanted(groups)``)."""
    for k in range(tries):
        seed = f"{prefix}-{variant}-{k}"
        obs = EngineMatch.new(variant, seed, {}).observation(0)
        if wanted(arrange(variant, obs.get("level"), parse_cards(obs["hand"]))["groups"]):
            return seed
    raise AssertionError(variant)


# Every card of a 理牌 group lies inside a frame of that group, as far as the card is shown (a
# group taller than a column goes on in the next columns, or the next band: one frame for each
# band it spans)
UNFRAMED = """() => { const out = [];
  const frames = [...document.querySelectorAll('.hand .hand-frame')];
  for (const b of document.querySelectorAll('.hand .card-button')) {
    const mine = frames.filter((f) => f.dataset.col === b.dataset.col);
    if (!mine.length) continue;
    const r = b.getBoundingClientRect();
    const inside = mine.some((f) => { const q = f.getBoundingClientRect();
      // (on a landscape phone the frame of the first row ends where the second row covers it)
      return r.left >= q.left && r.right <= q.right && r.top >= q.top && q.bottom >= Math.min(r.bottom, r.top + 44); });
    if (!inside) out.push(b.querySelector('.face').dataset.card); }
  return out; }"""


def open_table(browser, stack, variant, seed, sockets=None):
    """The person's table on a phone; ``sockets`` (a list): every websocket the page opens is
    routed through the test (appended to it), so the test can drop the connection. A device
    pixel ratio of 1: the touch regions, hit tests and layout are in CSS px, the same at 2,
    which costs Chromium four times the pixels at each of the four sizes."""
    info = stack.query(
        SETUP.replace("VARIANT", repr(variant))
        .replace("SEED", repr(seed))
        .replace("OPTIONS", repr(OPTIONS))
    )
    OPENED.append((stack, info["table"]))
    context = browser.new_context(
        locale="zh-CN",
        base_url=stack.http,
        viewport={"width": 390, "height": 844},
        is_mobile=True,
        has_touch=True,
        device_scale_factor=1,
    )
    context.set_default_timeout(30000)  # as expect(): a loaded machine is slow
    context.add_cookies([{"name": "sessionid", "value": info["session"], "url": stack.http}])
    page = context.new_page()
    if sockets is not None:

        def route(ws):
            ws.connect_to_server()
            sockets.append(ws)

        page.route_web_socket(re.compile(r"/ws/tables/"), route)
    page.goto(f"/matches/tables/{info['table']}/")
    page.wait_for_selector(".hand .card-button")
    page.info = info
    return context, page


def settle(page):
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


def check_cards(page, name, count):
    """Screenshot, then every card's touch region and legibility at this size."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"hand-{name}.png"))
    m = page.evaluate(REGIONS)
    landscape = m["vw"] > m["vh"] and m["vh"] < 500
    report = json.dumps({k: v for k, v in m.items() if k != "cards"})
    assert len(m["cards"]) == count, report
    assert m["scrollW"] <= m["vw"] and m["scrollH"] <= m["vh"], report
    assert m["handScrollW"] <= m["handW"], report
    for c in m["cards"]:
        assert c["x"] >= 0 and c["r"] <= m["vw"] and c["y"] >= 0 and c["b"] <= m["vh"], (c, report)
        assert c["full"], c
        short, long = sorted((c["w"], c["h"]))
        if landscape:
            assert short >= 44, c
        else:
            assert short >= 28 and long >= 44, c
        assert c["rank"] and c["suit"], c
    return m


def touch_slide(page, points):
    """A finger put down at the first point, moved through the others, lifted (CDP touch
    events: the page gets real pointer events of type touch)."""
    client = page.context.new_cdp_session(page)
    x, y = points[0]
    client.send(
        "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]}
    )
    for x, y in points[1:]:
        client.send(
            "Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]}
        )
    client.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    client.detach()


def mouse_slide(page, points):
    page.mouse.move(*points[0])
    page.mouse.down()
    for x, y in points[1:]:
        page.mouse.move(x, y, steps=3)
    page.mouse.up()


def slide(page, points, touch):
    (touch_slide if touch else mouse_slide)(page, points)
    settle(page)


def centre_of_region(page, index):
    """A point inside card ``index``'s own touch region (its top-left part, shown)."""
    card = page.locator(f".hand .card-button[data-index='{index}']")
    # (a bot's play redraws the table: the button found may be gone a moment later)
    for _ in range(50):
        card.wait_for(state="visible")
        box = card.bounding_box()
        if box is not None:
            return box["x"] + 14, box["y"] + 14
        page.wait_for_timeout(50)
    raise AssertionError(f"card {index} not shown")


def selected(page):
    return page.evaluate(
        "() => [...document.querySelectorAll('.hand .card-button.selected')].map((b) => Number(b.dataset.index))"
    )


@pytest.mark.parametrize("variant", GAMES)
def test_the_hand_at_four_sizes(browser, stack, variant):
    seed = seed_with_groups(variant)
    count = 26 if variant == "honger" else 27
    sockets = []
    context, page = open_table(browser, stack, variant, seed, sockets)
    try:
        for size, (width, height) in VIEWPORTS.items():
            page.set_viewport_size({"width": width, "height": height})
            settle(page)
            check_cards(page, f"{variant}-{size}", count)

            # slide across five cards: the first decides (not selected: select)
            touch = width < 1000
            # columns: the top card of each of the first five columns (a line across their
            # top strips); a landscape phone: the first five cards of the first row
            targets = page.evaluate(
                "() => document.querySelector('.hand.fan') ? [0, 1, 2, 3, 4] : [...new Set([...document.querySelectorAll('.hand .card-button')]"
                ".map((b) => b.dataset.col))].slice(0, 5).map((k) => Number(document.querySelector(`.hand .card-button[data-col='${k}']`).dataset.index))"
            )
            points = [centre_of_region(page, i) for i in targets]
            # through the middle of each step too, as a finger does
            path = [
                p
                for a, b in zip(points, points[1:], strict=False)
                for p in (a, ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2))
            ]
            slide(page, [*path, points[-1]], touch)
            assert sorted(selected(page)) == sorted(targets), (size, selected(page), targets)
            # a slide starting on a selected card puts back the cards it crosses
            slide(page, points[:3], touch)
            assert sorted(selected(page)) == sorted(targets[3:]), (size, selected(page))
            slide(page, points[3:], touch)
            assert selected(page) == []

        # a tap on a column's top takes one card of that rank, a tap on the next strip down
        # one more (docs/table.md, "Selecting"); a tap again puts it back
        page.set_viewport_size({"width": 390, "height": 844})
        settle(page)
        column = page.evaluate(
            """() => { const cols = new Map();
              for (const b of document.querySelectorAll('.hand .card-button')) {
                const k = b.dataset.col; if (!cols.has(k)) cols.set(k, []);
                cols.get(k).push([Number(b.dataset.index), b.querySelector('.face').dataset.card]); }
              return [...cols.values()].find((c) => c.length >= 2); }"""
        )
        assert column, "no column of two cards"
        (top, top_card), (second, second_card) = column[:2]
        page.touchscreen.tap(*centre_of_region(page, top))
        settle(page)
        assert selected(page) == [top]
        page.touchscreen.tap(*centre_of_region(page, second))
        settle(page)
        assert sorted(selected(page)) == sorted([top, second])
        rank = lambda card: card if card in ("SB", "HR") else card[1]  # noqa: E731
        assert rank(top_card) == rank(second_card)
        page.screenshot(path=str(SCREENSHOTS / f"hand-{variant}-column-taps-phone.png"))
        page.touchscreen.tap(*centre_of_region(page, top))
        page.touchscreen.tap(*centre_of_region(page, second))
        settle(page)
        assert selected(page) == []

        # 理牌: the groups shown are the engine's, for this seat's hand
        page.locator("[data-hand=arrange]").tap()
        page.wait_for_selector(".hand .hand-frame")
        expected = stack.query(ENGINE_GROUPS.replace("TABLE", str(page.info["table"])))
        shown = page.evaluate(GROUPS_SHOWN)
        assert [g["cards"] for g in shown] == [g["cards"] for g in expected["groups"]], (
            shown,
            expected,
        )
        assert all(g["kind"] == "combo" for g in shown)
        check_cards(page, f"{variant}-arranged-phone", count)

        # move a card into a group of one's own: it is the first column, and stays after a reload
        # (the highest card: auto-play, which takes the seat over during a drop-out, leads low)
        page.locator(".hand .card-button[data-index='0']").tap()
        page.locator("[data-hand=group]").tap()
        page.wait_for_selector(".hand .hand-frame.own")
        moved = page.evaluate(GROUPS_SHOWN)
        assert moved[0]["kind"] == "own" and len(moved[0]["cards"]) == 1
        page.reload()
        page.wait_for_selector(".hand .hand-frame.own")
        # (a reload is a drop-out: at its turn the seat may have been auto-played meanwhile;
        # a 理牌 group that lost a card is no longer that bomb and goes back to the columns)
        hand = Counter(
            page.evaluate(
                "() => [...document.querySelectorAll('.hand .face')].map((e) => e.dataset.card)"
            )
        )
        kept = [g for g in moved if not Counter(g["cards"]) - hand]
        assert page.evaluate(GROUPS_SHOWN) == kept, (hand, moved)
        assert kept[0] == moved[0]
        # and after a reconnect (the connection dropped, the page reconnects by itself)
        opened = len(sockets)
        sockets[-1].close()
        for _ in range(200):  # (the page tries again within 0.75 s)
            if len(sockets) > opened:
                break
            page.wait_for_timeout(100)
        page.wait_for_function("() => !document.querySelector('#table-app .offline')")
        assert len(sockets) > opened
        page.wait_for_selector(".hand .card-button")
        hand = Counter(
            page.evaluate(
                "() => [...document.querySelectorAll('.hand .face')].map((e) => e.dataset.card)"
            )
        )
        assert page.evaluate(GROUPS_SHOWN) == [g for g in kept if not Counter(g["cards"]) - hand]
        page.screenshot(path=str(SCREENSHOTS / f"hand-{variant}-reconnected-phone.png"))
        # and back to plain rank columns (when auto-play has left a group to undo)
        if page.evaluate(GROUPS_SHOWN):
            page.locator("[data-hand=reset]").tap()
        page.wait_for_function("() => !document.querySelector('.hand .hand-frame')")
    finally:
        context.close()


COLUMNS_SHOWN = """() => [...document.querySelectorAll('.replay-hand')].map((h) =>
  [...h.querySelectorAll('.hand-static .hand-col')].map((c) => [...c.querySelectorAll('.face')].map((f) => f.dataset.card)))"""


@pytest.mark.django_db(transaction=True)
def test_the_replay_shows_every_hand_in_the_same_rank_columns(new_page, monkeypatch, settings):
    sys.path.insert(0, os.path.dirname(__file__))
    from test_replay import two_deal_match

    settings.MATCHES_BOT_DELAY_SECONDS = 0
    _, match = two_deal_match(monkeypatch)
    page = new_page(locale="zh-CN", mobile=True)
    page.goto(f"/matches/tables/{match.table_id}/replay/")
    page.wait_for_selector(".replay-hand .hand-static")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "hand-replay-phone.png"), full_page=True)
    hands = page.evaluate(COLUMNS_SHOWN)
    assert len(hands) == 4
    for columns in hands:
        assert sum(len(c) for c in columns) == 27
        rank = lambda card: card if card in ("SB", "HR") else card[1]  # noqa: E731
        # one column a rank, each rank in one column; the wild card (Bao 2: ♥ of the level)
        # first, a column of its own
        assert all(len({rank(c) for c in col}) == 1 for col in columns), columns
        rest = columns[1:] if columns[0][0][0] == "H" and len(set(columns[0])) == 1 else columns
        assert len({rank(col[0]) for col in rest}) == len(rest), columns
    assert page.evaluate("() => document.documentElement.scrollWidth <= innerWidth")


def test_a_chain_bomb_is_one_group_framed_whole(browser, stack):
    # Shuangkou's chain bomb (连炸): 12 or more cards, more than a column holds
    seed = seed_with_groups(
        "shuangkou2",
        lambda groups: any(g["type"] == "chain_bomb" for g in groups),
        prefix="chain",
        tries=3000,
    )
    context, page = open_table(browser, stack, "shuangkou2", seed)
    try:
        page.locator("[data-hand=arrange]").tap()
        page.wait_for_selector(".hand .hand-frame")
        expected = stack.query(ENGINE_GROUPS.replace("TABLE", str(page.info["table"])))
        assert any(g["type"] == "chain_bomb" for g in expected["groups"])
        shown = page.evaluate(GROUPS_SHOWN)
        assert [g["cards"] for g in shown] == [g["cards"] for g in expected["groups"]]
        for size, (width, height) in VIEWPORTS.items():
            page.set_viewport_size({"width": width, "height": height})
            settle(page)
            check_cards(page, f"shuangkou2-chain-bomb-{size}", 27)
            assert page.evaluate(UNFRAMED) == [], size
        # a group moved: the cards of a rank column (two or more, in no group) taken and made a
        # group of one's own, which goes first; the chain bomb stays a group
        page.set_viewport_size({"width": 390, "height": 844})
        settle(page)
        column = page.evaluate(
            """() => { const framed = new Set([...document.querySelectorAll('.hand .hand-frame')].map((f) => f.dataset.col));
              const cols = new Map();
              for (const b of document.querySelectorAll('.hand .card-button')) {
                if (framed.has(b.dataset.col)) continue;
                if (!cols.has(b.dataset.col)) cols.set(b.dataset.col, []);
                cols.get(b.dataset.col).push([Number(b.dataset.index), b.querySelector('.face').dataset.card]); }
              return [...cols.values()].find((c) => c.length >= 2); }"""
        )
        assert column, "no rank column of two cards"
        for index, _card in column:
            page.touchscreen.tap(*centre_of_region(page, index))
            settle(page)
        page.locator("[data-hand=group]").tap()
        page.wait_for_selector(".hand .hand-frame.own")
        moved = page.evaluate(GROUPS_SHOWN)
        assert moved[0] == {"kind": "own", "cards": [card for _index, card in column]}, moved
        assert [g["cards"] for g in moved[1:]] == [g["cards"] for g in expected["groups"]]
        page.screenshot(path=str(SCREENSHOTS / "hand-shuangkou2-group-moved-phone.png"))
    finally:
        context.close()
