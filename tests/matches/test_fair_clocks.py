"""Fair clocks across outages: a person's deadline that ran out while the web or the worker was
down is re-armed (at least the action clock once the table is reachable again) instead of
timing them out; time is moved with time-machine, the real sweeper and deadline task run."""

import time

import pytest
import time_machine
from matchkit import full_match

from matches import schedule, tasks
from matches.models import Match
from matches.services import clock

ACTION = 30  # the clock of the first action of a deal (the tables' default)


@pytest.fixture
def outages():
    """A clean outage record; the test beats for the web itself (the test process's own
    keep-alive thread, started here if this process has none yet, waits for the run's end:
    tests/conftest.py holds its lock)."""
    schedule.keep_web_alive()
    assert schedule.web_beats.locked()
    client = schedule._client()
    for name in ("web:last", "web:outage", "sweep:last"):
        client.delete(schedule._key(name))
    return schedule.web_beat


def state(match):
    return Match.objects.values_list("version", "deadline").get(pk=match.pk)


def test_worker_down_the_deadline_is_re_armed_then_applied(club, players, scheduled, outages):
    match = full_match(club, players)
    start = time.time()
    deadline = match.deadline.timestamp()
    assert 25 <= deadline - start <= 31
    with time_machine.travel(start, tick=False) as traveller:
        assert clock.sweep() == {"deadlines": 0, "time_limits": 0}  # beat runs: nothing due
        # the worker and beat are down for five minutes; the first sweep after it re-arms
        traveller.move_to(start + 300)
        assert clock.sweep() == {"deadlines": 0, "time_limits": 0}
        version, new = state(match)
        assert version == 0 and new.timestamp() == pytest.approx(start + 300 + ACTION, abs=0.01)
        assert scheduled[-1][:3] == ("deadline", match.pk, 0)
        assert scheduled[-1][3] == pytest.approx(ACTION, abs=0.5)
        # the beat goes on; the player does not act within the fresh clock: timed out
        traveller.move_to(start + 310)
        assert clock.sweep() == {"deadlines": 0, "time_limits": 0}
        traveller.move_to(start + 300 + ACTION + 1)
        assert clock.sweep() == {"deadlines": 1, "time_limits": 0}
    assert state(match)[0] == 1
    assert match.events.get(seq=1).actor == "clock"


def test_web_down_the_worker_does_not_time_out_people(club, players, scheduled, outages):
    match = full_match(club, players)
    start = time.time()
    deadline = match.deadline.timestamp()
    with time_machine.travel(start, tick=False) as traveller:

        def sweep_at(moment):
            traveller.move_to(moment)
            return clock.sweep()["deadlines"]

        outages(start)  # the web is alive...
        outages(start + 3)  # ...and beats a last time: then every ASGI process is gone
        # the worker keeps sweeping (every 2 s) while nobody can connect
        for moment in range(int(start) + 4, int(deadline) + 60, 2):
            assert sweep_at(moment) == 0
        version, new = state(match)
        assert version == 0 and new.timestamp() > deadline + 50
        # the web is back at +90: the seat gets a full action clock from then
        back = deadline + 60
        traveller.move_to(back)
        outages(back)
        assert schedule.web_outage() == (pytest.approx(start + 3), pytest.approx(back))
        for moment in range(int(back) + 1, int(back) + ACTION - 1, 2):
            outages(moment)
            assert sweep_at(moment) == 0
        assert state(match)[1].timestamp() == pytest.approx(back + ACTION, abs=0.01)
        outages(back + ACTION)
        assert sweep_at(back + ACTION + 1) == 1  # the fresh clock ran out: timed out
    assert state(match)[0] == 1
    assert match.events.get(seq=1).actor == "clock"


def test_a_late_deadline_task_re_arms_once(club, players, scheduled, outages):
    match = full_match(club, players)
    eta = match.deadline.timestamp()
    with time_machine.travel(eta + 120, tick=False) as traveller:
        # the task ran two minutes late (the worker was down): the player gets a fresh clock
        assert tasks.deadline_task(match.pk, 0, eta) == "rearmed"
        new = state(match)[1].timestamp()
        assert new == pytest.approx(eta + 120 + ACTION, abs=0.01)
        # the next one is late again (an overloaded queue, say): no second re-arm
        traveller.move_to(new + 60)
        assert tasks.deadline_task(match.pk, 0, new) == "clock"
    assert state(match)[0] == 1


def test_bots_are_not_re_armed(club, players, scheduled, outages):
    match = full_match(club, players)
    seat = match.to_move
    autoplay = ["timeout" if i == seat else "" for i in range(4)]
    Match.objects.filter(pk=match.pk).update(autoplay=autoplay)
    eta = match.deadline.timestamp()
    with time_machine.travel(eta + 120, tick=False):
        assert tasks.deadline_task(match.pk, 0, eta) == "auto"
