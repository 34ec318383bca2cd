"""Withdrawals as 第二十三、二十四条 of the national rules handle them (issue 45, item 2).

Before round 1 starts the pairing is made for the entries left (a round robin drawn afresh, a
bye each round for an odd number); after the start only an organiser accepts a withdrawal,
with a reason, and the format decides: a round robin annuls the results of an entry that
played under half of its opponents (they keep theirs against it) and forfeits the rest of the
games of one that played half or more; a Swiss event forfeits the round's game and pairs the
entry no more; a knockout sends the opponent through. Forfeits score 2:0 场分 and 18:0 级分
under national scoring; a live table is ended once through its event log."""

from collections import Counter
from datetime import timedelta

import pytest
import time_machine

from tournaments import selectors
from tournaments.models import EntryStatus, Game, GameSource, GameStatus, Round, RoundStatus
from tournaments.services import entries as entry_services
from tournaments.services import results as result_services
from tournaments.services import rounds as round_services
from tournaments.services import schedule as schedule_services
from tournaments.services import setup as setup_services
from tournaments.services.errors import NotAllowed, TournamentError

from .test_tournament_services import START, make_tournament, register_pairs

pytestmark = pytest.mark.django_db

REASON = "家中有急事"


def event(club, admin, people, national=False, **extra):
    """A published event of ``len(people) // 2`` checked-in pairs (offline unless told)."""
    t = make_tournament(club, admin, **extra)
    if national:
        setup_services.update_tournament(admin, t, scoring="national")
    setup_services.publish(admin, t, now=START - timedelta(days=1))
    entries = register_pairs(t, people)
    t.refresh_from_db()
    return t, entries


def round_games(t, number):
    return list(Game.objects.filter(round__tournament=t, round__number=number).order_by("number"))


def play_round(admin, t, number, now, winner_of=None):
    """Start round ``number`` and enter a result for each game being played: side 0 wins
    8:2 unless ``winner_of`` (entry id → True) names an entry of side 1."""
    round_services.start_round(admin, t, now)
    for game in round_games(t, number):
        if game.status != GameStatus.PLAYING:
            continue
        flip = winner_of is not None and any(winner_of.get(e) for e in game.side1)
        result_services.set_result(admin, game, *((2, 8) if flip else (8, 2)), now=now)
    rnd = Round.objects.get(tournament=t, number=number)
    rnd.status = RoundStatus.FINISHED
    rnd.save(update_fields=["status"])


def game_of(t, number, entry):
    return next(g for g in round_games(t, number) if entry.pk in g.side0 + g.side1)


def standing(t):
    return {line.entry.pk: line.row for line in selectors.standings(t)}


# --------------------------------------------------------------------------- before round 1


def test_before_round_one_a_round_robin_left_odd_has_a_bye_each_round(club, club_admin, members):
    people = members(8)
    t, entries = event(club, club_admin, people, format="round_robin")
    # a player withdraws their own entry before anything is paired
    entry_services.withdraw(people[0], t, now=START - timedelta(minutes=20))
    assert selectors.total_rounds(t) == 3  # three left: three rounds, one bye each
    byes = Counter()
    met = Counter()
    for number in (1, 2, 3):
        play_round(club_admin, t, number, START + timedelta(minutes=number))
        for game in round_games(t, number):
            assert entries[0].pk not in game.side0 + game.side1
            if game.is_bye:
                byes[game.side0[0]] += 1
            else:
                met[frozenset(game.side0 + game.side1)] += 1
    assert byes == Counter({e.pk: 1 for e in entries[1:]})
    assert set(met.values()) == {1} and len(met) == 3  # everyone met everyone once


