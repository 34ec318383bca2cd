"""The double round robin (双循环赛, 第二十七条三: "参赛者之间循环比赛两次", issue 45): the pure
schedule (every two units meet exactly ``cycles`` times, the second time with the sides
swapped, nobody twice in a round, twice the rounds; the groups of a group round robin too),
the 第二十七条四 tie-breaks adding up both meetings, the one settings check's refusals and the
API's field; on the database (PostgreSQL in ``./test``'s server pass) a 4-pair double round
robin played to the end by the organiser's results, and withdrawals counted over both
cycles (第二十四条二.1)."""

import re
from collections import Counter
from datetime import timedelta
from itertools import combinations

import pytest
from django.utils import timezone, translation
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from tests.tournaments.test_stages import play_round as stage_play_round
from tests.tournaments.test_tournament_services import START, make_tournament, register_pairs
from tournaments import pairing, scoring, selectors, standings
from tournaments.models import (
    GameSource,
    GameStatus,
    Round,
    RoundStatus,
    Tournament,
    TournamentStatus,
)
from tournaments.pairing import Game, History
from tournaments.services import entries as entry_services
from tournaments.services import results as result_services
from tournaments.services import schedule as schedule_services
from tournaments.services import setup as setup_services
from tournaments.services import stages as stage_services
from tournaments.services.errors import TournamentError

# --------------------------------------------------------------------------- pure


def single_count(n):
    """Rounds of one cycle of ``n`` units, counted from the circle method's definition."""
    return n - 1 if n % 2 == 0 else n


def meetings(schedule):
    """Each ordered meeting (side 0 unit, side 1 unit) with its round index, and the byes."""
    met, byes = [], Counter()
    for r, games in enumerate(schedule):
        seen = [u for g in games for u in g.units]
        assert len(seen) == len(set(seen)), f"a unit plays twice in round {r + 1}"
        for game in games:
            if game.is_bye:
                byes[game.sides[0][0]] += 1
            else:
                met.append((r, game.sides[0][0], game.sides[1][0]))
    return met, byes


@settings(max_examples=80, deadline=None)
@given(
    n=st.integers(1, 22),
    cycles=st.sampled_from([1, 2]),
    labels=st.lists(st.sampled_from(["", "红", "蓝", "绿"]), min_size=22, max_size=22),
)
def test_every_two_units_meet_exactly_cycles_times_the_second_time_sides_swapped(n, cycles, labels):
    units = list(range(100, 100 + n))
    team = {u: labels[i] for i, u in enumerate(units) if labels[i]}
    schedule = pairing.round_robin(units, team, cycles)
    one = single_count(n) if n else 0
    assert len(schedule) == cycles * one == pairing.round_robin_rounds(n, cycles)
    for games in schedule:  # everyone every round: a game or the bye
        assert sorted(u for g in games for u in g.units) == units
    met, byes = meetings(schedule)
    pairs = Counter(frozenset((a, b)) for _r, a, b in met)
    assert set(pairs) == {frozenset(p) for p in combinations(units, 2)}
    assert set(pairs.values()) <= {cycles}
    assert byes == (Counter({u: cycles for u in units}) if n % 2 else Counter())
    # the first cycle is the single round robin, teammates' games first as before
    assert schedule[:one] == pairing.round_robin(units, team)
    if cycles == 2:
        for r in range(one):
            first, second = schedule[r], schedule[one + r]
            assert [g.is_bye for g in first] == [g.is_bye for g in second]
            for a, b in zip(first, second, strict=True):
                # the same meeting, the side that sat 0 now sits 1; a bye stays a bye
                assert b.sides == (a.sides if a.is_bye else (a.sides[1], a.sides[0]))
        for pair in pairs:  # over the two meetings each unit sat on each side once
            sides = [(a, b) for _r, a, b in met if frozenset((a, b)) == pair]
            assert len(sides) == 2 and sides[0] == sides[1][::-1]


