"""The appeal fee (第三十九条一.4: "申诉材料直接报仲裁委员会，同时按竞赛规程的规定缴纳申诉费";
二.4: "如申诉方胜诉，则相应要退回申诉费"), kept as a record on the real database — the platform
takes no money:

* the organiser sets a fee in whole yuan (0: none, at most 10000) beside the appeal time; an
  appeal keeps the fee of the day it was filed, ``due``;
* the organiser or the chief referee (a deputy while there is none) — never the filer —
  marks it received; nobody rules or votes before ("同时...缴纳": paid with the appeal);
* upheld — by the chief referee's ruling or the committee — it is refunded and the filer is
  told once; dismissed, it is kept; a ruling taken to the committee is settled again by the
  committee's decision (the side that took it there prevails when it is upheld);
* the pages, the API and the appeal's history show it.
"""

from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from rest_framework.test import APIClient

from clubs import services as club_services
from clubs.models import Membership
from officials import permissions, selectors, services
from officials.models import AppealStatus, FeeState
from outbox.models import Notification, OutboxMessage
from tests.leagues.leaguekit import finished_fixture
from tests.officials.test_appeals import AFTER, event  # noqa: F401  (the fixture)

FILED = AFTER + timedelta(minutes=10)
FEE = 200


def refund_notices(appeal):
    return list(
        Notification.objects.filter(key__startswith=f"officials:appeal:{appeal.pk}:fee-refunded")
    )


def file_with_fee(event, fee=FEE):  # noqa: F811
    services.set_appeal_fee(event["admin"], event["t"], fee)
    return services.file_appeal(event["player"], event["game"], "result", "记分有误", now=FILED)


def test_the_organiser_sets_a_bounded_fee_and_every_error_is_named(event):  # noqa: F811
    t, admin = event["t"], event["admin"]
    for bad in (-1, 10001, True, "100", None, 2.5):
        with pytest.raises(services.OfficialsError) as refused:
            services.set_appeal_fee(admin, t, bad)
        assert refused.value.code == "bad_fee" and set(refused.value.fields) == {"appeal_fee"}
    with pytest.raises(services.OfficialsError) as refused:
        services.set_appeal_settings(admin, t, 2, 10001)
    assert set(refused.value.fields) == {"appeal_minutes", "appeal_fee"}  # all at once
    message = refused.value.message  # Chinese first: each sentence names its field
    assert "申诉时限须为 5 到 1440" in message and "申诉费须为 0（不收）到 10000" in message
    panel = services.panel_for(t)
    panel.refresh_from_db()
    assert (panel.appeal_minutes, panel.appeal_fee) == (30, 0)  # nothing changed
    for person in (event["chief"], event["committee"][0], event["player"]):
        with pytest.raises(services.NotAllowed):
            services.set_appeal_fee(person, t, 100)
    services.set_appeal_settings(admin, t, 45, 10000)
    panel.refresh_from_db()
    assert (panel.appeal_minutes, panel.appeal_fee) == (45, 10000)
    services.set_appeal_fee(admin, t, 0)
    panel.refresh_from_db()
    assert panel.appeal_fee == 0


