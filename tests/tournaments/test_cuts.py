"""Swiss with low-position elimination (积分编排赛 + 低位淘汰赛, 第二十九条) and the serpentine
first round (第二十八条一): the plan's check and the cut's ranking (pure, with hypothesis), a
national-rules Swiss with two cuts run by the schedule to the end on the database, the settings
through the service, the web form and the API, and the standings' exports."""

import random
from collections import Counter
from datetime import timedelta

import pytest
from django.utils import translation
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from tournaments import cuts, exports, pairing, selectors, standings
from tournaments.cuts import Cut, PlanError
from tournaments.models import Entry, Game, GameStatus, Round, TournamentStatus
from tournaments.pairing import History
from tournaments.services import cuts as cut_services
from tournaments.services import results as result_services
from tournaments.services import schedule as schedule_services
from tournaments.services import setup as setup_services
from tournaments.services.errors import TournamentError

from .test_tournament_services import START, make_tournament, register_pairs

# --------------------------------------------------------------------------- the plan


def test_a_plan_is_read_from_text_in_either_width_or_from_a_list():
    assert cuts.parse_plan("3:12, 5:6") == [Cut(3, 12), Cut(5, 6)]
    assert cuts.parse_plan("3：12，5：6") == [Cut(3, 12), Cut(5, 6)]
    assert cuts.parse_plan(" 2 = 8 ; 4:4 ") == [Cut(2, 8), Cut(4, 4)]
    assert cuts.parse_plan([{"after_round": 3, "keep": 12}]) == [Cut(3, 12)]
    assert cuts.parse_plan("") == cuts.parse_plan(None) == cuts.parse_plan([]) == []
    assert cuts.format_plan([Cut(3, 12), Cut(5, 6)]) == "3:12, 5:6"


def test_every_part_that_cannot_be_read_is_named_at_once():
    with translation.override("en"), pytest.raises(PlanError) as refused:
        cuts.parse_plan("3x12, 5:6, after:two")
    assert len(refused.value.problems) == 2
    assert "“3x12”" in refused.value.problems[0] and "“after:two”" in refused.value.problems[1]
    with pytest.raises(PlanError) as refused:
        cuts.parse_plan([{"after_round": True, "keep": 4}, {"after_round": 2}, "2:4", {"a": 1}])
    assert len(refused.value.problems) == 4
    with pytest.raises(PlanError):
        cuts.parse_plan(12)


def test_a_good_plan_passes_and_every_problem_is_named():
    assert cuts.check_plan([Cut(2, 12), Cut(4, 6)], swiss=True, rounds_planned=6) == []
    assert cuts.check_plan([Cut(2, 3)], swiss=True, rounds_planned=3) == []  # odd: a bye
    with translation.override("en"):
        problems = cuts.check_plan(
            [Cut(5, 12), Cut(3, 12), Cut(6, 1)], swiss=False, rounds_planned=5
        )
    text = " | ".join(problems)
    assert "only for Swiss" in text
    assert "Cut 1: the round is from 1 to 4" in text  # after the last round: none
    assert "Cut 2: after round 3 comes too early" in text
    assert "Cut 2 keeps 12: keep fewer than the cut before (12)" in text
    assert "Cut 3: the round is from 1 to 4" in text
    assert "Cut 3 keeps 1: keep from 2" in text
    assert len(problems) == 6
    with translation.override("zh-hans"):
        (problem,) = cuts.check_plan([Cut(2, 8)], swiss=False, rounds_planned=5)
    assert "积分编排" in problem
    assert cuts.check_plan([Cut(1, 4)], swiss=True, rounds_planned=1)  # no round after
    assert cuts.check_plan([Cut(i + 1, 100 - i) for i in range(11)], swiss=True, rounds_planned=30)


def test_cuts_made_cannot_change_and_none_can_be_added_before_the_round_paired():
    made = [Cut(2, 8)]
    same = dict(swiss=True, rounds_planned=6, made=made, rounds_paired=3)
    assert cuts.check_plan([Cut(2, 8), Cut(4, 4)], **same) == []
    assert cuts.check_plan([Cut(2, 8), Cut(3, 4)], **same) == []  # after round 3: not yet
    assert cuts.check_plan([Cut(2, 6), Cut(4, 4)], **same)
    assert cuts.check_plan([], **same)
    assert cuts.check_plan([Cut(1, 10), Cut(4, 4)], swiss=True, rounds_planned=6, rounds_paired=2)
    assert cuts.made_cuts([Cut(2, 8), Cut(4, 4)], 3) == [Cut(2, 8)]
    assert cuts.made_cuts([Cut(2, 8), Cut(4, 4)], 2) == []


