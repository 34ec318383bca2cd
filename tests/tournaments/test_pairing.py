"""Pairing and standings properties over many random tournaments (pure, no database)."""

import itertools
import random
from collections import Counter

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench import pairing as tournament_bench
from tournaments import pairing, standings
from tournaments.pairing import Game, History


def perfect_matchings(items):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for i, other in enumerate(rest):
        for tail in perfect_matchings(rest[:i] + rest[i + 1 :]):
            yield [(first, other), *tail]


def random_results(games, rng):
    """Scores of played games: a random level result (2..14 : 2..14, sometimes a draw)."""
    out = []
    for game in games:
        if game.is_bye:
            out.extend(standings.records_of_game(game.sides, None))
            continue
        a, b = rng.randint(2, 14), rng.randint(2, 14)
        out.extend(standings.records_of_game(game.sides, (a, b)))
    return out


def check_round(units, games):
    seen = Counter(u for g in games for u in g.units)
    assert set(seen) == set(units)
    assert all(c == 1 for c in seen.values()), "everyone is paired exactly once per round"


def swiss_tournament(n, rounds, seed):
    rng = random.Random(seed)
    units = list(range(100, 100 + n))
    history = History()
    records = []
    played = []
    for _ in range(rounds):
        scores = standings.match_points(records)
        games = pairing.swiss_round(units, scores, history)
        yield units, scores, history, games
        check_round(units, games)
        played.append(games)
        records += random_results(games, rng)
        for g in games:
            history.add(g)


def min_byes_no_rematch_possible(units, history):
    """Whether some pairing has no rematch while the bye (if any) goes to a fewest-byes unit."""
    graph = nx.Graph()
    nodes = list(units)
    fewest = min(history.byes[u] for u in units)
    for a, b in itertools.combinations(units, 2):
        if not history.met[(min(a, b), max(a, b))]:
            graph.add_edge(a, b)
    if len(nodes) % 2:
        for u in units:
            if history.byes[u] == fewest:
                graph.add_edge(u, "bye")
        nodes.append("bye")
    matched = nx.max_weight_matching(graph, maxcardinality=True)
    return len(matched) * 2 == len(nodes)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 21), rounds=st.integers(1, 8), seed=st.integers(0, 10**6))
def test_swiss_no_avoidable_rematch_and_byes_spread(n, rounds, seed):
    for units, _scores, history, games in swiss_tournament(n, min(rounds, n - 1), seed):
        rematches = [g for g in games if not g.is_bye and history.met[tuple(sorted(g.units))]]
        if min_byes_no_rematch_possible(units, history):
            assert not rematches, "a rematch that could have been avoided"
        for g in rematches:
            assert any(note.code == "rematch" for note in g.notes)
        byes = [g for g in games if g.is_bye]
        assert len(byes) == n % 2
        for g in byes:
            (u,) = g.units
            assert history.byes[u] == min(history.byes[x] for x in units), "byes spread"
            assert bool(history.byes[u]) == any(nt.code == "repeat_bye" for nt in g.notes)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 10), seed=st.integers(0, 10**6))
def test_swiss_is_optimal_against_brute_force(n, seed):
    """On small fields the matching is as good as the best of all pairings, level by level."""
    for units, scores, history, games in swiss_tournament(n, 3, seed):
        nodes = list(units) + (["bye"] if n % 2 else [])
        low = min(scores.get(u, 0) for u in units)

        def cost(pairs, history=history, scores=scores, low=low):
            repeat_bye = rematch = gap = 0
            for a, b in pairs:
                if "bye" in (a, b):
                    u = b if a == "bye" else a
                    repeat_bye += history.byes[u]
                    gap += (2 * scores.get(u, 0) - 2 * low) ** 2
                    continue
                rematch += history.met[(min(a, b), max(a, b))]
                gap += (2 * scores.get(a, 0) - 2 * scores.get(b, 0)) ** 2
            return (repeat_bye, rematch, gap)

        best = min(cost(m) for m in perfect_matchings(nodes))
        got = cost(
            [(g.units[0], g.units[1]) if not g.is_bye else (g.units[0], "bye") for g in games]
        )
        assert got == best


