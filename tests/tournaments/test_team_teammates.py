"""Teammates do not meet while avoidable (issue 45, item 3): in a team event two entries of
one club team are kept apart by the Swiss pairing (a cost below "no rematch", above the
score gap), the serpentine first round swaps a clash away, and a round robin plays its
teammates' games in its first rounds. Pure properties with hypothesis, then a team event on
the database whose rounds 1 and 2 are paired without teammates meeting."""

from collections import Counter
from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments import pairing, selectors
from tournaments.models import Entry, Round
from tournaments.pairing import BYE, History

from .test_pairing import perfect_matchings
from .test_team_events import NOW, enter, guests, rate, team_event  # noqa: F401
from .test_tournament_services import START


def _key(a, b):
    return (a, b) if a < b else (b, a)


def costs(games, history):
    """(repeated byes, rematches, teammates' games) of a round."""
    byes = rematches = mates = 0
    for game in games:
        if game.is_bye:
            byes += history.byes[game.sides[0][0]]
            continue
        a, b = game.sides[0][0], game.sides[1][0]
        rematches += history.met[_key(a, b)]
        mates += bool(history.team.get(a)) and history.team.get(a) == history.team.get(b)
    return byes, rematches, mates


def best_costs(units, history):
    """The least (repeated byes, rematches, teammates) of every pairing, by brute force."""
    nodes = list(units) + ([BYE] if len(units) % 2 else [])
    best = None
    for matching in perfect_matchings(nodes):
        games = [
            pairing.Game(((b,), ()))
            if a == BYE
            else pairing.Game(((a,), ()))
            if b == BYE
            else pairing.Game(((a,), (b,)))
            for a, b in matching
        ]
        value = costs(games, history)
        best = value if best is None or value < best else best
    return best


@st.composite
def situations(draw):
    n = draw(st.integers(2, 9))
    units = list(range(1, n + 1))
    teams = draw(st.lists(st.sampled_from(["", "A", "B", "C"]), min_size=n, max_size=n))
    history = History(team={u: t for u, t in zip(units, teams, strict=True) if t})
    for a in units:
        for b in units:
            if a < b and draw(st.integers(0, 3)) == 0:
                history.met[(a, b)] += 1
    for u in units:
        history.byes[u] = draw(st.integers(0, 1))
    scores = {u: draw(st.sampled_from([0, 1, 2, 3, 4])) for u in units}
    return units, scores, history


@settings(max_examples=150, deadline=None)
@given(situations())
def test_swiss_has_the_fewest_teammates_meeting_after_the_fewest_rematches(situation):
    units, scores, history = situation
    games = pairing.swiss_round(units, scores, history)
    assert sorted(u for g in games for u in g.units) == units
    assert costs(games, history) == best_costs(units, history)
    # rematch avoidance unchanged: the teams cost no extra rematch or repeated bye
    plain = History(met=history.met, byes=history.byes)
    assert costs(games, history)[:2] == costs(pairing.swiss_round(units, scores, plain), plain)[:2]
    for game in games:
        if not game.is_bye and costs([game], history)[2]:
            assert "teammates" in [note.code for note in game.notes]


@settings(max_examples=100, deadline=None)
@given(n=st.integers(2, 16), labels=st.lists(st.sampled_from(["", "A", "B"]), min_size=16))
def test_the_serpentine_first_round_swaps_a_clash_away_when_a_swap_can(n, labels):
    units = list(range(1, n + 1))
    team = {u: labels[u - 1] for u in units if labels[u - 1]}
    games = pairing.snake_first_round(units, team)
    assert sorted(u for g in games for u in g.units) == units
    if not team:
        assert games == pairing.snake_first_round(units)
    history = History(team=team)
    clashes = [g for g in games if not g.is_bye and costs([g], history)[2]]
    if clashes:  # a clash left: no swap of lower seeds with any other table removes it
        tables = [g for g in games if not g.is_bye]
        for game in clashes:
            for other in tables:
                if other is game:
                    continue
                first = (game.sides[0][0], other.sides[1][0])
                second = (other.sides[0][0], game.sides[1][0])
                assert any(team.get(x) and team.get(x) == team.get(y) for x, y in (first, second))


