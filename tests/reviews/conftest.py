"""A club with four members and a finished match at its table (played by the engine's
heuristic, seat 0 erring at random, so the review has moments to find)."""

import random

import pytest
from django.utils import timezone

from clubs import services as club_services
from clubs.models import Membership, Role, User
from engine.bots import HeuristicBot
from engine.match import Match as EngineMatch
from matches import store
from matches.models import Match, MatchEvent, MatchStatus, Seat, Table, TableStatus
from matches.services import tables


@pytest.fixture
def people(db):
    return [
        User.objects.create_user(
            username=f"rv{i}", email=f"rv{i}@example.com", password="pw", display_name=f"玩家{i}"
        )
        for i in range(4)
    ]


@pytest.fixture
def club(people):
    club = club_services.create_club(people[0], name="复盘俱乐部")
    for user in people[1:]:
        Membership.objects.create(club=club, user=user, role=Role.MEMBER)
    return club


def finish_match(club, people, variant="guandan", seed="rv1", deals=1, bots=()):
    """A table of ``club`` whose match was played (``deals`` deals, or to its end) and is
    finished; seats in ``bots`` are bots."""
    table = tables.open_table(people[0], club, variant=variant, clocks=False)
    for i in range(1, 4):
        Seat.objects.filter(table=table, index=i).update(user=people[i])
    for i in bots:
        Seat.objects.filter(table=table, index=i).update(user=None, bot="heuristic")
    table.refresh_from_db()
    match = tables.start_match(table, seed=seed)
    engine = EngineMatch.new(variant, seed, match.options)
    heur = HeuristicBot()
    rng = random.Random(seed)
    events = []
    while not engine.over and engine.deal_no < deals:
        seat = engine.to_move()
        legal = engine.legal_actions(seat)
        act = heur.choose(engine.observation(seat), legal)
        if seat == 0 and engine.deal.phase == "play" and rng.random() < 0.3:
            # an error: another play than the bot's (a pass can be what any bot would do)
            worse = [a for a in legal if a != act and a.kind != "pass"]
            act = rng.choice(worse) if worse else act
        act = engine.apply(act)
        events.append(
            MatchEvent(
                match=match,
                seq=len(events) + 1,
                action=act.to_json(),
                seat=seat,
                actor="bot" if seat in bots else "player",
            )
        )
    MatchEvent.objects.bulk_create(events)
    Match.objects.filter(pk=match.pk).update(
        version=len(events),
        status=MatchStatus.FINISHED,
        finished_at=timezone.now(),
        snapshot=store.snapshot_of(engine),
        # cut short after ``deals`` deals: the levels reached so far decide
        result=engine.result() if engine.over else final_result(engine),
        deadline=None,
    )
    Table.objects.filter(pk=table.pk).update(status=TableStatus.FINISHED)
    match.refresh_from_db()
    return match


def final_result(engine):
    """The result of a match stopped after some deals, as if it had ended there."""
    levels = list(engine.levels)
    winner = None if levels[0] == levels[1] else int(levels[1] > levels[0])
    return {"over": True, "winner": winner, "score": levels, "reason": "time", "deals": 1}


@pytest.fixture
def finished(club, people):
    return finish_match(club, people)
