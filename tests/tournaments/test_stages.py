"""Group round robin then finals (分组循环赛 + 决赛, 第二十七条一) and multi-stage events (a
stage's ranking seeds the next, 第二十六条): the pure group split and group pairing, then on
the database a 2-group round robin of 8 pairs with results entered by the organiser and the
4-pair knockout final made from it, played to the end; the API."""

from datetime import timedelta
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rest_framework.test import APIClient

from tests.tournaments.test_tournament_services import START, make_tournament, register_pairs
from tournaments import pairing, selectors
from tournaments.models import GameStatus, Round, Tournament, TournamentStatus
from tournaments.services import results as result_services
from tournaments.services import schedule as schedule_services
from tournaments.services import setup as setup_services
from tournaments.services import stages as stage_services
from tournaments.services.errors import NotAllowed, TournamentError

# --------------------------------------------------------------------------- pure


def test_serpentine_groups_of_two_and_three():
    assert pairing.serpentine_groups(range(1, 9), 2) == [[1, 4, 5, 8], [2, 3, 6, 7]]
    assert pairing.serpentine_groups(range(1, 10), 3) == [[1, 6, 7], [2, 5, 8], [3, 4, 9]]
    assert pairing.serpentine_groups(range(1, 6), 1) == [[1, 2, 3, 4, 5]]
    with pytest.raises(ValueError):
        pairing.serpentine_groups([1, 1, 2], 2)
    with pytest.raises(ValueError):
        pairing.serpentine_groups([1, 2], 0)


@given(st.integers(min_value=2, max_value=40), st.integers(min_value=1, max_value=6))
def test_group_round_robin_every_pair_of_a_group_meets_once_and_none_across(count, groups):
    units = list(range(100, 100 + count))
    split = pairing.serpentine_groups(units, groups)
    assert sorted(u for g in split for u in g) == units
    assert max(map(len, split)) - min(map(len, split)) <= 1
    group_of = {u: i for i, g in enumerate(split) for u in g}
    met = []
    schedule = pairing.group_round_robin(units, groups)
    for r, games in enumerate(schedule):
        seen = [u for g in games for u in g.units]
        assert len(seen) == len(set(seen))  # nobody plays twice in a round
        for game in games:
            if not game.is_bye:
                a, b = game.sides[0][0], game.sides[1][0]
                assert group_of[a] == group_of[b]  # never across groups
                met.append(frozenset((a, b)))
        # every group with a round left plays in this round
        playing = {group_of[u] for u in seen}
        assert playing == {i for i, g in enumerate(split) if r < _rounds(g)}
    expected = {frozenset(p) for g in split for p in combinations(g, 2)}
    assert len(met) == len(set(met))  # each pair once
    assert set(met) == expected
    assert len(schedule) == max(_rounds(g) for g in split)


def _rounds(group):
    n = len(group)
    return n - 1 if n % 2 == 0 else n


@given(st.integers(min_value=1, max_value=3).map(lambda k: 2**k))
def test_group_seeds_keep_the_group_winners_apart_in_a_knockout(groups):
    split = pairing.serpentine_groups(list(range(4 * groups)), groups)
    seeds = pairing.group_seeds(split, 2)
    assert seeds[:groups] == [g[0] for g in split]  # the winners are the top seeds
    order = pairing.bracket_order(len(seeds))
    group_of = {u: i for i, g in enumerate(split) for u in g}
    for a, b in zip(order[0::2], order[1::2], strict=True):
        first, second = seeds[a - 1], seeds[b - 1]
        assert group_of[first] != group_of[second]
        assert {split[group_of[first]].index(first), split[group_of[second]].index(second)} == {
            0,
            1,
        }  # a winner meets a second


# --------------------------------------------------------------------------- the database


def play_round(admin, t, number, now):
    """The side with the lower seed number wins, by a margin that differs per table."""
    rnd = Round.objects.get(tournament=t, number=number)
    seeds = {e.pk: e.seed for e in selectors.entries(t)}
    for game in rnd.games.exclude(status=GameStatus.BYE).order_by("number"):
        winner = 0 if seeds[game.side0[0]] < seeds[game.side1[0]] else 1
        margin = 3 + game.number
        scores = (2 + margin, 2) if winner == 0 else (2, 2 + margin)
        result_services.set_result(admin, game, *scores, now=now)
    return rnd


