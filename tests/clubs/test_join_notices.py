"""The applicant is told when a club answers their join request (issue 41, part 5): a notice in
their list and one e-mail through the outbox, in their language, for an acceptance and for a
refusal; a withdrawn request or an answer refused tells nobody."""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

import pytest
from django.test import Client, override_settings
from django.urls import reverse

from clubs import services
from clubs.models import Club, JoinPolicy, Language, Membership, Role, User
from outbox.models import Kind, Notification, OutboxMessage, OutboxStatus

SITE = "https://clubs.example.org"
PASSWORD = "pw-Secret-123"


def _smtp_module():
    """The outbox tests' aiosmtpd server (tests/outbox is not a package on the path)."""
    name = "smtp_server"
    if name not in sys.modules:
        path = Path(__file__).resolve().parent.parent / "outbox" / "smtp_server.py"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture
def smtp():
    """A real SMTP server that Django's SMTP backend sends to."""
    server = _smtp_module().SmtpServer().start()
    with override_settings(
        EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
        EMAIL_HOST=server.host,
        EMAIL_PORT=server.port,
        EMAIL_USE_TLS=False,
        EMAIL_USE_SSL=False,
        OUTBOX_SMTP_TIMEOUT=10,
        SITE_URL=SITE,
    ):
        yield server
    server.stop()


@pytest.fixture
def eager():
    """Celery eager: the send task runs in-process once the answer's transaction commits."""
    from config.celery import app

    old = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield app
    app.conf.task_always_eager = old


def _user(username: str, language: str) -> User:
    return User.objects.create_user(
        username=username,
        password=PASSWORD,
        email=f"{username}@example.com",
        display_name=username.title(),
        language=language,
    )


@pytest.fixture
def setting(db):
    owner = _user("owner", Language.ZH_HANS)
    club = services.create_club(owner, name="南平保二俱乐部", join_policy=JoinPolicy.REQUEST)
    admin = _user("admin", Language.ZH_HANS)
    Membership.objects.create(club=club, user=admin, role=Role.ADMIN)
    return club, admin


def _answer(club: Club, admin: User, join_request_id: int, answer: str) -> None:
    """The admin presses the button on the club's manage page."""
    client = Client()
    client.force_login(admin)
    response = client.post(
        reverse("club_request_answer", args=[club.slug, join_request_id]), {"answer": answer}
    )
    assert response.status_code == 302


def _received_by(smtp, address: str, timeout: float = 20) -> list:
    """What the SMTP server accepted for ``address``, once the outbox has no pending row
    for it (then nothing more is on its way)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pending = OutboxMessage.objects.filter(to=address, status=OutboxStatus.PENDING)
        if not pending.exists() and any(r.to == address for r in smtp.received):
            break
        time.sleep(0.05)
    return [r for r in smtp.received if r.to == address]


def _notice_page(user: User) -> str:
    client = Client()
    client.force_login(user)
    return client.get(reverse("outbox:notifications")).content.decode()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("language", "subject", "body"),
    [
        (Language.ZH_HANS, "您已成为 南平保二俱乐部 的会员", "入会申请已通过"),
        (Language.EN, "You are now a member of 南平保二俱乐部", "was accepted"),
    ],
)
def test_an_accepted_applicant_gets_one_email_and_a_notice(
    smtp, eager, setting, language, subject, body
):
    club, admin = setting
    applicant = _user("newcomer", language)
    join_request = services.join_club(applicant, club, message="想来打牌")
    _answer(club, admin, join_request.pk, "accept")

    assert Membership.objects.filter(club=club, user=applicant, role=Role.MEMBER).exists()
    mails = _received_by(smtp, applicant.email)
    assert len(mails) == 1
    assert mails[0].subject.strip() == subject  # the parsed header keeps a folding space
    assert body in mails[0].body
    assert f"{SITE}/clubs/{club.slug}/" in mails[0].body
    notice = Notification.objects.get(user=applicant)
    assert (notice.kind, notice.text, notice.url) == (
        Kind.CLUB,
        subject,
        f"/clubs/{club.slug}/",
    )
    assert subject in _notice_page(applicant)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("language", "subject", "body"),
    [
        (Language.ZH_HANS, "南平保二俱乐部 未通过您的入会申请", "创建自己的俱乐部"),
        (Language.EN, "南平保二俱乐部 declined your request to join", "ask another club"),
    ],
)
def test_a_declined_applicant_gets_one_email_and_a_notice(
    smtp, eager, setting, language, subject, body
):
    club, admin = setting
    applicant = _user("newcomer", language)
    join_request = services.join_club(applicant, club)
    _answer(club, admin, join_request.pk, "decline")
    # pressed again (a second tab): refused, and nobody is told twice
    _answer(club, admin, join_request.pk, "decline")

    assert not Membership.objects.filter(club=club, user=applicant).exists()
    mails = _received_by(smtp, applicant.email)
    assert len(mails) == 1
    assert mails[0].subject.strip() == subject  # the parsed header keeps a folding space
    assert body in mails[0].body and f"{SITE}/clubs/" in mails[0].body
    notice = Notification.objects.get(user=applicant)
    assert (notice.kind, notice.text, notice.url) == (Kind.CLUB, subject, "/clubs/")
    assert subject in _notice_page(applicant)


@pytest.mark.django_db
def test_a_withdrawn_or_refused_answer_tells_nobody(setting):
    club, admin = setting
    applicant = _user("newcomer", Language.ZH_HANS)
    first = services.join_club(applicant, club)
    member = _user("member", Language.ZH_HANS)
    Membership.objects.create(club=club, user=member, role=Role.MEMBER)
    with pytest.raises(services.NotAllowed):  # a plain member may not answer
        services.accept_join_request(member, first.pk)
    services.cancel_join_request(applicant, first.pk)
    assert not Notification.objects.filter(user=applicant).exists()
    assert not OutboxMessage.objects.filter(to=applicant.email).exists()
