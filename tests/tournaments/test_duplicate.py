"""Duplicate events (复式赛, 第三十三条; issue 45): the comparison scoring on a hand-made example
(pure), the settings' refusals, and a duplicate round of three live tables played by bots on
the real database: every table dealt the same cards seat for seat, nobody seated at one
table let into another while the round plays, and the deals compared once all have finished.
"""

import csv
import io
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone, translation
from rest_framework.test import APIClient

from clubs.models import User
from engine.match import Match as EngineMatch
from matches.messages import MatchError
from matches.models import Match, Table
from matches.services import access, clock, presence
from tests.matches.test_siblings import first_frames
from tournaments import comparisons, duplicate, selectors
from tournaments import standings as pure
from tournaments.models import Game, GameStatus, RoundStatus
from tournaments.services import entries as entry_services
from tournaments.services import rounds as round_services
from tournaments.services import schedule as schedule_services
from tournaments.services import setup as setup_services
from tournaments.services.errors import TournamentError

START = datetime(2030, 5, 1, 9, 0, tzinfo=UTC)


# ----------------------------------------------------------------- pure: a deal's worth
def record(finish, base, bao2=(0, 0), closed=(0, 0), breakdown=None):
    """A deal record as the engine keeps it (``Match.deals[k]``)."""
    return {
        "finish": list(finish),
        "base": list(base),
        "bao2": list(bao2),
        "closed": list(closed),
        "breakdown": breakdown or [[], []],
    }


def test_a_deals_worth_is_what_the_cards_made_not_the_tables_position():
    # Bao 2: 1st and 2nd (+3), 保2 +2 and two 2s closed (+4) for side 0; nothing for side 1
    assert duplicate.deal_worth(record([0, 2, 1, 3], [3, 0], (2, 0), (4, 0))) == (9, 0)
    assert duplicate.deal_result(record([0, 2, 1, 3], [3, 0], (2, 0), (4, 0))) == 9
    # the cap at the last level is the table's position: the deal is still worth 3
    capped = record([1, 3, 0, 2], [0, 3], breakdown=[[], [{"reason": "base", "levels": 3},
                                                         {"reason": "cap", "levels": -2}]])  # fmt: skip
    assert duplicate.deal_result(capped) == -3
    # the deal that wins the match moves no level in its breakdown: still worth its rise
    assert duplicate.deal_result(record([0, 1, 2, 3], [2, 0])) == 2
    # a referee card shown during the deal counts against its side
    carded = record([0, 1, 3, 2], [1, 0], breakdown=[[{"reason": "sanction", "levels": -1},
                                                      {"reason": "base", "levels": 1}], []])  # fmt: skip
    assert duplicate.deal_worth(carded) == (0, 0)


# ----------------------------------------------------------------- pure: the comparison
#: Three tables, entries A/B at table 1 (A in seats 0 and 2), C/D at table 2, E/F at table 3.
#: Deal 1: direction 0 made +3, +2, +3; deal 2 (tables 1 and 2 only): -2 and -3.
A, B, C, D, E, F = 1, 2, 3, 4, 5, 6
HAND_MADE = [
    duplicate.TablePlay(1, ((A,), (B,)), (3, -2)),
    duplicate.TablePlay(2, ((C,), (D,)), (2, -3)),
    duplicate.TablePlay(3, ((E,), (F,)), (3,)),
]


def test_matchpoints_by_deal_and_direction_on_a_hand_made_example():
    deal1, deal2 = duplicate.compare_round(HAND_MADE)
    assert (deal1.deal, deal1.tables, deal1.top) == (1, (1, 2, 3), 4)
    got = {(s.table, s.direction): (s.units, s.result, s.points) for s in deal1.scores}
    assert got == {
        # side 1: A tied E at +3 and beat C's +2 (2 + 1); C beat nobody; E as A
        (1, 0): ((A,), 3, 3),
        (2, 0): ((C,), 2, 0),
        (3, 0): ((E,), 3, 3),
        # side 2 held the other cards: D lost only 2 levels where B and F lost 3
        (1, 1): ((B,), -3, 1),
        (2, 1): ((D,), -2, 4),
        (3, 1): ((F,), -3, 1),
    }
    # deal 2 was finished at two tables: the third is not in its comparison
    assert (deal2.deal, deal2.tables, deal2.top) == (2, (1, 2), 2)
    got = {(s.table, s.direction): (s.result, s.points) for s in deal2.scores}
    assert got == {(1, 0): (-2, 2), (2, 0): (-3, 0), (1, 1): (2, 0), (2, 1): (3, 2)}
    # in every deal and direction the points shared out are those of a round robin of pairs
    for deal in (deal1, deal2):
        for direction in (0, 1):
            points = [s.points for s in deal.scores if s.direction == direction]
            n = len(deal.tables)
            assert sum(points) == n * (n - 1)


