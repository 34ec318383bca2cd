"""Issue 43, the hand laid out again when its box changes width with no resize of the window
(a real browser, Playwright + the system's Chromium, against the run's shared stack): a Bao 2
table upright (390×844) and held sideways (844×390); the hand's container is made narrower
from script (a style on the hand's parent, as a panel beside it or a redrawn bar would), then
wide again. Each time every card ends inside the container and the viewport (once a card of
a hand held sideways ended at 844.69 px on an 844 px screen), every card keeps a touch region
of its own of 28 × 44 px upright (44 × 44 sideways), and once laid out the hand stays still:
no layout → resize → layout loop.

Screenshots go to var/screenshots/hand-resize-*.png for a person to look at."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from seated_person import SCREENSHOTS, open_page, sizes  # noqa: E402
from test_table_layout import SLOW_CLOCKS, seed_where, wait_to_act  # noqa: E402
from touch_regions import TOUCH_REGION  # noqa: E402

pytestmark = pytest.mark.layout

#: How much narrower the hand's container is made (px taken off its left side).
NARROWER = 44

# A style on the hand's parent (.bottom), in a style element of its own: table.js draws the
# table again at every message, the element with it, and the rule still holds.
NARROW = f"""() => {{ const s = document.createElement('style'); s.id = 'narrower';
  s.textContent = '#table-app .bottom {{ margin-left: {NARROWER}px !important; }}';
  document.head.append(s); }}"""
WIDE = "() => document.getElementById('narrower').remove()"

# Whether every card lies inside the cards' box (the layout has caught up with its width).
FITS = """() => { const box = document.querySelector('.hand .hand-cards');
  if (!box) return false; const r = box.getBoundingClientRect();
  return [...box.querySelectorAll('.card-button')].every((b) => {
    const c = b.getBoundingClientRect(); return c.left >= r.left - 0.5 && c.right <= r.right + 0.5; }); }"""

# Every hand card: its box, and its touch region (tests/browser/touch_regions.py); the box of
# the cards and the viewport.
REGIONS = (
    "() => {"
    + TOUCH_REGION
    + """
  const box = document.querySelector('.hand .hand-cards').getBoundingClientRect();
  const cards = [];
  for (const b of document.querySelectorAll('.hand .card-button')) {
    const r = b.getBoundingClientRect();
    cards.push({card: b.getAttribute('aria-label'), ...touchRegion(b),
      x: r.left, y: r.top, r: r.right, b: r.bottom});
  }
  // what the layout centres in the box: the cards, and the buttons when they take a column
  const laid = [...document.querySelectorAll('.hand .card-button, .hand.tools-slot .hand-tools')]
    .map((e) => e.getBoundingClientRect());
  const margins = [Math.min(...laid.map((r) => r.left)) - box.left, box.right - Math.max(...laid.map((r) => r.right))];
  return {cards, margins, box: {x: box.left, r: box.right, w: box.width}, vw: document.documentElement.clientWidth,
    vh: innerHeight, scrollW: document.documentElement.scrollWidth};
}"""
)

# The hand's cards and frames moved, over a while: style changes counted.
STILL = """(ms) => new Promise((done) => {
  let moved = 0;
  const seen = new MutationObserver((list) => { moved += list.length; });
  seen.observe(document.querySelector('.hand'), {attributes: true, attributeFilter: ['style'], subtree: true});
  setTimeout(() => { seen.disconnect(); done(moved); }, ms);
})"""


def check_hand(page, name, count, width=None):
    """Screenshot, then every card inside the cards' box and the viewport, with its touch
    region; returns the measures."""
    page.wait_for_function(FITS, timeout=5000)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"hand-resize-{name}.png"))
    m = page.evaluate(REGIONS)
    report = {k: v for k, v in m.items() if k != "cards"}
    landscape = m["vw"] > m["vh"] and m["vh"] < 500
    assert len(m["cards"]) == count, report
    assert m["scrollW"] <= m["vw"], report
    if width is not None:
        assert abs(m["box"]["w"] - width) <= 1, report
    # laid out for this width: centred in the box (the bands are centred, the widest sets
    # both sides), not where a layout for another width left them
    left, right = m["margins"]
    assert left >= -0.5 and right >= -0.5 and abs(left - right) <= 2, (name, report)
    for c in m["cards"]:
        assert m["box"]["x"] - 0.5 <= c["x"] and c["r"] <= m["box"]["r"] + 0.5, (name, c, report)
        assert 0 <= c["x"] and c["r"] <= m["vw"], (name, c, report)
        assert c["full"], (name, c)
        short, long = sorted((c["w"], c["h"]))
        if landscape:
            assert short >= 44, (name, c)
        else:
            assert short >= 28 and long >= 44, (name, c)
    return m


def test_the_hand_follows_its_box_when_it_changes_width_without_a_resize(browser, stack):
    seed = seed_where("bao2", lambda obs: obs["phase"] == "play" and obs["turn"] == 0)
    context, page = open_page(browser, stack, "bao2", seed, options=SLOW_CLOCKS)
    try:
        # the person's turn: no one else plays (and draws the table again) while measured
        wait_to_act(page, "play")
        count = page.locator(".hand .card-button").count()
        assert count == 27
        for size, _viewport in sizes(page, ["phone-landscape", "phone"]):
            wide = check_hand(page, f"{size}-before", count)
            page.evaluate(NARROW)
            narrow = check_hand(page, f"{size}-narrower", count, wide["box"]["w"] - NARROWER)
            # laid out again for the narrower box: nothing of it past the box's right side
            assert max(c["r"] for c in narrow["cards"]) <= narrow["box"]["r"] + 0.5
            # and then still: the layout does not set itself off again
            assert page.evaluate(STILL, 600) == 0
            page.evaluate(WIDE)
            again = check_hand(page, f"{size}-wide-again", count, wide["box"]["w"])
            assert page.evaluate(STILL, 600) == 0
            # as wide as before, laid out as before
            assert [(c["x"], c["y"]) for c in again["cards"]] == [
                (c["x"], c["y"]) for c in wide["cards"]
            ]
    finally:
        context.close()