def test_swiss_pairs_score_groups_top_down():
    units = list(range(1, 9))
    scores = {1: 4, 2: 4, 3: 2, 4: 2, 5: 2, 6: 2, 7: 0, 8: 0}
    games = pairing.swiss_round(units, scores, History())
    assert [g.units for g in games] == [(1, 2), (3, 4), (5, 6), (7, 8)]
    assert all(not g.notes for g in games)


def test_swiss_rematch_is_explained_when_forced():
    history = History()
    history.add(Game(((1,), (2,))))
    games = pairing.swiss_round([1, 2], {1: 2}, history)
    assert games[0].units == (1, 2)
    assert [n.code for n in games[0].notes] == ["rematch", "score_gap"]
    assert games[0].notes[0].detail == {"times": 2}


@pytest.mark.parametrize("n", range(2, 12))
def test_round_robin_everyone_meets_everyone_once(n):
    units = list(range(n))
    rounds = pairing.round_robin(units)
    assert len(rounds) == (n - 1 if n % 2 == 0 else n)
    met = Counter()
    byes = Counter()
    for games in rounds:
        check_round(units, games)
        for g in games:
            if g.is_bye:
                byes[g.units[0]] += 1
            else:
                met[tuple(sorted(g.units))] += 1
    assert set(met) == set(itertools.combinations(units, 2))
    assert set(met.values()) == {1}
    assert byes == (Counter(units) if n % 2 else Counter())


def test_bracket_order_and_byes_to_top_seeds():
    assert pairing.bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    games = pairing.elimination_first_round([11, 12, 13, 14, 15, 16])
    assert [g.sides for g in games] == [((11,), ()), ((14,), (15,)), ((12,), ()), ((13,), (16,))]
    final = pairing.elimination_next_round([11, 12], losers=[14, 13], third_place=True)
    assert [g.sides for g in final] == [((11,), (12,)), ((14,), (13,))]
    assert pairing.elimination_rounds(6) == 3


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 40), seed=st.integers(0, 10**6))
def test_elimination_brackets_run_to_one_winner(n, seed):
    rng = random.Random(seed)
    units = list(range(n))
    games = pairing.elimination_first_round(units)
    check_round(units, games)
    alive = set(units)
    for _ in range(pairing.elimination_rounds(n)):
        winners = []
        for g in games:
            w = g.units[0] if g.is_bye else rng.choice(g.units)
            winners.append(w)
            alive -= set(g.units) - {w}
        if len(winners) == 1:
            break
        games = pairing.elimination_next_round(winners)
    assert len(alive) == 1


def individual_tournament(n, rounds, seed, teams=0):
    rng = random.Random(seed)
    players = list(range(n))
    team = {p: f"T{p % teams}" for p in players} if teams else {}
    history = History(team=team)
    records = []
    for _ in range(rounds):
        scores = standings.match_points(records)
        games = pairing.individual_round(players, scores, history)
        yield players, history, games
        check_round(players, games)
        records += random_results(games, rng)
        for g in games:
            history.add(g)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(4, 26), rounds=st.integers(1, 7), seed=st.integers(0, 10**6))
def test_individual_events_rotate_partners(n, rounds, seed):
    for players, history, games in individual_tournament(n, rounds, seed):
        tables = [g for g in games if not g.is_bye]
        assert len(tables) == n // 4
        assert all(len(side) == 2 for g in tables for side in g.sides)
        byes = [g.units[0] for g in games if g.is_bye]
        assert len(byes) == n % 4
        fewest = sorted(history.byes[p] for p in players)[: len(byes)]
        assert sorted(history.byes[p] for p in byes) == fewest, "byes spread"
        playing = [p for p in players if p not in byes]
        fresh = nx.Graph()
        fresh.add_nodes_from(playing)
        fresh.add_edges_from(
            (a, b) for a, b in itertools.combinations(playing, 2) if not history.partnered[(a, b)]
        )
        if len(nx.max_weight_matching(fresh, maxcardinality=True)) * 2 == len(playing):
            for g in tables:
                for a, b in g.sides:
                    assert not history.partnered[(min(a, b), max(a, b))], "partners rotate"


