"""The learning pages: guides with engine-built examples, lessons answered through the engine,
progress kept per user (guests included) and per visit."""

import re

import pytest

from learn.lessons import COURSES
from learn.models import LessonProgress

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("variant", ["bao2", "guandan", "honger", "shuangkou2"])
@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_every_guide_renders_in_both_languages(client, variant, language):
    client.cookies["django_language"] = language
    response = client.get(f"/learn/rules/{variant}/")
    assert response.status_code == 200
    assert response["Content-Language"] == language
    html = response.content.decode()
    assert 'class="face-slot"' in html  # cards drawn by the table's cards.js
    assert 'id="combos"' in html and 'id="settle"' in html


def test_guide_of_unknown_game_is_404(client):
    assert client.get("/learn/rules/chess/").status_code == 404


def test_bao2_guide_shows_the_examples_the_engine_built(client):
    client.cookies["django_language"] = "en"
    html = client.get("/learn/rules/bao2/").content.decode()
    for anchor in ("immune", "guan2", "bombs", "tribute", "settle", "little-2", "counts"):
        assert f'id="{anchor}"' in html
    # the captions carry the engine's numbers
    assert "a 保2 worth 2 levels" in html and "the bonus goes down to 0" in html
    assert "Your team goes from 8 to A" in html
    for case in ("excess", "protected", "pass", "fail", "third"):
        assert f'data-case="{case}"' in html
    assert "Match won" in html


def test_index_and_course_pages(client):
    assert client.get("/learn/").status_code == 200
    response = client.get("/learn/lessons/bao2/")
    assert response.status_code == 200
    assert len(re.findall(r'href="/learn/lessons/bao2/[\w-]+/"', response.content.decode())) >= 10
    assert client.get("/learn/lessons/chess/").status_code == 404
    assert client.get("/learn/lessons/bao2/nope/").status_code == 404


def _post(client, lesson, answer):
    data = {}
    if "choice" in answer:
        data["choice"] = answer["choice"]
    elif answer["act"] == "ask":
        data["act"] = f"ask:{answer['seat']}"
    else:
        data["act"] = answer["act"]
        if answer.get("cards"):
            data["cards"] = answer["cards"]
    url = f"/learn/lessons/{lesson.course}/{lesson.slug}/"
    response = client.post(url, data)
    assert response.status_code == 302
    return client.get(url).content.decode()


LESSONS = [item for lessons in COURSES.values() for item in lessons]


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda item: f"{item.course}-{item.slug}")
def test_every_lesson_page_takes_a_wrong_then_the_right_answer(client, django_user_model, lesson):
    user = django_user_model.objects.create_user("learner", password="x", language="en")
    client.force_login(user)
    assert client.get(f"/learn/lessons/{lesson.course}/{lesson.slug}/").status_code == 200
    html = _post(client, lesson, lesson.wrong_answers[0])
    assert 'data-right="0"' in html
    row = LessonProgress.objects.get(user=user, lesson=lesson.slug)
    assert row.tries == 1 and row.solved_at is None
    html = _post(client, lesson, lesson.answer)
    assert 'data-right="1"' in html
    row.refresh_from_db()
    assert row.tries == 2 and row.solved_at is not None


def test_a_guest_keeps_progress_like_any_user(client, django_user_model):
    guest = django_user_model.objects.create_user("guest-1", password="x", is_guest=True)
    client.force_login(guest)
    lesson = COURSES["bao2"][0]
    _post(client, lesson, lesson.answer)
    assert LessonProgress.objects.filter(user=guest, solved_at__isnull=False).count() == 1
    assert "✓" in client.get("/learn/lessons/bao2/").content.decode()


def test_a_visitor_without_account_keeps_progress_for_the_visit(client):
    client.cookies["django_language"] = "en"
    lesson = COURSES["bao2"][4]
    _post(client, lesson, lesson.answer)
    assert LessonProgress.objects.count() == 0
    html = client.get("/learn/lessons/bao2/").content.decode()
    assert f"1 of {len(COURSES['bao2'])} lessons solved" in html
    assert "Log in to keep your progress." in html


def test_bad_answers_are_refused_with_a_message_and_record_nothing(client, django_user_model):
    user = django_user_model.objects.create_user("learner2", password="x", language="en")
    client.force_login(user)
    url = "/learn/lessons/bao2/little-2/"
    for data in (
        {"act": "play"},
        {"act": "play", "cards": ["ZZ"]},
        {"act": "fly"},
        {"act": "ask:x"},
    ):
        response = client.post(url, data)
        assert response.status_code == 400
        assert "Select your cards first" in response.content.decode()
    assert client.post("/learn/lessons/bao2/guan2/", {"choice": "99"}).status_code == 400
    assert LessonProgress.objects.count() == 0
