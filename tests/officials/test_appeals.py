"""Referees and appeals as the national rules run them (第三十四、三十五、三十九条), through the
services on the real database:

* the organiser appoints a chief referee, referees and an appeals committee among the club's
  members, one role each; the committee decides only with an odd number of members, at least
  three, and by majority; its decision is final;
* a player of a game files a written appeal within the event's time after the round (30
  minutes by default); others, and late appeals, are refused with a translated reason;
* an upheld appeal changes the result through the tournament's result service: the standings
  and the ladder follow, once; who changed what and why is on the game and the appeal.
"""

from datetime import timedelta

import pytest
import time_machine
from django.utils import translation

from games.variants import level_names
from ladder.apply import apply_result
from ladder.models import RatedResult, RatingChange
from officials import selectors, services
from officials.models import Appeal, AppealStatus, Official
from outbox.models import Notification, OutboxMessage
from tests.tournaments.test_tournament_ladder import START, running_round
from tournaments import selectors as tournament_selectors
from tournaments.models import Round
from tournaments.services import results as result_services
from tournaments.services import schedule as schedule_services

AFTER = START + timedelta(minutes=40)


def finished_round(club, admin, people):
    """A rated pair tournament whose round 1 the organiser scored (12:5 and 9:3, side 0 won
    both) and the schedule finished at AFTER."""
    t, (game, other) = running_round(club, admin, people, rounds_planned=2)
    with time_machine.travel(AFTER, tick=False):
        result_services.set_result(admin, game, 12, 5, now=AFTER)
        result_services.set_result(admin, other, 9, 3, now=AFTER)
        schedule_services.tick(AFTER)
    rnd = Round.objects.get(tournament=t, number=1)
    assert rnd.finished_at is not None
    game.refresh_from_db()
    return t, game, other


def entry_of(t, user):
    return next(e for e in t.entries.all() if user.pk in e.user_ids)


def points(t):
    return {
        line.entry.pk: line.row.values["match_points"] for line in tournament_selectors.standings(t)
    }


@pytest.fixture
def event(club, club_admin, members):
    people = members(8)
    t, game, other = finished_round(club, club_admin, people)
    committee = members(3)
    chief, referee = members(2)
    services.appoint(club_admin, t, chief, "chief")
    services.appoint(club_admin, t, referee, "referee")
    for person in committee:
        services.appoint(club_admin, t, person, "committee")
    entries = {e.pk: e for e in t.entries.all()}
    player = entries[game.side1[0]].player1  # the side that lost 12:5
    return {
        "t": t,
        "game": game,
        "other": other,
        "admin": club_admin,
        "committee": committee,
        "chief": chief,
        "referee": referee,
        "player": player,
        "people": people,
    }