def grouped_round_robin(club, club_admin, members):
    """A published round robin of 8 pairs in 2 groups; returns it and its entries."""
    people = members(16)
    t = make_tournament(club, club_admin, format="round_robin", start_when_ready=True, groups=2)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    return t, register_pairs(t, people)


@pytest.mark.django_db
def test_a_group_round_robin_then_a_knockout_final_made_from_its_ranking(club, club_admin, members):
    t, entries = grouped_round_robin(club, club_admin, members)
    seeds = {e.pk: e.seed for e in entries}
    assert sorted(seeds.values()) == list(range(1, 9))
    by_seed = {e.seed: e.pk for e in entries}
    a = [by_seed[s] for s in (1, 4, 5, 8)]
    b = [by_seed[s] for s in (2, 3, 6, 7)]
    assert selectors.groups_of(t) == [a, b]
    assert selectors.total_rounds(t) == 3  # groups of four: three rounds, not seven

    now = START
    schedule_services.tick(now)
    for number in (1, 2, 3):
        rnd = Round.objects.get(tournament=t, number=number)
        games = list(rnd.games.all())
        assert len(games) == 4  # every round pairs both groups
        for game in games:
            pair = {game.side0[0], game.side1[0]}
            assert pair <= set(a) or pair <= set(b)
        # too early: the earlier stage has rounds to play
        with pytest.raises(TournamentError) as refused:
            stage_services.create_next_stage(
                club_admin, t, format="elimination", qualifiers_count=2, now=now
            )
        assert "stage" in refused.value.fields
        play_round(club_admin, t, number, now)
        now += timedelta(minutes=1)
        schedule_services.tick(now)
    t.refresh_from_db()
    assert t.status == TournamentStatus.FINISHED
    met = {
        frozenset((g.side0[0], g.side1[0]))
        for g in selectors.all_games(t)
        if g.side1 and g.status == GameStatus.FINISHED
    }
    assert met == {frozenset(p) for g in (a, b) for p in combinations(g, 2)}

    groups = selectors.group_standings(t)
    assert [g.name for g in groups] == ["A", "B"]
    # the lower seed always won: each group ranks in seeding order, three wins at the top
    assert [line.entry.pk for line in groups[0].lines] == a
    assert [line.entry.pk for line in groups[1].lines] == b
    assert [line.row.wins for line in groups[0].lines] == [3, 2, 1, 0]

    # bad requests: every problem at once, nothing made
    with pytest.raises(TournamentError) as refused:
        stage_services.create_next_stage(club_admin, t, format="bogus", qualifiers_count=5, now=now)
    assert {"format", "qualifiers"} <= set(refused.value.fields)
    with pytest.raises(NotAllowed):
        stage_services.create_next_stage(
            entries[0].player1, t, format="elimination", qualifiers_count=2, now=now
        )
    assert not t.next_stages.exists()

    final = stage_services.create_next_stage(
        club_admin, t, format="elimination", qualifiers_count=2, now=now
    )
    again = stage_services.create_next_stage(
        club_admin, t, format="elimination", qualifiers_count=2, now=now
    )
    assert again.pk == final.pk and t.next_stages.count() == 1  # idempotent
    with pytest.raises(TournamentError) as refused:
        stage_services.create_next_stage(club_admin, t, format="swiss", qualifiers_count=2)
    assert refused.value.code == "has_next_stage"
    assert final.previous_stage_id == t.pk and final.club_id == t.club_id
    assert final.variant == t.variant and final.status == TournamentStatus.SCHEDULED
    ordered = list(final.entries.order_by("seed"))
    players = {e.pk: (e.player1_id, e.player2_id) for e in entries}
    # seeds A1, B1, A2, B2: the same pairs
    assert [(e.player1_id, e.player2_id) for e in ordered] == [
        players[a[0]],
        players[b[0]],
        players[a[1]],
        players[b[1]],
    ]
    assert [e.seed for e in ordered] == [1, 2, 3, 4]
    a1, b1, a2, b2 = (e.pk for e in ordered)

    # the final stage runs as any tournament: paired at its start, A1 v B2 and B1 v A2
    now = final.starts_at
    schedule_services.tick(now)
    semi = Round.objects.get(tournament=final, number=1)
    assert {frozenset(g.side0 + g.side1) for g in semi.games.all()} == {
        frozenset((a1, b2)),
        frozenset((b1, a2)),
    }
    play_round(club_admin, final, 1, now)
    now += timedelta(minutes=1)
    schedule_services.tick(now)
    decider = Round.objects.get(tournament=final, number=2)
    (game,) = decider.games.all()
    assert set(game.side0 + game.side1) == {a1, b1}
    play_round(club_admin, final, 2, now)
    schedule_services.tick(now + timedelta(minutes=1))
    final.refresh_from_db()
    assert final.status == TournamentStatus.FINISHED
    assert selectors.standings(final)[0].entry.pk == a1


