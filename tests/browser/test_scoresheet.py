"""Score sheet in the browser: a short Bao 2 match scored on a phone and confirmed from two
accounts; entries made offline are kept and sent exactly once when the connection is back.
(No screenshots: the phones have a device pixel ratio of 1, the layout in CSS px the same.)"""

import re

from playwright.sync_api import expect

from clubs.models import Club, Membership, Role, User
from ladder.models import RatedResult
from sheets.models import ScoreSheet, SheetEntry

PASSWORD = "Long-Pass-phrase-77"


def setup_club():
    club = Club.objects.create(name="南通保二俱乐部", slug="nantong")
    users = []
    for i, name in enumerate(["老张", "阿梅", "小陈", "老王"]):
        u = User.objects.create_user(
            username=f"player{i}", password=PASSWORD, display_name=name, email=f"p{i}@example.com"
        )
        Membership.objects.create(club=club, user=u, role=Role.OWNER if i == 0 else Role.MEMBER)
        users.append(u)
    # the owner (老张) is also a player here; make 阿梅 an ordinary member on the other side
    return club, users


def log_in(page, username):
    page.goto("/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("form.form button[type=submit]")
    expect(page).not_to_have_url(re.compile(r"/accounts/login/"))


def start_sheet(page, club, users, minutes="60"):
    page.goto(f"/matches/sheets/new/{club.slug}/")
    page.select_option("#id_variant", "bao2")
    for seat, u in enumerate(users):
        page.select_option(f"#id_seat{seat}_user", str(u.pk))
    page.fill("#id_time_limit_minutes", minutes)
    page.get_by_role("button", name="开始记分").click()
    expect(page.locator("#board")).to_be_visible()
    return ScoreSheet.objects.latest("id")


def tap_finish(page, *names):
    for name in names:
        page.locator(".seat-buttons .seat-button", has_text=name).click()


def test_short_match_on_a_phone_confirmed_by_both_sides(new_page, live_server):
    club, users = setup_club()
    scorer = new_page(locale="zh-CN", mobile=True, scale=1)
    scorer.on("dialog", lambda dialog: dialog.accept())
    log_in(scorer, "player1")  # 阿梅 (blue side, seat 1) keeps the score
    sheet = start_sheet(scorer, club, [users[0], users[1], users[2], users[3]])
    expect(scorer.get_by_test_id("level-0")).to_have_text("3")
    expect(scorer.get_by_test_id("level-1")).to_have_text("3")
    expect(scorer.locator("#next-card")).to_contain_text("3")

    # Deal 1: red 1st and 2nd (老张, 小陈), 小陈 went out on a 保2 of two 2s, 阿梅 kept one 2.
    tap_finish(scorer, "老张", "小陈")
    scorer.get_by_role("button", name="2的张数 +").first.click()
    scorer.get_by_role("button", name="2的张数 +").first.click()
    scorer.locator(".seat-twos", has_text="阿梅").get_by_role("button", name="2的张数 +").click()
    scorer.get_by_role("button", name="记录本副").click()
    # 3 + 2 (保2) + 1 (关2) = 6 levels: red plays 9 next
    expect(scorer.get_by_test_id("level-0")).to_have_text("9")
    expect(scorer.locator("#next-card")).to_contain_text("9")

    # Deal 2 entered wrongly, undone, entered again: blue 1st, red 2nd, blue 3rd.
    tap_finish(scorer, "阿梅", "老张", "老王")
    scorer.get_by_role("button", name="记录本副").click()
    expect(scorer.get_by_test_id("level-1")).to_have_text("5")
    scorer.locator("[data-action=undo]").click()
    expect(scorer.get_by_test_id("level-1")).to_have_text("3")
    tap_finish(scorer, "阿梅", "老王")
    scorer.get_by_role("button", name="记录本副").click()
    expect(scorer.get_by_test_id("level-1")).to_have_text("6")
    expect(scorer.locator("table.record tbody tr")).to_have_count(2)

    # The time runs out: the match ends on time, red 9 (index 6) against blue 6 (index 3).
    scorer.locator("[data-action=time-up]").click()
    expect(scorer.get_by_test_id("final-score")).to_have_text("6:3")
    assert scorer.evaluate("document.documentElement.scrollWidth") <= 390
    big = scorer.get_by_test_id("level-0").evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert big >= 70  # readable across a table

    scorer.locator("[data-action=confirm]").click()
    expect(scorer.locator("#verdicts")).to_contain_text("阿梅")
    sheet.refresh_from_db()
    assert sheet.status == "finished"

    other = new_page(locale="zh-CN", mobile=True, scale=1)
    log_in(other, "player2")  # 小陈, red side
    other.goto(f"/matches/sheets/{sheet.pk}/")
    expect(other.get_by_test_id("final-score")).to_have_text("6:3")
    other.locator("[data-action=confirm]").click()
    expect(other.locator("#status")).to_have_class(re.compile("status-confirmed"))
    sheet.refresh_from_db()
    assert sheet.status == "confirmed"
    rated = RatedResult.objects.get(source="sheet", source_id=str(sheet.pk))
    assert (rated.score0, rated.score1) == (6, 3)


def test_offline_entries_are_sent_exactly_once(new_page, live_server):
    club, users = setup_club()
    page = new_page(locale="zh-CN", mobile=True, scale=1)
    log_in(page, "player0")
    sheet = start_sheet(page, club, users)
    context = page.context

    context.set_offline(True)
    tap_finish(page, "老张", "小陈")
    page.get_by_role("button", name="记录本副").click()
    tap_finish(page, "阿梅", "老王")
    page.get_by_role("button", name="记录本副").click()
    expect(page.locator("#offline")).to_contain_text("2")
    expect(page.locator("table.record tr.pending")).to_have_count(2)
    assert SheetEntry.objects.filter(sheet=sheet).count() == 0
    stored = page.evaluate(f"JSON.parse(localStorage.getItem('scoresheet:{sheet.pk}:queue'))")
    assert len(stored) == 2 and stored[0]["body"]["key"] != stored[1]["body"]["key"]

    # Back online, but the answer to the first request is lost on the way back: the phone
    # keeps the entry and sends it again later with the same key.
    lost = {"count": 0}

    def lose_first_answer(route):
        response = route.fetch()
        if lost["count"] == 0:
            lost["count"] += 1
            route.abort()
        else:
            route.fulfill(response=response)

    page.route("**/api/v1/sheets/*/entries/", lose_first_answer)
    context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    expect(page.locator("table.record tr.pending")).to_have_count(0, timeout=30000)
    expect(page.get_by_test_id("level-0")).to_have_text("6")
    expect(page.get_by_test_id("level-1")).to_have_text("6")
    entries = SheetEntry.objects.filter(sheet=sheet).order_by("seq")
    assert [e.entry["deal"]["finish"] for e in entries] == [[0, 2], [1, 3]]
    assert [str(e.key) for e in entries] == [s["body"]["key"] for s in stored]
    assert lost["count"] == 1
    assert page.evaluate(f"localStorage.getItem('scoresheet:{sheet.pk}:queue')") == "[]"


def test_a_sheet_reloads_without_signal_and_its_entries_are_sent_once(new_page, live_server):
    """The service worker keeps the sheet page on the phone: reloaded with no network at all
    (the worker's own requests fail too), it shows the last state the phone was sent, takes a
    deal, and sends it once when the network is back. Logging out forgets the kept copies."""
    club, users = setup_club()
    page = new_page(locale="zh-CN", mobile=True, scale=1)
    log_in(page, "player0")
    sheet = start_sheet(page, club, users)
    kept = page.evaluate(
        """async () => {
            // up to 60 s: a loaded machine installs the worker slowly; the loop ends as soon
            // as the page is kept
            for (let i = 0; i < 1200; i++) {
                if (navigator.serviceWorker.controller && await caches.match(location.pathname))
                    return true;
                await new Promise((resolve) => setTimeout(resolve, 50));
            }
            return false;
        }"""
    )
    assert kept  # the worker controls the page, and the page is kept
    tap_finish(page, "老张", "小陈")
    page.get_by_role("button", name="记录本副").click()
    expect(page.get_by_test_id("level-0")).to_have_text("6")

    context = page.context
    worker_requests = []

    def no_network_for_the_worker(route):
        if route.request.service_worker is None:
            route.continue_()
        else:
            worker_requests.append(route.request.url)
            route.abort("internetdisconnected")

    context.set_offline(True)
    context.route("**/*", no_network_for_the_worker)
    page.reload()
    # The kept page was saved before deal 1 (level 3); the phone's last state has deal 1.
    expect(page.get_by_test_id("level-0")).to_have_text("6")
    expect(page.locator("table.record tbody tr")).to_have_count(1)
    assert any(f"/matches/sheets/{sheet.pk}/" in url for url in worker_requests)

    tap_finish(page, "阿梅", "老王")
    page.get_by_role("button", name="记录本副").click()
    expect(page.locator("table.record tr.pending")).to_have_count(1)
    assert SheetEntry.objects.filter(sheet=sheet).count() == 1

    context.unroute("**/*", no_network_for_the_worker)
    context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    expect(page.locator("table.record tr.pending")).to_have_count(0, timeout=30000)
    expect(page.get_by_test_id("level-1")).to_have_text("6")
    entries = SheetEntry.objects.filter(sheet=sheet).order_by("seq")
    assert [e.entry["deal"]["finish"] for e in entries] == [[0, 2], [1, 3]]

    page.get_by_role("button", name="退出登录").click()
    expect(page).not_to_have_url(re.compile(rf"/matches/sheets/{sheet.pk}/"))
    assert page.evaluate("caches.keys()") == []
    assert page.evaluate(f"localStorage.getItem('scoresheet:{sheet.pk}:sheet')") is None