def test_an_upheld_appeal_changes_the_result_standings_and_ratings_once(
    event, club, celery_eager, django_capture_on_commit_callbacks
):
    t, game, player = event["t"], event["game"], event["player"]
    loser, winner = game.side1[0], game.side0[0]
    assert points(t)[winner] == 2 and points(t)[loser] == 0
    rated = RatedResult.objects.get(source="admin", source_id=str(game.pk))
    assert (rated.score0, rated.score1) == (12, 5)
    apply_result(rated)  # as the task does once the organiser's result committed
    before = {c.user_id: c.after for c in RatingChange.objects.filter(result=rated)}
    assert before, "the organiser's result was rated"
    filed_at = AFTER + timedelta(minutes=10)
    with django_capture_on_commit_callbacks(execute=True):
        appeal = services.file_appeal(
            player, game, "result", "第8副的进贡算错了，我们先过A。", now=filed_at
        )
    assert (appeal.before0, appeal.before1) == (12, 5) and appeal.status == AppealStatus.OPEN
    # the committee and the chief referee are told, not the plain referee
    told = set(
        Notification.objects.filter(
            key__startswith=f"officials:appeal:{appeal.pk}:filed"
        ).values_list("user_id", flat=True)
    )
    assert told == {p.pk for p in event["committee"]} | {event["chief"].pk}
    first, second, third = event["committee"]
    with django_capture_on_commit_callbacks(execute=True):
        services.cast_vote(first, appeal, "uphold", "记分员记错", score0=5, score1=12, now=filed_at)
        services.cast_vote(second, appeal, "dismiss", "证据不足", now=filed_at)
    appeal.refresh_from_db()
    assert appeal.status == AppealStatus.OPEN  # 1 : 1, no majority of three yet
    game.refresh_from_db()
    assert (game.score0, game.score1) == (12, 5)
    with django_capture_on_commit_callbacks(execute=True):
        services.cast_vote(third, appeal, "uphold", "看了记分表", score0=5, score1=12, now=filed_at)
    appeal.refresh_from_db()
    assert appeal.status == AppealStatus.UPHELD and (appeal.after0, appeal.after1) == (5, 12)
    game.refresh_from_db()
    assert (game.score0, game.score1, game.winner) == (5, 12, 1)
    # who changed what and why, on the game (the round's page shows the note)
    (note,) = [n for n in game.notes if n["code"] == "result_corrected"]
    assert note["detail"]["by"] == third.pk and note["detail"]["before"] == [12, 5]
    assert "记分员记错" in note["detail"]["reason"] and "看了记分表" in note["detail"]["reason"]
    with translation.override("zh-hans"):
        text = tournament_selectors.note_text(note)
    names = level_names("bao2")
    assert f"{names[12]} : {names[5]}" in text and f"{names[5]} : {names[12]}" in text
    assert third.name in text and "看了记分表" in text
    # the standings follow at once
    assert points(t)[winner] == 0 and points(t)[loser] == 2
    # the ladder: the one rating of the game corrected, its ladder rebuilt
    assert RatedResult.objects.filter(source="admin", source_id=str(game.pk)).count() == 1
    rated.refresh_from_db()
    assert (rated.score0, rated.score1) == (5, 12)
    after = {c.user_id: c for c in RatingChange.objects.filter(result=rated)}
    assert set(after) == set(before)
    entries = {e.pk: e for e in t.entries.all()}
    for uid in entries[loser].user_ids:
        assert after[uid].score == 1.0 and after[uid].after > 1500 > before[uid]
    for uid in entries[winner].user_ids:
        assert after[uid].score == 0.0 and after[uid].after < 1500 < before[uid]
    # exactly once: a decided appeal takes no more votes, and nothing is rebuilt again
    ids = set(RatingChange.objects.values_list("pk", flat=True))
    with pytest.raises(services.OfficialsError) as refused:
        services.cast_vote(first, appeal, "dismiss", "again", now=filed_at)
    assert refused.value.code in ("decided", "voted")
    assert set(RatingChange.objects.values_list("pk", flat=True)) == ids
    # the filer and the game's players are told the decision, once each
    decided = Notification.objects.filter(key__startswith=f"officials:appeal:{appeal.pk}:decided")
    assert set(decided.values_list("user_id", flat=True)) == {
        uid for e in (entries[loser], entries[winner]) for uid in e.user_ids
    }
    mails = OutboxMessage.objects.filter(key__startswith=f"officials:appeal:{appeal.pk}:decided")
    assert mails.count() == 4 and all(
        "申诉成立" in m.subject or "Upheld" in m.subject for m in mails
    )


def test_a_dismissed_appeal_leaves_the_result(event):
    game, player = event["game"], event["player"]
    appeal = services.file_appeal(player, game, "sanction", "裁判判罚不公", now=AFTER)
    for member in event["committee"][:2]:
        services.cast_vote(member, appeal, "dismiss", "判罚正确", now=AFTER)
    appeal.refresh_from_db()
    game.refresh_from_db()
    assert appeal.status == AppealStatus.DISMISSED and appeal.after0 is None
    assert (game.score0, game.score1) == (12, 5)
    assert not [n for n in game.notes if n["code"] == "result_corrected"]


def test_the_appeal_time_and_who_may_appeal(event):
    game, player, t = event["game"], event["player"], event["t"]
    late = AFTER + timedelta(minutes=31)
    with translation.override("zh-hans"), pytest.raises(services.OfficialsError) as refused:
        services.file_appeal(player, game, "result", "迟到的申诉", now=late)
    assert refused.value.code == "too_late" and "30" in refused.value.message
    # the organiser gives more time: the same appeal is in time
    services.set_appeal_minutes(event["admin"], t, 60)
    services.file_appeal(player, game, "result", "迟到的申诉", now=late)
    with pytest.raises(services.OfficialsError) as refused:
        services.file_appeal(player, game, "result", "再一次", now=late)
    assert refused.value.code == "open_already"
    # not a player of the game: a referee, a committee member, a player of another game
    other_player = t.entries.exclude(pk__in=game.side0 + game.side1).first().player1
    for outsider in (event["referee"], event["committee"][0], other_player):
        with pytest.raises(services.NotAllowed):
            services.file_appeal(outsider, game, "result", "x", now=AFTER)
    # every field's error at once, translated, nothing written
    count = Appeal.objects.count()
    entries = {e.pk: e for e in t.entries.all()}
    partner = entries[game.side1[0]].player2
    with translation.override("zh-hans"), pytest.raises(services.OfficialsError) as refused:
        services.file_appeal(partner, game, "weather", "  ", now=AFTER)
    assert set(refused.value.fields) == {"subject", "text"}
    assert Appeal.objects.count() == count
    with pytest.raises(services.OfficialsError):
        services.set_appeal_minutes(event["admin"], t, 2)
    with pytest.raises(services.NotAllowed):
        services.set_appeal_minutes(event["chief"], t, 45)


