"""A team event between two clubs on a phone (390×844, zh-CN, issue 45 item 3): the host club is
members-only, yet the captain of an invited club finds the event, follows 队伍报名 from its page
to the team form, is refused an empty team name beside the field, then enters the team; after
the organiser's results the standings page shows the team standings above the entries, within
the screen's width. Every control a tap target of 44 px or more; nothing wider than the
viewport. Screenshots in var/screenshots/."""

from datetime import timedelta

from django.utils import timezone
from playwright.sync_api import expect

from clubs.models import Club, Membership, Role, User, Visibility
from ladder.models import Ladder, Rating
from tests.browser import test_tournament_brackets as phone_helpers
from tournaments.models import ClubTeam, GameStatus, Round
from tournaments.services import eligibility
from tournaments.services import results as result_services
from tournaments.services import rounds as round_services
from tournaments.services import setup as setup_services
from tournaments.services import teams as team_services

PASSWORD = phone_helpers.PASSWORD
SHOTS = phone_helpers.SHOTS


def _club(name, slug, owner, people, visibility=Visibility.PUBLIC):
    club = Club.objects.create(name=name, slug=slug, visibility=visibility)
    Membership.objects.create(club=club, user=owner, role=Role.OWNER)
    Membership.objects.bulk_create(Membership(club=club, user=u, role=Role.MEMBER) for u in people)
    return club


def _people(prefix, names):
    return [
        User.objects.create_user(f"{prefix}{i}", password=PASSWORD, display_name=name)
        for i, name in enumerate(names)
    ]


