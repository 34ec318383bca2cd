"""Recording results and applying them to ladders: exactly once, in order, rebuildable."""

import random
from datetime import timedelta

import pytest
from django.core import mail
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.utils import timezone

from games.variants import game
from ladder import services
from ladder.apply import apply_result, rebuild_ladder
from ladder.models import Ladder, RatedResult, Rating, RatingChange
from ladder.ratings import PlayerState, rate_match
from ladder.tasks import apply_result_task, send_result_emails_task


def snapshot(ladder):
    return sorted(
        Rating.objects.filter(ladder=ladder).values_list(
            "user_id", "rating", "matches", "wins", "draws", "provisional", "last_played", "recent"
        )
    )


def change_snapshot(ladder):
    return sorted(
        RatingChange.objects.filter(ladder=ladder).values_list(
            "result_id", "user_id", "before", "after", "expected", "k", "multiplier"
        )
    )


@pytest.mark.django_db
def test_apply_result_updates_platform_and_club_ladder(make_users, club, record):
    a, b, c, d = make_users(4)
    result = record([[a, b], [c, d]], (23, 7), club=club)
    outcomes = apply_result(result)
    assert [o.action for o in outcomes] == ["applied", "applied"]
    platform = Ladder.objects.get(club=None, variant="bao2")
    club_ladder = Ladder.objects.get(club=club, variant="bao2")
    expected = rate_match(
        (
            [PlayerState(a.pk, 1500, 0), PlayerState(b.pk, 1500, 0)],
            [PlayerState(c.pk, 1500, 0), PlayerState(d.pk, 1500, 0)],
        ),
        (23, 7),
    )
    for ladder in (platform, club_ladder):
        ratings = {r.user_id: r for r in Rating.objects.filter(ladder=ladder)}
        for change in expected:
            rating = ratings[change.player]
            assert rating.rating == pytest.approx(change.after)
            assert rating.matches == 1 and rating.provisional
            assert rating.wins == (1 if change.score == 1 else 0)
            assert rating.last_played == result.ended_at
        stored = RatingChange.objects.get(ladder=ladder, user=a, result=result)
        assert stored.before == 1500 and stored.k == 16
        assert stored.expected == pytest.approx(0.5)
        assert stored.multiplier == pytest.approx(expected[0].multiplier)


@pytest.mark.django_db
def test_apply_twice_changes_nothing_the_second_time(make_users, record):
    a, b, c, d = make_users(4)
    result = record([[a, b], [c, d]], (5, 3))
    apply_result(result)
    before = snapshot(Ladder.objects.get())
    assert [o.action for o in apply_result(result)] == ["skipped"]
    assert snapshot(Ladder.objects.get()) == before
    assert RatingChange.objects.count() == 4


@pytest.mark.django_db
def test_task_run_twice_applies_once_and_emails_once(
    make_users, club, record, celery_eager, django_capture_on_commit_callbacks
):
    a, b, c, d = make_users(4)
    result = record([[a, b], [c, d]], (12, 3), club=club)
    with django_capture_on_commit_callbacks(execute=True):
        first = apply_result_task.apply(args=[result.pk]).get()
    with django_capture_on_commit_callbacks(execute=True):
        second = apply_result_task.apply(args=[result.pk]).get()
    assert sorted(x.split(":")[1] for x in first) == ["applied", "applied"]
    assert sorted(x.split(":")[1] for x in second) == ["skipped", "skipped"]
    assert RatingChange.objects.filter(result=result).count() == 8  # 4 players x 2 ladders
    assert len(mail.outbox) == 4
    assert sorted(m.to[0] for m in mail.outbox) == sorted(u.email for u in (a, b, c, d))
    # A third run of the email task on its own sends nothing either.
    assert send_result_emails_task.apply(args=[result.pk]).get() == 0
    assert len(mail.outbox) == 4


