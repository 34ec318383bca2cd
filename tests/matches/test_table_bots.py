"""The bots at live tables: a worker keeps each seat's search bot through the deal (and lets go
of it when it missed a decision, or restarted), within a bound; auto-play plays the search
within its bound per move while a person plays, and the heuristic at an absent table."""

import statistics
import time

from django.test import override_settings
from test_services import full_table

from engine.bots import HeuristicBot, SearchBot
from engine.match import Match as EngineMatch
from matches.models import Match
from matches.services import bots, clock, play, presence


def heuristic_until(engine, seat):
    """Play the other seats with the heuristic until ``seat`` is to move (or the deal ends)."""
    deal_no = engine.deal_no
    while engine.to_move() != seat and not engine.over and engine.deal_no == deal_no:
        s = engine.to_move()
        engine.apply(HeuristicBot().choose(engine.observation(s), engine.legal_actions(s)))
    return engine.deal_no == deal_no and not engine.over


def test_a_kept_search_bot_remembers_the_whole_deal():
    bots.forget()
    engine = EngineMatch.new("bao2", 3)
    seat, used = 0, set()
    for _ in range(6):
        if not heuristic_until(engine, seat):
            break
        action = bots.choose(engine, seat, "search", "s", 2.0, match_id=41)
        assert action in engine.legal_actions(seat)
        engine.apply(action)
        kind, count, bot = bots._kept[(41, seat, engine.deal_no)]
        assert kind == "search" and count == bots.own_actions(engine, seat)
        used.add(id(bot))
    assert len(used) == 1  # one bot for the deal
    assert bot.memory.complete and any(bot.memory.played)


def test_a_bot_that_missed_a_decision_or_a_restart_starts_afresh():
    bots.forget()
    engine = EngineMatch.new("guandan", 5)
    heuristic_until(engine, 1)
    engine.apply(bots.choose(engine, 1, "search", "s", 2.0, match_id=7))
    first = bots._kept[(7, 1, 0)][2]
    # the seat's next decision is taken elsewhere (another worker process, or the person)
    heuristic_until(engine, 1)
    engine.apply(HeuristicBot().choose(engine.observation(1), engine.legal_actions(1)))
    heuristic_until(engine, 1)
    action = bots.choose(engine, 1, "search", "s", 2.0, match_id=7)
    assert action in engine.legal_actions(1)
    second = bots._kept[(7, 1, 0)][2]
    assert second is not first and not second.memory.complete
    # a restarted worker keeps nothing: the bot rebuilds what it can from the observation
    engine.apply(action)
    bots.forget()
    assert bots.kept() == 0
    heuristic_until(engine, 1)
    assert bots.choose(engine, 1, "search", "s", 2.0, match_id=7) in engine.legal_actions(1)
    assert bots.kept() == 1


def test_the_kept_bots_are_bounded(monkeypatch):
    bots.forget()
    monkeypatch.setattr(bots, "KEPT_BOTS", 3)
    engine = EngineMatch.new("bao2", 8)
    seat = engine.to_move()
    for match_id in range(10):
        bots.choose(engine, seat, "search", "s", 1.0, match_id=match_id)
    assert bots.kept() == 3
    assert sorted(k[0] for k in bots._kept) == [7, 8, 9]  # the most recent
    bots.forget()


@override_settings(MATCHES_AUTOPLAY_BOT_MS=40)
def test_autoplay_plays_the_search_within_its_bound_per_move():
    people = [{"user": 1, "bot": ""}, {"user": 2, "bot": ""}, {"user": None, "bot": "random"}]
    assert bots.autoplay_bot(people, ["timeout", "", ""], 20) == ("search", 40.0)
    assert bots.autoplay_bot(people, ["timeout", "", ""], 0.1) == ("search", 25.0)
    assert bots.autoplay_bot(people, ["timeout", "disconnect", ""], 20) == ("heuristic", 0.0)
    assert bots.autoplay_bot(people, ["", "", ""], 0) == ("heuristic", 0.0)
    bots.forget()
    engine = EngineMatch.new("bao2", 12)
    kind, budget = bots.autoplay_bot(people, ["timeout", "", ""], engine.action_seconds(0))
    spent = []
    for _ in range(40):
        seat = engine.to_move()
        start = time.process_time()
        action = bots.choose(engine, seat, kind, "s", budget, match_id=1)
        spent.append((time.process_time() - start) * 1000)
        engine.apply(action)
    # the search stops at its budget (the world under way is dropped when the time is up):
    # the playout then running, the observation and the candidates come on top
    assert statistics.median(spent) <= 40 + 10
    assert max(spent) <= 40 + 25
    bots.forget()


@override_settings(MATCHES_BOT_DELAY_SECONDS=0)
def test_a_seat_on_autoplay_among_people_is_played_by_the_kept_search_bot(club, players, scheduled):
    bots.forget()
    table = full_table(club, players)
    match = table.match
    seat = (match.to_move + 1) % 4
    presence.set_autoplay(match.pk, seat, "timeout")
    actors = []
    for _ in range(24):  # the people play as the heuristic would; the seat on auto-play waits
        match = Match.objects.get(pk=match.pk)
        mover = match.to_move
        if mover == seat:
            actors.append(clock.act_on_deadline(match.pk, match.version, force=True))
            continue
        engine = EngineMatch.from_json(match.snapshot)
        action = HeuristicBot().choose(engine.observation(mover), engine.legal_actions(mover))
        play.submit_action(match.pk, action.to_json(), seat=mover, user=players[mover])
    assert actors and set(actors) == {"auto"}
    kind, count, bot = bots._kept[(match.pk, seat, 0)]
    assert kind == "search" and isinstance(bot, SearchBot) and count == len(actors)
    assert bot.memory.complete
    bots.forget()
