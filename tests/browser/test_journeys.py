"""Players and organisers on a phone (390×844, zh-CN), issue 22: the home page shows a started
round's table; the creation form fails, keeps the values and is corrected; the run page warns
before pairing withdraws entries not checked in; the standings CSV downloads and parses; no
list page is wider than the viewport and every control is at least 44 px tall; an invitation
link is copied and its QR code shown; a partner accepts a pair's invitation from its notice. Screenshots go to var/screenshots/."""

import csv
import io
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path

from django.utils import timezone
from playwright.sync_api import expect

from clubs import services as club_services
from clubs.models import Club, Membership, Role, User
from ladder.apply import apply_result
from ladder.models import Ladder
from ladder.services import record_result
from outbox.models import OutboxMessage
from tournaments.models import EntryStatus, Tournament
from tournaments.services import entries as entry_services
from tournaments.services import results as result_services
from tournaments.services import rounds as round_services
from tournaments.services import setup as setup_services

PASSWORD = "Long-Pass-phrase-77"
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
WIDTH = 390

#: Elements wider than the viewport (outside a container that scrolls on purpose), and
#: controls shorter than 44 px, of the page as laid out.
MEASURE = """() => {
  const width = document.documentElement.clientWidth;
  const scrolls = (el) => {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === 'auto' || o === 'scroll') return true;
    }
    return false;
  };
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden';
  };
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
    (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ').join('.') : '');
  const wide = [...document.body.querySelectorAll('*')]
    .filter((el) => visible(el) && !scrolls(el))
    .filter((el) => { const r = el.getBoundingClientRect(); return r.right > width + 1; })
    .map(name);
  const small = [...document.querySelectorAll(
      'main button, main a.button, main select, main input:not([type=hidden]):not([type=checkbox]):not([type=radio]), main summary, main label.check')]
    .filter(visible)
    .filter((el) => el.getBoundingClientRect().height < 44)
    .map((el) => name(el) + ' ' + Math.round(el.getBoundingClientRect().height));
  return {scrollWidth: document.documentElement.scrollWidth, width, wide, small};
}"""


def fits(page, shot):
    """The page is no wider than the phone and its controls are big enough to tap."""
    page.screenshot(path=str(SHOTS / f"{shot}.png"), full_page=True)
    measured = page.evaluate(MEASURE)
    assert measured["width"] == WIDTH
    assert measured["scrollWidth"] <= WIDTH, (shot, measured)
    assert measured["wide"] == [], (shot, measured["wide"][:10])
    assert measured["small"] == [], (shot, measured["small"][:10])


