"""Issue 43, point 4: back from a drop-out, the player is told what auto-play (托管) did
meanwhile — in every game, at 390×844, 844×390, 768×1024 and 1366×768 (a real browser,
Playwright + the system's Chromium, against the real stack: uvicorn, a Celery worker for the
bots and for auto-play, Redis).

One table per game: the person's page goes offline, auto-play plays or passes for seat 0 at
least twice, the page comes back; then the same page is resized through the four sizes and
the summary measured at each: readable (its type, every card's rank and suit uncovered), its
lines and cards in the order the server gives (the engine's reading order,
tests/matches/test_away_order.py) and laid out in reading order on the screen, the whole
panel on screen with nothing hidden in it, under the bar's tools, nothing wider than the
screen, its close button at least 44 px; then again on a phone, upright and sideways, at text
size 特大; then dismissed.

Screenshots go to var/screenshots/ for a person to look at."""

import os
import sys

import pytest
from playwright.sync_api import expect

sys.path.insert(0, os.path.dirname(__file__))

from seated_person import AWAY, SCREENSHOTS, open_page, sizes  # noqa: E402
from test_table_layout import seed_where, wait_to_act  # noqa: E402

pytestmark = pytest.mark.layout

# The summary as drawn: its lines (each line's cards, left to right as they stand), the
# panel's box and scroll size, its type, each card's corner (rank and suit) against the next
# card's edge, the close button's box, the bar's controls, and any of its parts wider than the
# screen (the page's own width: no sideways scrolling).
MEASURE = """() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return {x: r.left, y: r.top, r: r.right, b: r.bottom, w: r.width, h: r.height}; };
  const panel = document.querySelector('.away-summary');
  const lines_of = (e) => { const range = document.createRange(); range.selectNodeContents(e);
    return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size; };
  const lines = [...panel.querySelectorAll('li')].map((li) => {
    const faces = [...li.querySelectorAll('.face')];
    return {text: li.textContent, cards: faces.map((f) => f.dataset.card), boxes: faces.map(box),
      corners: faces.map((f) => box(f.querySelector('.ix'))), box: box(li),
      font: parseFloat(getComputedStyle(li).fontSize),
      rank: faces.map((f) => parseFloat(getComputedStyle(f.querySelector('.ix b')).fontSize))};
  });
  const vw = document.documentElement.clientWidth, vh = window.innerHeight;
  const wide = [panel, ...panel.querySelectorAll('*')].filter((e) => {
    const r = e.getBoundingClientRect(); return r.width > 0 && (r.left < -0.5 || r.right > vw + 0.5); })
    .map((e) => `${e.className || e.tagName} ${e.getBoundingClientRect().left}-${e.getBoundingClientRect().right}`);
  return {vw, vh, scrollW: document.documentElement.scrollWidth, wide, lines,
    panel: box(panel), scrollH: panel.scrollHeight, clientH: panel.clientHeight,
    title: panel.querySelector('.summary-head strong').textContent, titleLines: lines_of(panel.querySelector('.summary-head strong')),
    titleFont: parseFloat(getComputedStyle(panel.querySelector('.summary-head strong')).fontSize),
    close: box(panel.querySelector('[data-moment=away-dismiss]')),
    tools: [...document.querySelectorAll('.live .bar button, .live .bar a')].map(box)};
}"""


@pytest.fixture(scope="module")
def stack(browser, shared_stack):
    # the run's one stack (tests/conftest.py): this module only adds tables and people to it
    return shared_stack


def overlap(a, b):
    return not (a["r"] <= b["x"] or b["r"] <= a["x"] or a["b"] <= b["y"] or b["b"] <= a["y"])