@pytest.mark.django_db
def test_duplicate_change_is_refused_by_the_database(make_users, record):
    a, b, c, d = make_users(4)
    result = record([[a, b], [c, d]], (5, 3))
    apply_result(result)
    change = RatingChange.objects.first()
    change.pk = None
    with pytest.raises(IntegrityError), transaction.atomic():
        change.save()


@pytest.mark.django_db
def test_result_email_is_translated_and_shows_the_change(
    make_users, record, celery_eager, django_capture_on_commit_callbacks
):
    (a,) = make_users(1, language="zh-hans")
    (b,) = make_users(1, language="en")
    result = record([[a], [b]], (60, 20), variant="shuangkou2")
    with django_capture_on_commit_callbacks(execute=True):
        apply_result_task.apply(args=[result.pk])
    by_to = {m.to[0]: m for m in mail.outbox}
    change_a = RatingChange.objects.get(user=a)
    change_b = RatingChange.objects.get(user=b)
    english = by_to[b.email]
    assert "You lost" in english.body and "20:60" in english.body
    assert f"{change_b.before:.0f} → {change_b.after:.0f}" in english.body
    assert english.subject.startswith("Loss 20:60")
    chinese = by_to[a.email]
    assert "您以 60:20 赢得了两人双扣对局" in chinese.body
    assert chinese.subject.startswith("胜 60:20")
    assert f"{change_a.before:.0f} → {change_a.after:.0f}" in chinese.body
    assert "60:20" in chinese.body


@pytest.mark.django_db
def test_record_result_is_idempotent(make_users):
    a, b = make_users(2)
    kwargs = dict(
        source="sheet",
        source_id="sheet-7",
        variant="shuangkou2",
        sides=[[a.pk], [b.pk]],
        scores=[3, 1],
        ended_at=timezone.now(),
        enqueue=False,
    )
    first = services.record_result(**kwargs)
    second = services.record_result(**kwargs)
    assert first.pk == second.pk
    assert RatedResult.objects.count() == 1
    assert first.players.count() == 2


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"variant": "poker"}, "bad_variant"),
        ({"sides": "ab"}, "bad_sides"),
        ({"sides": [[1]]}, "bad_sides"),
        ({"variant": "bao2"}, "bad_sides"),  # 1 v 1 is not a Bao 2 result
        ({"sides": [["x"], [2]]}, "bad_player"),
        ({"sides": [[99999], [99998]]}, "bad_player"),
        ({"scores": [1]}, "bad_score"),
        ({"scores": [1.5, 0]}, "bad_score"),
        ({"scores": "10"}, "bad_score"),
        ({"source": "telepathy"}, "bad_source"),
        ({"source_id": ""}, "bad_source"),
        ({"ended_at": "yesterday"}, "bad_time"),
        ({"ended_at": timezone.now() + timedelta(days=2)}, "bad_time"),
        ({"club_id": 10**9}, "bad_club"),
        ({"club_id": "1"}, "bad_club"),
    ],
)
def test_record_result_refuses_bad_input_and_stores_nothing(make_users, change, code):
    a, b = make_users(2)
    kwargs = dict(
        source="live",
        source_id="x1",
        variant="shuangkou2",
        sides=[[a.pk], [b.pk]],
        scores=[3, 1],
        ended_at=timezone.now(),
        enqueue=False,
    )
    kwargs.update(change)
    with pytest.raises(services.LadderError) as refused:
        services.record_result(**kwargs)
    assert refused.value.code == code
    assert RatedResult.objects.count() == 0


@pytest.mark.django_db
def test_duplicate_player_refused(make_users):
    a, b, c = make_users(3)
    with pytest.raises(services.LadderError) as refused:
        services.record_result(
            source="live",
            source_id="d",
            variant="bao2",
            sides=[[a.pk, b.pk], [c.pk, a.pk]],
            scores=[1, 0],
            ended_at=timezone.now(),
            enqueue=False,
        )
    assert refused.value.code == "duplicate_player"


