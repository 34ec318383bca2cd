"""Issue 43, point 5: the replay's auto-play at its normal speed (a real browser, Playwright
+ the system's Chromium, 390×844, against the real stack), measured over a few steps rather
than a whole match: it is the speed chosen by default, it advances one step at a time at its
pace (1.2 s a step: never sooner, and sooner than the slow speed's 2.4 s), the trick a pass
ends stays on the felt (marked ended) until the next lead, and pausing stops it there. Its
toggle says what a tap does in words (自动播放, 暂停, 继续 part-way), beside a drawn sign (no
"⏸", an empty box where the font lacks it), at least 44 × 44 px.

(tests/browser/test_table_moments.py plays the replay at the fast speed.)"""

import os
import sys

import pytest
from playwright.sync_api import expect

sys.path.insert(0, os.path.dirname(__file__))

from seated_person import SCREENSHOTS  # noqa: E402

pytestmark = pytest.mark.layout

#: The normal (medium) speed's and the slow speed's pace, in ms a step (static/js/replay.js).
NORMAL_MS = 1200
SLOW_MS = 2400

# A finished one-deal Guandan match: the person in seat 0 is away (auto-play), bots in the
# other seats; every seat plays as the heuristic bot would through the same service as the
# stack's bots (whichever submits first, the deal is the same), the match's time runs out
# after the first few actions (bench.tables.last_deal: the deal in progress is its last).
FINISHED = """
import time
from django.db import transaction
from clubs.models import Club, Membership
from engine.bots import HeuristicBot
from bench.tables import _user, last_deal, session_cookie
from matches.messages import MatchError
from matches.models import Actor, Match, Seat, Table
from matches.services import play, presence, tables
from matches.store import engine_of
with transaction.atomic():
    person = _user(f"replay-speed-{Table.objects.count()}")
    person.language = "zh-hans"
    person.save(update_fields=["language"])
    club, _ = Club.objects.get_or_create(slug="replay-speed", defaults={"name": "replay-speed"})
    Membership.objects.get_or_create(club=club, user=person)
    table = tables.open_table(person, club, variant="guandan", options={})
    Seat.objects.filter(table=table, index__gte=1).update(bot="heuristic")
    match = tables.start_match(table, seed="43replay")
presence.set_autoplay(match.pk, 0, "disconnect")
timed_out = False
end = time.monotonic() + 240
while time.monotonic() < end:
    match.refresh_from_db()
    if match.status == "finished":
        break
    if not timed_out and match.version >= 8:
        timed_out = last_deal(table.pk)
    engine = engine_of(match)
    actors = engine.actors()
    if not actors:
        time.sleep(0.02)
        continue
    seat = actors[0]
    act = HeuristicBot().choose(engine.observation(seat), lambda: engine.legal_actions(seat))
    try:
        play.submit_action(match.pk, act, seat=seat, actor=Actor.AUTOPLAY if seat == 0 else
            Actor.BOT, expected_version=match.version)
    except MatchError:
        pass
out = {"table": table.pk, "status": match.status, "steps": match.version,
       "session": session_cookie(person).split("=", 1)[1]}
"""

# Every step the replay shows, as it is shown: its position, when, and the felt.
RECORD = """() => {
  window.shown = [];
  const felt = document.querySelector('#replay-trick .center');
  new MutationObserver(() => window.shown.push({i: Number(document.getElementById('replay-slider').value),
    t: performance.now(), ended: felt.dataset.ended, entries: felt.querySelectorAll('.trick-entry').length}))
    .observe(document.getElementById('replay-pos'), {childList: true, characterData: true, subtree: true});
  document.querySelector('.replay-auto').addEventListener('click', () => { window.started ??= performance.now(); }, true);
}"""

# The first step k (after a few) whose felt would be empty: a pass ended the trick of step
# k - 1, in the same deal, and step k + 1 leads the next trick.
TRICK_ENDED = """() => {
  const steps = JSON.parse(document.getElementById('replay-steps').textContent);
  const trick = (k) => (steps[k].views[0].trick || []);
  const deals = (k) => ((steps[k].views[0].match || {}).deals || 0);
  for (let k = 3; k + 1 < steps.length; k++) {
    if (!trick(k).length && trick(k - 1).length && deals(k) === deals(k - 1)
        && trick(k + 1).length === 1 && !trick(k + 1)[0].pass) return k;
  }
  return null;
}"""


