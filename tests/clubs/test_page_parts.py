"""Apps above clubs and matches add their links to those apps' pages through hooks
(``clubs.page_parts``), never by the lower page naming them: the learn guides on the home
page, a club's tables and the table page; the friends' section on the home page; the score
sheets among a member's actions on the club page."""

import pytest
from django.template import Context, Template
from django.test import Client

from clubs import page_parts
from clubs.models import Club, Membership, Role, User
from matches.models import Table


@pytest.fixture
def member(db):
    user = User.objects.create_user("xiaoming", password="pw-123456-long")
    club = Club.objects.create(name="南通保二俱乐部", slug="nantong")
    Membership.objects.create(club=club, user=user, role=Role.MEMBER)
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(user)
    return client, club


def test_the_apps_above_put_their_links_on_the_lower_pages(member):
    client, club = member
    home = client.get("/").content.decode()
    assert 'class="learn-link"' in home and 'href="/learn/"' in home
    assert 'href="/friends/"' in home and 'id="friends-title"' in home
    club_page = client.get(f"/clubs/{club.slug}/").content.decode()
    assert f'href="/matches/sheets/club/{club.slug}/"' in club_page
    lobby = client.get(f"/matches/clubs/{club.slug}/tables/").content.decode()
    assert 'href="/learn/"' in lobby
    table = Table.objects.create(club=club, variant="bao2")
    assert 'data-rules="/learn/"' in client.get(f"/matches/tables/{table.pk}/").content.decode()


def test_a_place_with_nothing_registered_shows_nothing():
    page = Template(
        "{% load page_parts %}[{% page_url 'nowhere' %}]"
        "{% page_parts 'nowhere' as parts %}{% for part in parts %}{% include part %}{% endfor %}"
    ).render(Context({}))
    assert page == "[]"
    assert page_parts.page_parts("nowhere") == [] and page_parts.page_url_name("nowhere") is None
