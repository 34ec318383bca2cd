"""End-to-end: a small Swiss tournament (4 pairs, 2 rounds) run by the REAL Celery beat and
worker of the stack (tests/e2e/stack.py): the test never calls a tournament task or service
after setting the tournament up. Beat's tick (every 10 s, the project's default: the stack is
the run's shared one) starts round 1 once its time (a few seconds ahead) has come,
the matches are played by the server (the absent players' clocks run out, then auto-play), the
match time limit is applied by the matches' sweep, the next tick collects the results, starts
round 2 at once and finishes the tournament; the final standings must equal a recount of the
finished live matches.

The tournament's match time limit is set in whole minutes (``time_limit_minutes``), so to keep
the run short the test, once a round has started, moves each playing match's ``ends_at`` to a
few seconds ahead (as a referee shortening the round would); everything after that - applying
the time limit, ending the deal, collecting, the next round - is the real stack's work.
"""

import time

import pytest

pytestmark = pytest.mark.integration

START_IN = 6  # seconds from setup to round 1
MATCH_SECONDS = 3  # seconds each match is left before its time limit
TIMEOUT = 240  # seconds the whole tournament may take before the test fails

SETUP = """
from datetime import timedelta
from django.db import transaction
from django.utils import timezone
from clubs.models import Club, Membership, Role, User
from tournaments.services import entries as entry_services
from tournaments.services import setup as setup_services

# one transaction: the stack's tick (every second) sees the tournament with its pairs
# registered and checked in, or not at all, never an invitation still unanswered when
# registration closes (a second after ``now``; this takes longer on a busy machine)
with transaction.atomic():
    club = Club.objects.create(name="e2e 瑞士赛俱乐部", slug="e2e-swiss")
    admin = User.objects.create_user(username="t2admin", email="t2admin@example.com")
    Membership.objects.create(club=club, user=admin, role=Role.OWNER)
    people = [
        User.objects.create_user(username=f"t2p{{i}}", email=f"t2p{{i}}@example.com") for i in range(8)
    ]
    Membership.objects.bulk_create(Membership(club=club, user=u, role=Role.MEMBER) for u in people)
    now = timezone.now()
    t = setup_services.create_tournament(
        admin, club, name="端到端瑞士赛", variant="bao2", format="swiss", unit_kind="pair",
        rounds_planned=2, starts_at=now + timedelta(seconds={start_in}),
        registration_closes=now + timedelta(seconds=1), round_minutes=1, online=True,
        time_limit_minutes=1, match_options={{"first_action_seconds": 1, "action_seconds": 1}},
        tiebreaks=["buchholz", "sonneborn_berger", "level_diff"],
    )
    setup_services.publish(admin, t, now=now)
    entries = []
    for a, b in zip(people[0::2], people[1::2]):
        entries.append(entry_services.register(a, t, partner=b, now=now).pk)
        entry_services.answer_invitation(b, t, accept=True, now=now)
        entry_services.check_in(b, t, now=now)
out = {{"tournament": t.pk, "entries": entries, "starts_at": t.starts_at.isoformat()}}
"""

# Report the rounds; shorten the time limit of the playing matches of a started round.
POLL = """
from datetime import timedelta
from django.utils import timezone
from tournaments.models import Round, Tournament
from matches.models import Match

t = Tournament.objects.get(pk={tournament})
soon = timezone.now() + timedelta(seconds={match_seconds})
rounds = []
for rnd in Round.objects.filter(tournament=t).order_by("number"):
    tables = [g.table_id for g in rnd.games.all() if g.table_id]
    playing = Match.objects.filter(table_id__in=tables, status="playing")
    shortened = playing.filter(ends_at__gt=soon).update(ends_at=soon)
    rounds.append({{"number": rnd.number, "status": rnd.status, "tables": len(tables),
                    "playing": playing.count(), "shortened": shortened}})
out = {{"status": t.status, "rounds": rounds}}
"""

CHECK = """
from tournaments import selectors
from tournaments.models import Game, Round, Tournament, TournamentNotice
from matches.models import Match
from matches.store import replay_events
from engine.match import Match as EngineMatch

t = Tournament.objects.get(pk={tournament})
games = []
for g in Game.objects.filter(round__tournament=t).select_related("round").order_by("pk"):
    m = Match.objects.get(table_id=g.table_id)
    actors = sorted(set(m.events.values_list("actor", flat=True)))
    games.append({{
        "round": g.round.number, "status": g.status, "source": g.source,
        "side0": g.side0, "side1": g.side1, "score": [g.score0, g.score1], "winner": g.winner,
        "match_status": m.status, "match_result": m.result, "actors": actors,
        "replay_ok": replay_events(m).state_json() == EngineMatch.from_json(m.snapshot).state_json(),
    }})
rounds = [
    {{"number": r.number, "status": r.status, "started_at": r.started_at.isoformat(),
      "finished_at": r.finished_at.isoformat()}}
    for r in Round.objects.filter(tournament=t).order_by("number")
]
lines = selectors.standings(t)
out = {{
    "status": t.status, "points_win": t.points_win, "points_draw": t.points_draw,
    "rounds": rounds, "games": games,
    "standings": [
        {{"entry": line.entry.pk, "played": line.row.played,
          "values": {{k: line.row.values[k] for k in
                     ("match_points", "level_diff", "buchholz", "sonneborn_berger")}}}}
        for line in lines
    ],
    "round_notices": TournamentNotice.objects.filter(
        tournament=t, url__contains="#round-").count(),
}}
"""