@pytest.mark.django_db
def test_red_two_solo_result_rates_one_against_three(make_users, record):
    solo, x, y, z = make_users(4)
    result = record([[solo], [x, y, z]], (24, 0), variant="honger")
    apply_result(result)
    changes = {c.user_id: c for c in RatingChange.objects.all()}
    assert changes[solo.pk].delta > 0
    for player in (x, y, z):
        assert changes[player.pk].delta == pytest.approx(-changes[solo.pk].delta)


def _random_results(users, record, rng, n, club=None):
    results = []
    for i in range(n):
        four = rng.sample(users, 4)
        a, b = rng.randint(0, 23), rng.randint(0, 23)
        results.append(record([four[:2], four[2:]], (a, b), minute=i * 10, club=club))
    return results


@pytest.mark.django_db
def test_late_result_rebuilds_and_matches_in_order_application(make_users, record):
    users = make_users(8)
    rng = random.Random(5)
    results = _random_results(users, record, rng, 30)
    # Apply in a shuffled order (late arrivals), then compare with a clean in-order rebuild.
    shuffled = results[:]
    rng.shuffle(shuffled)
    actions = []
    for result in shuffled:
        actions += [o.action for o in apply_result(result)]
    assert "rebuilt" in actions
    ladder = Ladder.objects.get()
    assert RatingChange.objects.filter(ladder=ladder).count() == 30 * 4
    shuffled_state = snapshot(ladder)
    shuffled_changes = change_snapshot(ladder)
    rebuild_ladder(ladder)
    assert snapshot(ladder) == shuffled_state
    assert change_snapshot(ladder) == shuffled_changes


@pytest.mark.django_db
def test_rebuild_command_gives_identical_ratings(make_users, club, record):
    users = make_users(10)
    rng = random.Random(11)
    for result in _random_results(users, record, rng, 40, club=club):
        apply_result(result)  # in order: incremental path only
    ladders = list(Ladder.objects.order_by("id"))
    assert len(ladders) == 2
    before = [(snapshot(x), change_snapshot(x)) for x in ladders]
    call_command("rebuild_ladder", "--all")
    assert [(snapshot(x), change_snapshot(x)) for x in ladders] == before
    # The ratings really are the replay of the pure maths in the order the matches ended.
    stored = dict(Rating.objects.filter(ladder=ladders[0]).values_list("user_id", "rating"))
    assert stored == replayed_ratings(ladders[0].params)


def replayed_ratings(params):
    """Every player's rating from the pure maths (with the ladder's ``params``) over all stored
    results in the order they ended (what a ladder of all of them must hold)."""
    expected = {}
    counts = {}
    for result in RatedResult.objects.order_by("ended_at", "id").prefetch_related("players"):
        sides = [[], []]
        for p in result.players.all():
            sides[p.side].append(
                PlayerState(p.user_id, expected.get(p.user_id, 1500.0), counts.get(p.user_id, 0))
            )
        for change in rate_match(sides, result.scores, params):
            expected[change.player] = change.after
            counts[change.player] = counts.get(change.player, 0) + 1
    return expected


@pytest.mark.django_db
def test_players_hear_of_a_correction_in_their_language(
    make_users, record, celery_eager, django_capture_on_commit_callbacks
):
    (a,) = make_users(1, language="zh-hans")
    (b,) = make_users(1, language="en")
    result = record([[a], [b]], (60, 20), variant="shuangkou2")
    with django_capture_on_commit_callbacks(execute=True):
        apply_result_task.apply(args=[result.pk])
    assert len(mail.outbox) == 2
    with django_capture_on_commit_callbacks(execute=True):
        services.correct_result(source="live", source_id=result.source_id, scores=(20, 60))
    by_to = {m.to[0]: m for m in mail.outbox[2:]}
    assert set(by_to) == {a.email, b.email}
    change_b = RatingChange.objects.get(user=b)
    english = by_to[b.email]
    assert english.subject.startswith("Corrected: Win 60:20")
    assert "has been corrected" in english.body and "You won" in english.body
    assert f"{change_b.before:.0f} → {change_b.after:.0f}" in english.body
    chinese = by_to[a.email]
    assert chinese.subject.startswith("已更正： 负 20:60")
    assert "已经更正" in chinese.body
    # the correction's emails go out once, like a result's
    assert send_result_emails_task.apply(args=[result.pk, True]).get() == 0


