"""The chief referee rules first (第三十九条二.1), and a player who disagrees takes the ruling to
the appeals committee within the event's appeal time (二.2), whose decision is final:

* the ruling changes the result at once through the one correction path, and the players are
  told; the committee does not vote on a ruled appeal unless a player takes it there;
* a player of either side may take it there, in writing, in time; the committee then decides
  as on any appeal;
* only the chief referee (or a deputy while there is none) with no stake rules, and only
  before the committee has begun to vote.
"""

from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from rest_framework.test import APIClient

from officials import services
from officials.models import AppealStatus
from outbox.models import Notification
from tests.officials.test_appeals import AFTER, event, points  # noqa: F401  (the fixture)

FILED = AFTER + timedelta(minutes=10)


def file(event):  # noqa: F811
    return services.file_appeal(event["player"], event["game"], "result", "记分有误", now=FILED)


def told(appeal, what):
    keys = Notification.objects.filter(key__startswith=f"officials:appeal:{appeal.pk}:{what}")
    return set(keys.values_list("user_id", flat=True))


@pytest.mark.django_db
def test_the_ruling_changes_the_result_and_a_player_takes_it_to_the_committee(event):  # noqa: F811
    t, game, chief = event["t"], event["game"], event["chief"]
    loser, winner = game.side1[0], game.side0[0]
    appeal = file(event)
    ruled_at = FILED + timedelta(minutes=5)
    services.rule(chief, appeal, "uphold", "核对记分表", score0=5, score1=12, now=ruled_at)
    appeal.refresh_from_db()
    game.refresh_from_db()
    assert appeal.status == AppealStatus.RULED and appeal.ruled_by == chief
    assert (game.score0, game.score1, game.winner) == (5, 12, 1)
    assert points(t)[loser] == 2 and points(t)[winner] == 0
    players = {uid for e in t.entries.filter(pk__in=[loser, winner]) for uid in e.user_ids}
    assert told(appeal, "ruled") == players
    first, second, _third = event["committee"]
    with pytest.raises(services.OfficialsError) as refused:
        services.cast_vote(first, appeal, "dismiss", "无", now=ruled_at)
    assert refused.value.code == "ruled"
    # the side that lost by the ruling takes it to the committee, in writing, in time
    opponent = t.entries.get(pk=winner).player1
    with pytest.raises(services.OfficialsError) as refused:
        services.escalate(opponent, appeal, "  ", now=ruled_at)
    assert set(refused.value.fields) == {"text"}
    escalated_at = ruled_at + timedelta(minutes=20)
    services.escalate(opponent, appeal, "裁判长看错了记分表", now=escalated_at)
    appeal.refresh_from_db()
    assert appeal.status == AppealStatus.OPEN and appeal.escalated_at == escalated_at
    assert appeal.answer_by == escalated_at + timedelta(hours=2)
    assert told(appeal, "escalated") == {p.pk for p in event["committee"]}
    # the committee decides, by majority, and its decision is final
    services.cast_vote(first, appeal, "uphold", "原成绩正确", score0=12, score1=5, now=escalated_at)
    services.cast_vote(
        second, appeal, "uphold", "原成绩正确", score0=12, score1=5, now=escalated_at
    )
    appeal.refresh_from_db()
    game.refresh_from_db()
    assert appeal.status == AppealStatus.UPHELD
    assert (game.score0, game.score1, game.winner) == (12, 5, 0)
    assert points(t)[winner] == 2 and points(t)[loser] == 0
    with pytest.raises(services.OfficialsError) as refused:
        services.file_appeal(event["player"], game, "result", "再申诉", now=ruled_at)
    assert refused.value.code == "final"