# --------------------------------------------------------------------------- first round


def test_the_first_round_is_serpentine():
    games = pairing.snake_first_round([11, 12, 13, 14, 15, 16, 17, 18])
    assert [g.sides for g in games] == [
        ((11,), (18,)),
        ((12,), (17,)),
        ((13,), (16,)),
        ((14,), (15,)),
    ]
    games = pairing.snake_first_round([1, 2, 3, 4, 5, 6, 7])
    assert [g.sides for g in games] == [((1,), (6,)), ((2,), (5,)), ((3,), (4,)), ((7,), ())]
    with pytest.raises(ValueError):
        pairing.snake_first_round([1, 1])


# --------------------------------------------------------------------------- ranking


def rows_of(units_places):
    return [standings.Row(u, place) for u, place in units_places]


def test_eliminated_entries_go_below_by_the_round_they_went_out():
    rows = rows_of([(1, 1), (2, 2), (3, 2), (4, 4), (5, 5), (6, 6), (7, 6), (8, 8)])
    out = {2: 2, 5: 4, 7: 4, 8: 2}
    ranked = cuts.rank_with_cuts(rows, out)
    assert [r.unit for r in ranked] == [1, 3, 4, 6, 5, 7, 2, 8]
    assert [r.place for r in ranked] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert [r.place for r in rows] == [1, 2, 2, 4, 5, 6, 6, 8]  # not changed
    shared = cuts.rank_with_cuts(rows_of([(1, 1), (2, 2), (3, 2), (4, 2)]), {3: 1, 4: 1})
    assert [(r.unit, r.place) for r in shared] == [(1, 1), (2, 2), (3, 3), (4, 3)]


def test_a_tie_at_the_line_is_decided_by_the_seeding_so_the_count_is_exact():
    rows = rows_of([(10, 1), (11, 2), (12, 2), (13, 2), (14, 5)])
    ranked = cuts.ranked_for_cut(rows, [10, 11, 12, 13, 14], seeding=[13, 10, 12, 11, 14])
    assert ranked == [10, 13, 12, 11, 14]
    assert cuts.cut_line(ranked, 3) == ([10, 13, 12], [11, 14])
    assert cuts.cut_line(ranked, 9) == (ranked, [])


def play(games, rng):
    records = []
    for game in games:
        if game.is_bye:
            records += standings.records_of_game(game.sides, None, grades=(18, 0))
            continue
        a, b = rng.randint(2, 14), rng.randint(2, 14)
        records += standings.records_of_game(game.sides, (a, b), grades=(a - b, b - a))
    return records


@st.composite
def events(draw, even=False):
    n = draw(st.integers(4, 24))
    if even:
        n -= n % 2
    rounds = draw(st.integers(2, 7))
    plan, keep, after = [], n, 0
    while after < rounds - 1 and keep > 2 and draw(st.booleans()):
        after = draw(st.integers(after + 1, rounds - 1))
        keep = draw(st.integers(2, keep - 1))
        if even:
            keep = max(2, keep - keep % 2)
            if plan and keep >= plan[-1].keep:
                break
        plan.append(Cut(after, keep))
    return n, rounds, plan, draw(st.integers(0, 10**6))


def run_event(n, rounds, plan, seed):
    """A Swiss event with its cuts, played with random results: each round's games, the
    units playing then and who went out after which round."""
    assert cuts.check_plan(plan, swiss=True, rounds_planned=rounds) == []
    rng = random.Random(seed)
    units = list(range(1, n + 1))
    playing = list(units)
    history, records, out, log = History(), [], {}, []
    for number in range(1, rounds + 1):
        cut = cuts.cut_after(plan, number - 1)
        if cut is not None:
            rows = standings.standings(units, records, standings.NATIONAL_TIEBREAKS)
            ranked = cuts.ranked_for_cut(rows, playing, units)
            kept, gone = cuts.cut_line(ranked, cut.keep)
            assert len(kept) == min(cut.keep, len(playing))
            assert set(kept) | set(gone) == set(playing)
            playing = [u for u in playing if u in set(kept)]
            out.update(dict.fromkeys(gone, cut.after_round))
        scores = standings.match_points(records)
        if number == 1:
            games = pairing.snake_first_round(playing)
        else:
            games = pairing.swiss_round(playing, scores, history)
        log.append((number, list(playing), games))
        records += play(games, rng)
        for game in games:
            history.add(game)
    return log, out, records