def _clashes(games, team):
    return sum(
        1
        for g in games
        if not g.is_bye
        and team.get(g.sides[0][0])
        and team.get(g.sides[0][0]) == team.get(g.sides[1][0])
    )


def test_teammates_meet_first_in_both_cycles():
    units = list(range(1, 9))
    team = {1: "红", 2: "红", 3: "蓝", 4: "蓝", 5: "绿", 6: "绿"}
    schedule = pairing.round_robin(units, team, cycles=2)
    counts = [_clashes(games, team) for games in schedule]
    assert counts[:7] == sorted(counts[:7], reverse=True) and counts[0] > 0
    assert counts[7:] == counts[:7]  # the second cycle keeps the first cycle's order


@settings(max_examples=60, deadline=None)
@given(count=st.integers(2, 33), groups=st.integers(1, 6), cycles=st.sampled_from([1, 2]))
def test_a_group_double_round_robin_meets_twice_within_each_group(count, groups, cycles):
    units = list(range(1, count + 1))
    split = pairing.serpentine_groups(units, groups)
    group_of = {u: i for i, g in enumerate(split) for u in g}
    schedule = pairing.group_round_robin(units, groups, cycles=cycles)
    one = max(single_count(len(g)) for g in split)
    assert len(schedule) == cycles * one
    assert len(schedule) == pairing.round_robin_rounds(max(map(len, split)), cycles)
    met, _byes = meetings(schedule)
    assert all(group_of[a] == group_of[b] for _r, a, b in met)  # never across groups
    pairs = Counter(frozenset((a, b)) for _r, a, b in met)
    assert set(pairs) == {frozenset(p) for g in split for p in combinations(g, 2)}
    assert set(pairs.values()) <= {cycles}
    if cycles == 2:
        # every group starts its second cycle together, after the largest group's first
        for _r, a, b in met:
            twice = [m for m in met if {m[1], m[2]} == {a, b}]
            assert [m[0] < one for m in twice] == [True, False]
            assert twice[1][1:] == (twice[0][2], twice[0][1])


def test_cycles_other_than_one_or_two_are_refused():
    for bad in (0, 3, True, "2"):
        with pytest.raises(ValueError):
            pairing.round_robin([1, 2, 3], cycles=bad)
        with pytest.raises(ValueError):
            pairing.group_round_robin([1, 2, 3, 4], 2, cycles=bad)
        with pytest.raises(ValueError):
            pairing.round_robin_rounds(4, bad)


def test_a_planned_second_meeting_is_no_rematch_but_a_third_is():
    history = History()
    history.add(Game(((1,), (2,))))
    game = Game(((2,), (1,)))
    assert [n.code for n in pairing.explain_games([game], {}, history)[0].notes] == ["rematch"]
    assert pairing.explain_games([game], {}, history, meetings=2)[0].notes == ()
    history.add(Game(((2,), (1,))))
    notes = pairing.explain_games([game], {}, history, meetings=2)[0].notes
    assert [(n.code, n.detail) for n in notes] == [("rematch", {"times": 3})]


def _records(results):
    """Standings records of Guandan games given as (side 0, side 1, level 0, level 1)."""
    out = []
    for a, b, la, lb in results:
        grades = scoring.grade_points(la, lb)
        out += standings.records_of_game([[a], [b]], (la, lb), None, grades)
    return out


