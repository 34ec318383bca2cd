"""A double elimination run by the national rules on a phone (390×844, zh-CN, issue 45): the
organiser sets the scoring in the settings form, starts round 1 on the run page, enters a Guandan result by
level names and sees its 级分; the bracket page lists the winners' and losers' brackets and
the final, with who goes where while undecided. Screenshots in var/screenshots/."""

from datetime import timedelta
from pathlib import Path

from django.utils import timezone
from playwright.sync_api import expect

from clubs.models import Club, Membership, Role, User
from tournaments.models import Game, GameStatus, Round
from tournaments.services import entries as entry_services
from tournaments.services import results as result_services
from tournaments.services import schedule as schedule_services
from tournaments.services import setup as setup_services

PASSWORD = "Long-Pass-phrase-77"
SHOTS = Path("var/screenshots")


def log_in(page, username):
    page.goto("/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.locator("main form button[type=submit]").click()


def fits(page, locator):
    """The element is inside the 390 px viewport's width and a tap target of 44 px or more."""
    box = locator.bounding_box()
    assert box is not None
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    return box


def offline_pair_event(owner_names, club_names, prefix, count, name, format):
    """A club (``club_names``: name, slug) whose owner (``owner_names``: username, display
    name) has published an offline Guandan event ``name`` of ``format`` starting in 30
    minutes, without check-in, with ``count`` members (usernames ``prefix`` + index)
    registered as pairs of neighbours: (owner, club, players, tournament)."""
    owner = User.objects.create_user(owner_names[0], password=PASSWORD, display_name=owner_names[1])
    club = Club.objects.create(name=club_names[0], slug=club_names[1])
    Membership.objects.create(club=club, user=owner, role=Role.OWNER)
    players = [
        User.objects.create_user(f"{prefix}{i}", password=PASSWORD, display_name=f"选手{i}")
        for i in range(count)
    ]
    Membership.objects.bulk_create(Membership(club=club, user=u, role=Role.MEMBER) for u in players)
    starts = timezone.now() + timedelta(minutes=30)
    t = setup_services.create_tournament(
        owner,
        club,
        name=name,
        variant="guandan",
        format=format,
        starts_at=starts,
        registration_closes=starts - timedelta(minutes=5),
        online=False,
        checkin_required=False,
    )
    setup_services.publish(owner, t)
    for a, b in zip(players[0::2], players[1::2], strict=True):
        entry_services.register(a, t, partner=b)
        entry_services.answer_invitation(b, t, accept=True)
    return owner, club, players, t


def choose_setting(phone, field, label, value):
    """On the settings page: open the folded section holding the field ``field``, check its
    label reads ``label`` and that it is tall enough to tap, and choose ``value``. Returns
    the section and the field's locator."""
    section = phone.locator("details", has=phone.locator(f"#id_{field}"))
    section.locator("summary").click()
    choice = phone.locator(f"#id_{field}")
    choice.scroll_into_view_if_needed()
    expect(phone.locator(f"label[for=id_{field}]")).to_have_text(label)
    assert fits(phone, choice)["height"] >= 44
    phone.select_option(f"#id_{field}", value)
    return section, choice


def test_a_double_elimination_by_the_national_rules_on_a_phone(new_page, live_server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    owner, club, players, t = offline_pair_event(
        ("laowang", "老王"), ("淮安掼蛋会", "huaian"), "p", 12, "双败淘汰赛", "double_elim"
    )

    phone = new_page(locale="zh-CN", mobile=True)
    log_in(phone, "laowang")
    # the scoring is a setting like the others (计分方式, under 轮次与排名), before round 1
    phone.goto(f"/tournaments/{t.pk}/edit/")
    section, choice = choose_setting(phone, "scoring", "计分方式", "national")
    help_text = section.locator(".field", has=choice).locator(".helptext")
    expect(help_text).to_contain_text("第十三条")
    assert fits(phone, help_text)["width"] <= 390
    phone.screenshot(path=str(SHOTS / "issue45-scoring-choice-phone.png"))
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    save = phone.get_by_role("button", name="保存")
    save.scroll_into_view_if_needed()
    assert fits(phone, save)["height"] >= 44
    save.click()
    expect(phone.locator(".messages")).to_contain_text("已保存")
    expect(phone.locator("#scoring-now")).to_contain_text("国家规则（场分与级分）")
    assert "双败淘汰赛" in phone.locator("main").inner_text()

    phone.get_by_role("button", name="立即开始下一轮").click()
    expect(phone.locator(".messages")).to_contain_text("已完成")
    r1 = Round.objects.get(tournament=t, number=1)
    played = list(r1.games.exclude(status=GameStatus.BYE).order_by("number"))
    assert len(played) == 2 and r1.games.filter(status=GameStatus.BYE).count() == 2
    first = played[0]
    # the first game's result by level names: side 1 passed A, side 0 was at 10
    phone.select_option(f"#s0-{first.pk}", label="10")
    phone.select_option(f"#s1-{first.pk}", label="A")
    phone.select_option(f"#w-{first.pk}", "1")
    form = phone.locator("form", has=phone.locator(f"#s0-{first.pk}"))
    save = form.get_by_role("button", name="保存")
    save.scroll_into_view_if_needed()
    assert fits(phone, save)["height"] >= 44
    save.click()
    expect(phone.locator(".messages")).to_contain_text("已完成")
    first.refresh_from_db()
    assert (first.score0, first.score1, first.winner) == (8, 12, 1)
    assert (first.grade0, first.grade1) == (8, 18)  # 10 against 过A on the 26-point table
    phone.screenshot(path=str(SHOTS / "issue45-double-elim-run-phone.png"))
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390

    result_services.set_result(owner, played[1], 12, 3, winner=0)
    schedule_services.tick(t.starts_at + timedelta(minutes=1))
    assert Round.objects.get(tournament=t, number=2).status == "playing"

    phone.goto(f"/tournaments/{t.pk}/bracket/")
    main = phone.locator("main")
    for title in ["胜区", "负区", "决赛", "胜区第1轮", "负区第1轮"]:
        expect(main).to_contain_text(title)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    card = phone.locator(f'.match[data-game="{first.pk}"]')
    expect(card.locator(".unit.winner")).to_contain_text("A · 18 级分")
    fits(phone, card)
    # a game still waiting on results names where its sides come from
    expect(main.locator(".unit.unknown", has_text="胜者").first).to_be_visible()
    expect(main.locator(".unit.unknown", has_text="负者").first).to_be_visible()
    # the first round's byes carried on: a bye, named as one
    expect(main.locator(".unit.unknown", has_text="轮空").first).to_be_visible()
    size = phone.evaluate(
        "parseFloat(getComputedStyle(document.querySelector('.double-bracket .unit')).fontSize)"
    )
    assert size >= 16
    winners_round_2 = phone.locator(".winners .stage").nth(1)
    names = winners_round_2.locator(".unit .name").all_inner_texts()
    assert any("选手" in n for n in names)
    phone.screenshot(path=str(SHOTS / "issue45-double-bracket-phone.png"), full_page=True)
    assert Game.objects.filter(round__tournament=t).count() >= 4
