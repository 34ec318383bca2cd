"""Issue 45: an organiser on a phone finds the leagues, never gets a season stuck, reads
every refusal in their own words, cannot set a start in the past."""

from django.test import Client


def _client(user):
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(user)
    return client


def test_leagues_are_linked_from_the_header_the_club_page_and_its_manage_page(world):
    admin = _client(world.host_admin)
    league_url = f"/leagues/{world.league.pk}/"
    create_url = f"/leagues/clubs/{world.host.slug}/new/"
    club_page = admin.get(f"/clubs/{world.host.slug}/").content.decode()
    assert league_url in club_page and create_url in club_page
    assert 'href="/leagues/"' in club_page  # the header
    manage = admin.get(f"/clubs/{world.host.slug}/manage/").content.decode()
    assert league_url in manage and create_url in manage
    # a member sees the leagues, not the link to create one
    member = _client(world.member(world.host))
    page = member.get(f"/clubs/{world.host.slug}/").content.decode()
    assert league_url in page and create_url not in page