# A, B, C, D = 1, 2, 3, 4, Guandan levels (级分 13 ± d): A and B beat each other once and lose
# their four games against C and D by margins that make their 级分 equal (场分 2 each), so the
# 级分 of their two meetings decide (第二十七条四.3); C and D are first and second.
CASES = {
    # A 24 + 10 = 34, B 2 + 16 = 18: A ahead (the second meeting alone would put B ahead);
    # A's losses 8 each (d = 5), B's 12 (d = 1): 66 each
    "first meeting decides": ([(1, 2, 11, 0), (2, 1, 3, 0)], (0, 5), (0, 1), [1, 2], (34, 18)),
    # A 15 + 7 = 22, B 11 + 19 = 30: B ahead (the first meeting alone would put A ahead);
    # A's losses 10 each (d = 3), B's 8 (d = 5): 62 each
    "second meeting decides": ([(1, 2, 2, 0), (2, 1, 6, 0)], (0, 3), (0, 5), [2, 1], (22, 30)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_head_to_head_grades_add_up_both_meetings(case):
    between, a_levels, b_levels, order, h2h = CASES[case]
    results = list(between)
    for unit, levels in ((1, a_levels), (2, b_levels)):
        for opponent in (3, 4):  # two meetings, sides swapped the second time
            results += [(unit, opponent, *levels), (opponent, unit, levels[1], levels[0])]
    results += [(3, 4, 4, 0), (4, 3, 1, 0)]
    records = _records(results)
    rows = standings.standings([1, 2, 3, 4], records, standings.NATIONAL_TIEBREAKS)
    row = {r.unit: r for r in rows}
    assert row[1].values["match_points"] == row[2].values["match_points"] == 2
    assert row[1].values["grade_points"] == row[2].values["grade_points"]
    assert (row[1].values["head_to_head_grades"], row[2].values["head_to_head_grades"]) == h2h
    assert [r.unit for r in rows] == [3, 4, *order]
    assert [r.place for r in rows] == [1, 2, 3, 4]
    # the opponents' 级分 count every meeting: each opponent twice
    total = {u: sum(r.grade for r in records if r.unit == u) for u in (1, 2, 3, 4)}
    for unit in (1, 2):
        others = [o for o in (1, 2, 3, 4) if o != unit]
        assert row[unit].values["opponent_grades"] == 2 * sum(total[o] for o in others)


# --------------------------------------------------------------------------- database

REASON = "家中有急事"


def double_event(club, admin, people, **extra):
    """A published Guandan double round robin of ``len(people) // 2`` checked-in pairs under
    the national rules' scoring (offline: results entered by the organiser)."""
    fields = {
        "format": "round_robin",
        "variant": "guandan",
        "scoring": "national",
        "cycles": 2,
        "start_when_ready": True,
    }
    t = make_tournament(club, admin, **{**fields, **extra})
    setup_services.publish(admin, t, now=START - timedelta(days=1))
    entries = register_pairs(t, people)
    t.refresh_from_db()
    return t, entries


def games_of(t, number):
    return list(Round.objects.get(tournament=t, number=number).games.order_by("number"))


def enter_results(admin, t, number, levels, now):
    """Enter every open game of round ``number``: ``levels(x, y, meeting)`` gives the levels of
    entries ``x`` and ``y`` (meeting 1 in the first cycle, 2 in the second)."""
    cycle = selectors.total_rounds(t) // 2
    meeting = 1 if number <= cycle else 2
    for game in games_of(t, number):
        if game.status in (GameStatus.BYE, GameStatus.FINISHED):
            continue
        a, b = game.side0[0], game.side1[0]
        result_services.set_result(admin, game, *levels(a, b, meeting), now=now)


@pytest.mark.django_db
def test_a_four_pair_double_round_robin_played_to_the_end(client, club, club_admin, members):
    t, entries = double_event(club, club_admin, members(8))
    a, b, c, d = (e.pk for e in sorted(entries, key=lambda e: e.seed))
    assert selectors.total_rounds(t) == 6  # twice the three rounds of four entries
    # the CASES["first meeting decides"] results: A and B split their meetings, A by more
    plan = {
        (a, b): {1: (11, 0), 2: (0, 3)},
        (c, d): {1: (4, 0), 2: (0, 1)},
        **{(a, o): {1: (0, 5), 2: (0, 5)} for o in (c, d)},
        **{(b, o): {1: (0, 1), 2: (0, 1)} for o in (c, d)},
    }

    def levels(x, y, meeting):
        if (x, y) in plan:
            return plan[(x, y)][meeting]
        return plan[(y, x)][meeting][::-1]

    now = START
    schedule_services.tick(now)
    for number in range(1, 7):
        enter_results(club_admin, t, number, levels, now)
        now += timedelta(minutes=1)
        schedule_services.tick(now)
    t.refresh_from_db()
    assert t.status == TournamentStatus.FINISHED
    assert t.rounds.count() == 6

    # rounds 4-6 are rounds 1-3 again, the sides swapped; nobody plays twice in a round
    sides = {n: [(g.side0[0], g.side1[0]) for g in games_of(t, n)] for n in range(1, 7)}
    for n in (1, 2, 3):
        assert sides[n + 3] == [(y, x) for x, y in sides[n]]
    for n in range(1, 7):
        seen = [e for pair in sides[n] for e in pair]
        assert sorted(seen) == sorted((a, b, c, d))
    met = Counter(frozenset(p) for n in sides for p in sides[n])
    assert set(met) == {frozenset(p) for p in combinations((a, b, c, d), 2)}
    assert set(met.values()) == {2}
    # a planned second meeting is no rematch: no game carries a rematch note
    assert not [n for g in selectors.all_games(t) for n in g.notes if n["code"] == "rematch"]

    # 第二十七条四: 场分, 级分, then the 级分 of both meetings between the tied
    lines = selectors.standings(t)
    assert [line.entry.pk for line in lines] == [c, d, a, b]
    row = {line.entry.pk: line.row for line in lines}
    assert all(r.played == 6 for r in row.values())
    assert row[a].values["match_points"] == row[b].values["match_points"] == 2
    assert row[a].values["grade_points"] == row[b].values["grade_points"] == 66
    assert (row[a].values["head_to_head_grades"], row[b].values["head_to_head_grades"]) == (34, 18)
    # the last meeting alone (B 16 : A 10) would have put B ahead
    last = next(
        g
        for g in games_of(t, 4) + games_of(t, 5) + games_of(t, 6)
        if {a, b} == {*g.sides[0], *g.sides[1]}
    )
    assert (last.grade0, last.grade1) == ((16, 10) if last.side0 == [b] else (10, 16))

    api = APIClient()
    answer = api.get(f"/api/v1/tournaments/{t.pk}/standings/").json()
    assert [x["entry"] for x in answer] == [c, d, a, b]
    assert answer[2]["values"]["head_to_head_grades"] == 34
    data = api.get(f"/api/v1/tournaments/{t.pk}/").json()
    assert (data["cycles"], data["total_rounds"]) == (2, 6)
    page = client.get(f"/tournaments/{t.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "双循环赛" in page


@pytest.mark.django_db
def test_a_withdrawal_counts_the_games_of_both_cycles(club, club_admin, members):
    # four pairs: six games each; two played is under half (of three opponents it would be
    # two of three, over half): its results are annulled
    t, entries = double_event(club, club_admin, members(8))
    gone = min(entries, key=lambda e: e.seed)

    def levels(x, y, meeting):
        return (6, 2)  # side 0 wins

    now = START
    schedule_services.tick(now)
    for number in (1, 2):
        enter_results(club_admin, t, number, levels, now)
        now += timedelta(minutes=1)
        schedule_services.tick(now)
    assert Round.objects.get(tournament=t, number=3).status == RoundStatus.PLAYING
    entry_services.withdraw(club_admin, t, gone, now=now, reason=REASON)
    assert selectors.withdrawals(t)[gone.pk].rule == "annulled"
    assert gone.pk not in {line.entry.pk for line in selectors.standings(t)}
    for number in range(3, 7):
        enter_results(club_admin, t, number, levels, now)
        now += timedelta(minutes=1)
        schedule_services.tick(now)
    t.refresh_from_db()
    assert t.status == TournamentStatus.FINISHED and t.rounds.count() == 6
    for number in (4, 5, 6):  # nobody plays it: its opponents have a bye
        games = games_of(t, number)
        assert all(gone.pk not in g.side0 + g.side1 for g in games)
        assert sum(g.is_bye for g in games) == 1 and len(games) == 2


@pytest.mark.django_db
def test_a_withdrawal_after_half_of_both_cycles_stands(club, club_admin, members):
    t, entries = double_event(club, club_admin, members(8))
    gone = min(entries, key=lambda e: e.seed)

    def levels(x, y, meeting):
        return (6, 2)

    now = START
    schedule_services.tick(now)
    for number in (1, 2, 3):  # the first cycle: three of its six games, half
        enter_results(club_admin, t, number, levels, now)
        now += timedelta(minutes=1)
        schedule_services.tick(now)
    assert Round.objects.get(tournament=t, number=4).status == RoundStatus.PLAYING
    entry_services.withdraw(club_admin, t, gone, now=now, reason=REASON)
    assert selectors.withdrawals(t)[gone.pk].rule == "stands"
    for number in range(4, 7):
        enter_results(club_admin, t, number, levels, now)
        now += timedelta(minutes=1)
        schedule_services.tick(now)
    t.refresh_from_db()
    assert t.status == TournamentStatus.FINISHED
    # each of its second-cycle games is a forfeit to the opponent: 2 场分, 18:0 级分
    for number in (4, 5, 6):
        game = next(g for g in games_of(t, number) if gone.pk in g.side0 + g.side1)
        lost = 0 if game.side0 == [gone.pk] else 1
        assert (game.source, game.winner) == (GameSource.FORFEIT, 1 - lost)
        assert ((game.grade0, game.grade1)[1 - lost], (game.grade0, game.grade1)[lost]) == (18, 0)
    row = {line.entry.pk: line.row for line in selectors.standings(t)}
    assert row[gone.pk].played == 6 and row[gone.pk].losses >= 3


# --------------------------------------------------------------------------- settings


@pytest.mark.django_db
def test_the_settings_check_refuses_bad_cycles_naming_the_field(club, club_admin):
    with translation.override("zh-hans"):
        with pytest.raises(TournamentError) as refused:
            make_tournament(club, club_admin, format="swiss", cycles=2, groups=0)
        assert set(refused.value.fields) == {"cycles", "groups"}  # every problem at once
        assert "循环次数：双循环赛属于循环赛" in refused.value.message
        for bad in (3, 0, True, "twice"):
            with pytest.raises(TournamentError) as refused:
                make_tournament(club, club_admin, format="round_robin", cycles=bad)
            assert refused.value.fields == {
                "cycles": ["循环赛只进行一次或两次循环：填 1（单循环赛）或 2（双循环赛）。"]
            }
    assert not Tournament.objects.exists()
    t = make_tournament(club, club_admin, format="round_robin", cycles=2, groups=2)
    assert (t.cycles, t.round_robin_cycles, t.format_display()) == (2, 2, "双循环赛")
    # a Swiss event keeps one cycle whatever is asked later, refused beside its field
    with pytest.raises(TournamentError) as refused:
        setup_services.update_tournament(club_admin, t, format="swiss")
    assert set(refused.value.fields) == {"cycles", "groups"}
    Round.objects.create(tournament=t, number=1, scheduled_at=START)
    with pytest.raises(TournamentError) as refused:
        setup_services.update_tournament(club_admin, t, cycles=1)
    assert refused.value.code == "started"
    t.refresh_from_db()
    assert t.cycles == 2


@pytest.mark.django_db
def test_the_web_form_and_the_api_set_the_cycles(client, club, club_admin):
    client.force_login(club_admin)
    url = f"/tournaments/clubs/{club.slug}/new/"
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert 'name="cycles"' in page
    assert re.search(
        r'<option value="1"[^>]*>单循环赛</option>\s*<option value="2"[^>]*>双循环赛<', page
    )
    starts = (timezone.localtime() + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M")
    data = {
        "name": "双循环邀请赛",
        "variant": "guandan",
        "format": "swiss",
        "unit_kind": "pair",
        "rounds_planned": "4",
        "starts_at": starts,
        "checkin_minutes": "30",
        "late_until_round": "0",
        "round_minutes": "60",
        "no_show_minutes": "0",
        "cycles": "2",
    }
    refused = client.post(url, data, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert refused.status_code == 200 and not Tournament.objects.exists()
    assert list(refused.context["form"].errors) == ["cycles"]
    assert client.post(url, {**data, "format": "round_robin"}).status_code == 302
    assert Tournament.objects.get().cycles == 2

    api = APIClient()
    api.force_authenticate(club_admin)
    payload = {
        "club": club.pk,
        "name": "API 双循环",
        "variant": "guandan",
        "format": "round_robin",
        "starts_at": (timezone.now() + timedelta(days=2)).isoformat(),
    }
    bad = api.post("/api/v1/tournaments/", {**payload, "cycles": 5}, format="json")
    assert bad.status_code == 400 and "cycles" in bad.json()
    made = api.post("/api/v1/tournaments/", {**payload, "cycles": 2}, format="json")
    assert made.status_code == 201 and made.json()["cycles"] == 2
    single = api.post("/api/v1/tournaments/", {**payload, "name": "单循环"}, format="json")
    assert single.json()["cycles"] == 1


@pytest.mark.django_db
def test_a_group_double_round_robin_then_a_double_round_robin_final(club, club_admin, members):
    t = make_tournament(
        club, club_admin, format="round_robin", start_when_ready=True, groups=2, cycles=2
    )
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    register_pairs(t, members(16))
    groups = selectors.groups_of(t)
    assert [len(g) for g in groups] == [4, 4]
    assert selectors.total_rounds(t) == 6  # groups of four: three rounds a cycle
    now = START
    schedule_services.tick(now)
    for number in range(1, 7):
        stage_play_round(club_admin, t, number, now)
        now += timedelta(minutes=1)
        schedule_services.tick(now)
    t.refresh_from_db()
    assert t.status == TournamentStatus.FINISHED
    group_of = {pk: i for i, g in enumerate(groups) for pk in g}
    met = Counter()
    for game in selectors.all_games(t):
        a, b = game.side0[0], game.side1[0]
        assert group_of[a] == group_of[b]
        met[frozenset((a, b))] += 1
        if game.round.number > 3:  # the second cycle: round n - 3 with the sides swapped
            before = [
                g for g in games_of(t, game.round.number - 3) if {a, b} == {*g.side0, *g.side1}
            ]
            assert [(g.side0, g.side1) for g in before] == [([b], [a])]
    assert set(met.values()) == {2} and len(met) == 12

    # the final: the top two of each group, itself a double round robin
    with pytest.raises(TournamentError) as refused:
        stage_services.create_next_stage(
            club_admin, t, format="elimination", qualifiers_count=2, cycles=2, now=now
        )
    assert set(refused.value.fields) == {"cycles"}
    api = APIClient()
    api.force_authenticate(club_admin)
    bad = api.post(
        f"/api/v1/tournaments/{t.pk}/next-stage/",
        {"format": "round_robin", "qualifiers": 2, "cycles": 3},
        format="json",
    )
    assert bad.status_code == 400 and "cycles" in bad.json()
    assert not t.next_stages.exists()
    made = api.post(
        f"/api/v1/tournaments/{t.pk}/next-stage/",
        {"format": "round_robin", "qualifiers": 2, "cycles": 2},
        format="json",
    )
    assert made.status_code == 201, made.json()
    assert (made.json()["cycles"], made.json()["total_rounds"]) == (2, 6)
    final = t.next_stages.get()
    assert final.cycles == 2 and final.entries.count() == 4
