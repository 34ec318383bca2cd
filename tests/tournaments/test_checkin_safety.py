"""The check-in trap (issue 22): pairing before check-in opened withdraws nobody; once it has
opened, pairing by hand asks first and names who will be withdrawn; withdrawn players are told;
an organiser reinstates an entry; a withdrawn player can register again, with someone else."""

from datetime import timedelta

import pytest
import time_machine

from outbox.models import OutboxMessage
from tests.tournaments.test_tournament_services import START, make_tournament
from tournaments import selectors
from tournaments.models import EntryStatus, TournamentNotice
from tournaments.services import entries as entry_services
from tournaments.services import rounds as round_services
from tournaments.services import setup as setup_services
from tournaments.services.errors import NotAllowed, TournamentError

pytestmark = pytest.mark.django_db


@pytest.fixture
def pairs(club, club_admin, members):
    people = members(6)
    t = make_tournament(club, club_admin, checkin_minutes=30)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    t.refresh_from_db()
    early = START - timedelta(hours=2)
    entries = [
        entry_services.register(club_admin, t, player=a, partner=b, now=early)
        for a, b in zip(people[0::2], people[1::2], strict=True)
    ]
    return t, people, entries


def test_pairing_before_checkin_opened_withdraws_nobody(club_admin, pairs):
    t, _people, entries = pairs
    before = START - timedelta(minutes=37)  # check-in opens 30 minutes before the start
    assert selectors.not_checked_in(t, before) == []
    rnd = round_services.pair_next_round(club_admin, t, now=before)
    paired = {e for g in rnd.games.all() for e in g.side0 + g.side1}
    assert paired == {e.pk for e in entries}
    assert not t.entries.filter(status=EntryStatus.WITHDRAWN).exists()
    assert not OutboxMessage.objects.filter(key__startswith="checkin:").exists()


def test_pairing_after_checkin_opened_asks_then_withdraws_and_tells_them(client, club_admin, pairs):
    t, people, entries = pairs
    during = START - timedelta(minutes=10)
    entry_services.check_in(people[0], t, now=during)
    entry_services.check_in(people[2], t, now=during)
    missing = entries[2]
    assert selectors.not_checked_in(t, during) == [missing]
    with pytest.raises(TournamentError) as refused:
        round_services.pair_next_round(club_admin, t, now=during)
    assert refused.value.code == "confirm_withdrawals" and missing.name in refused.value.message
    assert not t.rounds.exists()  # nothing changed
    missing.refresh_from_db()
    assert missing.status == EntryStatus.REGISTERED

    round_services.pair_next_round(club_admin, t, now=during, confirm_withdrawals=True)
    missing.refresh_from_db()
    assert missing.status == EntryStatus.WITHDRAWN
    told = OutboxMessage.objects.filter(key__startswith=f"checkin:{t.pk}:entry:{missing.pk}:")
    assert sorted(m.to for m in told) == sorted([people[4].email, people[5].email])
    assert TournamentNotice.objects.filter(tournament=t, user=people[4]).exists()

    # the organiser reinstates the entry; it is paired from the next round on
    entry_services.reinstate(club_admin, t, missing)
    missing.refresh_from_db()
    assert missing.status == EntryStatus.REGISTERED and missing.withdrawn_at is None
    with pytest.raises(NotAllowed):
        entry_services.reinstate(people[0], t, missing)


def test_the_run_page_warns_before_pairing(client, club_admin, pairs):
    t, people, entries = pairs
    with time_machine.travel(START - timedelta(minutes=40), tick=False):
        client.force_login(club_admin)
        page = client.get(f"/tournaments/{t.pk}/run/").content.decode()
        assert 'id="checkin-warning"' in page and "confirm_withdrawals" not in page
    with time_machine.travel(START - timedelta(minutes=10), tick=False):
        client.force_login(club_admin)
        page = client.get(f"/tournaments/{t.pk}/run/").content.decode()
        assert 'name="confirm_withdrawals"' in page and entries[0].name in page
        for entry in entries[1:]:
            entry_services.check_in(club_admin, t, entry)
        # without the confirmation nothing is paired; with it, round 1 is paired
        client.post(f"/tournaments/{t.pk}/do/pair/", {})
        assert not t.rounds.exists()
        client.post(f"/tournaments/{t.pk}/do/pair/", {"confirm_withdrawals": "1"})
        assert t.rounds.count() == 1
        assert list(t.entries.filter(status=EntryStatus.WITHDRAWN)) == [entries[0]]
        withdrawn = entries[0]
        client.post(f"/tournaments/{t.pk}/do/reinstate/", {"entry": withdrawn.pk})
        withdrawn.refresh_from_db()
        assert withdrawn.status == EntryStatus.REGISTERED


def test_a_withdrawn_player_registers_again_with_someone_else(club_admin, pairs, members):
    t, people, entries = pairs
    first = entries[0]
    entry_services.withdraw(people[1], t, now=START - timedelta(hours=1))
    other = members(1)[0]
    t.registration_closes = START
    t.save(update_fields=["registration_closes"])
    again = entry_services.register(people[1], t, partner=other, now=START - timedelta(minutes=50))
    assert again.status == EntryStatus.PENDING  # until the partner accepts
    again = entry_services.answer_invitation(
        other, t, accept=True, now=START - timedelta(minutes=45)
    )
    assert again.status == EntryStatus.REGISTERED and set(again.user_ids) == {
        people[1].pk,
        other.pk,
    }
    assert not t.entries.filter(pk=first.pk).exists()  # the withdrawn entry never played
    assert entry_services.entry_of(people[1], t) == again
    # an active entry still refuses a second one
    with pytest.raises(TournamentError) as refused:
        entry_services.register(people[2], t, partner=people[1], now=START - timedelta(minutes=50))
    assert refused.value.code == "already_registered"