def test_fee_due_then_received_then_refunded_by_the_committee_told_once(
    event,  # noqa: F811
    django_capture_on_commit_callbacks,
):
    with django_capture_on_commit_callbacks(execute=True):
        appeal = file_with_fee(event)
    assert (appeal.fee, appeal.fee_state) == (FEE, FeeState.DUE)
    # the chief referee, told of the new appeal, reads that its fee is due
    filed = OutboxMessage.objects.get(
        key=f"officials:appeal:{appeal.pk}:filed:user:{event['chief'].pk}"
    )
    assert "应缴申诉费 200 元：须在申诉页面登记收到后才能裁决。" in filed.body
    # a later change of the event's fee leaves the filed appeal's fee as it was
    services.set_appeal_fee(event["admin"], event["t"], 500)
    appeal.refresh_from_db()
    assert appeal.fee == FEE
    first, second, third = event["committee"]
    # nobody decides before the fee is received
    with pytest.raises(services.OfficialsError) as refused:
        services.cast_vote(first, appeal, "uphold", "记分员记错", score0=5, score1=12, now=FILED)
    assert refused.value.code == "fee_due" and set(refused.value.fields) == {"fee"}
    with pytest.raises(services.OfficialsError) as refused:
        services.rule(event["chief"], appeal, "dismiss", "成绩无误", now=FILED)
    assert refused.value.code == "fee_due"
    assert not appeal.votes.exists() and appeal.ruled_at is None
    # who may mark it received: the chief referee and the organiser, not the others
    for person in (first, event["referee"], event["player"], event["people"][0]):
        with pytest.raises(services.NotAllowed):
            services.mark_fee_received(person, appeal, now=FILED)
    received_at = FILED + timedelta(minutes=3)
    services.mark_fee_received(event["chief"], appeal, now=received_at)
    appeal.refresh_from_db()
    assert appeal.fee_state == FeeState.RECEIVED
    assert (appeal.fee_received_by, appeal.fee_received_at) == (event["chief"], received_at)
    with pytest.raises(services.OfficialsError) as refused:
        services.mark_fee_received(event["admin"], appeal, now=received_at)
    assert refused.value.code == "fee_received"
    decided_at = received_at + timedelta(minutes=20)
    with django_capture_on_commit_callbacks(execute=True):
        services.cast_vote(
            first, appeal, "uphold", "记分员记错", score0=5, score1=12, now=decided_at
        )
        appeal.refresh_from_db()
        assert appeal.fee_state == FeeState.RECEIVED and not refund_notices(appeal)
        services.cast_vote(
            second, appeal, "uphold", "看了记分表", score0=5, score1=12, now=decided_at
        )
    appeal.refresh_from_db()
    assert appeal.status == AppealStatus.UPHELD
    assert (appeal.fee_state, appeal.fee_settled_at) == (FeeState.REFUNDED, decided_at)
    (notice,) = refund_notices(appeal)
    assert notice.user_id == event["player"].pk
    mail = OutboxMessage.objects.filter(key__startswith=f"officials:appeal:{appeal.pk}:fee-")
    assert mail.count() <= 1  # one e-mail at most (under the player's preferences)
    # a late vote is refused as before, and nothing is told again
    with pytest.raises(services.OfficialsError):
        services.cast_vote(third, appeal, "dismiss", "无", now=decided_at)
    assert len(refund_notices(appeal)) == 1
    steps = [step.what for step in selectors.appeal_history(appeal)]
    assert steps == ["filed", "fee_received", "vote", "vote", "decided", "fee_refunded"]


def test_a_dismissed_appeal_keeps_the_fee_and_tells_no_refund(event):  # noqa: F811
    appeal = file_with_fee(event)
    services.mark_fee_received(event["admin"], appeal, now=FILED)  # the organiser marks too
    first, second, _third = event["committee"]
    services.cast_vote(first, appeal, "dismiss", "证据不足", now=FILED)
    services.cast_vote(second, appeal, "dismiss", "证据不足", now=FILED)
    appeal.refresh_from_db()
    assert (appeal.status, appeal.fee_state) == (AppealStatus.DISMISSED, FeeState.KEPT)
    assert refund_notices(appeal) == []
    assert selectors.appeal_history(appeal)[-1].what == "fee_kept"


def test_the_chief_referees_ruling_settles_the_fee_and_the_committee_settles_it_again(
    event,  # noqa: F811
):
    t, game, chief = event["t"], event["game"], event["chief"]
    appeal = file_with_fee(event)
    services.mark_fee_received(chief, appeal, now=FILED)
    ruled_at = FILED + timedelta(minutes=5)
    services.rule(chief, appeal, "uphold", "核对记分表", score0=5, score1=12, now=ruled_at)
    appeal.refresh_from_db()
    assert appeal.fee_state == FeeState.REFUNDED and len(refund_notices(appeal)) == 1
    # the other side takes the ruling to the committee, which changes it back: the filer
    # did not prevail in the end, and the fee is kept; nobody is told of a refund again
    opponent = t.entries.get(pk=game.side0[0]).player1
    escalated_at = ruled_at + timedelta(minutes=10)
    services.escalate(opponent, appeal, "裁判长看错了记分表", now=escalated_at)
    appeal.refresh_from_db()
    assert appeal.escalated_by == opponent and appeal.fee_state == FeeState.REFUNDED
    first, second, _third = event["committee"]
    services.cast_vote(first, appeal, "uphold", "原成绩正确", score0=12, score1=5, now=escalated_at)
    services.cast_vote(
        second, appeal, "uphold", "原成绩正确", score0=12, score1=5, now=escalated_at
    )
    appeal.refresh_from_db()
    assert (appeal.status, appeal.fee_state) == (AppealStatus.UPHELD, FeeState.KEPT)
    assert len(refund_notices(appeal)) == 1
    steps = [step.what for step in selectors.appeal_history(appeal)]
    assert steps == [
        "filed",
        "fee_received",
        "ruled",
        "fee_refunded",
        "escalated",
        "vote",
        "vote",
        "decided",
        "fee_kept",
    ]