def log_in(page, username):
    page.goto("/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.locator("main form button[type=submit]").click()


def setup_club():
    owner = User.objects.create_user(
        "laowang", password=PASSWORD, display_name="老王", email="laowang@example.com"
    )
    club = Club.objects.create(name="南平保二会", slug="nanping")
    Membership.objects.create(club=club, user=owner, role=Role.OWNER)
    players = [
        User.objects.create_user(
            f"p{i}", password=PASSWORD, display_name=f"选手{i}号", email=f"p{i}@example.com"
        )
        for i in range(8)
    ]
    Membership.objects.bulk_create(Membership(club=club, user=u, role=Role.MEMBER) for u in players)
    return owner, club, players


def make_tournament(owner, club, players, *, name, online, starts_in, register=4):
    t = setup_services.create_tournament(
        owner,
        club,
        name=name,
        variant="bao2",
        format="swiss",
        unit_kind="pair",
        rounds_planned=3,
        online=online,
        starts_at=timezone.now() + starts_in,
        checkin_minutes=30,
    )
    setup_services.publish(owner, t, now=timezone.now() - timedelta(days=1))
    for a, b in zip(players[0:register:2], players[1:register:2], strict=True):
        entry_services.register(owner, t, player=a, partner=b)
    return Tournament.objects.get(pk=t.pk)


def test_phone_journeys(new_page, live_server, no_deadline_tasks):
    SHOTS.mkdir(parents=True, exist_ok=True)
    owner, club, players = setup_club()

    # A started online round: the player finds the table on the home page.
    live = make_tournament(
        owner, club, players, name="周六线上赛", online=True, starts_in=timedelta(hours=3)
    )
    # opening tables broadcasts through async_to_sync: not in the thread of Playwright's loop
    with ThreadPoolExecutor(1) as pool:
        rnd = pool.submit(round_services.start_round, owner, live).result()
    game = rnd.games.get()
    phone = new_page(locale="zh-CN", mobile=True)
    log_in(phone, "p0")
    phone.goto("/")
    mine = phone.locator(".my-games")
    expect(mine).to_contain_text("周六线上赛")
    expect(mine).to_contain_text("选手2号")  # the opponents are named
    button = mine.get_by_role("link", name="去您的牌桌")
    expect(button).to_have_attribute("href", f"/matches/tables/{game.table_id}/")
    assert button.bounding_box()["height"] >= 44
    fits(phone, "home-my-games")

    # The creation form on a phone: a failed submit keeps the values, errors at the top.
    admin = new_page(locale="zh-CN", mobile=True)
    log_in(admin, "laowang")
    admin.goto(f"/tournaments/clubs/{club.slug}/new/")
    fits(admin, "tournament-form")
    admin.fill("#id_name", "周日双人赛")
    admin.select_option("#id_variant", "bao2")
    admin.fill("#id_rounds_planned", "4")
    admin.locator("summary", has_text="对局").click()
    admin.check("#id_colour_twos")
    admin.get_by_role("button", name="保存").click()
    summary = admin.locator("#form-errors")
    expect(summary).to_be_visible()
    assert summary.bounding_box()["y"] < admin.locator("#id_name").bounding_box()["y"]
    expect(admin.locator("#id_name")).to_have_value("周日双人赛")
    expect(admin.locator("#id_rounds_planned")).to_have_value("4")
    expect(admin.locator("#id_colour_twos")).to_be_checked()
    expect(admin.locator("#id_variant")).to_have_value("bao2")
    expect(admin.locator("#id_starts_at").locator("..")).to_contain_text("请填写开始时间")
    fits(admin, "tournament-form-errors")
    summary.get_by_role("link").first.click()
    starts = timezone.localtime() + timedelta(days=2)
    admin.fill("#id_starts_at", starts.strftime("%Y-%m-%dT%H:%M"))
    admin.get_by_role("button", name="保存").click()
    expect(admin.locator(".messages")).to_contain_text("比赛已创建为草稿")
    created = Tournament.objects.get(name="周日双人赛")
    assert created.match_options == {"colour_twos": True} and created.rounds_planned == 4
    danger = admin.locator(".danger-zone button.danger")
    publish = admin.get_by_role("button", name="发布并开放报名")
    assert danger.bounding_box()["y"] - publish.bounding_box()["y"] > 200  # far apart
    fits(admin, "tournament-run-draft")

    # Check-in is open and one pair has not checked in: the run page warns before pairing.
    soon = make_tournament(
        owner,
        club,
        players,
        name="周日下午赛",
        online=False,
        starts_in=timedelta(minutes=10),
        register=6,
    )
    for player in (players[0], players[2]):
        entry_services.check_in(player, soon)
    admin.goto(f"/tournaments/{soon.pk}/run/")
    warning = admin.locator("#checkin-warning")
    expect(warning).to_contain_text("选手4号")
    fits(admin, "tournament-run-checkin-warning")
    admin.get_by_role("button", name="编排下一轮").click()  # the box is not ticked: refused
    assert not soon.rounds.exists()
    admin.locator("form[action$='/do/pair/'] input[name=confirm_withdrawals]").check()
    admin.get_by_role("button", name="编排下一轮").click()
    expect(admin.locator("main")).to_contain_text("调整编排")
    assert soon.entries.filter(status="withdrawn").count() == 1
    fits(admin, "tournament-run-paired")
    round_services.start_round(owner, soon)
    result_services.set_result(owner, soon.rounds.get().games.get(), 13, 7, None)

    # Standings on the phone, then the CSV download parsed.
    admin.goto(f"/tournaments/{soon.pk}/standings/")
    fits(admin, "tournament-standings")
    with admin.expect_download() as info:
        admin.get_by_role("link", name="排名（CSV）").click()
    raw = Path(info.value.path()).read_bytes()
    assert raw.startswith("\ufeff".encode())
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))
    assert rows[0][:2] == ["名次", "参赛方"] and len(rows) == 4
    assert rows[1][1] == "选手0号 / 选手1号" and rows[1][0] == "1"
    # ... and the printable page: on paper, no site header and no buttons
    admin.get_by_role("link", name="打印版（A4）").click()
    expect(admin.locator("h1")).to_have_text("周日下午赛")
    fits(admin, "tournament-print")
    admin.emulate_media(media="print")
    assert admin.locator(".site-header").is_hidden() and admin.locator("[data-print]").is_hidden()
    admin.emulate_media(media="screen")

    # The other list pages, as a player and as the organiser.
    a, b, c, d = players[:4]
    for i in range(3):
        apply_result(
            record_result(
                source="live",
                source_id=f"m{i}",
                variant="bao2",
                sides=[[a.pk, b.pk], [c.pk, d.pk]],
                scores=(10 + i, 3),
                ended_at=timezone.now() - timedelta(hours=3 - i),
                club_id=club.pk,
                enqueue=False,
            )
        )
    ladder = Ladder.objects.filter(club=club).first() or Ladder.objects.first()
    pages = {
        "tournament-list": f"/tournaments/clubs/{club.slug}/",
        "tournament-detail": f"/tournaments/{live.pk}/",
        "tournament-round": f"/tournaments/{live.pk}/rounds/1/",
        "tournament-run-live": f"/tournaments/{live.pk}/run/",
        "ladder-list": "/ladder/",
        "ladder-leaderboard": f"/ladder/{ladder.pk}/",
        "ladder-player": f"/ladder/{ladder.pk}/players/{a.pk}/",
        "tournament-entry": f"/tournaments/{live.pk}/entries/{live.entries.first().pk}/",
        "club-list": "/clubs/",
        "club-detail": f"/clubs/{club.slug}/",
        "club-manage": f"/clubs/{club.slug}/manage/",
        "club-lobby": f"/matches/clubs/{club.slug}/tables/",
        "club-sheets": f"/matches/sheets/club/{club.slug}/",
    }
    invitation = club_services.create_invitation(owner, club, expires_in_days=3, max_uses=5)
    for shot, url in pages.items():
        admin.goto(url)
        fits(admin, shot)

    # An invitation link is copied with one tap, and its QR code opens on the phone.
    admin.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    admin.goto(f"/clubs/{club.slug}/manage/")
    admin.get_by_role("button", name="复制").click()
    expect(admin.get_by_role("button", name="已复制")).to_be_visible()
    copied = admin.evaluate("navigator.clipboard.readText()")
    assert copied.endswith(f"/invite/{invitation.token}/")
    admin.locator("details.qr summary").click()
    expect(admin.locator("details.qr svg[role=img]")).to_be_visible()
    fits(admin, "club-manage-invitation-qr")