def test_the_serpentine_first_round_keeps_its_order_apart_from_the_swap():
    # seeds 1 and 8 of one team: table 1 swaps its lower seed with table 2's
    games = pairing.snake_first_round(list(range(1, 9)), {1: "A", 8: "A"})
    assert [g.sides for g in games] == [((1,), (7,)), ((2,), (8,)), ((3,), (6,)), ((4,), (5,))]


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 12), labels=st.lists(st.sampled_from(["", "A", "B"]), min_size=12))
def test_a_round_robin_plays_its_teammates_games_first(n, labels):
    units = list(range(1, n + 1))
    team = {u: labels[u - 1] for u in units if labels[u - 1]}
    rounds = pairing.round_robin(units, team)
    met = Counter(_key(g.sides[0][0], g.sides[1][0]) for r in rounds for g in r if not g.is_bye)
    assert set(met) == {_key(a, b) for a in units for b in units if a < b}
    assert set(met.values()) == {1} or n < 2
    history = History(team=team)
    per_round = [costs(r, history)[2] for r in rounds]
    assert per_round == sorted(per_round, reverse=True)
    # the same rounds as the circle gives, only reordered
    sides = sorted(sorted(g.sides for g in r) for r in rounds)
    assert sides == sorted(sorted(g.sides for g in r) for r in pairing.round_robin(units))


def shared(groups, team):
    """How many two units of one team share a group."""
    return sum(
        1
        for group in groups
        for i, a in enumerate(group)
        for b in group[i + 1 :]
        if team.get(a) and team.get(a) == team.get(b)
    )


