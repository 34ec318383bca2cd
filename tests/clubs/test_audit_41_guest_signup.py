"""Audit of issue 41, part 1 (``/work/notes/audit-40-41.md``): "signing up later keeps its
games and settings". The guest tests check the games and the language offered on the form;
this checks the other things a guest may have set or earned before signing up, through the
real sign-up page: the text size and the tutorial's progress stay with the account."""

import pytest
from django.test import Client

from clubs import guests
from clubs.models import TextSize, User
from learn.lessons import COURSES
from learn.models import LessonProgress

PASSWORD = "Long-Pass-phrase-77"


@pytest.fixture
def guest_client(db):
    guest = guests.create_guest("203.0.113.9")
    client = Client()
    client.force_login(guest)
    return guest, client


def test_a_guests_text_size_and_lesson_progress_survive_sign_up(guest_client):
    guest, client = guest_client
    # the guest sets a text size and solves a lesson, as a visitor of the site does
    assert client.post("/text-size/", {"size": TextSize.XLARGE, "next": "/"}).status_code == 302
    assert User.objects.get(pk=guest.pk).text_size == TextSize.XLARGE
    lesson = COURSES["bao2"][0]
    data = {"act": lesson.answer["act"], "cards": lesson.answer["cards"]}
    assert client.post(f"/learn/lessons/{lesson.course}/{lesson.slug}/", data).status_code == 302
    assert LessonProgress.objects.filter(user=guest, solved_at__isnull=False).count() == 1

    response = client.post(
        "/accounts/signup/",
        {
            "username": "xiaohong",
            "email": "xiaohong@example.com",
            "display_name": "小红",
            "language": "zh-hans",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    assert response.status_code == 302
    user = User.objects.get(pk=guest.pk)
    assert not user.is_guest and user.username == "xiaohong"
    assert user.text_size == TextSize.XLARGE
    assert "text-xlarge" in client.get("/").content.decode()  # still signed in, same size
    assert LessonProgress.objects.filter(user=user, solved_at__isnull=False).count() == 1
    assert "✓" in client.get("/learn/lessons/bao2/").content.decode()
