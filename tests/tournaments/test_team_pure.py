"""Pure tests of a team event's standings (tournaments.teams) and of the entry conditions and
the waiting list's order (tournaments.conditions): no database."""

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from tournaments import conditions, teams
from tournaments.standings import Points, Record, records_of_game

NATIONAL = Points(win=2, draw=1, loss=0, bye=2)


def test_national_team_standings_add_up_match_points_then_grade_points():
    # team 1: entries 1, 2; team 2: entries 3, 4. Round 1: 1 beats 3 (26:0), 2 draws 4
    # (13:13); round 2: 1 loses to 4 (10:16), 2 beats 3 (14:12)
    records = [
        *records_of_game([[1], [3]], (12, 0), grades=(26, 0)),
        *records_of_game([[2], [4]], (5, 5), grades=(13, 13)),
        *records_of_game([[1], [4]], (3, 9), grades=(10, 16)),
        *records_of_game([[2], [3]], (6, 5), grades=(14, 12)),
    ]
    rows = teams.team_standings({1: [1, 2], 2: [3, 4]}, records, NATIONAL, national=True)
    first, second = rows
    assert (first.team, first.place, first.match_points, first.second) == (1, 1, 5, 63)
    assert (second.team, second.place, second.match_points, second.second) == (2, 2, 3, 41)
    assert (first.played, first.wins, first.draws, first.losses) == (4, 2, 1, 1)
    assert first.by_unit == {1: (2, 36), 2: (3, 27)}
    assert second.by_unit == {3: (0, 12), 4: (3, 29)}


def test_equal_match_points_are_separated_by_the_second_number_and_equal_teams_share():
    records = [
        *records_of_game([[1], [2]], (8, 2)),  # club scoring: team 1 +6, team 2 -6
        *records_of_game([[3], [4]], (5, 3)),  # team 3 +2, team 4 -2
        *records_of_game([[5], [6]], (5, 3)),  # team 5 +2, team 6 -2
    ]
    rows = teams.team_standings(
        {i: [i] for i in range(1, 7)}, records, Points(win=3, draw=1), national=False
    )
    assert [(r.team, r.place) for r in rows] == [(1, 1), (3, 2), (5, 2), (4, 4), (6, 4), (2, 6)]
    assert rows[0].second == 6 and rows[-1].second == -6


def test_a_game_between_two_entries_of_one_team_counts_both_sides():
    records = records_of_game([[1], [2]], (8, 2), grades=(19, 7))
    (row,) = teams.team_standings({9: [1, 2]}, records, NATIONAL, national=True)
    assert (row.match_points, row.second, row.wins, row.losses, row.played) == (2, 26, 1, 1, 2)


def test_a_bye_counts_its_points_but_is_no_game_and_strangers_are_ignored():
    records = [
        *records_of_game([[1], []], None, grades=(18, 0)),
        Record(77, (1,), 5, 0, "win", 20),  # an entry in no team
    ]
    (row,) = teams.team_standings({1: [1]}, records, NATIONAL, national=True)
    assert (row.played, row.match_points, row.second) == (0, 2, 18)


@given(
    st.lists(
        st.tuples(
            st.integers(0, 5),
            st.integers(0, 5),
            st.integers(0, 12),
            st.integers(0, 12),
        ),
        max_size=20,
    )
)
def test_a_teams_sums_are_its_entries_sums_and_places_follow_them(games):
    records = [
        r
        for a, b, x, y in games
        if a != b
        for r in records_of_game([[a], [b]], (x, y), grades=(13 + x - y, 13 - x + y))
    ]
    squads = {10: [0, 1], 11: [2, 3], 12: [4, 5]}
    rows = teams.team_standings(squads, records, NATIONAL, national=True)
    points = {"win": 2, "draw": 1, "loss": 0}
    for row in rows:
        mine = [r for r in records if r.unit in squads[row.team]]
        assert row.match_points == sum(points[r.outcome] for r in mine)
        assert row.second == sum(r.grade for r in mine)
    keys = [(-r.match_points, -r.second) for r in rows]
    assert keys == sorted(keys)
    for earlier, later in zip(rows, rows[1:], strict=False):
        tied = (earlier.match_points, earlier.second) == (later.match_points, later.second)
        assert (earlier.place == later.place) == tied


# ------------------------------------------------------------------- entry conditions


def test_every_condition_every_player_fails_is_named():
    rules = conditions.Conditions(min_rating=1500, max_rating=1800, min_rated_matches=10)
    found = conditions.problems(
        rules,
        [
            conditions.Player("甲", 1499.6, 10),  # just below
            conditions.Player("乙", 1800.4, 3),  # above, and too few matches
            conditions.Player("丙", None, 0),  # unrated: below the minimum, no matches
            conditions.Player("丁", 1500, 10),  # exactly on the bounds: fine
        ],
    )
    assert [(p.player, p.field) for p in found] == [
        ("甲", "min_rating"),
        ("乙", "max_rating"),
        ("乙", "min_rated_matches"),
        ("丙", "min_rating"),
        ("丙", "min_rated_matches"),
    ]
    assert found[0].value == 1499.6 and found[0].bound == 1500


def test_an_unrated_player_is_under_any_ceiling_and_no_conditions_refuse_nobody():
    ceiling = conditions.Conditions(max_rating=1400)
    assert conditions.problems(ceiling, [conditions.Player("新手", None, 0)]) == []
    assert conditions.problems(conditions.Conditions(), [conditions.Player("x", 0, 0)]) == []


def test_a_cap_and_who_moves_up():
    assert conditions.has_place(0, 500) and conditions.has_place(4, 3)
    assert not conditions.has_place(4, 4)
    t0 = datetime(2030, 1, 1, tzinfo=UTC)
    waiting = [
        conditions.Waiting(7, t0 + timedelta(minutes=2), 70),
        conditions.Waiting(5, t0, 51),
        conditions.Waiting(6, t0, 50),  # same time, lower id: first
    ]
    assert conditions.next_up(waiting, 2) == [6, 5]
    assert conditions.next_up(waiting, 0) == [] and conditions.next_up(waiting, 9) == [6, 5, 7]
