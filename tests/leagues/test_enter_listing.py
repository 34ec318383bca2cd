"""The entry form of a club lists the club's members: a members-only club's members are shown
to its members only (issue 40, item 4: any signed-in user got them all)."""

import pytest

from clubs.models import Visibility


def _enter_url(season, club):
    return f"/leagues/seasons/{season.pk}/clubs/{club.slug}/enter/"


@pytest.mark.django_db
def test_members_only_club_members_are_not_listed_to_non_members(world, client):
    world.guest.visibility = Visibility.MEMBERS
    world.guest.save(update_fields=["visibility"])
    season = world.season()
    secret = world.member(world.guest)
    secret.display_name = "秘密会员"
    secret.save(update_fields=["display_name"])
    url = _enter_url(season, world.guest)

    # the host club's admin sees the (public) league but is no member of 如皋
    for outsider in (world.host_admin, world.outsider, world.other_admin):
        client.force_login(outsider)
        response = client.get(url)
        assert response.status_code == 404, outsider
        assert "秘密会员" not in response.content.decode()
        assert f'value="{secret.pk}"' not in response.content.decode()
        # posting an entry does not get past the refusal either
        assert client.post(url, {"name": "x"}).status_code == 404

    # the club's own admin still gets the form with its members
    client.force_login(world.guest_admin)
    response = client.get(url)
    assert response.status_code == 200
    assert "秘密会员" in response.content.decode()


@pytest.mark.django_db
def test_public_club_members_stay_listed(world, client):
    season = world.season()
    member = world.member(world.guest)
    member.display_name = "公开会员"
    member.save(update_fields=["display_name"])
    client.force_login(world.host_admin)
    response = client.get(_enter_url(season, world.guest))
    assert response.status_code == 200
    assert "公开会员" in response.content.decode()