def test_before_round_one_a_round_robin_left_even_is_drawn_again(club, club_admin, members):
    people = members(10)
    t, entries = event(club, club_admin, people, format="round_robin")
    round_services.pair_next_round(club_admin, t, START)
    assert sum(g.is_bye for g in round_games(t, 1)) == 1  # five entries: a bye
    assert selectors.total_rounds(t) == 5
    # round 1 is paired, not started: a player can no longer withdraw, the organiser can
    with pytest.raises(TournamentError) as err:
        entry_services.withdraw(people[2], t, now=START)
    assert err.value.code == "organiser_only"
    assert "组织者" in err.value.message or "organiser" in err.value.message
    assert t.entries.get(pk=entries[1].pk).status == EntryStatus.CHECKED_IN
    entry_services.withdraw(club_admin, t, entries[1], now=START)
    # drawn again for four: no bye, three rounds, every two meet once
    first = round_games(t, 1)
    assert len(first) == 2 and not any(g.is_bye for g in first)
    assert selectors.total_rounds(t) == 3
    met = Counter()
    for number in (1, 2, 3):
        play_round(club_admin, t, number, START + timedelta(minutes=number))
        for game in round_games(t, number):
            assert not game.is_bye and entries[1].pk not in game.side0 + game.side1
            met[frozenset(game.side0 + game.side1)] += 1
    assert len(met) == 6 and set(met.values()) == {1}
    assert standing(t)[entries[1].pk].played == 0


def test_before_round_one_swiss_and_knockout_pair_the_entries_left(club, club_admin, members):
    people = members(10)
    swiss, entries = event(club, club_admin, people, rounds_planned=2)
    round_services.pair_next_round(club_admin, swiss, START)
    assert sum(g.is_bye for g in round_games(swiss, 1)) == 1
    entry_services.withdraw(club_admin, swiss, entries[4], now=START)
    games = round_games(swiss, 1)
    assert len(games) == 2 and not any(g.is_bye for g in games)  # four left: no bye
    assert entries[4].pk not in {e for g in games for e in g.side0 + g.side1}
    entry_services.withdraw(club_admin, swiss, entries[3], now=START)
    assert sum(g.is_bye for g in round_games(swiss, 1)) == 1  # three left: a bye

    others = members(8)
    knockout, teams = event(club, club_admin, others, format="elimination", name="淘汰赛")
    round_services.pair_next_round(club_admin, knockout, START)
    entry_services.withdraw(club_admin, knockout, teams[0], now=START)
    games = round_games(knockout, 1)
    # three left: the top seed left (seed 2) has the bye of the bracket of four
    assert [g.is_bye for g in games] == [True, False]
    assert games[0].side0 == [teams[1].pk]


# --------------------------------------------------------------------------- round robin


