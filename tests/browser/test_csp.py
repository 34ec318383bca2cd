"""The Content-Security-Policy holds in a real browser: no page breaks it, and the behaviour
that moved out of inline handlers into static/js/site.js still works (issue 20, item 5)."""

import pytest

from clubs import services
from clubs.models import Membership, Role, User

pytestmark = pytest.mark.django_db(transaction=True)

RECORD_VIOLATIONS = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(e.violatedDirective + " " + (e.blockedURI || "inline"));
});
"""


def watched(page):
    page.add_init_script(RECORD_VIOLATIONS)  # init scripts are not subject to the page's policy
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    return errors


def violations(page):
    return page.evaluate("window.__csp")


def sign_in(page, username):
    page.goto("/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "x-Secret-123")
    page.locator("form.narrow button[type=submit]").click()
    page.wait_for_load_state()


def test_pages_keep_the_policy_and_site_js_does_the_handlers_work(new_page, live_server):
    owner = User.objects.create_user("owner", password="x-Secret-123", is_staff=True)
    club = services.create_club(owner, name="Nanping Bao 2")
    member = User.objects.create_user("member", password="x-Secret-123")
    Membership.objects.create(club=club, user=member, role=Role.MEMBER)
    services.create_invitation(owner, club, expires_in_days=3)
    page = new_page()
    errors = watched(page)
    for url in ("/", "/clubs/", f"/clubs/{club.slug}/", "/accounts/signup/"):
        page.goto(url)
        assert violations(page) == [], url
    sign_in(page, "owner")
    for url in ("/accounts/profile/", f"/clubs/{club.slug}/manage/", "/api/docs/"):
        page.goto(url)
        page.wait_for_load_state("networkidle")
        assert violations(page) == [], url
    # Swagger UI started from its own script URL and rendered the operations
    page.goto("/api/docs/")
    page.locator(".opblock").first.wait_for()
    assert violations(page) == []

    # an invitation link is selected on click, ready to copy
    page.goto(f"/clubs/{club.slug}/manage/")
    link = page.locator("input.copy").first
    link.click()
    assert page.evaluate(
        "() => { const i = document.querySelector('input.copy');"
        " return i.selectionStart === 0 && i.selectionEnd === i.value.length; }"
    )
    # removing a member asks first: dismissing keeps them, accepting removes them
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.get_by_role("button", name="移除").first.click()
    page.wait_for_load_state()
    assert Membership.objects.filter(user=member).exists()
    page.once("dialog", lambda dialog: dialog.accept())
    with page.expect_navigation():
        page.get_by_role("button", name="移除").first.click()
    assert not Membership.objects.filter(user=member).exists()

    # the language switch submits itself on change
    with page.expect_navigation():
        page.select_option("#language-select", "en")
    assert page.locator("html").get_attribute("lang") == "en"
    assert violations(page) == []
    assert not [e for e in errors if "Content Security Policy" in e], errors