@pytest.mark.django_db
def test_the_api_makes_the_next_stage_once_and_answers_the_groups(club, club_admin, members):
    t, entries = grouped_round_robin(club, club_admin, members)
    admin, player, anyone = APIClient(), APIClient(), APIClient()
    admin.force_authenticate(club_admin)
    player.force_authenticate(entries[0].player1)
    base = f"/api/v1/tournaments/{t.pk}"
    now = START
    schedule_services.tick(now)
    for number in (1, 2, 3):
        play_round(club_admin, t, number, now)
        now += timedelta(minutes=1)
        schedule_services.tick(now)

    groups = anyone.get(f"{base}/groups/")
    assert groups.status_code == 200
    body = groups.json()
    assert [g["name"] for g in body] == ["A", "B"]
    assert [line["place"] for line in body[0]["standings"]] == [1, 2, 3, 4]
    assert anyone.get(f"/api/v1/tournaments/{t.pk}/standings/").status_code == 200

    wanted = {"format": "swiss", "qualifiers": 2, "rounds": 2}
    assert anyone.post(f"{base}/next-stage/", wanted, format="json").status_code in (401, 403)
    assert player.post(f"{base}/next-stage/", wanted, format="json").status_code == 403
    bad = admin.post(f"{base}/next-stage/", {"format": "bogus", "qualifiers": 9}, format="json")
    assert bad.status_code == 400
    assert admin.post(f"{base}/next-stage/", {"qualifiers": "x"}, format="json").status_code == 400
    refused = admin.post(
        f"{base}/next-stage/", {"format": "bogus", "qualifiers": 5}, format="json"
    ).json()
    assert "format" in refused and "qualifiers" in refused  # every problem at once
    made = admin.post(f"{base}/next-stage/", wanted, format="json")
    assert made.status_code == 201
    stage = made.json()
    assert stage["previous_stage"] == t.pk and stage["format"] == "swiss"
    assert stage["rounds_planned"] == 2
    twice = admin.post(f"{base}/next-stage/", wanted, format="json")
    assert twice.status_code == 200 and twice.json()["id"] == stage["id"]
    assert admin.get(f"{base}/").json()["next_stage"] == stage["id"]
    assert Tournament.objects.filter(previous_stage=t).count() == 1
    assert Tournament.objects.get(pk=stage["id"]).entries.count() == 4


@pytest.mark.django_db
def test_a_next_stage_of_an_ungrouped_event_takes_the_top_of_its_ranking(club, club_admin, members):
    people = members(10)
    t = make_tournament(club, club_admin, format="round_robin", start_when_ready=True)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    entries = register_pairs(t, people)
    assert selectors.group_standings(t) == []
    now = START
    schedule_services.tick(now)
    for number in range(1, selectors.total_rounds(t) + 1):
        play_round(club_admin, t, number, now)
        now += timedelta(minutes=1)
        schedule_services.tick(now)
    with pytest.raises(TournamentError) as refused:
        stage_services.create_next_stage(
            club_admin, t, format="elimination", qualifiers_count=6, now=now
        )
    assert "qualifiers" in refused.value.fields
    stage = stage_services.create_next_stage(
        club_admin, t, format="round_robin", qualifiers_count=3, now=now
    )
    top = [line.entry for line in selectors.standings(t)[:3]]
    assert [e.player1_id for e in stage.entries.order_by("seed")] == [e.player1_id for e in top]
    assert top[0].pk == min(entries, key=lambda e: e.seed).pk