@settings(max_examples=25, deadline=None)
@given(rounds=st.integers(1, 4), seed=st.integers(0, 10**6), teams=st.integers(2, 4))
def test_individual_same_team_partners_avoided(rounds, seed, teams):
    """8 players: partnerships are optimal (fewest repeats, then fewest same-team pairs)."""
    for players, history, games in individual_tournament(8, rounds, seed, teams):

        def cost(pairs, history=history):
            return (
                sum(history.partnered[(min(a, b), max(a, b))] for a, b in pairs),
                sum(history.team[a] == history.team[b] for a, b in pairs),
            )

        best = min(cost(m) for m in perfect_matchings(players))
        got = cost([side for g in games for side in g.sides])
        assert got == best
        for g in games:
            for a, b in g.sides:
                if history.team[a] == history.team[b]:
                    assert any(n.code == "same_team" for n in g.notes)


def test_individual_tables_avoid_repeat_opponents():
    history = History()
    history.add(Game(((0, 1), (2, 3))))
    history.add(Game(((4, 5), (6, 7))))
    games = pairing.individual_round(list(range(8)), {}, history)
    for g in games:
        assert not any(n.code in ("repeat_partner", "repeat_opponent") for n in g.notes), g


def test_duplicates_are_refused():
    with pytest.raises(ValueError):
        pairing.swiss_round([1, 1], {}, History())
    with pytest.raises(ValueError):
        pairing.round_robin([1, 1])
    with pytest.raises(ValueError):
        pairing.elimination_first_round([1])


# --------------------------------------------------------------------------- standings
def test_standings_tiebreak_numbers():
    # Round 1: 1 beats 2 (6:3), 3 draws 4 (5:5); round 2: 1 beats 3 (4:2), 2 beats 4 (7:2).
    records = []
    for sides, scores in [((1, 2), (6, 3)), ((3, 4), (5, 5)), ((1, 3), (4, 2)), ((2, 4), (7, 2))]:
        records += standings.records_of_game([[sides[0]], [sides[1]]], scores)
    rows = standings.standings([1, 2, 3, 4], records, standings.TIEBREAKS)
    assert [r.unit for r in rows] == [1, 2, 3, 4]
    by = {r.unit: r for r in rows}
    assert by[1].values["match_points"] == 4 and by[1].values["level_diff"] == 5
    assert by[1].values["buchholz"] == 2 + 1  # opponents 2 (2 points) and 3 (1 point)
    assert by[1].values["sonneborn_berger"] == 3
    assert by[2].values["match_points"] == 2 and by[2].values["level_diff"] == 2
    assert by[3].values["match_points"] == 1 and by[4].values["match_points"] == 1
    assert by[3].values["level_diff"] == -2 and by[4].values["level_diff"] == -5
    assert (by[3].wins, by[3].draws, by[3].losses) == (0, 1, 1)


def test_head_to_head_breaks_a_tie_only_inside_the_tied_group():
    records = []
    for sides, scores in [((1, 2), (3, 2)), ((2, 3), (3, 2)), ((3, 1), (3, 2)), ((4, 5), (9, 2))]:
        records += standings.records_of_game([[sides[0]], [sides[1]]], scores)
    rows = standings.standings([1, 2, 3, 4, 5], records, ["match_points", "head_to_head"])
    # 1, 2, 3, 4 all have 2 points; among them 4 beat nobody of the group.
    assert [r.place for r in rows] == [1, 1, 1, 4, 5]
    assert rows[3].unit == 4 and rows[3].values["head_to_head"] == 0
    assert {r.values["head_to_head"] for r in rows[:3]} == {2}


