"""A group round robin then its final on a phone (390×844, zh-CN, issue 45): the standings page
shows a table per group within the screen's width; the run page of the played-out round robin
offers 按名次创建下一阶段; its form, every field on screen and a tap target of 44 px or more,
refuses too many qualifiers beside the field, then makes the knockout final, whose run page
links back to the earlier stage. Screenshots in var/screenshots/."""

from datetime import timedelta

from django.utils import timezone
from playwright.sync_api import expect

from clubs.models import Club, Membership, Role, User
from tests.browser import test_tournament_brackets as phone_helpers
from tournaments.models import GameStatus, Round
from tournaments.services import entries as entry_services
from tournaments.services import results as result_services
from tournaments.services import schedule as schedule_services
from tournaments.services import setup as setup_services

PASSWORD = phone_helpers.PASSWORD
SHOTS = phone_helpers.SHOTS


def played_group_round_robin(owner, club, players):
    """A round robin of 8 pairs in 2 groups, played out by the organiser's results (the lower
    seed wins)."""
    starts = timezone.now() + timedelta(minutes=30)
    t = setup_services.create_tournament(
        owner,
        club,
        name="分组循环赛",
        variant="guandan",
        format="round_robin",
        starts_at=starts,
        registration_closes=starts - timedelta(minutes=5),
        online=False,
        checkin_required=False,
        start_when_ready=True,
        groups=2,
    )
    setup_services.publish(owner, t)
    for a, b in zip(players[0::2], players[1::2], strict=True):
        entry_services.register(a, t, partner=b)
        entry_services.answer_invitation(b, t, accept=True)
    seeds = {e.pk: e.seed for e in t.entries.all()}
    now = starts
    schedule_services.tick(now)
    for number in (1, 2, 3):
        for game in Round.objects.get(tournament=t, number=number).games.exclude(
            status=GameStatus.BYE
        ):
            first_wins = seeds[game.side0[0]] < seeds[game.side1[0]]
            scores = (12, 3 + game.number) if first_wins else (3 + game.number, 12)
            result_services.set_result(owner, game, *scores, now=now)
        now += timedelta(minutes=1)
        schedule_services.tick(now)
    t.refresh_from_db()
    assert t.status == "finished"
    return t


def test_group_standings_and_the_next_stage_form_on_a_phone(new_page, live_server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    owner = User.objects.create_user("zhubanfang", password=PASSWORD, display_name="主办方")
    club = Club.objects.create(name="扬州掼蛋会", slug="yangzhou")
    Membership.objects.create(club=club, user=owner, role=Role.OWNER)
    players = [
        User.objects.create_user(f"s{i}", password=PASSWORD, display_name=f"选手{i}")
        for i in range(16)
    ]
    Membership.objects.bulk_create(Membership(club=club, user=u, role=Role.MEMBER) for u in players)
    t = played_group_round_robin(owner, club, players)

    phone = new_page(locale="zh-CN", mobile=True)
    phone_helpers.log_in(phone, "zhubanfang")
    phone.goto(f"/tournaments/{t.pk}/standings/")
    expect(phone.locator("#groups-title")).to_have_text("小组排名")
    expect(phone.locator("#group-A")).to_have_text("A 组")
    for name in ("A", "B"):
        table = phone.locator(f"table[data-group={name}]")
        expect(table.locator("tbody tr")).to_have_count(4)
        phone_helpers.fits(phone, table)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.screenshot(path=str(SHOTS / "issue45-group-standings-phone.png"), full_page=True)

    phone.goto(f"/tournaments/{t.pk}/run/")
    link = phone.locator("#make-next-stage a")
    expect(link).to_have_text("按名次创建下一阶段")
    link.scroll_into_view_if_needed()
    assert phone_helpers.fits(phone, link)["height"] >= 44
    link.click()
    form = phone.locator("#next-stage-form")
    expect(form).to_be_visible()
    expect(phone.locator("label[for=ns-qualifiers]")).to_have_text("每组出线名额")
    for field in ("#ns-format", "#ns-qualifiers", "#ns-rounds", "#ns-name", "#make-stage"):
        box = phone_helpers.fits(phone, phone.locator(field))
        assert box["height"] >= 44, field
    # everything needed to act is on the first screen
    assert phone.locator("#make-stage").bounding_box()["y"] + 44 <= 844
    phone.fill("#ns-qualifiers", "9")
    phone.click("#make-stage")
    error = phone.locator(".field.has-error .errorlist")
    expect(error).to_contain_text("每组最多只有 4 个参赛方可以出线")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.screenshot(path=str(SHOTS / "issue45-next-stage-refused-phone.png"))
    assert not t.next_stages.exists()

    phone.select_option("#ns-format", "elimination")
    phone.fill("#ns-qualifiers", "2")
    phone.screenshot(path=str(SHOTS / "issue45-next-stage-form-phone.png"))
    phone.click("#make-stage")
    stage = t.next_stages.get()
    expect(phone).to_have_url(f"{live_server.url}/tournaments/{stage.pk}/run/")
    back = phone.locator("#previous-stage")
    expect(back).to_contain_text("上一阶段")
    phone_helpers.fits(phone, back)
    assert stage.entries.count() == 4
    phone.screenshot(path=str(SHOTS / "issue45-final-stage-run-phone.png"))