# The glyphs a font may lack ("⏸" is an empty box in Debian's Chromium): none in the toggle.
NO_FONT_GLYPHS = "⏸⏯⏵▶►"


def check_toggle(toggle, word):
    """The auto-play toggle: named by the translated ``word`` alone (its drawn sign hidden from
    screen readers), no glyph a font may lack, at least 44 × 44 px."""
    expect(toggle).to_have_accessible_name(word)
    expect(toggle).to_have_text(word)
    assert not set(toggle.text_content()) & set(NO_FONT_GLYPHS), toggle.text_content()
    # its sign is drawn (an inline SVG), so it shows whatever the fonts
    assert toggle.locator("svg").count() == 1
    box = toggle.bounding_box()
    assert box["width"] >= 44 and box["height"] >= 44, box


def test_the_replay_plays_itself_at_normal_speed_step_by_step(browser, stack):
    done = stack.query(FINISHED)
    assert done["status"] == "finished" and done["steps"] >= 8, done
    context = browser.new_context(
        locale="zh-CN",
        base_url=stack.http,
        viewport={"width": 390, "height": 844},
        is_mobile=True,
        has_touch=True,
    )
    context.add_cookies([{"name": "sessionid", "value": done["session"], "url": stack.http}])
    try:
        page = context.new_page()
        page.goto(f"/matches/tables/{done['table']}/replay/")
        auto = page.locator(".replay-auto")
        expect(auto).to_be_visible()
        # the normal speed is the one chosen
        expect(auto.locator("[data-speed=medium]")).to_have_attribute("aria-pressed", "true")
        expect(auto.locator("[data-speed=medium]")).to_have_class("secondary on")
        toggle = auto.locator("[data-auto=toggle]")
        # the toggle says what a tap does in words, at the start 自动播放
        check_toggle(toggle, "自动播放")
        k = page.evaluate(TRICK_ENDED)
        assert k is not None
        # two steps before the trick ends, then played by itself
        page.evaluate(
            f"() => {{ const s = document.getElementById('replay-slider'); s.value = '{k - 2}';"
            " s.dispatchEvent(new Event('input')); }"
        )
        expect(page.locator("#replay-pos")).to_contain_text(f"{k - 2} /")
        page.evaluate(RECORD)
        auto.locator("[data-auto=toggle]").tap()
        expect(auto.locator("[data-auto=toggle]")).to_have_attribute("aria-pressed", "true")
        check_toggle(toggle, "暂停")
        page.wait_for_function(
            f"() => window.shown.some((s) => s.i >= {k + 1})", timeout=60000, polling=100
        )
        page.screenshot(path=str(SCREENSHOTS / "replay-normal-speed-phone.png"))
        # paused: it stays where it is for more than two of its steps
        auto.locator("[data-auto=toggle]").tap()
        expect(auto.locator("[data-auto=toggle]")).to_have_attribute("aria-pressed", "false")
        assert page.evaluate("window.replayAuto.playing()") is False
        # paused part-way: 继续
        check_toggle(toggle, "继续")
        page.screenshot(path=str(SCREENSHOTS / "replay-paused-phone.png"))
        at = page.evaluate("Number(document.getElementById('replay-slider').value)")
        page.wait_for_timeout(2 * NORMAL_MS + 400)
        assert page.evaluate("Number(document.getElementById('replay-slider').value)") == at
        shown = page.evaluate("window.shown")
        started = page.evaluate("window.started")
        # one step at a time, from where it was
        positions = [s["i"] for s in shown]
        assert positions[:3] == [k - 1, k, k + 1], shown
        assert positions == list(range(k - 1, k - 1 + len(positions))), shown
        # at its pace: the n-th step never sooner than n × 1.2 s after the start (a step seen
        # late makes the gap to the next look short: its own time is what a timer decides);
        # at least one step sooner than the slow speed's pace (a loaded machine may make a
        # timer late, never early)
        elapsed = [s["t"] - started for s in shown]
        assert all(t >= (n + 1) * NORMAL_MS - 50 for n, t in enumerate(elapsed)), elapsed
        times = [started] + [s["t"] for s in shown]
        gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
        assert min(gaps) < SLOW_MS, gaps
        # the trick a pass ended stays on the felt, marked ended, until the next lead
        by_step = {s["i"]: s for s in shown}
        assert by_step[k]["ended"] == "1" and by_step[k]["entries"] >= 1, by_step[k]
        assert by_step[k + 1]["ended"] == "0" and by_step[k + 1]["entries"] == 1, by_step[k + 1]
    finally:
        context.close()