def test_wins_break_a_tie_on_match_points_and_a_bye_is_not_a_win():
    # 1 beats 3, 4 beats 1, 2 draws 3 and 4; 5 has only a bye (the points of a win).
    records = standings.records_of_game([[5], []], None)
    for sides, scores in [((1, 3), (5, 2)), ((4, 1), (6, 2)), ((2, 3), (3, 3)), ((2, 4), (4, 4))]:
        records += standings.records_of_game([[sides[0]], [sides[1]]], scores)
    records += standings.records_of_game([[3], [5]], (0, 0), winner=0)  # 3 wins by forfeit
    rows = standings.standings([1, 2, 3, 4, 5], records, ["match_points", "wins"])
    by = {r.unit: r for r in rows}
    assert {u: r.values["match_points"] for u, r in by.items()} == {1: 2, 2: 2, 3: 3, 4: 3, 5: 2}
    assert {u: r.values["wins"] for u, r in by.items()} == {1: 1, 2: 0, 3: 1, 4: 1, 5: 0}
    assert [(r.unit, r.place) for r in rows] == [(3, 1), (4, 1), (1, 3), (2, 4), (5, 4)]


@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 14), seed=st.integers(0, 10**6))
def test_league_tiebreaks_end_with_wins(n, seed):
    """The leagues' default order: match points, difference, head-to-head, wins."""
    rng = random.Random(seed)
    units = list(range(n))
    history = History()
    records = []
    for _ in range(min(5, n - 1)):
        games = pairing.swiss_round(units, standings.match_points(records), history)
        records += random_results(games, rng)
        for g in games:
            history.add(g)
    order = ["match_points", "level_diff", "head_to_head", "wins"]
    rows = standings.standings(units, records, order)
    for row in rows:
        assert row.values["wins"] == row.wins
        assert row.wins == sum(1 for r in records if r.unit == row.unit and r.outcome == "win")
    keys = [tuple(r.values[t] for t in order) for r in rows]
    assert keys == sorted(keys, reverse=True)
    for (a, ka), (b, kb) in itertools.pairwise(zip(rows, keys, strict=True)):
        assert (a.place == b.place) == (ka == kb)


def test_bye_and_forfeit_records():
    recs = standings.records_of_game([[7], []], None)
    assert recs == [standings.Record(7, (), 0, 0, "bye")]
    recs = standings.records_of_game([[1], [2]], (0, 0), winner=1)
    assert [r.outcome for r in recs] == ["loss", "win"]
    with pytest.raises(ValueError):
        standings.standings([1], [], ["nope"])


@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 16), seed=st.integers(0, 10**6))
def test_standings_places_follow_the_numbers(n, seed):
    rng = random.Random(seed)
    units = list(range(n))
    history = History()
    records = []
    for _ in range(min(4, n - 1)):
        games = pairing.swiss_round(units, standings.match_points(records), history)
        records += random_results(games, rng)
        for g in games:
            history.add(g)
    order = ["match_points", "buchholz", "sonneborn_berger", "level_diff"]
    rows = standings.standings(units, records, order)
    keys = [tuple(r.values[t] for t in order) for r in rows]
    assert keys == sorted(keys, reverse=True)
    assert sum(r.values["match_points"] for r in rows) == sum(
        standings.match_points(records).values()
    )
    for a, b in zip(rows, rows[1:], strict=False):
        assert (a.place == b.place) == (keys[rows.index(a)] == keys[rows.index(b)])


def test_bench_runs():
    assert tournament_bench.bench("swiss", 9, rounds=2) >= 0
    assert tournament_bench.bench("individual", 10, rounds=2) >= 0


def test_bye_to_a_higher_score_is_explained():
    history = History()
    history.add(Game(((3,), ())))
    games = pairing.swiss_round([1, 2, 3], {1: 2, 2: 2, 3: 0}, history)
    bye = next(g for g in games if g.is_bye)
    assert bye.units != (3,)
    assert [n.code for n in bye.notes] == ["bye_above_lowest"]
    assert bye.notes[0].detail == {"score": 2}
