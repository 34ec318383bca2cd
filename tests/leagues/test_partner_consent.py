"""Partner consent in pair seasons (issue 22): a player who enters a pair names a partner, who
must accept; the pair is pending (not drawn, not in the standings, listed on the season page)
until then; only the partner answers; a declined, lapsed or withdrawn invitation frees both."""

from datetime import timedelta

import pytest
import time_machine

from leagues import selectors
from leagues.models import Entry, Fixture
from leagues.services import entries, play, setup
from leagues.services.errors import LeagueError, NotAllowed
from outbox.models import Notification, OutboxMessage

pytestmark = pytest.mark.django_db


@pytest.fixture
def pairs(world):
    season = world.season(entry_kind="pair")
    return season, [world.member(world.host) for _ in range(6)]


def refused(call, code):
    with pytest.raises(LeagueError) as error:
        call()
    assert error.value.code == code


def test_a_pending_pair_is_asked_listed_and_not_drawn(client, world, pairs, settings):
    settings.SITE_URL = "https://bao2.example.org"
    season, (a, b, c, d, e, f) = pairs
    pending = entries.enter_players(a, season, world.host, players=[b, a])
    assert (pending.player1, pending.player2) == (a, b)  # the one who asked comes first
    assert pending.answer_by is not None
    mail = OutboxMessage.objects.get(key=f"league:partner:{pending.pk}:invited:user:{b.pk}")
    assert mail.body.count(f"https://bao2.example.org/leagues/entries/{pending.pk}/") == 1
    notice = Notification.objects.get(key=mail.key)
    assert (notice.user, notice.url) == (b, f"/leagues/entries/{pending.pk}/")
    client.force_login(b)  # the notice in the list leads to the page where b answers
    listed = client.get("/notifications/").content.decode()
    assert f'href="/leagues/entries/{pending.pk}/"' in listed
    refused(lambda: entries.enter_players(b, season, world.host, players=[b, c]), "already_entered")
    # a club admin entering two other players enters them at once
    first = entries.enter_players(world.host_admin, season, world.host, players=[c, d])
    second = entries.enter_players(world.host_admin, season, world.host, players=[e, f])
    assert first.answer_by is None and second.answer_by is None
    assert [p.pk for p in selectors.pending_pairs(season)] == [pending.pk]

    client.force_login(b)
    home = client.get("/").content.decode()
    assert f'href="/leagues/entries/{pending.pk}/"' in home and "回复邀请" in home
    page = client.get(f"/leagues/seasons/{season.pk}/").content.decode()
    assert "等待搭档确认" in page and pending.name in page

    setup.start_season(world.host_admin, season)
    drawn = {
        x for fx in Fixture.objects.filter(round__season=season) for x in (fx.home_id, fx.away_id)
    }
    assert drawn == {first.pk, second.pk}
    rows = [
        entry.pk for _division, lines in selectors.season_standings(season) for _r, entry in lines
    ]
    assert sorted(rows) == sorted([first.pk, second.pk])


def test_only_the_partner_answers(client, world, pairs):
    season, (a, b, c, *_rest) = pairs
    pending = entries.enter_players(a, season, world.host, players=[a, b])
    for intruder in (a, c, world.host_admin):
        with pytest.raises(NotAllowed):
            entries.answer_invitation(intruder, pending, accept=True)
    pending.refresh_from_db()
    assert pending.answer_by is not None
    # on the web: another member posting the form changes nothing; the partner accepts
    client.force_login(c)
    client.post(f"/leagues/entries/{pending.pk}/do/accept/")
    pending.refresh_from_db()
    assert pending.answer_by is not None
    client.force_login(b)
    assert 'id="invitation"' in client.get(f"/leagues/entries/{pending.pk}/").content.decode()
    client.post(f"/leagues/entries/{pending.pk}/do/accept/")
    pending.refresh_from_db()
    assert pending.answer_by is None
    assert OutboxMessage.objects.filter(key=f"league:partner:{pending.pk}:accepted:user:{a.pk}")
    refused(lambda: entries.answer_invitation(b, pending, accept=False), "no_invitation")


def test_declined_withdrawn_and_lapsed_invitations_free_both(client, world, pairs):
    season, (a, b, c, d, *_rest) = pairs
    api = f"/api/v1/league-seasons/{season.pk}/"
    # declined through the API
    first = entries.enter_players(a, season, world.host, players=[a, b])
    client.force_login(a)
    assert (
        client.post(api + "decline-partner/", {}, content_type="application/json").status_code
        == 404
    )
    client.force_login(b)
    response = client.post(api + "decline-partner/", {}, content_type="application/json")
    assert response.status_code == 200
    assert not Entry.objects.filter(pk=first.pk).exists()
    assert OutboxMessage.objects.filter(key=f"league:partner:{first.pk}:declined:user:{a.pk}")
    declined = Notification.objects.get(key=f"league:partner:{first.pk}:declined:user:{a.pk}")
    assert declined.url == f"/leagues/seasons/{season.pk}/"  # to enter again
    assert not OutboxMessage.objects.filter(key=f"league:partner:{first.pk}:declined:user:{b.pk}")

    # withdrawn by the player who asked; then entered again with someone else
    second = entries.enter_players(a, season, world.host, players=[a, c]).pk
    entries.withdraw(a, Entry.objects.get(pk=second))
    assert not Entry.objects.filter(pk=second).exists()
    assert OutboxMessage.objects.filter(key=f"league:partner:{second}:withdrawn:user:{c.pk}")

    # lapsed: refused, then removed by beat, both told; both may enter again
    third = entries.enter_players(a, season, world.host, players=[a, d])
    late = third.answer_by + timedelta(minutes=1)
    refused(lambda: entries.answer_invitation(d, third, accept=True, now=late), "invitation_lapsed")
    with time_machine.travel(late, tick=False):
        assert play.tick(late)["invitations_lapsed"] == 1
    assert not Entry.objects.filter(pk=third.pk).exists()
    told = OutboxMessage.objects.filter(key__startswith=f"league:partner:{third.pk}:lapsed:")
    assert sorted(m.to for m in told) == sorted([a.email, d.email])
    again = entries.enter_players(world.host_admin, season, world.host, players=[a, d])
    assert again.answer_by is None
