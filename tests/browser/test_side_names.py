"""Issue 43, text size 特大 on a phone: the side seats' names of a Bao 2 table shown whole (a
real browser, Playwright + the system's Chromium, against the real stack), upright (390×844)
and held sideways (844×390): a bot's "机器人 2" on the right and a person's four-character
Chinese name on the left, never cut with "…", at most two lines, inside their strip and the
screen, and each one's card count "7 张以上" on one line (never "7 张以 / 上"), while the
table still passes the phone checks (tests/browser/test_table_layout.py's
``check_one_screen``).

Screenshots go to var/screenshots/ for a person to look at."""

import os
import sys

import pytest
from playwright.sync_api import expect

sys.path.insert(0, os.path.dirname(__file__))

from seated_person import open_page, sizes  # noqa: E402
from test_table_layout import SLOW_CLOCKS, check_one_screen, seed_where, wait_to_act  # noqa: E402

pytestmark = pytest.mark.layout

#: A four-character Chinese name (a compound surname and a given name of two).
FOUR = "欧阳明月"

# Each side strip's name: its text, whether any word of it is cut (wider than its box), its
# lines, and its box against its strip's.
NAMES = """() => [...document.querySelectorAll('.live .strip.pos-left, .live .strip.pos-right')].map((strip) => {
  const real = strip.querySelector('.who .real'), label = strip.querySelector('.who strong');
  const box = (e) => { const r = e.getBoundingClientRect(); return {x: r.left, y: r.top, r: r.right, b: r.bottom, h: r.height}; };
  const cut = [label, real].filter((e) => e && e.scrollWidth > e.clientWidth + 0.5).map((e) => e.className || e.tagName);
  const style = getComputedStyle(real);
  // the lines its text is laid out on, and whether they all show (none clipped by the box)
  const range = document.createRange(); range.selectNodeContents(real);
  const rects = [...range.getClientRects()].filter((r) => r.width > 0);
  const lines = new Set(rects.map((r) => Math.round(r.top))).size;
  const text = box(real);
  const shown = rects.every((r) => r.bottom <= text.b + 0.5 && r.right <= text.r + 0.5 && r.left >= text.x - 0.5);
  return {pos: strip.className, text: real.textContent, label: label.textContent, cut, lines, shown,
    font: parseFloat(style.fontSize), ellipsis: style.textOverflow === 'ellipsis' && real.scrollWidth > real.clientWidth,
    real: text, label_box: box(label), strip: box(strip), vw: document.documentElement.clientWidth};
})"""


# Each side strip's card count ("7 张以上" while more than 6 cards are not told): its text, the
# lines it is laid out on, its box against its strip's.
COUNTS = """() => [...document.querySelectorAll('.live .strip.pos-left, .live .strip.pos-right')].map((strip) => {
  const count = strip.querySelector('.facts .count');
  if (!count) return {pos: strip.className, text: null};
  const box = (e) => { const r = e.getBoundingClientRect(); return {x: r.left, y: r.top, r: r.right, b: r.bottom}; };
  const range = document.createRange(); range.selectNodeContents(count);
  const rects = [...range.getClientRects()].filter((r) => r.width > 0);
  return {pos: strip.className, text: count.textContent, lines: new Set(rects.map((r) => Math.round(r.top))).size,
    font: parseFloat(getComputedStyle(count).fontSize), count: box(count), strip: box(strip)};
})"""


@pytest.fixture(scope="module")
def stack(browser, shared_stack):
    # the run's one stack (tests/conftest.py): this module only adds tables and people to it
    return shared_stack


def test_side_seat_names_are_whole_at_extra_large_text_on_a_phone(browser, stack):
    # seat 0 leads the first deal (its seats are not waited for: the person in seat 3 never
    # connects); seat 1 (下家, on the right) a bot, seat 3 (上家, on the left) a person
    seed = seed_where("bao2", lambda obs: obs["phase"] == "play" and obs["turn"] == 0)
    context, page = open_page(
        browser,
        stack,
        "bao2",
        seed,
        text_size="xlarge",
        options=SLOW_CLOCKS,
        people={3: FOUR},
    )
    try:
        wait_to_act(page, "play")
        expect(page.locator(".live .strip.pos-right .real")).to_have_text("机器人 2")
        expect(page.locator(".live .strip.pos-left .real")).to_have_text(FOUR)
        for size, (width, _height) in sizes(page, ["phone-landscape", "phone"]):
            check_one_screen(page, f"side-names-xlarge-{size}")
            names = page.evaluate(NAMES)
            assert {n["text"] for n in names} == {"机器人 2", FOUR}, (size, names)
            for n in names:
                # whole: no word cut, no "…"; readable: the text size's type, two lines at most
                assert n["cut"] == [] and not n["ellipsis"] and n["shown"], (size, n)
                assert n["font"] >= 18 and 1 <= n["lines"] <= 2, (size, n)
                # inside its strip and the screen
                strip, real = n["strip"], n["real"]
                assert strip["x"] - 0.5 <= real["x"] and real["r"] <= strip["r"] + 0.5, (size, n)
                assert 0 <= real["x"] and real["r"] <= width, (size, n)
                assert real["b"] <= strip["b"] + 0.5, (size, n)
            # each side seat's card count whole on one line ("7 张以上", never "7 张以 / 上"),
            # inside its strip and the screen
            counts = page.evaluate(COUNTS)
            assert len(counts) == 2, (size, counts)
            for c in counts:
                assert c["text"] == "7 张以上" and c["lines"] == 1, (size, c)
                assert c["font"] >= 18, (size, c)
                strip, count = c["strip"], c["count"]
                assert strip["x"] - 0.5 <= count["x"] and count["r"] <= strip["r"] + 0.5, (size, c)
                assert 0 <= count["x"] and count["r"] <= width, (size, c)
    finally:
        context.close()