def test_the_partner_accepts_from_the_notice(new_page, live_server, settings):
    """A player registers a pair on the phone; the partner follows the invitation (on the
    home page, the same link as the e-mail's) and accepts: the pair is registered."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    settings.SITE_URL = live_server.url
    owner, club, players = setup_club()
    t = setup_services.create_tournament(
        owner,
        club,
        name="周三双人赛",
        variant="bao2",
        format="swiss",
        unit_kind="pair",
        rounds_planned=3,
        online=False,
        starts_at=timezone.now() + timedelta(days=2),
    )
    setup_services.publish(owner, t)
    phone = new_page(locale="zh-CN", mobile=True)
    log_in(phone, "p0")
    phone.goto(f"/tournaments/{t.pk}/")
    phone.select_option("#partner", str(players[1].pk))
    phone.get_by_role("button", name="报名").click()
    mine = phone.locator("section[aria-labelledby=my-entry]")
    expect(mine).to_contain_text("等待搭档确认")
    expect(mine).to_contain_text("等待 选手1号 同意")
    fits(phone, "tournament-partner-waiting")

    mail = OutboxMessage.objects.get(key__contains=":invited:user:")
    assert mail.to == players[1].email
    link = next(line for line in mail.body.splitlines() if line.startswith(live_server.url))
    partner = new_page(locale="zh-CN", mobile=True)
    log_in(partner, "p1")
    partner.goto("/")
    item = partner.locator(".my-games .game-invitation")
    expect(item).to_contain_text("选手0号 邀请您做搭档")
    item.get_by_role("link", name="回复邀请").click()
    expect(partner.locator("#invitation")).to_contain_text("选手0号 报名时选了您做搭档")
    assert partner.url == link
    fits(partner, "tournament-partner-invitation")
    partner.get_by_role("button", name="同意").click()
    expect(partner.locator(".messages")).to_contain_text("已完成")
    expect(partner.locator("section[aria-labelledby=my-entry]")).to_contain_text("已报名")
    assert t.entries.get().status == EntryStatus.REGISTERED
    phone.reload()
    expect(phone.locator(".notices")).to_contain_text("选手1号 已同意")