def test_round_robin_under_half_played_annuls_the_results_of_the_withdrawn_entry(
    club, club_admin, members, client
):
    people = members(12)  # six pairs: five opponents each
    t, entries = event(
        club, club_admin, people, national=True, format="round_robin", variant="guandan"
    )
    gone = entries[0]
    play_round(club_admin, t, 1, START, winner_of={gone.pk: True})
    first = game_of(t, 1, gone)
    beaten = next(e for e in first.side0 + first.side1 if e != gone.pk)
    before = standing(t)[beaten]
    # round 2 is being played when the organiser accepts the withdrawal (1 of 5 played)
    round_services.start_round(club_admin, t, START + timedelta(minutes=5))
    current = game_of(t, 2, gone)
    opponent = next(e for e in current.side0 + current.side1 if e != gone.pk)
    entry_services.withdraw(club_admin, t, gone, now=START + timedelta(minutes=6), reason=REASON)
    current.refresh_from_db()
    winner = 0 if opponent in current.side0 else 1
    assert (current.status, current.source, current.winner) == ("finished", "forfeit", winner)
    assert (current.grade0, current.grade1)[winner] == 18  # 场分 2, 级分 18
    assert (current.grade0, current.grade1)[1 - winner] == 0
    # the entry leaves the standings; the opponent it beat keeps its loss, the one it
    # forfeited to keeps its win
    rows = standing(t)
    assert gone.pk not in rows
    assert rows[beaten].losses == before.losses == 1
    assert rows[opponent].values["match_points"] >= 2
    assert rows[opponent].values["grade_points"] >= 18
    withdrawal = selectors.withdrawals(t)[gone.pk]
    assert (withdrawal.round, withdrawal.reason, withdrawal.rule) == (2, REASON, "annulled")
    assert selectors.annulled(t) == [gone.pk]
    first.refresh_from_db()
    assert any(n["code"] == selectors.WITHDRAWAL_ANNULLED for n in first.notes)
    # its games still to come are byes for its opponents, nobody plays it
    for game in Game.objects.filter(round__tournament=t, round__number=2):
        if game.status == GameStatus.PLAYING:
            result_services.set_result(club_admin, game, 8, 2, now=START + timedelta(minutes=7))
    Round.objects.filter(tournament=t, number=2).update(status=RoundStatus.FINISHED)
    round_services.start_round(club_admin, t, START + timedelta(minutes=8))
    third = round_games(t, 3)
    assert all(gone.pk not in g.side0 + g.side1 for g in third)
    assert sum(g.is_bye for g in third) == 1
    # the pages and the API show it
    client.force_login(club_admin)
    page = client.get(f"/tournaments/{t.pk}/standings/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    text = page.content.decode()
    assert page.status_code == 200
    assert "退赛（第2轮）" in text and "成绩注销" in text and REASON in text
    api = client.get(f"/api/v1/tournaments/{t.pk}/standings/").json()
    last = api[-1]
    assert last["entry"] == gone.pk and last["place"] is None
    assert last["withdrawal"] == {
        "round": 2,
        "reason": REASON,
        "rule": "annulled",
        "annulled": True,
    }


def test_round_robin_half_played_keeps_the_results_and_forfeits_the_rest(
    club, club_admin, members, client
):
    people = members(12)
    t, entries = event(
        club, club_admin, people, national=True, format="round_robin", variant="guandan"
    )
    gone = entries[0]
    for number in (1, 2, 3):  # three of five played: over half
        play_round(club_admin, t, number, START + timedelta(minutes=number))
    played = standing(t)[gone.pk]
    assert played.played == 3
    round_services.start_round(club_admin, t, START + timedelta(minutes=10))
    current = game_of(t, 4, gone)
    entry_services.withdraw(club_admin, t, gone, now=START + timedelta(minutes=11), reason=REASON)
    current.refresh_from_db()
    assert current.source == GameSource.FORFEIT and current.status == GameStatus.FINISHED
    lost = 0 if gone.pk in current.side0 else 1
    assert current.winner == 1 - lost
    assert ((current.grade0, current.grade1)[1 - lost], (current.grade0, current.grade1)[lost]) == (
        18,
        0,
    )
    assert selectors.withdrawals(t)[gone.pk].rule == "stands"
    rows = standing(t)
    assert rows[gone.pk].played == 4 and rows[gone.pk].losses >= 1  # its results stand
    for game in round_games(t, 4):
        if game.status == GameStatus.PLAYING:
            result_services.set_result(club_admin, game, 8, 2, now=START + timedelta(minutes=12))
    Round.objects.filter(tournament=t, number=4).update(status=RoundStatus.FINISHED)
    # round 5: its game is forfeited as soon as it is paired, the opponent scores 2 and 18
    rnd = round_services.pair_next_round(club_admin, t, START + timedelta(minutes=13))
    last = game_of(t, 5, gone)
    assert (last.status, last.source) == (GameStatus.FINISHED, GameSource.FORFEIT)
    opponent_side = 1 if gone.pk in last.side0 else 0
    assert last.winner == opponent_side
    assert (last.grade0, last.grade1)[opponent_side] == 18
    assert any(n["code"] == selectors.WITHDRAWAL_FORFEIT for n in last.notes)
    # the round starts: no table, no play for that game; the round ends with the others
    round_services.start_round(club_admin, t, START + timedelta(minutes=14))
    last.refresh_from_db()
    assert last.status == GameStatus.FINISHED and last.table_id is None
    assert rnd.games.filter(status=GameStatus.PLAYING).count() == 2
    rows = standing(t)
    assert rows[gone.pk].played == 5 and gone.pk in rows
    opponent = last.sides[opponent_side][0]
    assert rows[opponent].wins >= 1
    client.force_login(club_admin)
    text = client.get(
        f"/tournaments/{t.pk}/standings/", HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).content.decode()
    assert "退赛（第4轮）" in text
    api = client.get(f"/api/v1/tournaments/{t.pk}/standings/").json()
    line = next(x for x in api if x["entry"] == gone.pk)
    assert line["place"] >= 1 and line["withdrawal"]["rule"] == "stands"


# --------------------------------------------------------------------------- Swiss


def test_swiss_forfeits_the_round_and_pairs_the_entry_no_more(club, club_admin, members):
    people = members(8)
    t, entries = event(club, club_admin, people, national=True, rounds_planned=3, variant="guandan")
    gone = entries[2]
    play_round(club_admin, t, 1, START)
    round_services.pair_next_round(club_admin, t, START + timedelta(minutes=1))
    # round 2 is paired but not started: its game is the round's, forfeited at once
    paired = game_of(t, 2, gone)
    entry_services.withdraw(club_admin, t, gone, now=START + timedelta(minutes=2), reason=REASON)
    paired.refresh_from_db()
    assert (paired.status, paired.source) == (GameStatus.FINISHED, GameSource.FORFEIT)
    winner = 1 if gone.pk in paired.side0 else 0
    assert paired.winner == winner and (paired.grade0, paired.grade1)[winner] == 18
    # swapping in the paired round leaves the forfeited game alone
    others = [g for g in round_games(t, 2) if g.pk != paired.pk]
    with pytest.raises(TournamentError):
        round_services.swap_entries(club_admin, paired.round, gone.pk, others[0].side0[0])
    round_services.start_round(club_admin, t, START + timedelta(minutes=3))
    paired.refresh_from_db()
    assert paired.table_id is None and paired.status == GameStatus.FINISHED
    for game in round_games(t, 2):
        if game.status == GameStatus.PLAYING:
            result_services.set_result(club_admin, game, 8, 2, now=START + timedelta(minutes=4))
    Round.objects.filter(tournament=t, number=2).update(status=RoundStatus.FINISHED)
    round_services.pair_next_round(club_admin, t, START + timedelta(minutes=5))
    third = round_games(t, 3)
    assert all(gone.pk not in g.side0 + g.side1 for g in third)
    assert sum(g.is_bye for g in third) == 1  # three left
    rows = standing(t)
    assert rows[gone.pk].played == 2  # its results stand, and it stays in the standings
    assert selectors.withdrawals(t)[gone.pk].rule == "swiss"


# --------------------------------------------------------------------------- knockout


def test_single_elimination_sends_the_opponent_through(club, club_admin, members):
    people = members(8)
    t, entries = event(club, club_admin, people, format="elimination")
    round_services.start_round(club_admin, t, START)
    first, second = round_games(t, 1)
    gone = first.side1[0]
    entry = t.entries.get(pk=gone)
    entry_services.withdraw(club_admin, t, entry, now=START + timedelta(minutes=1), reason=REASON)
    first.refresh_from_db()
    assert (first.winner, first.source) == (0, GameSource.FORFEIT)
    # the other semi-final's winner withdraws between the rounds: the final is forfeited
    result_services.set_result(club_admin, second, 8, 2, now=START + timedelta(minutes=2))
    Round.objects.filter(tournament=t, number=1).update(status=RoundStatus.FINISHED)
    finalist = t.entries.get(pk=second.side0[0])
    entry_services.withdraw(
        club_admin, t, finalist, now=START + timedelta(minutes=3), reason="身体不适"
    )
    assert selectors.withdrawals(t)[finalist.pk].round == 2
    round_services.pair_next_round(club_admin, t, START + timedelta(minutes=4))
    (final,) = round_games(t, 2)
    assert final.status == GameStatus.FINISHED and final.source == GameSource.FORFEIT
    assert selectors.winner_entry(final) == first.side0[0]
    round_services.start_round(club_admin, t, START + timedelta(minutes=5))
    with time_machine.travel(START + timedelta(minutes=6), tick=False):
        schedule_services.tick(START + timedelta(minutes=6))
        schedule_services.tick(START + timedelta(minutes=7))
    t.refresh_from_db()
    assert t.status == "finished"
    assert selectors.standings(t)[0].entry.pk == first.side0[0]


def test_double_elimination_opponent_advances_and_the_losers_bracket_forfeits(
    club, club_admin, members
):
    people = members(8)
    t, entries = event(
        club, club_admin, people, national=True, format="double_elim", variant="guandan"
    )
    round_services.start_round(club_admin, t, START)
    games = round_games(t, 1)
    gone = t.entries.get(pk=games[0].side0[0])
    entry_services.withdraw(club_admin, t, gone, now=START + timedelta(minutes=1), reason=REASON)
    games[0].refresh_from_db()
    assert games[0].winner == 1 and (games[0].grade0, games[0].grade1) == (0, 18)
    result_services.set_result(club_admin, games[1], 8, 2, now=START + timedelta(minutes=2))
    Round.objects.filter(tournament=t, number=1).update(status=RoundStatus.FINISHED)
    round_services.pair_next_round(club_admin, t, START + timedelta(minutes=3))
    # round 2: the winners' final is played; the withdrawn entry's losers' game is forfeited
    second = round_games(t, 2)
    mine = [g for g in second if gone.pk in g.side0 + g.side1]
    assert len(mine) == 1 and mine[0].source == GameSource.FORFEIT
    assert selectors.winner_entry(mine[0]) != gone.pk


# --------------------------------------------------------------------------- permissions


def test_after_the_start_only_an_organiser_accepts_a_withdrawal_with_a_reason(
    club, club_admin, members, client
):
    people = members(8)
    t, entries = event(club, club_admin, people)
    round_services.start_round(club_admin, t, START)
    mine = entries[0]

    def unchanged():
        mine.refresh_from_db()
        assert mine.status == EntryStatus.CHECKED_IN
        assert not Game.objects.filter(round__tournament=t, source=GameSource.FORFEIT).exists()

    with pytest.raises(TournamentError) as err:
        entry_services.withdraw(people[0], t, now=START, reason=REASON)  # the player
    assert err.value.code == "organiser_only"
    unchanged()
    with pytest.raises(NotAllowed):
        entry_services.withdraw(people[2], t, mine, now=START, reason=REASON)  # another player
    unchanged()
    for reason, code in (
        ("", "reason_needed"),
        ("   ", "reason_needed"),
        ("长" * 201, "reason_too_long"),
    ):
        with pytest.raises(TournamentError) as err:
            entry_services.withdraw(club_admin, t, mine, now=START, reason=reason)
        assert err.value.code == code
        unchanged()
    # the web form and the API answer the same, translated, and change nothing; the player's
    # page offers no withdraw button any more, it says whom to ask
    client.force_login(people[0])
    own_page = client.get(f"/tournaments/{t.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert 'id="withdraw-ask"' in own_page and "请联系组织者" in own_page
    assert "/do/withdraw/" not in own_page
    page = client.post(
        f"/tournaments/{t.pk}/do/withdraw/",
        {"reason": REASON},
        HTTP_ACCEPT_LANGUAGE="zh-hans",
        follow=True,
    ).content.decode()
    assert "只有组织者" in page
    answer = client.post(f"/api/v1/tournaments/{t.pk}/withdraw/", {"reason": REASON})
    assert answer.status_code == 400 and answer.json()["code"] == "organiser_only"
    client.force_login(club_admin)
    answer = client.post(f"/api/v1/tournaments/{t.pk}/withdraw/", {"entry": mine.pk, "reason": ""})
    assert answer.status_code == 400 and answer.json()["code"] == "reason_needed"
    answer = client.post(
        f"/api/v1/tournaments/{t.pk}/withdraw/", {"entry": mine.pk, "reason": "x" * 201}
    )
    assert answer.status_code == 400
    unchanged()
    answer = client.post(
        f"/api/v1/tournaments/{t.pk}/withdraw/", {"entry": mine.pk, "reason": REASON}
    )
    assert answer.status_code == 200 and answer.json()["status"] == "withdrawn"
    forfeits = Game.objects.filter(round__tournament=t, source=GameSource.FORFEIT)
    assert forfeits.count() == 1
    # again: nothing more happens; reinstating is refused
    entry_services.withdraw(club_admin, t, mine, now=START, reason=REASON)
    assert forfeits.count() == 1
    with pytest.raises(TournamentError) as err:
        entry_services.reinstate(club_admin, t, mine)
    assert err.value.code == "withdrawn_after_start"


# --------------------------------------------------------------------------- a live table


def test_a_live_table_is_forfeited_once_through_its_event_log(
    club, club_admin, members, no_deadline_tasks
):
    from ladder.models import RatedResult
    from matches.models import Match

    people = members(8)
    t, entries = event(
        club, club_admin, people, national=True, online=True, rated=True, variant="guandan"
    )
    with time_machine.travel(START, tick=False):
        schedule_services.tick(START)
    game = round_games(t, 1)[0]
    match = Match.objects.get(table_id=game.table_id)
    gone = t.entries.get(pk=game.side1[0])
    with time_machine.travel(START + timedelta(minutes=2), tick=False):
        entry_services.withdraw(
            club_admin, t, gone, now=START + timedelta(minutes=2), reason=REASON
        )
    match.refresh_from_db()
    game.refresh_from_db()
    assert match.status == "finished" and match.result["reason"] == "forfeit"
    assert match.events.filter(action__sanction="forfeit").count() == 1
    assert (game.status, game.source, game.winner) == ("finished", "forfeit", 0)
    assert (game.grade0, game.grade1) == (18, 0)
    # the beat collects nothing new, and the ladder has the match once
    with time_machine.travel(START + timedelta(minutes=3), tick=False):
        done = schedule_services.tick(START + timedelta(minutes=3)).get(t.pk, [])
    assert "results:1" not in done
    assert RatedResult.objects.filter(source="live", source_id=str(match.pk)).count() == 1
    other = round_games(t, 1)[1]
    assert other.status == GameStatus.PLAYING


# --------------------------------------------------------------------------- the pure rule


def test_a_withdrawal_forfeit_scores_as_the_rules_say():
    from tournaments import scoring

    won = scoring.withdrawal_forfeit((False, True), knockout=False, top=12, scale=scoring.GUANDAN)
    assert (won.winner, won.scores, won.grades) == (0, (12, 0), (18, 0))
    bao2 = scoring.withdrawal_forfeit((True, False), knockout=False, top=23, scale=scoring.BAO2)
    assert (bao2.winner, bao2.scores, bao2.grades) == (1, (0, 23), (-23, 23))
    club_points = scoring.withdrawal_forfeit((True, False), knockout=False, top=None, scale=None)
    assert (club_points.winner, club_points.scores, club_points.grades) == (1, (0, 0), None)
    both = scoring.withdrawal_forfeit((True, True), knockout=False, top=12, scale=scoring.GUANDAN)
    assert (both.winner, both.scores, both.grades) == (None, (0, 0), (0, 0))
    through = scoring.withdrawal_forfeit((True, True), knockout=True, top=12, scale=None)
    assert (through.winner, through.scores) == (0, (12, 0))
    with pytest.raises(ValueError):
        scoring.withdrawal_forfeit((False, False), knockout=False, top=12, scale=None)
    with pytest.raises(ValueError):
        scoring.forfeit_levels(12, 2)


def test_a_round_robin_entry_that_withdrew_never_has_a_bye(club, club_admin, members):
    """An entry whose results stand keeps its place in the schedule for its forfeits, but its
    game against an entry that has left altogether is no game at all — not a bye for it."""
    from tournaments import pairing

    people = members(12)
    t, entries = event(club, club_admin, people, format="round_robin", variant="guandan")
    stays = entries[0]
    schedule = pairing.round_robin([e.pk for e in entries])
    fifth = next(g for g in schedule[4] if stays.pk in g.units)
    leaves = t.entries.get(pk=next(u for u in fifth.units if u != stays.pk))
    play_round(club_admin, t, 1, START)
    round_services.start_round(club_admin, t, START + timedelta(minutes=1))
    entry_services.withdraw(club_admin, t, leaves, now=START + timedelta(minutes=1), reason=REASON)
    assert selectors.withdrawals(t)[leaves.pk].rule == "annulled"  # 1 of 5 played

    def finish(number, minute):
        for game in round_games(t, number):
            if game.status == GameStatus.PLAYING:
                result_services.set_result(
                    club_admin, game, 8, 2, now=START + timedelta(minutes=minute)
                )
        Round.objects.filter(tournament=t, number=number).update(status=RoundStatus.FINISHED)

    finish(2, 2)
    play_round(club_admin, t, 3, START + timedelta(minutes=3))
    round_services.start_round(club_admin, t, START + timedelta(minutes=4))
    entry_services.withdraw(club_admin, t, stays, now=START + timedelta(minutes=4), reason=REASON)
    assert selectors.withdrawals(t)[stays.pk].rule == "stands"  # 3 of 5 played
    finish(4, 5)
    round_services.start_round(club_admin, t, START + timedelta(minutes=6))
    fifth_round = round_games(t, 5)
    assert all(stays.pk not in g.side0 + g.side1 for g in fifth_round)
    assert all(leaves.pk not in g.side0 + g.side1 for g in fifth_round)
    assert standing(t)[stays.pk].byes == 0