def test_a_ruling_the_filer_takes_further_and_wins_refunds_the_fee_once(event):  # noqa: F811
    chief = event["chief"]
    appeal = file_with_fee(event)
    services.mark_fee_received(chief, appeal, now=FILED)
    services.rule(chief, appeal, "dismiss", "成绩无误", now=FILED)
    appeal.refresh_from_db()
    assert appeal.fee_state == FeeState.KEPT and refund_notices(appeal) == []
    services.escalate(event["player"], appeal, "裁判长没看记分表", now=FILED)
    first, second, third = event["committee"]
    services.cast_vote(first, appeal, "uphold", "记分有误", score0=5, score1=12, now=FILED)
    services.cast_vote(second, appeal, "uphold", "记分有误", score0=5, score1=12, now=FILED)
    appeal.refresh_from_db()
    assert (appeal.status, appeal.fee_state) == (AppealStatus.UPHELD, FeeState.REFUNDED)
    assert [n.user_id for n in refund_notices(appeal)] == [event["player"].pk]


def test_a_ruling_upheld_and_dismissed_again_by_the_committee_stays_refunded(event):  # noqa: F811
    t, game, chief = event["t"], event["game"], event["chief"]
    appeal = file_with_fee(event)
    services.mark_fee_received(chief, appeal, now=FILED)
    services.rule(chief, appeal, "uphold", "核对记分表", score0=5, score1=12, now=FILED)
    opponent = t.entries.get(pk=game.side0[0]).player1
    services.escalate(opponent, appeal, "不服", now=FILED)
    first, second, _third = event["committee"]
    services.cast_vote(first, appeal, "dismiss", "裁决正确", now=FILED)
    services.cast_vote(second, appeal, "dismiss", "裁决正确", now=FILED)
    appeal.refresh_from_db()
    assert (appeal.status, appeal.fee_state) == (AppealStatus.DISMISSED, FeeState.REFUNDED)
    assert len(refund_notices(appeal)) == 1


def test_no_fee_no_state_and_nothing_to_mark(event):  # noqa: F811
    appeal = services.file_appeal(event["player"], event["game"], "result", "记分有误", now=FILED)
    assert (appeal.fee, appeal.fee_state) == (0, FeeState.NONE)
    with pytest.raises(services.OfficialsError) as refused:
        services.mark_fee_received(event["chief"], appeal, now=FILED)
    assert refused.value.code == "no_fee"
    first, second, _third = event["committee"]
    services.cast_vote(first, appeal, "uphold", "记分有误", score0=5, score1=12, now=FILED)
    services.cast_vote(second, appeal, "uphold", "记分有误", score0=5, score1=12, now=FILED)
    appeal.refresh_from_db()
    assert (appeal.status, appeal.fee_state) == (AppealStatus.UPHELD, FeeState.NONE)
    assert refund_notices(appeal) == []
    assert [s.what for s in selectors.appeal_history(appeal)][0] == "filed"


def test_who_marks_the_fee_is_asked_at_every_action(event, club, members):  # noqa: F811
    """A deputy marks only while the event has no chief referee; a chief referee removed from
    the club no longer does; the filer never marks their own fee, whatever their role."""
    appeal = file_with_fee(event)
    chief, admin, player = event["chief"], event["admin"], event["player"]
    (deputy,) = members(1)
    services.appoint(admin, event["t"], deputy, "deputy")
    services.appoint(admin, event["t"], player, "deputy")  # the filer, appointed a deputy
    assert permissions.may_mark_fee(chief, appeal) and permissions.may_mark_fee(admin, appeal)
    assert not permissions.may_mark_fee(deputy, appeal)
    club_services.remove_member(admin, Membership.objects.get(club=club, user=chief))
    assert not permissions.may_mark_fee(chief, appeal)
    with pytest.raises(services.NotAllowed):
        services.mark_fee_received(chief, appeal, now=FILED)
    assert permissions.may_mark_fee(deputy, appeal)
    assert permissions.acts_as_chief(player, appeal.panel)
    assert not permissions.may_mark_fee(player, appeal)
    with pytest.raises(services.NotAllowed):
        services.mark_fee_received(player, appeal, now=FILED)
    services.mark_fee_received(deputy, appeal, now=FILED)
    appeal.refresh_from_db()
    assert (appeal.fee_state, appeal.fee_received_by) == (FeeState.RECEIVED, deputy)