@pytest.mark.django_db
def test_a_corrected_result_rerates_its_ladders_as_if_it_had_been_right(
    make_users, club, record, celery_eager, django_capture_on_commit_callbacks
):
    users = make_users(8)
    results = _random_results(users, record, random.Random(3), 20, club=club)
    for result in results:
        apply_result(result)
    first = dict(Rating.objects.filter(ladder__club=club).values_list("user_id", "rating"))
    wrong = results[2]
    right = (wrong.score1, wrong.score0) if wrong.score0 != wrong.score1 else (23, 0)
    with django_capture_on_commit_callbacks(execute=True):
        corrected = services.correct_result(source="live", source_id=wrong.source_id, scores=right)
    assert corrected.pk == wrong.pk and corrected.scores == right
    # every rating after it follows: both ladders hold the replay of the corrected results
    for ladder in Ladder.objects.all():
        ratings = dict(Rating.objects.filter(ladder=ladder).values_list("user_id", "rating"))
        assert ratings == replayed_ratings(ladder.params) != first
    changed = RatingChange.objects.filter(result=wrong, ladder__club=club)
    winners = {c.user_id for c in changed if c.score == 1.0}
    assert winners == {p.user_id for p in wrong.players.all() if p.side == right.index(max(right))}


@pytest.mark.django_db
def test_correct_result_refuses_bad_scores_and_ignores_unknown_results(make_users, record):
    users = make_users(4)
    result = record([users[:2], users[2:]], (12, 3))
    apply_result(result)
    before = change_snapshot(Ladder.objects.get())
    with pytest.raises(services.LadderError) as refused:
        services.correct_result(source="live", source_id=result.source_id, scores=(3, 12), winner=0)
    assert refused.value.code == "bad_score"
    with pytest.raises(services.LadderError):
        services.correct_result(source="live", source_id=result.source_id, scores=("x", 1))
    result.refresh_from_db()
    assert result.scores == (12, 3) and change_snapshot(Ladder.objects.get()) == before
    assert services.correct_result(source="live", source_id="nope", scores=(1, 2)) is None


@pytest.mark.django_db
def test_a_ladder_created_on_first_use_takes_its_games_k(make_users, club, record):
    users = make_users(4)
    apply_result(record([users[:2], users[2:]], (9, 4), club=club))
    apply_result(record([users[:1], users[1:2]], (9, 4), variant="shuangkou2"))
    ladders = {(ladder.club_id, ladder.variant): ladder for ladder in Ladder.objects.all()}
    assert set(ladders) == {(None, "bao2"), (club.pk, "bao2"), (None, "shuangkou2")}
    for (_, variant), ladder in ladders.items():
        assert ladder.k_provisional == 16
        assert ladder.k_established == game(variant).established_k
    assert ladders[None, "bao2"].k_established == 3


@pytest.mark.django_db
def test_provisional_ends_after_the_ladders_count(make_users, record):
    a, b = make_users(2)
    ladder = Ladder.objects.create(variant="shuangkou2", provisional_matches=3, k_established=4)
    for _ in range(3):
        apply_result(record([[a], [b]], (2, 1), variant="shuangkou2"))
    rating = Rating.objects.get(ladder=ladder, user=a)
    assert rating.matches == 3 and not rating.provisional
    ks = list(RatingChange.objects.filter(user=a).order_by("ended_at").values_list("k", flat=True))
    assert ks == [16, 16, 16]
    apply_result(record([[a], [b]], (2, 1), variant="shuangkou2"))
    assert RatingChange.objects.filter(user=a).order_by("-ended_at").first().k == 4


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_concurrent_workers_apply_a_result_exactly_once(make_users, club, record):
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("row locks (select_for_update) need PostgreSQL; SQLite serialises writers")
    from matchkit import at_once

    users = make_users(4)
    first = record([users[:2], users[2:]], (9, 4), club=club)
    apply_result(first)
    second = record([[users[0], users[2]], [users[1], users[3]]], (3, 8), club=club)
    _, errors = at_once(lambda: apply_result(second))
    assert errors == []
    assert RatingChange.objects.filter(result=second).count() == 8
    for ladder in Ladder.objects.all():
        assert set(Rating.objects.filter(ladder=ladder).values_list("matches", flat=True)) == {2}