def test_totals_are_percentages_of_the_tops_of_the_deals_compared():
    totals = duplicate.totals(duplicate.compare_round(HAND_MADE))
    assert {u: (t.points, t.top) for u, t in totals.items()} == {
        A: (5, 6),
        B: (1, 6),
        C: (0, 6),
        D: (6, 6),
        E: (3, 4),  # compared in deal 1 only
        F: (1, 4),
    }
    assert {u: t.percent for u, t in totals.items()} == {
        A: 83.33,
        B: 16.67,
        C: 0.0,
        D: 100.0,
        E: 75.0,
        F: 25.0,
    }
    assert duplicate.Total().percent == 0.0


def test_a_deal_played_at_one_table_only_is_compared_with_nobody():
    alone = [duplicate.TablePlay(1, ((A,), (B,)), (3, 1)), duplicate.TablePlay(2, ((C,), (D,)), ())]
    assert duplicate.compare_round(alone) == []
    assert duplicate.compare_round([]) == []


def test_the_duplicate_score_ranks_first_in_the_standings():
    # A won its game, E drew, C lost: by match points A is first; by the comparison, D is
    records = pure.records_of_game([[A], [B]], (5, 3)) + pure.records_of_game([[C], [D]], (2, 6))
    scores = {u: t.percent for u, t in duplicate.totals(duplicate.compare_round(HAND_MADE)).items()}
    rows = pure.standings(
        [A, B, C, D], records, [duplicate.TIEBREAK, "match_points"], measured={"duplicate": scores}
    )
    assert [r.unit for r in rows] == [D, A, B, C]
    assert rows[0].values == {"duplicate": 100.0, "match_points": 2}
    with pytest.raises(ValueError):
        pure.standings([A], [], [duplicate.TIEBREAK])  # not measured: unknown


# ----------------------------------------------------------------- settings
def make_event(club, admin, **extra):
    fields = {
        "name": "复式掼蛋赛",
        "variant": "guandan",
        "format": "swiss",
        "unit_kind": "pair",
        "rounds_planned": 2,
        "starts_at": START,
        "registration_closes": START - timedelta(minutes=5),
        "round_minutes": 60,
        "online": True,
        "time_limit_minutes": 1,
        "duplicate": True,
    }
    fields.update(extra)
    return setup_services.create_tournament(admin, club, **fields)


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ({"variant": "honger", "unit_kind": "individual"}, "Bao 2 or Guandan"),
        ({"variant": "shuangkou2", "unit_kind": "single"}, "Bao 2 or Guandan"),
        ({"format": "elimination"}, "Swiss or round robin"),
        ({"format": "double_elim"}, "Swiss or round robin"),
        ({"online": False}, "played online"),
    ],
)
def test_a_duplicate_event_is_refused_where_it_cannot_be_played(club, club_admin, extra, words):
    with translation.override("en"), pytest.raises(TournamentError) as refused:
        make_event(club, club_admin, **extra)
    assert refused.value.code == "bad_duplicate"
    assert words in refused.value.message
    assert refused.value.fields["duplicate"]
    with translation.override("zh-hans"), pytest.raises(TournamentError) as refused:
        make_event(club, club_admin, **extra)
    assert "复式" in refused.value.message


def test_bao2_and_guandan_pairs_may_play_duplicate_and_it_is_fixed_once_paired(
    club, club_admin, members
):
    assert make_event(club, club_admin, variant="bao2").duplicate
    event = make_event(club, club_admin)
    assert selectors.tiebreaks_of(event)[:2] == [duplicate.TIEBREAK, "match_points"]
    setup_services.update_tournament(club_admin, event, duplicate=False)
    setup_services.update_tournament(club_admin, event, duplicate=True)
    with pytest.raises(TournamentError) as refused:
        setup_services.update_tournament(club_admin, event, duplicate="yes")
    assert refused.value.code == "bad_flag"
    people = members(4)
    setup_services.publish(club_admin, event, now=START - timedelta(days=1))
    register_pairs(event, people)
    round_services.pair_next_round(club_admin, event, now=START)
    with pytest.raises(TournamentError) as refused:
        setup_services.update_tournament(club_admin, event, duplicate=False)
    assert refused.value.code == "started"


