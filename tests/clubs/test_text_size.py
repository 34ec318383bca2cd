"""Every page's text size (issue 43, point 2): 标准 / 大 / 特大 on the profile, remembered on
the account (a guest's too) and in a cookie for visitors without one; every page's <html>
carries its class."""

import re

from clubs import guests
from clubs.models import User

HTML = re.compile(r'<html lang="[^"]+" class="(text-\w+)"')


def html_class(response):
    match = HTML.search(response.content.decode())
    assert match, response.content.decode()[:300]
    return match.group(1)


def test_a_visitor_keeps_the_size_in_a_cookie(client, club):
    assert html_class(client.get("/")) == "text-standard"
    response = client.post("/text-size/", {"size": "xlarge", "next": "/clubs/"})
    assert response.status_code == 302 and response.url == "/clubs/"
    assert response.cookies["text_size"].value == "xlarge"
    for url in ("/", "/clubs/", f"/clubs/{club.slug}/", "/accounts/login/"):
        assert html_class(client.get(url)) == "text-xlarge", url
    # a size that does not exist: refused, nothing changed
    response = client.post("/text-size/", {"size": "huge"}, HTTP_ACCEPT="application/json")
    assert response.status_code == 400 and response.json()["code"] == "bad_text_size"
    assert html_class(client.get("/")) == "text-xlarge"
    # not a page of this site: home instead
    response = client.post("/text-size/", {"size": "large", "next": "https://evil.example/"})
    assert response.url == "/"
    assert client.get("/text-size/").status_code == 405


def test_the_profile_sets_the_size_of_every_page(client, member):
    client.force_login(member)
    page = client.get("/accounts/profile/")
    assert 'name="text_size"' in page.content.decode() and html_class(page) == "text-standard"
    response = client.post(
        "/accounts/profile/",
        {
            "action": "profile",
            "display_name": member.display_name,
            "email": member.email,
            "language": "zh-hans",
            "time_zone": "Asia/Shanghai",
            "text_size": "large",
        },
    )
    assert response.status_code == 302
    assert User.objects.get(pk=member.pk).text_size == "large"
    assert html_class(client.get("/clubs/")) == "text-large"
    # the table's menu (a script's request) changes the account's size
    response = client.post("/text-size/", {"size": "xlarge"}, HTTP_ACCEPT="application/json")
    assert response.json() == {"size": "xlarge"}
    assert User.objects.get(pk=member.pk).text_size == "xlarge"
    # another browser of the same person: the account's size, whatever its cookie says
    client.cookies["text_size"] = "standard"
    assert html_class(client.get("/")) == "text-xlarge"


def test_a_guest_keeps_the_size_on_the_guest_account(client, db):
    guest = guests.create_guest("203.0.113.9")
    client.force_login(guest)
    client.post("/text-size/", {"size": "large"}, HTTP_ACCEPT="application/json")
    assert User.objects.get(pk=guest.pk).text_size == "large"
    assert html_class(client.get("/")) == "text-large"