@settings(max_examples=60, deadline=None)
@given(events())
def test_no_eliminated_entry_is_ever_paired_and_each_cut_keeps_its_number(event):
    n, rounds, plan, seed = event
    log, out, records = run_event(n, rounds, plan, seed)
    for number, playing, games in log:
        paired = Counter(u for g in games for u in g.units)
        assert set(paired) == set(playing) and set(paired.values()) == {1}
        assert not set(paired) & {u for u, after in out.items() if after < number}
    expected = n
    for cut in plan:
        expected = min(expected, cut.keep)
        assert sum(1 for u in range(1, n + 1) if out.get(u, 99) > cut.after_round) == expected
    rows = standings.standings(range(1, n + 1), records, standings.NATIONAL_TIEBREAKS)
    final = cuts.rank_with_cuts(rows, out)
    keys = [-out.get(r.unit, rounds + 1) for r in final]
    assert keys == sorted(keys), "those out later above those out earlier"
    assert sorted(r.unit for r in final) == list(range(1, n + 1))
    points = {r.unit: r.values["match_points"] for r in rows}
    assert {r.unit: r.values["match_points"] for r in final} == points  # points kept


@settings(max_examples=60, deadline=None)
@given(events(even=True))
def test_no_two_entries_meet_twice_across_units_while_it_can_be_avoided(event):
    n, rounds, plan, seed = event
    log, _out, _records = run_event(n, rounds, plan, seed)
    met = Counter()
    for number, playing, games in log:
        # a pairing without a rematch exists (Dirac: each has met at most number-1 others)
        if number - 1 <= len(playing) / 2 - 1:
            assert all(met[frozenset(g.units)] == 0 for g in games if not g.is_bye)
        for game in games:
            if not game.is_bye:
                met[frozenset(game.units)] += 1


# --------------------------------------------------------------------------- the database


def play_round(admin, t, number, now):
    """The side with the lower seed number wins by a margin that differs per table, so the
    grade points tell equal match points apart."""
    rnd = Round.objects.get(tournament=t, number=number)
    seeds = {e.pk: i for i, e in enumerate(selectors.entries(t))}
    for game in rnd.games.exclude(status=GameStatus.BYE).order_by("number"):
        winner = 0 if seeds[game.side0[0]] < seeds[game.side1[0]] else 1
        margin = 2 + (game.number % 5)
        scores = (2 + margin, 2) if winner == 0 else (2, 2 + margin)
        result_services.set_result(admin, game, *scores, now=now)
    return rnd


