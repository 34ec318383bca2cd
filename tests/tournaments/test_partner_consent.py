"""Partner consent (issue 22): a player who registers a pair names a partner, who must accept.
The entry is pending (not paired, not in the standings, shown to the organiser) until then; the
partner gets a notice and an e-mail with a link; only the named partner may answer; a declined,
lapsed or withdrawn invitation frees both players, who may register again with anyone."""

from datetime import timedelta

import pytest

from outbox.models import OutboxMessage
from tests.tournaments.test_tournament_services import START, make_tournament, register_pair
from tournaments import selectors
from tournaments.models import Entry, EntryStatus, TournamentNotice
from tournaments.services import entries as entry_services
from tournaments.services import rounds as round_services
from tournaments.services import schedule as schedule_services
from tournaments.services import setup as setup_services
from tournaments.services.errors import NotAllowed, TournamentError

pytestmark = pytest.mark.django_db

EARLY = START - timedelta(hours=3)


@pytest.fixture
def event(club, club_admin, members):
    t = make_tournament(club, club_admin, checkin_required=False)
    setup_services.publish(club_admin, t, now=START - timedelta(days=10))
    t.refresh_from_db()
    return t, members(6)


def refused(call, code):
    with pytest.raises(TournamentError) as error:
        call()
    assert error.value.code == code
    return error.value


def test_the_partner_is_asked_and_a_pending_pair_is_not_paired(client, club_admin, event, settings):
    settings.SITE_URL = "https://bao2.example.org"
    t, (a, b, c, d, e, f) = event
    pending = entry_services.register(a, t, partner=b, now=EARLY)
    assert pending.status == EntryStatus.PENDING
    # the invitation lapses when registration closes (before the 48 hours are up)
    assert pending.answer_by == t.registration_closes
    notice = TournamentNotice.objects.get(tournament=t, user=b)
    assert a.name in notice.text and notice.url == f"/tournaments/{t.pk}/#my-entry"
    mail = OutboxMessage.objects.get(key=f"partner:{pending.pk}:invited:user:{b.pk}")
    assert mail.to == b.email
    assert f"https://bao2.example.org/tournaments/{t.pk}/#my-entry" in mail.body
    assert not TournamentNotice.objects.filter(user=a).exists()  # nothing to tell a yet

    # a pending partner cannot check in; the pair cannot enter again meanwhile
    refused(
        lambda: entry_services.check_in(b, t, now=START - timedelta(minutes=10)),
        "invitation_pending",
    )
    refused(lambda: entry_services.register(c, t, partner=b, now=EARLY), "invitation_pending")
    refused(lambda: entry_services.register(b, t, partner=c, now=EARLY), "invitation_pending")
    refused(lambda: entry_services.register(c, t, partner=a, now=EARLY), "already_registered")

    # an organiser who registers two other players registers them at once
    accepted = entry_services.register(club_admin, t, player=c, partner=d, now=EARLY)
    other = entry_services.register(club_admin, t, player=e, partner=f, now=EARLY)
    assert accepted.status == other.status == EntryStatus.REGISTERED
    assert not OutboxMessage.objects.filter(key__startswith=f"partner:{accepted.pk}:").exists()

    # the organiser sees the pending pair; pairing and the standings leave it out
    client.force_login(club_admin)
    run = client.get(f"/tournaments/{t.pk}/run/").content.decode()
    assert pending.name in run and "等待搭档确认" in run
    assert "1 对等待搭档确认（确认前不编排）" in run
    assert {line.entry.pk for line in selectors.standings(t)} == {accepted.pk, other.pk}
    rnd = round_services.pair_next_round(club_admin, t, now=START - timedelta(minutes=20))
    paired = {x for g in rnd.games.all() for x in g.side0 + g.side1}
    assert paired == {accepted.pk, other.pk}


def test_only_the_named_partner_accepts_and_the_player_is_told(club_admin, event, members):
    t, (a, b, c, *_rest) = event
    pending = entry_services.register(a, t, partner=b, now=EARLY)
    for intruder in (a, c, club_admin):  # the player who registered, a member, an organiser
        with pytest.raises(NotAllowed):
            entry_services.answer_invitation(intruder, t, accept=True, entry=pending, now=EARLY)
        refused(
            lambda who=intruder: entry_services.answer_invitation(who, t, accept=True, now=EARLY),
            "no_invitation",
        )
    pending.refresh_from_db()
    assert pending.status == EntryStatus.PENDING
    entry = entry_services.answer_invitation(b, t, accept=True, now=EARLY)
    assert entry.pk == pending.pk and entry.status == EntryStatus.REGISTERED
    assert entry.answer_by is None
    told = OutboxMessage.objects.get(key=f"partner:{entry.pk}:accepted:user:{a.pk}")
    assert told.to == a.email and b.name in told.body
    assert TournamentNotice.objects.filter(tournament=t, user=a).exists()
    # answered once: nothing waits any more
    refused(lambda: entry_services.answer_invitation(b, t, accept=False), "no_invitation")


