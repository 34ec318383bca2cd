"""The lobby's "open a table" form on a phone (issue 41, part 6): the game choice is a row of big
buttons, every yes/no option is a 44 px tap target (the whole row, box and words), and 计分 says
what it means (计入天梯). A screenshot goes to var/screenshots/lobby-form-zh.png."""

from pathlib import Path

from django.test import Client
from playwright.sync_api import expect

from clubs.models import Club, Membership, Role, User
from matches.models import Table

PASSWORD = "Long-Pass-phrase-77"
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
WIDTH = 390
TAP = 44


def _club() -> Club:
    owner = User.objects.create_user("laowang", password=PASSWORD, display_name="老王")
    club = Club.objects.create(name="南平保二会", slug="nanping")
    Membership.objects.create(club=club, user=owner, role=Role.OWNER)
    return club


def _log_in(page, username: str) -> None:
    page.goto("/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_url("**/")


def _tall_enough(locator) -> list[str]:
    """The texts and sizes of the elements of ``locator`` shorter or narrower than 44 px."""
    small = []
    for i in range(locator.count()):
        box = locator.nth(i).bounding_box()
        if box["height"] < TAP or box["width"] < TAP:
            small.append(f"{locator.nth(i).inner_text()!r} {box['width']:.0f}x{box['height']:.0f}")
    return small


def test_the_lobby_form_has_big_targets_and_says_what_rated_means(
    new_page, live_server, no_deadline_tasks
):
    SHOTS.mkdir(parents=True, exist_ok=True)
    club = _club()
    phone = new_page(locale="zh-CN", mobile=True)
    _log_in(phone, "laowang")
    phone.goto(f"/matches/clubs/{club.slug}/tables/")

    # the game choice: four buttons of at least 44 x 44 px, the chosen one marked
    games = phone.locator("nav.game-choice a.segment")
    expect(games).to_have_count(4)
    expect(games).to_have_text(["保2", "掼蛋", "南平红二", "两人双扣"])
    assert _tall_enough(games) == []
    expect(phone.locator("nav.game-choice [aria-current=page]")).to_have_text("保2")

    # every checkbox sits in a label row of at least 44 px that toggles it when tapped
    form = phone.locator("form.lobby-form")
    rows = form.locator("label.check")
    boxes = form.locator("input[type=checkbox]")
    assert boxes.count() >= 4 and rows.count() == boxes.count()
    assert _tall_enough(rows) == []
    for i in range(rows.count()):
        assert rows.nth(i).locator("input[type=checkbox]").count() == 1

    # 计分 is explained as 计入天梯, tied to its checkbox for screen readers
    rated = phone.locator("#id_rated")
    rated_row = form.locator("label.check", has=rated)
    expect(rated_row).to_contain_text("计分")
    help_id = rated.get_attribute("aria-describedby")
    help_text = form.locator(f"#{help_id}")
    expect(help_text).to_be_visible()
    expect(help_text).to_contain_text("计入天梯")
    assert help_text.bounding_box()["y"] >= rated_row.bounding_box()["y"]

    # nothing wider than the phone
    assert phone.evaluate("document.documentElement.scrollWidth") <= WIDTH
    form.scroll_into_view_if_needed()
    phone.screenshot(path=str(SHOTS / "lobby-form-zh.png"), full_page=True)

    # tapping the words of a row toggles its box; the form opens the table with it
    spectators = phone.locator("#id_spectators_allowed")
    expect(spectators).to_be_checked()
    form.locator("label.check", has=spectators).locator("span").tap()
    expect(spectators).not_to_be_checked()

    # another game: a tap on its button, the form then has that game's options
    phone.locator("nav.game-choice a.segment", has_text="掼蛋").tap()
    phone.wait_for_url("**game=guandan*")
    expect(phone.locator("nav.game-choice [aria-current=page]")).to_have_text("掼蛋")
    assert _tall_enough(phone.locator("form.lobby-form label.check")) == []
    spectators = phone.locator("#id_spectators_allowed")
    phone.locator("label.check", has=spectators).locator("span").tap()
    expect(spectators).not_to_be_checked()
    phone.get_by_role("button", name="开桌").tap()
    phone.wait_for_url("**/matches/tables/*/")
    table = Table.objects.get(club=club)
    assert (table.variant, table.spectators_allowed, table.rated) == ("guandan", False, False)


def test_the_rated_help_is_in_english_too(db):
    club = _club()
    client = Client(headers={"accept-language": "en"})
    client.force_login(User.objects.get(username="laowang"))
    User.objects.filter(username="laowang").update(language="en")
    page = client.get(f"/matches/clubs/{club.slug}/tables/").content.decode()
    assert "Counts for the ladder: the result changes the players&#x27; ratings." in page
    assert 'class="segment" href="?game=bao2#open-table" aria-current="page"' in page