def played_grouped_round_robin(club, club_admin, members):
    """:func:`grouped_round_robin` played to its end by the organiser's results."""
    t, entries = grouped_round_robin(club, club_admin, members)
    now = START
    schedule_services.tick(now)
    for number in (1, 2, 3):
        play_round(club_admin, t, number, now)
        now += timedelta(minutes=1)
        schedule_services.tick(now)
    t.refresh_from_db()
    return t, entries


@pytest.mark.django_db
def test_the_pages_show_the_groups_and_make_the_next_stage(client, club, club_admin, members):
    t, entries = played_grouped_round_robin(club, club_admin, members)
    page = client.get(f"/tournaments/{t.pk}/standings/").content.decode()
    assert 'data-group="A"' in page and 'data-group="B"' in page
    client.force_login(entries[0].player1)
    assert client.get(f"/tournaments/{t.pk}/next-stage/").status_code == 403
    assert (
        client.post(f"/tournaments/{t.pk}/next-stage/", {"format": "elimination"}).status_code
        == 403
    )
    client.force_login(club_admin)
    assert 'id="make-next-stage"' in client.get(f"/tournaments/{t.pk}/run/").content.decode()
    form = client.get(f"/tournaments/{t.pk}/next-stage/")
    assert form.status_code == 200 and 'id="next-stage-form"' in form.content.decode()
    bad = client.post(
        f"/tournaments/{t.pk}/next-stage/", {"format": "bogus", "qualifiers": "99999999"}
    )
    assert bad.status_code == 400
    text = bad.content.decode()
    assert text.count('class="errorlist"') == 2  # the format and the qualifiers, at once
    assert not t.next_stages.exists()
    made = client.post(
        f"/tournaments/{t.pk}/next-stage/", {"format": "elimination", "qualifiers": "2"}
    )
    stage = t.next_stages.get()
    assert made.status_code == 302 and made.url == f"/tournaments/{stage.pk}/run/"
    run = client.get(made.url).content.decode()
    assert 'id="previous-stage"' in run and t.name in run
    detail = client.get(f"/tournaments/{t.pk}/").content.decode()
    assert 'id="next-stage"' in detail and 'id="make-next-stage"' not in detail
    again = client.post(
        f"/tournaments/{t.pk}/next-stage/", {"format": "elimination", "qualifiers": "2"}
    )
    assert again.status_code == 302 and t.next_stages.count() == 1


@pytest.mark.django_db
def test_groups_are_a_round_robin_setting_fixed_once_round_one_is_paired(club, club_admin, members):
    with pytest.raises(TournamentError) as refused:
        make_tournament(club, club_admin, format="swiss", groups=2)
    assert "groups" in refused.value.fields
    with pytest.raises(TournamentError) as refused:
        make_tournament(club, club_admin, format="round_robin", groups=17, rounds_planned=0)
    assert {"groups", "rounds_planned"} <= set(refused.value.fields)  # every problem at once
    t, _entries = grouped_round_robin(club, club_admin, members)
    admin = APIClient()
    admin.force_authenticate(club_admin)
    assert admin.get(f"/api/v1/tournaments/{t.pk}/").json()["groups"] == 2
    assert (
        admin.patch(f"/api/v1/tournaments/{t.pk}/", {"groups": 3}, format="json").status_code == 200
    )
    schedule_services.tick(START)
    refused = admin.patch(f"/api/v1/tournaments/{t.pk}/", {"groups": 2}, format="json")
    assert refused.status_code == 400 and "groups" in refused.json()
    t.refresh_from_db()
    assert t.groups == 3 and len(selectors.groups_of(t)) == 3