def test_a_national_swiss_with_two_cuts_runs_through_the_schedule_to_the_end(
    club, club_admin, members
):
    people = members(24)
    t = make_tournament(
        club,
        club_admin,
        variant="guandan",
        rounds_planned=5,
        start_when_ready=True,
        cuts="2:8, 4:4",
    )
    assert t.cuts == [{"after_round": 2, "keep": 8}, {"after_round": 4, "keep": 4}]
    setup_services.update_tournament(club_admin, t, scoring="national")
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    entries = register_pairs(t, people)
    order = [e.pk for e in selectors.entries(t)]
    now = START
    assert schedule_services.tick(now)[t.pk] == ["started:1"]
    first = Round.objects.get(tournament=t, number=1).games.order_by("number")
    # 第二十八条一: serpentine, 1 v 12, 2 v 11, ...
    assert [(g.side0[0], g.side1[0]) for g in first] == [
        (order[k], order[11 - k]) for k in range(6)
    ]
    out_by_round = {}
    for number in range(1, 6):
        rnd = play_round(club_admin, t, number, now)
        playing = {u for g in rnd.games.all() for u in g.side0 + g.side1}
        assert len(playing) == {1: 12, 2: 12, 3: 8, 4: 8, 5: 4}[number]
        assert not playing & set(out_by_round)  # no entry out is paired again
        now += timedelta(minutes=1)
        ranked_before = [
            line.entry.pk for line in selectors.standings(t) if line.eliminated_after is None
        ]
        done = schedule_services.tick(now)[t.pk]
        assert f"finished:{number}" in done
        if number in (2, 4):
            assert f"cut:{number}" in done
            keep = {2: 8, 4: 4}[number]
            gone = set(
                Entry.objects.filter(tournament=t, eliminated_after_round=number).values_list(
                    "pk", flat=True
                )
            )
            # exactly those below the line of the standings after the round (national order)
            assert gone == set(ranked_before[keep:])
            out_by_round.update(dict.fromkeys(gone, number))
            # a second beat, a second look: nothing changes
            assert cut_services.make_cut(t, number + 1) == []
            schedule_services.tick(now)
            assert Entry.objects.filter(tournament=t, eliminated_after_round=number).count() == (
                len(gone)
            )
        else:
            assert not any(step.startswith("cut:") for step in done)
    t.refresh_from_db()
    assert t.status == TournamentStatus.FINISHED
    assert len(out_by_round) == 8
    games = Game.objects.filter(round__tournament=t)
    met = Counter(frozenset(g.side0 + g.side1) for g in games if g.round.number < 5)
    assert max(met.values()) == 1, "no two entries met twice in rounds 1-4"
    # the last four have each met three or four others: a rematch only if every pairing of
    # them has one
    last = [frozenset(g.side0 + g.side1) for g in games if g.round.number == 5]
    if any(met[pair] for pair in last):
        a, b, c, d = sorted(u for pair in last for u in pair)
        options = [({a, b}, {c, d}), ({a, c}, {b, d}), ({a, d}, {b, c})]
        assert all(met[frozenset(x)] or met[frozenset(y)] for x, y in options)
    lines = selectors.standings(t)
    assert [line.eliminated_after for line in lines] == [None] * 4 + [4] * 4 + [2] * 4
    assert [line.row.place for line in lines] == list(range(1, 13))
    by_pk = {line.entry.pk: line for line in lines}
    for pk, after in out_by_round.items():
        line = by_pk[pk]
        assert line.row.played == after  # their games kept ...
        records = selectors.records_of([g for g in games.select_related("round")], None)
        assert line.row.values["match_points"] == sum(
            2 if r.outcome == "win" else 0 for r in records if r.unit == pk
        )  # ... and their points
    # each group in the national order: 场分, then 级分
    for group in (lines[:4], lines[4:8], lines[8:]):
        keys = [
            (line.row.values["match_points"], line.row.values["grade_points"]) for line in group
        ]
        assert keys == sorted(keys, reverse=True)
    # the standings after round 2 show nobody out yet; after round 3 the first cut
    assert all(line.eliminated_after is None for line in selectors.standings(t, 2))
    assert sum(1 for line in selectors.standings(t, 3) if line.eliminated_after) == 4
    # exports and the API say it too
    with translation.override("en"):
        csv = exports.standings_csv(t, {k: k for k in standings.TIEBREAKS}).splitlines()
    assert csv[0].endswith("Out after round")
    assert [row.rsplit(",", 1)[1] for row in csv[1:]] == [""] * 4 + ["4"] * 4 + ["2"] * 4
    api = APIClient().get(f"/api/v1/tournaments/{t.pk}/standings/").json()
    assert [row["eliminated_after_round"] for row in api] == [None] * 4 + [4] * 4 + [2] * 4
    entries_api = APIClient().get(f"/api/v1/tournaments/{t.pk}/entries/").json()
    assert sorted(e["eliminated_after_round"] or 0 for e in entries_api) == (
        [0] * 4 + [2] * 4 + [4] * 4
    )
    assert len(entries) == 12


@pytest.mark.postgresql  # row locks (select_for_update): SQLite serialises every writer
@pytest.mark.django_db(transaction=True)
def test_a_cut_is_made_once_when_four_beats_run_at_once(club, club_admin, members):
    from matchkit import at_once

    people = members(12)
    t = make_tournament(club, club_admin, rounds_planned=3, start_when_ready=True, cuts="1:4")
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    register_pairs(t, people)
    schedule_services.tick(START)
    play_round(club_admin, t, 1, START)
    results, errors = at_once(lambda: schedule_services.tick(START + timedelta(minutes=1)))
    assert errors == []
    done = sorted(step for r in results for step in r.get(t.pk, []))
    assert done.count("cut:1") == 1 and done.count("started:2") == 1
    assert Entry.objects.filter(tournament=t, eliminated_after_round=1).count() == 2
    second = Round.objects.get(tournament=t, number=2)
    assert second.games.count() == 2


