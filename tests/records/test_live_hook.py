"""A live match finished through live play's services is recorded by the task its hook
publishes once the finishing transaction commits (Celery eager here; a real worker in
test_worker.py)."""

from __future__ import annotations

import pytest

from clubs import services as club_services
from clubs.models import Membership, Role, User
from matches import schedule, store
from matches.models import Seat
from matches.services import clock as match_clock
from matches.services import presence, tables
from records.models import MatchRecord, PlayerMatch, Tally


@pytest.fixture
def people(transactional_db):
    return [
        User.objects.create_user(username=f"lh{i}", email=f"lh{i}@example.com", password="pw")
        for i in range(4)
    ]


@pytest.fixture
def clock(monkeypatch):
    monkeypatch.setattr(schedule, "schedule_deadline", lambda *a: None)
    monkeypatch.setattr(schedule, "schedule_time_limit", lambda *a: None)
    store._engines.clear()


def test_finishing_a_live_match_records_it(people, clock, celery_eager):
    club = club_services.create_club(people[0], name="红二俱乐部")
    for user in people[1:]:
        Membership.objects.create(club=club, user=user, role=Role.MEMBER)
    table = tables.open_table(people[0], club, variant="honger", rated=False, options={"deals": 1})
    for i in (1, 2):
        tables.take_seat(people[i], table, i)
    Seat.objects.filter(table=table, index=3).update(user=people[3])
    table.refresh_from_db()
    match = tables.start_match(table, seed="records-hook")
    for seat in range(4):
        presence.set_autoplay(match.pk, seat, "timeout")
    for _ in range(3000):
        match.refresh_from_db()
        if match.status == "finished":
            break
        match_clock.act_on_deadline(match.pk, match.version, force=True)
    assert match.status == "finished"
    record = MatchRecord.objects.get(source="live", source_id=str(match.pk))
    assert record.club_id == club.pk and record.rated is False and record.deals == 1
    rows = PlayerMatch.objects.filter(record=record)
    assert sorted(r.user_id for r in rows) == sorted(u.pk for u in people)
    # auto-play decided every action: no person thought, so no timed decision
    total = Tally.objects.get(user=people[0], period="all", kind="total")
    assert total.counters["matches"] == 1 and "timed_decisions" not in total.counters
    assert sum(r.counters.get("points", 0) for r in rows) == sum(match.result["score"])