def check_summary(m, summary, size):
    """The drawn summary ``m`` against the server's ``summary`` at ``size``."""
    where = (size, m)
    # readable: the title and the lines in the table's type, a card's rank at least 16 px
    assert m["title"] == "你不在时，托管替你：" and m["titleFont"] >= 16, where
    assert m["titleLines"] == 1, where  # not broken in the middle of a word
    assert m["lines"] and all(line["font"] >= 16 for line in m["lines"]), where
    assert all(r >= 16 for line in m["lines"] for r in line["rank"]), where
    # the plays first, in the server's order (the engine's reading order within each), then
    # the passes, the tribute, the return
    plays = summary["plays"]
    assert [line["cards"] for line in m["lines"][: len(plays)]] == [p["cards"] for p in plays], (
        where
    )
    if summary["passes"]:
        assert str(summary["passes"]) in m["lines"][len(plays)]["text"], where
    # laid out in reading order: lines top to bottom, a line's cards left to right (a card
    # that wraps goes to the next row), each card's corner uncovered by the next card
    tops = [line["box"]["y"] for line in m["lines"]]
    assert tops == sorted(tops), where
    for line in m["lines"]:
        for a, b, corner in zip(line["boxes"], line["boxes"][1:], line["corners"], strict=False):
            assert b["x"] > a["x"] or b["y"] >= a["b"] - 0.5, where
            if b["y"] < a["b"] - 0.5:  # the same row: the next card leaves the corner free
                assert corner["r"] <= b["x"] + 0.5, where
    # the whole panel on screen, nothing hidden inside it, under the bar's tools
    panel = m["panel"]
    assert panel["x"] >= 0 and panel["y"] >= 0, where
    assert panel["r"] <= m["vw"] + 0.5 and panel["b"] <= m["vh"] + 0.5, where
    assert m["scrollH"] <= m["clientH"] + 1, where
    assert not any(overlap(panel, tool) for tool in m["tools"]), where
    # nothing of it wider than the screen, no sideways scrolling; the close button a finger's size
    assert m["scrollW"] <= m["vw"] and m["wide"] == [], where
    assert m["close"]["w"] >= 44 and m["close"]["h"] >= 44, where
    assert m["close"]["r"] <= m["vw"] + 0.5 and m["close"]["b"] <= m["vh"] + 0.5, where


@pytest.mark.parametrize("variant", ["bao2", "guandan", "honger", "shuangkou2"])
def test_back_from_a_drop_out_the_summary_at_four_sizes(browser, stack, variant):
    seed = seed_where(variant, lambda obs: obs["phase"] == "play")
    context, page = open_page(browser, stack, variant, seed)
    try:
        wait_to_act(page, "play")
        context.set_offline(True)
        done = stack.query(AWAY.replace("MATCH", str(page.info["match"])))
        assert done["auto"] >= 2, done
        context.set_offline(False)
        page.reload()
        panel = page.locator(".away-summary")
        expect(panel).to_be_visible()
        summary = page.evaluate(
            f"fetch('/matches/tables/{page.info['table']}/away/').then((r) => r.json())"
        )["summary"]
        assert summary and (summary["plays"] or summary["passes"]), summary
        for size, _viewport in sizes(page):
            expect(panel).to_be_visible()
            page.screenshot(path=str(SCREENSHOTS / f"away-{variant}-{size}.png"))
            check_summary(page.evaluate(MEASURE), summary, size)
        # text size 特大 from the table's ⚙ menu (the panel stays): on a phone, upright and
        # held sideways, the summary still passes, in the larger type
        page.locator(".live .bar [data-voice=panel]").tap()
        page.locator("#table-settings [data-text-size=xlarge]").tap()
        expect(page.locator("html")).to_have_class("text-xlarge")
        page.locator("#table-settings .dismiss").tap()
        expect(page.locator("#table-settings")).to_have_count(0)
        for size, _viewport in sizes(page, ["phone-landscape", "phone"]):
            expect(panel).to_be_visible()
            page.screenshot(path=str(SCREENSHOTS / f"away-{variant}-{size}-xlarge.png"))
            m = page.evaluate(MEASURE)
            check_summary(m, summary, size)
            assert m["titleFont"] >= 20 and min(line["font"] for line in m["lines"]) >= 20, m
        # dismissed with its button: gone
        page.locator("[data-moment=away-dismiss]").tap()
        expect(panel).to_have_count(0)
    finally:
        context.close()