def test_the_committee_decides_only_odd_and_at_least_three(event, members):
    t, game, admin = event["t"], event["game"], event["admin"]
    appeal = services.file_appeal(event["player"], game, "result", "申诉", now=AFTER)
    fourth = members(1)[0]
    services.appoint(admin, t, fourth, "committee")
    with translation.override("zh-hans"), pytest.raises(services.OfficialsError) as refused:
        services.cast_vote(event["committee"][0], appeal, "dismiss", "理由", now=AFTER)
    assert refused.value.code == "committee_size" and "4" in refused.value.message
    assert not appeal.votes.exists()
    # a member who leaves the club no longer counts nor votes: three again
    fourth.memberships.all().delete()
    with pytest.raises(services.NotAllowed):
        services.cast_vote(fourth, appeal, "dismiss", "理由", now=AFTER)
    services.cast_vote(event["committee"][0], appeal, "dismiss", "理由", now=AFTER)
    # bad votes: all the errors at once, nothing written
    with pytest.raises(services.OfficialsError) as refused:
        services.cast_vote(event["committee"][1], appeal, "uphold", "", score0=30, score1=2)
    assert set(refused.value.fields) == {"reason", "score"}
    with pytest.raises(services.OfficialsError) as refused:
        services.cast_vote(event["committee"][1], appeal, "uphold", "r", score0=23, score1=23)
    assert set(refused.value.fields) == {"winner"}
    assert appeal.votes.count() == 1
    with pytest.raises(services.OfficialsError) as refused:
        services.cast_vote(event["committee"][0], appeal, "dismiss", "again", now=AFTER)
    assert refused.value.code == "voted"


def test_a_committee_member_who_plays_the_game_does_not_vote(event):
    t, game, admin = event["t"], event["game"], event["admin"]
    entries = {e.pk: e for e in t.entries.all()}
    opponent = entries[game.side0[0]].player1
    services.appoint(admin, t, opponent, "committee")
    member = event["committee"][0]
    Official.objects.filter(user=member).delete()  # three again: two plus the player
    appeal = services.file_appeal(event["player"], game, "result", "申诉", now=AFTER)
    with pytest.raises(services.NotAllowed):
        services.cast_vote(opponent, appeal, "dismiss", "我赢了", now=AFTER)
    with pytest.raises(services.NotAllowed):
        services.cast_vote(event["player"], appeal, "uphold", "x", score0=1, score1=2)


def test_appointments(event, members, make_users):
    t, admin = event["t"], event["admin"]
    member = members(1)[0]
    (outsider,) = make_users(1, prefix="out")
    with translation.override("zh-hans"), pytest.raises(services.OfficialsError) as refused:
        services.appoint(admin, t, outsider, "nonsense")
    assert set(refused.value.fields) == {"user", "role"}
    with pytest.raises(services.OfficialsError) as refused:
        services.appoint(admin, t, member, "chief")
    assert refused.value.fields == {"role": refused.value.fields["role"]}  # one chief
    with pytest.raises(services.OfficialsError):
        services.appoint(admin, t, event["referee"], "committee")  # one role each
    for actor in (event["chief"], event["referee"], event["committee"][0], member):
        with pytest.raises(services.NotAllowed):
            services.appoint(actor, t, member, "referee")
    # the chief referee ends a referee's appointment (第三十五条); a referee cannot
    chief_row = Official.objects.get(user=event["chief"])
    ref_row = Official.objects.get(user=event["referee"])
    with pytest.raises(services.NotAllowed):
        services.dismiss(event["referee"], chief_row)
    committee_row = Official.objects.get(user=event["committee"][0])
    with pytest.raises(services.NotAllowed):
        services.dismiss(event["chief"], committee_row)
    services.dismiss(event["chief"], ref_row)
    assert not Official.objects.filter(pk=ref_row.pk).exists()
    services.dismiss(admin, chief_row)
    services.appoint(admin, t, member, "chief")
    panel = selectors.panel_of(t)
    assert {line.official.user_id for line in selectors.officials_of(panel)} >= {member.pk}