@pytest.mark.django_db
def test_who_rules_when_and_who_takes_a_ruling_further(event, members):  # noqa: F811
    t, game, chief = event["t"], event["game"], event["chief"]
    appeal = file(event)
    for person in (event["referee"], event["committee"][0], event["player"], event["admin"]):
        with pytest.raises(services.NotAllowed):
            services.rule(person, appeal, "dismiss", "不予支持", now=FILED)
    with pytest.raises(services.OfficialsError) as refused:
        services.rule(chief, appeal, "uphold", "", score0=99, score1=5, now=FILED)
    assert set(refused.value.fields) == {"reason", "score"}  # every problem at once
    services.rule(chief, appeal, "dismiss", "成绩无误", now=FILED)
    game.refresh_from_db()
    assert (game.score0, game.score1) == (12, 5)
    outsider = members(1)[0]
    with pytest.raises(services.NotAllowed):
        services.escalate(outsider, appeal, "不服", now=FILED)
    late = FILED + timedelta(minutes=appeal.panel.appeal_minutes + 1)
    with pytest.raises(services.OfficialsError) as refused:
        services.escalate(event["player"], appeal, "不服", now=late)
    assert refused.value.code == "too_late"
    appeal.refresh_from_db()
    assert appeal.status == AppealStatus.RULED  # the ruling stands
    # once the committee has begun to vote, the chief referee no longer rules
    other = event["other"]
    filer = t.entries.get(pk=other.side1[0]).player1
    second = services.file_appeal(filer, other, "result", "记分有误", now=FILED)
    services.cast_vote(event["committee"][0], second, "dismiss", "成绩无误", now=FILED)
    with pytest.raises(services.OfficialsError) as refused:
        services.rule(chief, second, "dismiss", "成绩无误", now=FILED)
    assert refused.value.code == "with_committee"


@pytest.mark.django_db
def test_the_ruling_and_the_escalation_on_the_appeals_page(event):  # noqa: F811
    appeal = file(event)
    url = f"/officials/appeals/{appeal.pk}/"
    with time_machine.travel(FILED + timedelta(minutes=1), tick=False):
        chief, player = Client(), Client()
        chief.force_login(event["chief"])
        player.force_login(event["player"])
        assert "data-ruling-form" in chief.get(url).content.decode()
        assert "data-ruling-form" not in player.get(url).content.decode()
        answer = chief.post(url, {"form": "rule", "verdict": "dismiss", "reason": ""})
        assert answer.status_code == 400 and "data-ruling-form" in answer.content.decode()
        chief.post(url, {"form": "rule", "verdict": "dismiss", "reason": "成绩无误"})
        page = player.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
        assert "data-ruling" in page and "成绩无误" in page and "data-escalate-form" in page
        player.post(url, {"form": "escalate", "text": "裁判长没看记分表"})
        appeal.refresh_from_db()
        assert appeal.status == AppealStatus.OPEN and appeal.escalation_text == "裁判长没看记分表"
        committee = Client()
        committee.force_login(event["committee"][0])
        assert "data-vote-form" in committee.get(url).content.decode()


@pytest.mark.django_db
def test_the_ruling_and_the_escalation_through_the_api(event):  # noqa: F811
    appeal = file(event)
    rule, escalate = f"/api/v1/appeals/{appeal.pk}/rule/", f"/api/v1/appeals/{appeal.pk}/escalate/"
    chief, player = APIClient(), APIClient()
    chief.force_authenticate(event["chief"])
    player.force_authenticate(event["player"])
    bad = {"verdict": "uphold", "reason": "r", "score0": 99, "score1": 5}
    assert chief.post(rule, bad, format="json").status_code == 400
    assert (
        player.post(rule, {"verdict": "dismiss", "reason": "r"}, format="json").status_code == 403
    )
    ruled = chief.post(rule, {"verdict": "dismiss", "reason": "成绩无误"}, format="json")
    assert ruled.status_code == 200
    assert (ruled.json()["status"], ruled.json()["ruling"]) == ("ruled", "dismiss")
    taken = player.post(escalate, {"text": "裁判长没看记分表"}, format="json")
    assert taken.status_code == 200
    assert taken.json()["status"] == "open" and taken.json()["escalated_at"]