@pytest.mark.django_db
def test_demo_data_is_idempotent(club, make_users):
    import io

    from ladder.demo import DEMO_RESULTS, load_demo

    users = make_users(5)
    load_demo(club, users, io.StringIO())
    first = [(snapshot(x), change_snapshot(x)) for x in Ladder.objects.order_by("id")]
    load_demo(club, users, io.StringIO())
    assert RatedResult.objects.count() == DEMO_RESULTS
    assert [(snapshot(x), change_snapshot(x)) for x in Ladder.objects.order_by("id")] == first
    assert Ladder.objects.count() == 4  # bao2 and shuangkou2, club and platform


@pytest.mark.django_db
def test_a_crash_mid_update_leaves_nothing_and_the_retry_applies_once(
    make_users, club, record, monkeypatch
):
    a, b, c, d = make_users(4)
    result = record([[a, b], [c, d]], (7, 2), club=club)
    real_save = Ladder.save

    def crash_on_second_ladder(self, *args, **kwargs):
        # The worker dies at the last write of the club ladder's transaction.
        if kwargs.get("update_fields") and self.club_id is not None:
            raise RuntimeError("worker killed")
        return real_save(self, *args, **kwargs)

    monkeypatch.setattr(Ladder, "save", crash_on_second_ladder)
    with pytest.raises(RuntimeError):
        apply_result(result)
    platform = Ladder.objects.get(club=None)
    club_ladder = Ladder.objects.get(club=club)
    assert RatingChange.objects.filter(ladder=platform).count() == 4  # committed before
    assert RatingChange.objects.filter(ladder=club_ladder).count() == 0  # rolled back
    assert not Rating.objects.filter(ladder=club_ladder).exists()
    monkeypatch.setattr(Ladder, "save", real_save)
    actions = [o.action for o in apply_result(result)]  # the redelivered task
    assert actions == ["skipped", "applied"]
    assert RatingChange.objects.filter(result=result).count() == 8
    assert snapshot(platform) == snapshot(club_ladder)


def test_red_two_sides_from_the_revealed_partnership():
    users = [11, 12, 13, 14]
    totals = [30, -10, 5, -25]
    assert services.red_two_sides(users, totals, [0, 2]) == ([[11, 13], [12, 14]], [35, -35])
    assert services.red_two_sides(users, totals, [3]) == ([[14], [11, 12, 13]], [-25, 25])
    for bad in ([0, 0], [], [0, 1, 2, 3], [4], ["0"]):
        with pytest.raises(services.LadderError):
            services.red_two_sides(users, totals, bad)
    with pytest.raises(services.LadderError):
        services.red_two_sides(users[:3], totals, [0])


@pytest.mark.django_db
def test_red_two_match_is_recorded_and_rated_against_the_revealed_side(make_users):
    seats = make_users(4)
    sides, scores = services.red_two_sides([u.pk for u in seats], [30, -10, 5, -25], [1])
    result = services.record_result(
        source="live",
        source_id="h1",
        variant="honger",
        sides=sides,
        scores=scores,
        ended_at=timezone.now(),
        enqueue=False,
    )
    apply_result(result)
    changes = {c.user_id: c for c in RatingChange.objects.filter(result=result)}
    assert changes[seats[1].pk].score == 0.0 and changes[seats[1].pk].side == 0
    assert all(changes[seats[i].pk].score == 1.0 for i in (0, 2, 3))