NOTICES = """
from tournaments.models import TournamentNotice

out = TournamentNotice.objects.filter(tournament_id={tournament}, url__contains="#round-").count()
"""


@pytest.fixture(scope="module")
def stack(shared_stack):
    # the run's one stack (tests/conftest.py), its beat ticking the tournaments every 10 s
    # (the project's default): this module only adds a club, people and a tournament to it
    return shared_stack


def test_swiss_tournament_is_run_by_the_real_beat_and_worker(stack):
    setup = stack.query(SETUP.format(start_in=START_IN))
    tournament, entries = setup["tournament"], setup["entries"]
    poll = POLL.format(tournament=tournament, match_seconds=MATCH_SECONDS)
    seen = []  # (round, status) transitions, in the order observed
    deadline = time.monotonic() + TIMEOUT
    while True:
        state = stack.query(poll)
        for rnd in state["rounds"]:
            key = (rnd["number"], rnd["status"])
            if key not in seen:
                seen.append(key)
            if rnd["status"] == "playing":
                assert rnd["tables"] == 2  # 4 pairs: two tables a round, no bye
        if state["status"] == "finished":
            break
        if time.monotonic() > deadline:
            logs = {n: p.read_text()[-3000:] for n, p in stack.logs.items()}
            raise AssertionError(f"tournament not finished in {TIMEOUT} s: {state}\n{logs}")
        time.sleep(0.5)
    assert (1, "playing") in seen and (2, "finished") in seen
    assert seen.index((1, "playing")) < seen.index((2, "finished"))

    data = stack.query(CHECK.format(tournament=tournament))
    assert data["status"] == "finished"
    rounds = data["rounds"]
    assert [(r["number"], r["status"]) for r in rounds] == [(1, "finished"), (2, "finished")]
    assert rounds[0]["started_at"] >= setup["starts_at"]  # not before its time
    assert rounds[1]["started_at"] >= rounds[0]["finished_at"]  # when round 1 was over
    games = data["games"]
    assert len(games) == 4 and sorted(g["round"] for g in games) == [1, 1, 2, 2]
    for g in games:
        # played to its end by the server: clocks ran out, then auto-play; the time limit
        assert g["status"] == "finished" and g["source"] == "live"
        assert g["match_status"] == "finished" and g["replay_ok"]
        assert g["match_result"]["reason"] == "time", g["match_result"]
        assert g["score"] == g["match_result"]["score"]
        assert g["winner"] == g["match_result"]["winner"]
        assert "player" not in g["actors"] and {"clock", "auto", "system"} <= set(g["actors"])
    for number in (1, 2):  # every entry plays once a round
        sides = [e for g in games if g["round"] == number for e in g["side0"] + g["side1"]]
        assert sorted(sides) == sorted(entries)
    met = [tuple(sorted(g["side0"] + g["side1"])) for g in games]
    assert len(set(met)) == 4, "Swiss round 2 paired a rematch"

    # the standings equal a recount of the finished live matches
    win, draw = data["points_win"], data["points_draw"]
    points = dict.fromkeys(entries, 0)
    diff = dict.fromkeys(entries, 0)
    opponents = {e: [] for e in entries}
    for g in games:
        s0, s1 = g["match_result"]["score"]
        for side, other, mine, theirs in (
            (g["side0"], g["side1"], s0, s1),
            (g["side1"], g["side0"], s1, s0),
        ):
            points[side[0]] += win if mine > theirs else draw if mine == theirs else 0
            diff[side[0]] += mine - theirs
            opponents[side[0]].append(other[0])
    lines = data["standings"]
    assert sorted(line["entry"] for line in lines) == sorted(entries)
    assert all(line["played"] == 2 for line in lines)
    assert {line["entry"]: line["values"]["match_points"] for line in lines} == points
    assert {line["entry"]: line["values"]["level_diff"] for line in lines} == diff
    buchholz = {e: sum(points[o] for o in opponents[e]) for e in entries}
    assert {line["entry"]: line["values"]["buchholz"] for line in lines} == buchholz
    keys = [
        tuple(line["values"][k] for k in ("match_points", "buchholz", "sonneborn_berger"))
        for line in lines
    ]
    assert keys == sorted(keys, reverse=True)
    # the worker ran the round notifications (queued at each round's start): each of the 8
    # players, once a round
    notices = data["round_notices"]
    until = time.monotonic() + 15
    while notices < 2 * 8 and time.monotonic() < until:
        time.sleep(0.5)
        notices = stack.query(NOTICES.format(tournament=tournament))
    assert notices == 2 * 8