def test_a_cut_planned_after_the_round_finished_is_made_when_the_next_is_paired(
    club, club_admin, members
):
    from tournaments.services import rounds as round_services

    people = members(12)
    t = make_tournament(club, club_admin, rounds_planned=3, start_when_ready=False)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    register_pairs(t, people)
    schedule_services.tick(START)
    play_round(club_admin, t, 1, START)
    assert "finished:1" in schedule_services.tick(START + timedelta(minutes=1))[t.pk]
    # the round is over, round 2 not paired yet: a cut after round 1 may still be planned
    setup_services.update_tournament(club_admin, t, cuts=[{"after_round": 1, "keep": 4}])
    rnd = round_services.pair_next_round(club_admin, t, now=START + timedelta(minutes=2))
    assert sum(len(g.side0 + g.side1) for g in rnd.games.all()) == 4
    assert Entry.objects.filter(tournament=t, eliminated_after_round=1).count() == 2
    # now made, that cut cannot change; a later one still can
    with pytest.raises(TournamentError) as refused:
        setup_services.update_tournament(club_admin, t, cuts="1:2")
    assert refused.value.code == "bad_cuts"
    setup_services.update_tournament(club_admin, t, cuts="1:4, 2:2")
    t.refresh_from_db()
    assert t.cuts[-1] == {"after_round": 2, "keep": 2}


# --------------------------------------------------------------------------- settings


def test_the_service_refuses_a_bad_plan_with_every_problem_named(club, club_admin):
    with translation.override("zh-hans"), pytest.raises(TournamentError) as refused:
        make_tournament(
            club, club_admin, format="round_robin", rounds_planned=3, cuts="3:8, 2:9, x"
        )
    assert refused.value.code == "bad_cuts"
    assert refused.value.message.startswith("低位淘汰")
    assert "“x”" in refused.value.message
    with translation.override("en"), pytest.raises(TournamentError) as refused:
        make_tournament(club, club_admin, format="round_robin", rounds_planned=3, cuts="3:8, 2:9")
    assert refused.value.fields["cuts"] == [
        "Low-position elimination is only for Swiss events.",
        "Cut 1: the round is from 1 to 2 (none after the last round).",
        "Cut 2: after round 2 comes too early; the cut before is after round 3.",
        "Cut 2 keeps 9: keep fewer than the cut before (8).",
    ]
    t = make_tournament(club, club_admin, rounds_planned=4)
    assert t.cuts == []
    with pytest.raises(TournamentError):
        setup_services.update_tournament(club_admin, t, cuts="3:4", rounds_planned=3)
    t.refresh_from_db()
    assert t.cuts == [] and t.rounds_planned == 4  # nothing changed


def test_the_api_takes_a_plan_as_a_list_or_a_text_and_refuses_a_bad_one(club, club_admin):
    from .test_tournament_api import client_for, settings_payload

    admin = client_for(club_admin)
    bad = admin.post(
        "/api/v1/tournaments/",
        settings_payload(club, rounds_planned=4, cuts=[{"after_round": 4, "keep": 1}]),
        format="json",
    )
    assert bad.status_code == 400
    assert bad.json()["code"] == "bad_cuts" and len(bad.json()["cuts"]) == 2
    good = admin.post(
        "/api/v1/tournaments/",
        settings_payload(club, rounds_planned=4, cuts=[{"after_round": 2, "keep": 4}]),
        format="json",
    )
    assert good.status_code == 201, good.json()
    assert good.json()["cuts"] == [{"after_round": 2, "keep": 4}]
    url = f"/api/v1/tournaments/{good.json()['id']}/"
    changed = admin.patch(url, {"cuts": "1:6, 3:2"}, format="json")
    assert changed.status_code == 200, changed.json()
    assert changed.json()["cuts"] == [{"after_round": 1, "keep": 6}, {"after_round": 3, "keep": 2}]
    assert admin.patch(url, {"cuts": {"after_round": 1}}, format="json").status_code == 400
    assert admin.patch(url, {"cuts": ""}, format="json").json()["cuts"] == []