def register_pairs(event, people):
    entries = []
    for a, b in zip(people[0::2], people[1::2], strict=True):
        entry_services.register(a, event, partner=b, now=START - timedelta(hours=1))
        entry = entry_services.answer_invitation(
            b, event, accept=True, now=START - timedelta(hours=1)
        )
        entry_services.check_in(b, event, now=START - timedelta(minutes=10))
        entries.append(entry)
    return entries


# ----------------------------------------------------------------- a round played by bots
def drive(match_id, until):
    """Act for the seat to move of match ``match_id`` (every seat on auto-play) until
    ``until(engine)`` or the match is over."""
    for _ in range(5000):
        match = Match.objects.get(pk=match_id)
        if match.status == "finished" or until(EngineMatch.from_json(match.snapshot)):
            return match
        clock.act_on_deadline(match_id, match.version, force=True)
    raise AssertionError("the match did not get there")


@pytest.mark.integration
def test_a_duplicate_round_of_three_tables_played_by_bots(
    transactional_db, club, club_admin, members, no_deadline_tasks, settings
):
    settings.MATCHES_BOT_DELAY_SECONDS = 0
    people = members(12)
    watcher = members(1)[0]
    event = make_event(club, club_admin, rounds_planned=1)
    setup_services.publish(club_admin, event, now=START - timedelta(days=1))
    entries = register_pairs(event, people)
    names = {e.pk: e.name for e in entries}
    # the tables' clocks run on the real time; the event's steps are given ``now``
    rnd = round_services.start_round(club_admin, event, now=START)
    games = list(rnd.games.order_by("number").select_related("table"))
    assert len(games) == 3 and all(g.status == GameStatus.PLAYING for g in games)
    tables = [g.table for g in games]
    matches = [Match.objects.get(table=t) for t in tables]
    # one deal group and one seed for the round: seat s holds the same cards everywhere
    assert {t.deal_group for t in tables} == {comparisons.deal_group(rnd)}
    assert len({m.seed for m in matches}) == 1
    engines = [EngineMatch.from_json(m.snapshot) for m in matches]
    for seat in range(4):
        hands = {tuple(sorted(e.observation(seat)["hand"])) for e in engines}
        assert len(hands) == 1, seat
    assert engines[0].observation(0)["hand"] != engines[0].observation(1)["hand"]
    # later deals too: deal k is dealt from the seed alike at every table
    later = [EngineMatch.new("guandan", m.seed, m.options) for m in matches]
    assert len({str(e.deal.hands) for e in later}) == 1
    # while the round plays nobody seated at one table may watch another
    seated = {t.pk: list(t.seats.values_list("user_id", flat=True)) for t in tables}
    player = people[0]
    other = next(t for t in tables if player.pk not in seated[t.pk])
    with pytest.raises(MatchError) as refused:
        access.watch(player, other.pk)
    assert refused.value.code == "sibling_table"
    assert first_frames(other.pk, {"p": player})["p"][0]["code"] == "sibling_table"
    client = Client()
    client.force_login(player)
    assert client.get(f"/matches/tables/{other.pk}/").status_code == 403
    assert access.watch(watcher, other.pk)[0] == "spectator"  # a member seated nowhere
    # nothing of the deals is shown while a table plays: not on the page, not in the API
    assert comparisons.round_comparison(rnd) is None
    page = Client().get(f"/tournaments/{event.pk}/rounds/1/").content.decode()
    assert 'id="duplicate-sealed"' in page and 'id="deal-1"' not in page
    api = APIClient().get(f"/api/v1/tournaments/{event.pk}/duplicate/").json()
    assert api == [{"round": 1, "open": False, "deals": []}]
    # the players leave it to auto-play; table 1 plays into its second deal, the others
    # one action of their first, then the match time runs out: each ends its deal
    for match in matches:
        for seat in range(4):
            presence.set_autoplay(match.pk, seat, "disconnect")
    drive(matches[0].pk, lambda e: e.deal_no == 1 and len(e.deal.log) >= 4)
    for match in matches[1:]:
        drive(match.pk, lambda e: len(e.deal.log) >= 1)
    with time_machine.travel(timezone.now() + timedelta(minutes=1, seconds=1), tick=False):
        for match in matches:
            assert clock.apply_time_limit(match.pk)
    first = drive(matches[0].pk, lambda e: False)
    schedule_services.tick(START + timedelta(minutes=2))  # table 1's result comes in
    game = Game.objects.select_related("round").get(pk=games[0].pk)
    assert game.status == GameStatus.FINISHED and game.score0 is not None
    # while tables 2 and 3 play the same deals, nothing of table 1 is shown: not its result
    # (page, API, standings, export), not its replay, not even to its own players
    assert comparisons.withheld(game) and comparisons.sealed_rounds(event) == {1}
    own = Client()
    own.force_login(User.objects.get(pk=seated[tables[0].pk][0]))
    answer = own.get(f"/matches/tables/{tables[0].pk}/replay/")
    assert answer.status_code == 403 and "replay-steps" not in answer.content.decode()
    shown = APIClient().get(f"/api/v1/tournaments/{event.pk}/rounds/").json()[0]["games"][0]
    assert (shown["score"], shown["winner"], shown["grades"]) == (None, None, None)
    assert all(line.row.played == 0 for line in selectors.standings(event))
    csv_rows = list(
        csv.reader(
            io.StringIO(Client().get(f"/tournaments/{event.pk}/results.csv").content.decode())
        )
    )
    assert csv_rows[1][4] == "" and csv_rows[1][5] == ""
    rest = [drive(m.pk, lambda e: False) for m in matches[1:]]
    done = [first, *rest]
    played = [len(EngineMatch.from_json(m.snapshot).deals) for m in done]
    assert played == [2, 1, 1]
    # a table that finished still sees nothing of another while one plays: none does now
    assert not access.barred_as_sibling(player, other)
    assert own.get(f"/matches/tables/{tables[0].pk}/replay/").status_code == 200
    schedule_services.tick(START + timedelta(minutes=3))
    shown = APIClient().get(f"/api/v1/tournaments/{event.pk}/rounds/").json()[0]["games"][0]
    assert shown["score"] == [game.score0, game.score1]
    rnd.refresh_from_db()
    assert rnd.status == RoundStatus.FINISHED
    # deal 1 compared at the three tables from their own records; deal 2 at one: not at all
    records = [EngineMatch.from_json(m.snapshot).deals for m in done]
    (deal1,) = comparisons.round_comparison(rnd)
    assert (deal1.deal, deal1.tables, deal1.top) == (1, (1, 2, 3), 4)
    results = [duplicate.deal_result(r[0]) for r in records]
    for score in deal1.scores:
        mine = results[score.table - 1] * (1 if score.direction == 0 else -1)
        others = [
            r * (1 if score.direction == 0 else -1)
            for i, r in enumerate(results)
            if i != score.table - 1
        ]
        assert score.result == mine
        assert score.points == duplicate.matchpoints(mine, others)
        game = Game.objects.get(round=rnd, number=score.table)
        assert score.units == tuple(game.side0 if score.direction == 0 else game.side1)
    # the standings rank by the comparison, then match points
    lines = selectors.standings(event)
    percent = {u: t.percent for u, t in duplicate.totals([deal1]).items()}
    assert {line.entry.pk: line.row.values["duplicate"] for line in lines} == percent
    order = [(line.row.values["duplicate"], line.row.values["match_points"]) for line in lines]
    assert order == sorted(order, reverse=True)
    # the round page and the API show each deal's comparison with the entries' names
    page = Client().get(f"/tournaments/{event.pk}/rounds/1/").content.decode()
    assert 'id="deal-1"' in page and 'id="deal-2"' not in page
    assert all(name in page for name in names.values())
    api = APIClient().get(f"/api/v1/tournaments/{event.pk}/duplicate/").json()
    assert api[0]["open"] and [d["deal"] for d in api[0]["deals"]] == [1]
    rows = api[0]["deals"][0]["directions"]
    assert sorted(r["points"] for r in rows[0] + rows[1]) == sorted(s.points for s in deal1.scores)
    assert {r["entries"][0]["name"] for r in rows[0] + rows[1]} == set(names.values())
    # replays open to everyone once every table has finished
    assert not access.siblings_playing(Table.objects.get(pk=other.pk))