@pytest.mark.django_db
def test_a_league_tables_appeal_fee_refunded_when_upheld(club, club_admin, members):
    seated = members(4)
    season, fixture, table = finished_fixture(
        club, seated, variant="guandan", scores=(9, 4), created_by=club_admin
    )
    committee = members(3)
    for person in committee:
        services.appoint(club_admin, season, person, "committee")
    services.set_appeal_fee(club_admin, season, 100)
    appeal = services.file_appeal(seated[1], table, "result", "记分有误")
    assert (appeal.fee, appeal.fee_state) == (100, FeeState.DUE)
    with pytest.raises(services.OfficialsError) as refused:
        services.cast_vote(committee[0], appeal, "uphold", "记错", score0=4, score1=9)
    assert refused.value.code == "fee_due"
    with pytest.raises(services.NotAllowed):
        services.mark_fee_received(committee[0], appeal)
    services.mark_fee_received(club_admin, appeal)
    services.cast_vote(committee[0], appeal, "uphold", "记错", score0=4, score1=9)
    services.cast_vote(committee[1], appeal, "uphold", "记错", score0=4, score1=9)
    appeal.refresh_from_db()
    table.refresh_from_db()
    assert (table.home_score, table.away_score) == (4, 9)
    assert (appeal.status, appeal.fee_state) == (AppealStatus.UPHELD, FeeState.REFUNDED)
    assert [n.user_id for n in refund_notices(appeal)] == [seated[1].pk]
    # seats 1 and 3 play together: the side of the filer
    assert permissions.same_side(appeal, seated[1].pk, seated[3].pk)
    assert not permissions.same_side(appeal, seated[1].pk, seated[0].pk)


# --------------------------------------------------------------------------- pages and API
def test_the_pages_show_the_fee_before_filing_and_on_the_appeal(event):  # noqa: F811
    t = event["t"]
    services.set_appeal_fee(event["admin"], t, FEE)
    with time_machine.travel(FILED, tick=False):
        player = Client()
        player.force_login(event["player"])
        form = player.get(f"/officials/tournaments/{t.pk}/appeal/", HTTP_ACCEPT_LANGUAGE="zh-hans")
        page = form.content.decode()
        assert "data-fee-rule" in page
        assert "申诉费：200 元，向组委会缴纳；申诉成立则退回。" in page
        answer = player.post(
            f"/officials/tournaments/{t.pk}/appeal/",
            {"target": event["game"].pk, "subject": "result", "text": "记分有误"},
        )
        assert answer.status_code == 302
        (appeal,) = selectors.appeals_for(event["player"], services.panel_for(t))
        url = f"/officials/appeals/{appeal.pk}/"
        mine = player.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
        assert "申诉费待缴" in mine and "data-fee-form" not in mine
        assert "提出申诉；应缴申诉费 200 元。" in mine
        refused = player.post(url, {"form": "fee"})
        assert refused.status_code == 400
        chief = Client()
        chief.force_login(event["chief"])
        page = chief.get(url).content.decode()
        assert "data-fee-form" in page and "data-ruling-form" not in page  # fee first
        assert chief.post(url, {"form": "fee"}).status_code == 302
        page = chief.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
        assert "申诉费已收" in page and "data-ruling-form" in page
        assert "已收到申诉费 200 元。" in page
        again = chief.post(url, {"form": "fee"}, HTTP_ACCEPT_LANGUAGE="zh-hans")
        assert again.status_code == 400 and "申诉费已登记为收到。" in again.content.decode()
        # the organiser's settings form: both fields' errors at once, nothing changed
        admin = Client()
        admin.force_login(event["admin"])
        settings_url = f"/officials/tournaments/{t.pk}/minutes/"
        answer = admin.post(
            settings_url,
            {"appeal_minutes": "2", "appeal_fee": "-5"},
            HTTP_ACCEPT_LANGUAGE="zh-hans",
            follow=True,
        )
        shown = answer.content.decode()
        assert "申诉费须为 0（不收）到 10000 之间的整数元。" in shown
        assert "申诉时限须为 5 到 1440 之间的整数分钟。" in shown and 'id="appeal-fee"' in shown
        panel = services.panel_for(t)
        assert (panel.appeal_minutes, panel.appeal_fee) == (30, FEE)
        admin.post(settings_url, {"appeal_minutes": "40", "appeal_fee": "300"})
        panel.refresh_from_db()
        assert (panel.appeal_minutes, panel.appeal_fee) == (40, 300)