def test_an_invited_clubs_captain_enters_a_team_and_reads_the_team_standings(new_page, live_server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    owner = User.objects.create_user("nantong", password=PASSWORD, display_name="南通主办")
    hosts = _people("nt", ["张一", "张二", "张三", "张四"])
    host = _club("南通掼蛋会", "nt-guandan", owner, hosts, Visibility.MEMBERS)
    captain = User.objects.create_user("wuxi", password=PASSWORD, display_name="无锡队长")
    guests = _people("wx", ["王一", "王二", "王三"])
    guest = _club("无锡掼蛋会", "wx-guandan", captain, guests)
    ladder = Ladder.objects.create(club=None, variant="guandan")
    for person in [*hosts, captain, *guests]:
        Rating.objects.create(ladder=ladder, user=person, rating=1600, matches=12)
    starts = timezone.now() + timedelta(minutes=30)
    t = setup_services.create_tournament(
        owner,
        host,
        name="苏南掼蛋团体赛",
        variant="guandan",
        format="round_robin",
        starts_at=starts,
        registration_closes=starts - timedelta(minutes=5),
        online=False,
        checkin_required=False,
        scoring="national",
        team_size=2,
        min_rating=1500,
        min_rated_matches=10,
    )
    setup_services.publish(owner, t)
    eligibility.invite_club(owner, t, guest)
    team_services.enter_team(owner, t, club=host, name="南通队", units=[hosts[:2], hosts[2:]])

    phone = new_page(locale="zh-CN", mobile=True)
    phone_helpers.log_in(phone, "wuxi")
    phone.goto(f"/tournaments/{t.pk}/")
    expect(phone.locator("h1")).to_have_text("苏南掼蛋团体赛")
    enter = phone.locator("#team-event a")
    expect(enter).to_have_text("队伍报名")
    assert phone_helpers.fits(phone, enter)["height"] >= 44
    enter.click()
    form = phone.locator("#team-form")
    expect(form).to_be_visible()
    picks = [captain, guests[0], guests[1], guests[2]]
    for i, person in enumerate(picks):
        phone.select_option(f"#unit{i // 2 + 1}_{i % 2 + 1}", str(person.pk))
    for field in ("#team-name", "#unit1_1", "#unit1_2", "#unit2_1", "#unit2_2"):
        assert phone_helpers.fits(phone, phone.locator(field))["height"] >= 44, field
    button = phone.locator("#enter-team-button")
    assert phone_helpers.fits(phone, button)["height"] >= 44
    # everything needed to enter the team is on the first screen
    assert button.bounding_box()["y"] + 44 <= 844
    button.click()  # no name yet
    error = phone.locator(".field.has-error .errorlist")
    expect(error).to_contain_text("请为队伍取 1 到 60 个字的队名")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.screenshot(path=str(SHOTS / "issue45-team-refused-phone.png"))
    phone.fill("#team-name", "无锡队")
    phone.screenshot(path=str(SHOTS / "issue45-team-form-phone.png"))
    phone.locator("#enter-team-button").click()
    expect(phone.locator("#teams")).to_contain_text("无锡队")
    team = ClubTeam.objects.get(tournament=t, name="无锡队")
    assert team.club == guest and team.captain == captain
    assert {e.status for e in team.entries.all()} == {"registered"}
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390

    # the organiser pairs and enters the results: 南通 wins each game 8:2 (levels)
    round_services.start_round(owner, t, starts)
    for game in Round.objects.get(tournament=t, number=1).games.exclude(status=GameStatus.BYE):
        home = t.entries.get(pk=game.side0[0]).club_team.name == "南通队"
        result_services.set_result(owner, game, *((8, 2) if home else (2, 8)), now=starts)

    phone.goto(f"/tournaments/{t.pk}/standings/")
    expect(phone.locator("#team-standings-title")).to_have_text("团体成绩")
    table = phone.locator("table.team-standings")
    expect(table.locator("tbody tr")).to_have_count(2)
    phone_helpers.fits(phone, table)
    expect(table).to_contain_text("南通队")
    expect(table).to_contain_text("无锡队")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    csv_link = phone.locator("#team-standings .downloads a")
    assert phone_helpers.fits(phone, csv_link)["height"] >= 44
    phone.screenshot(path=str(SHOTS / "issue45-team-standings-phone.png"), full_page=True)


def test_a_captain_changes_the_roster_and_an_organiser_enters_a_team_for_a_captain(
    new_page, live_server
):
    """On a phone: the captain of an invited club's team replaces a member (refused first
    with two problems at once, beside the fields), the change shows in the team's history;
    the organiser enters the host club's team naming its captain. Everything to act on the
    first screen, taps of 44 px or more, nothing wider than the viewport."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    owner = User.objects.create_user("huaian", password=PASSWORD, display_name="淮安主办")
    hosts = _people("ha", ["刘一", "刘二", "刘三", "刘四"])
    host = _club("淮安掼蛋会", "ha-guandan", owner, hosts)
    captain = User.objects.create_user("yz", password=PASSWORD, display_name="扬州队长")
    guests = _people("yz", ["陈一", "陈二", "陈三", "陈四"])
    guest = _club("扬州掼蛋会", "yz-guandan", captain, guests)
    ladder = Ladder.objects.create(club=None, variant="guandan")
    for person in [*hosts, captain, *guests]:
        Rating.objects.create(ladder=ladder, user=person, rating=1600, matches=12)
    starts = timezone.now() + timedelta(hours=2)
    t = setup_services.create_tournament(
        owner,
        host,
        name="苏北掼蛋团体赛",
        variant="guandan",
        format="round_robin",
        starts_at=starts,
        registration_closes=starts - timedelta(minutes=5),
        online=False,
        checkin_required=False,
        scoring="national",
        team_size=2,
    )
    setup_services.publish(owner, t)
    eligibility.invite_club(owner, t, guest)
    team = team_services.enter_team(
        captain, t, club=guest, name="扬州队", units=[[captain, guests[0]], guests[1:3]]
    )

    phone = new_page(locale="zh-CN", mobile=True)
    phone_helpers.log_in(phone, "yz")
    phone.goto(f"/tournaments/{t.pk}/teams/")
    change = phone.locator(f"#my-roster-{team.pk}")
    expect(change).to_have_text("更改队员名单")
    box = phone_helpers.fits(phone, change)
    assert box["height"] >= 44 and box["y"] + box["height"] <= 844
    change.click()
    expect(phone.locator("#roster-title")).to_contain_text("扬州队")
    # pair 1 short of a player and the captain named twice: both refused at once
    phone.select_option("#unit1_2", "")
    phone.select_option("#unit2_2", str(captain.pk))
    for field in ("#unit1_1", "#unit1_2", "#unit2_1", "#unit2_2"):
        assert phone_helpers.fits(phone, phone.locator(field))["height"] >= 44, field
    button = phone.locator("#change-roster-button")
    box = phone_helpers.fits(phone, button)
    assert box["height"] >= 44 and box["y"] + box["height"] <= 844
    button.click()
    errors = phone.locator("#roster-errors")
    expect(errors).to_contain_text("有选手被选了两次")
    expect(errors).to_contain_text("每队 2 对：请选好每对的两位选手")
    expect(errors.locator("li")).to_have_count(2)
    # the problems beside the pairs, the button still on the first screen
    box = phone_helpers.fits(phone, phone.locator("#change-roster-button"))
    assert box["y"] + box["height"] <= 844
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.screenshot(path=str(SHOTS / "issue45-team-roster-refused-phone.png"))
    assert {u for e in team.entries.all() for u in e.user_ids} == {
        captain.pk,
        guests[0].pk,
        guests[1].pk,
        guests[2].pk,
    }
    # 陈三 (pair 2) is replaced by 陈四
    phone.select_option("#unit1_2", str(guests[0].pk))
    phone.select_option("#unit2_1", str(guests[1].pk))
    phone.select_option("#unit2_2", str(guests[3].pk))
    phone.screenshot(path=str(SHOTS / "issue45-team-roster-form-phone.png"))
    phone.locator("#change-roster-button").click()
    expect(phone.locator(".messages, .message").first).to_contain_text("扬州队的队员名单已更改")
    expect(phone.locator(f"#team-{team.pk}")).to_contain_text("陈二 / 陈四")
    phone.goto(f"/tournaments/{t.pk}/teams/{team.pk}/roster/")
    history = phone.locator("#history li")
    expect(history).to_have_count(1)
    expect(history).to_contain_text("扬州队长 更改了扬州队的队员名单：陈二 / 陈三 改为 陈二 / 陈四")
    phone_helpers.fits(phone, history)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.screenshot(path=str(SHOTS / "issue45-team-roster-history-phone.png"), full_page=True)

    # the organiser enters the host club's team on its captain's (刘一's) behalf
    organiser = new_page(locale="zh-CN", mobile=True)
    phone_helpers.log_in(organiser, "huaian")
    # from the event page's 队伍报名 (teams/#enter-team), choosing the club keeps the form
    # at the top of the screen
    organiser.goto(f"/tournaments/{t.pk}/teams/#enter-team")
    organiser.select_option("#team-club-pick", str(host.pk))
    organiser.locator("#team-club-form button").click()
    organiser.wait_for_url(f"**/teams/?club={host.pk}#enter-team")
    pick = organiser.locator("#team-captain")
    assert pick.bounding_box()["y"] >= 0
    organiser.select_option("#team-captain", str(hosts[0].pk))
    organiser.fill("#team-name", "淮安队")
    for i, person in enumerate(hosts):
        organiser.select_option(f"#unit{i // 2 + 1}_{i % 2 + 1}", str(person.pk))
    for field in (pick, organiser.locator("#team-name"), organiser.locator("#unit2_2")):
        assert phone_helpers.fits(organiser, field)["height"] >= 44
    button = organiser.locator("#enter-team-button")
    box = phone_helpers.fits(organiser, button)
    assert box["height"] >= 44 and box["y"] + box["height"] <= 844
    assert organiser.evaluate("document.documentElement.scrollWidth") <= 390
    organiser.screenshot(path=str(SHOTS / "issue45-team-on-behalf-phone.png"))
    button.click()
    expect(organiser.locator("#teams")).to_contain_text("淮安队")
    entered = ClubTeam.objects.get(tournament=t, name="淮安队")
    assert entered.captain == hosts[0] and entered.club == host