@settings(max_examples=100, deadline=None)
@given(
    n=st.integers(2, 24),
    groups=st.integers(1, 4),
    labels=st.lists(st.sampled_from(["", "A", "B", "C"]), min_size=24),
)
def test_group_round_robin_spreads_teammates_over_the_groups_within_each_tier(n, groups, labels):
    units = list(range(1, n + 1))
    team = {u: labels[u - 1] for u in units if labels[u - 1]}
    plain = pairing.serpentine_groups(units, groups)
    spread = pairing.serpentine_groups(units, groups, team)
    # the same sizes, each group in seeding order, one unit of each tier (lap) per group as before
    assert [len(g) for g in spread] == [len(g) for g in plain]
    assert all(g == sorted(g) for g in spread)
    tier = {u: (u - 1) // groups for u in units}
    assert sorted(sorted(tier[u] for u in g) for g in spread) == sorted(
        sorted(tier[u] for u in g) for g in plain
    )
    assert shared(spread, team) <= shared(plain, team)
    assert pairing.serpentine_groups(units, groups, {}) == plain


def test_two_teams_of_two_in_two_groups_are_split():
    # seeds 1 and 4 of team A, 2 and 3 of team B: the plain serpentine puts each team together
    team = {1: "A", 4: "A", 2: "B", 3: "B"}
    assert shared(pairing.serpentine_groups([1, 2, 3, 4], 2), team) == 2
    assert pairing.serpentine_groups([1, 2, 3, 4], 2, team) == [[1, 3], [2, 4]]


# --------------------------------------------------------------------------- the database


@pytest.mark.django_db
def test_a_team_swiss_pairs_rounds_one_and_two_without_teammates_meeting(
    club,
    club_admin,
    members,
    guests,  # noqa: F811
):
    from tournaments.services import eligibility
    from tournaments.services import results as result_services
    from tournaments.services import rounds as round_services
    from tournaments.services import schedule as schedule_services

    guest_club, guest_people = guests
    hosts = members(4)
    rate([*hosts, *guest_people[:4]])
    t = team_event(
        club,
        club_admin,
        format="swiss",
        rounds_planned=3,
        scoring="national",
        min_rating=None,
        max_rating=None,
    )
    eligibility.invite_club(club_admin, t, guest_club)
    home = enter(hosts[0], t, club, "南通队", hosts)
    away = enter(guest_people[0], t, guest_club, "无锡队", guest_people[:4])
    h1, h2 = Entry.objects.filter(club_team=home).order_by("pk")
    a1, a2 = Entry.objects.filter(club_team=away).order_by("pk")
    # seeds h1, a1, a2, h2: the serpentine 1 v 4 and 2 v 3 would be two teams' own games
    for seed, entry in enumerate((h1, a1, a2, h2), start=1):
        Entry.objects.filter(pk=entry.pk).update(seed=seed)
    team_of = {h1.pk: "h", h2.pk: "h", a1.pk: "a", a2.pk: "a"}

    round_services.start_round(club_admin, t, START)
    first = Round.objects.get(tournament=t, number=1)
    pairs = [(g.side0[0], g.side1[0]) for g in first.games.order_by("number")]
    assert all(team_of[x] != team_of[y] for x, y in pairs)
    assert pairs == [(h1.pk, a2.pk), (a1.pk, h2.pk)]
    # the home pairs win both: winners h1, h2 (teammates), losers a1, a2 (teammates)
    for game in first.games.all():
        won = 0 if team_of[game.side0[0]] == "h" else 1
        result_services.set_result(club_admin, game, *((9, 3) if won == 0 else (3, 9)), now=START)
    later = START + timedelta(minutes=1)
    schedule_services.tick(later)  # the schedule finishes round 1
    if not Round.objects.filter(tournament=t, number=2).exists():
        round_services.start_round(club_admin, t, later)
    second = Round.objects.get(tournament=t, number=2)
    met = {frozenset((g.side0[0], g.side1[0])) for g in second.games.all()}
    # no teammates, no rematch: the one such pairing is h1 v a1, h2 v a2 (score groups crossed)
    assert met == {frozenset((h1.pk, a1.pk)), frozenset((h2.pk, a2.pk))}
    # and no game of either round carries the note of teammates meeting
    for game in selectors.all_games(t):
        assert "teammates" not in [note.get("code") for note in game.notes]


@pytest.mark.django_db
def test_a_team_group_round_robin_puts_teammates_in_different_groups(
    club,
    club_admin,
    members,
    guests,  # noqa: F811
):
    from tournaments.services import eligibility
    from tournaments.services import rounds as round_services

    guest_club, guest_people = guests
    hosts = members(4)
    rate([*hosts, *guest_people[:4]])
    t = team_event(club, club_admin, groups=2, min_rating=None, max_rating=None)
    eligibility.invite_club(club_admin, t, guest_club)
    home = enter(hosts[0], t, club, "南通队", hosts)
    away = enter(guest_people[0], t, guest_club, "无锡队", guest_people[:4])
    h1, h2 = Entry.objects.filter(club_team=home).order_by("pk")
    a1, a2 = Entry.objects.filter(club_team=away).order_by("pk")
    # seeds h1, a1, a2, h2: the plain serpentine groups would be {h1, h2} and {a1, a2}
    for seed, entry in enumerate((h1, a1, a2, h2), start=1):
        Entry.objects.filter(pk=entry.pk).update(seed=seed)
    groups = selectors.groups_of(t)
    assert groups == [[h1.pk, a2.pk], [a1.pk, h2.pk]]
    round_services.start_round(club_admin, t, START)
    team_of = {h1.pk: "h", h2.pk: "h", a1.pk: "a", a2.pk: "a"}
    for game in Round.objects.get(tournament=t, number=1).games.exclude(status="bye"):
        assert team_of[game.side0[0]] != team_of[game.side1[0]], (
            groups,
            selectors.groups_of(t),
            [(g.side0, g.side1) for g in Round.objects.get(tournament=t, number=1).games.all()],
            team_of,
        )


@pytest.mark.django_db
def test_a_team_round_robin_plays_its_teammates_games_in_round_one(
    club,
    club_admin,
    members,
    guests,  # noqa: F811
):
    from tournaments.services import eligibility
    from tournaments.services import rounds as round_services

    guest_club, guest_people = guests
    hosts = members(4)
    rate([*hosts, *guest_people[:4]])
    t = team_event(club, club_admin, min_rating=None, max_rating=None)
    eligibility.invite_club(club_admin, t, guest_club)
    home = enter(hosts[0], t, club, "南通队", hosts)
    away = enter(guest_people[0], t, guest_club, "无锡队", guest_people[:4])
    team_of = {e.pk: "h" for e in Entry.objects.filter(club_team=home)}
    team_of |= {e.pk: "a" for e in Entry.objects.filter(club_team=away)}
    round_services.start_round(club_admin, t, START)
    games = Round.objects.get(tournament=t, number=1).games.exclude(status="bye")
    # two teams of two: round 1 holds both teammates' games, rounds 2 and 3 none
    assert [team_of[g.side0[0]] == team_of[g.side1[0]] for g in games] == [True, True]
    for game in games:
        assert "teammates" in [note.get("code") for note in game.notes]