def test_the_api_sets_shows_and_marks_the_fee(event):  # noqa: F811
    t = event["t"]
    admin, player, chief = APIClient(), APIClient(), APIClient()
    admin.force_authenticate(event["admin"])
    player.force_authenticate(event["player"])
    chief.force_authenticate(event["chief"])
    fee_url = f"/api/v1/tournament-officials/{t.pk}/appeal-fee/"
    assert admin.post(fee_url, {"appeal_fee": 10001}, format="json").status_code == 400
    assert admin.post(fee_url, {"appeal_fee": -1}, format="json").status_code == 400
    assert admin.post(fee_url, {"appeal_fee": "x"}, format="json").status_code == 400
    assert player.post(fee_url, {"appeal_fee": 100}, format="json").status_code == 403
    assert APIClient().post(fee_url, {"appeal_fee": 100}, format="json").status_code in (401, 403)
    answer = admin.post(fee_url, {"appeal_fee": FEE}, format="json")
    assert answer.status_code == 200 and answer.json() == {"appeal_fee": FEE}
    assert player.get(f"/api/v1/tournament-officials/{t.pk}/").json()["appeal_fee"] == FEE
    with time_machine.travel(FILED, tick=False):
        filed = player.post(
            f"/api/v1/tournament-officials/{t.pk}/appeal/",
            {"game": event["game"].pk, "subject": "result", "text": "记分有误"},
            format="json",
        )
    assert filed.status_code == 201
    assert (filed.json()["fee"], filed.json()["fee_state"]) == (FEE, "due")
    pk = filed.json()["id"]
    committee = APIClient()
    committee.force_authenticate(event["committee"][0])
    vote = committee.post(
        f"/api/v1/appeals/{pk}/vote/", {"verdict": "dismiss", "reason": "r"}, format="json"
    )
    assert vote.status_code == 400 and vote.json()["code"] == "fee_due"
    marked_url = f"/api/v1/appeals/{pk}/fee-received/"
    assert player.post(marked_url).status_code == 403
    assert committee.post(marked_url).status_code == 403
    with time_machine.travel(FILED + timedelta(minutes=1), tick=False):
        marked = chief.post(marked_url)
    assert marked.status_code == 200
    body = marked.json()
    assert body["fee_state"] == "received" and body["fee_received_by"] == event["chief"].pk
    assert [step["what"] for step in body["history"]] == ["filed", "fee_received"]
    assert body["history"][1]["by"] == event["chief"].pk
    again = chief.post(marked_url)
    assert again.status_code == 400 and again.json()["code"] == "fee_received"
    with time_machine.travel(FILED + timedelta(minutes=2), tick=False):
        ruled = chief.post(
            f"/api/v1/appeals/{pk}/rule/",
            {"verdict": "uphold", "reason": "核对", "score0": 5, "score1": 12},
            format="json",
        )
    assert ruled.status_code == 200 and ruled.json()["fee_state"] == "refunded"
    detail = player.get(f"/api/v1/appeals/{pk}/").json()
    assert detail["fee_settled_at"] and detail["history"][-1]["what"] == "fee_refunded"


def test_the_committees_two_hours_run_from_the_fees_receipt(event):  # noqa: F811
    """第三十九条二.4's two hours count from when the appeal is lodged: with its fee."""
    appeal = file_with_fee(event)
    assert appeal.answer_by is None and not appeal.overdue(FILED + timedelta(days=1))
    member = event["committee"][0]
    client = Client()
    client.force_login(member)
    page = client.get(f"/officials/appeals/{appeal.pk}/").content.decode()
    assert "data-answer-by" not in page and "data-vote-form" not in page
    api = APIClient()
    api.force_authenticate(member)
    assert api.get(f"/api/v1/appeals/{appeal.pk}/").json()["answer_by"] is None
    received = FILED + timedelta(hours=3)
    services.mark_fee_received(event["admin"], appeal, now=received)
    appeal.refresh_from_db()
    assert appeal.answer_by == received + timedelta(hours=2)
    assert not appeal.overdue(received + timedelta(minutes=119))
    assert appeal.overdue(received + timedelta(minutes=121))
    with time_machine.travel(received + timedelta(minutes=5), tick=False):
        client.force_login(member)  # a session of the travelled-to time
        page = client.get(f"/officials/appeals/{appeal.pk}/").content.decode()
    assert "data-answer-by" in page and "data-vote-form" in page