def test_a_declined_invitation_frees_both(event):
    t, (a, b, c, d, *_rest) = event
    pending = entry_services.register(a, t, partner=b, now=EARLY)
    entry_services.answer_invitation(b, t, accept=False, now=EARLY)
    assert not Entry.objects.filter(pk=pending.pk).exists()
    told = OutboxMessage.objects.get(key=f"partner:{pending.pk}:declined:user:{a.pk}")
    assert b.name in told.body
    assert not OutboxMessage.objects.filter(key=f"partner:{pending.pk}:declined:user:{b.pk}")
    assert register_pair(a, c, t, EARLY).status == EntryStatus.REGISTERED
    assert register_pair(b, d, t, EARLY).status == EntryStatus.REGISTERED


def test_a_lapsed_invitation_cannot_be_accepted_and_frees_both(event):
    t, (a, b, c, d, *_rest) = event
    days_before = START - timedelta(days=5)
    pending = entry_services.register(a, t, partner=b, now=days_before)
    assert pending.answer_by == days_before + entry_services.PARTNER_ANSWER
    late = pending.answer_by + timedelta(seconds=1)
    refused(
        lambda: entry_services.answer_invitation(b, t, accept=True, now=late), "invitation_lapsed"
    )
    pending.refresh_from_db()
    assert pending.status == EntryStatus.PENDING  # a refusal changes nothing
    schedule_services.tick(late)  # beat removes lapsed invitations and tells both
    assert not Entry.objects.filter(pk=pending.pk).exists()
    keys = set(OutboxMessage.objects.filter(key__contains=":lapsed:").values_list("key", flat=True))
    assert keys == {f"partner:{pending.pk}:lapsed:user:{u.pk}" for u in (a, b)}
    assert entry_services.expire_invitations(late) == 0  # once

    # one that lapsed before beat came is removed when one of its players registers again
    second = entry_services.register(c, t, partner=d, now=late)
    later = second.answer_by + timedelta(minutes=1)
    again = entry_services.register(a, t, partner=d, now=later)
    assert again.status == EntryStatus.PENDING and again.answer_by > later
    assert not Entry.objects.filter(pk=second.pk).exists()
    assert OutboxMessage.objects.filter(key=f"partner:{second.pk}:lapsed:user:{c.pk}").exists()


def test_a_withdrawn_invitation_lets_the_player_register_with_someone_else(client, event):
    t, (a, b, c, *_rest) = event
    pending = entry_services.register(a, t, partner=b, now=EARLY)
    client.force_login(a)
    page = client.get(f"/tournaments/{t.pk}/").content.decode()
    assert "等待" in page and b.name in page and "撤回邀请" in page
    client.post(f"/tournaments/{t.pk}/do/withdraw/")
    assert not Entry.objects.filter(pk=pending.pk).exists()
    assert OutboxMessage.objects.filter(key=f"partner:{pending.pk}:withdrawn:user:{b.pk}").exists()
    assert not OutboxMessage.objects.filter(key=f"partner:{pending.pk}:withdrawn:user:{a.pk}")
    assert register_pair(a, c, t, EARLY).status == EntryStatus.REGISTERED


def test_the_partner_answers_on_the_web_and_through_the_api(client, event):
    t, (a, b, c, d, *_rest) = event
    url = f"/tournaments/{t.pk}/"
    pending = entry_services.register(a, t, partner=b, now=EARLY)
    # the home page and the tournament page show the invitation with its buttons
    client.force_login(b)
    home = client.get("/").content.decode()
    assert t.name in home and f'href="{url}#my-entry"' in home and "回复邀请" in home
    page = client.get(url).content.decode()
    assert 'id="invitation"' in page and "do/accept_partner/" in page
    # another member posting the partner's form is refused; nothing changes
    client.force_login(c)
    client.post(url + "do/accept_partner/", {"entry": pending.pk})
    pending.refresh_from_db()
    assert pending.status == EntryStatus.PENDING
    client.force_login(b)
    client.post(url + "do/accept_partner/", {"entry": pending.pk})
    pending.refresh_from_db()
    assert pending.status == EntryStatus.REGISTERED

    api = f"/api/v1/tournaments/{t.pk}/"
    second = entry_services.register(c, t, partner=d, now=EARLY)
    client.force_login(a)
    response = client.post(
        api + "decline-partner/", {"entry": second.pk}, content_type="application/json"
    )
    assert response.status_code == 403
    response = client.post(
        api + "accept-partner/", {"entry": 10**12}, content_type="application/json"
    )
    assert response.status_code == 400
    client.force_login(d)
    response = client.post(api + "decline-partner/", {}, content_type="application/json")
    assert response.status_code == 200 and response.json()["status"] == "withdrawn"
    assert not Entry.objects.filter(pk=second.pk).exists()
