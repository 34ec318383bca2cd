"""The appeals committee answers within two hours of the filing (第三十九条二.4): the appeal's
page, the event's list and the API say until when, and mark an open appeal past it."""

from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from rest_framework.test import APIClient

from officials import services
from tests.officials.test_appeals import AFTER, event  # noqa: F401  (the fixture)

FILED = AFTER + timedelta(minutes=10)


def html(user, url):
    client = Client()
    client.force_login(user)
    return client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()


@pytest.mark.django_db
def test_the_answer_is_due_two_hours_after_the_filing_and_marked_when_overdue(event):  # noqa: F811
    with time_machine.travel(FILED, tick=False):
        appeal = services.file_appeal(event["player"], event["game"], "result", "记分有误")
    assert appeal.answer_by == FILED + timedelta(hours=2)
    member = event["committee"][0]
    page, listing = f"/officials/appeals/{appeal.pk}/", f"/officials/tournaments/{event['t'].pk}/"
    with time_machine.travel(FILED + timedelta(minutes=100), tick=False):
        text = html(member, page)
        assert "仲裁委员会须在" in text and "data-overdue" not in text
        assert "data-overdue" not in html(member, listing)
        api = APIClient()
        api.force_authenticate(member)
        answer = api.get(f"/api/v1/appeals/{appeal.pk}/").json()
        assert answer["answer_by"].startswith((FILED + timedelta(hours=2)).strftime("%Y-%m-%dT"))
    with time_machine.travel(FILED + timedelta(minutes=121), tick=False):
        assert "已超过答复时限" in html(member, page)
        assert "data-overdue" in html(member, listing)
        for person in event["committee"][:2]:  # a majority of three decides
            services.cast_vote(person, appeal, "dismiss", "成绩无误")
        text = html(member, page)
        assert "data-answer-by" not in text and "data-overdue" not in text
        assert "data-overdue" not in html(member, listing)
