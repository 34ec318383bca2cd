"""What clubs (a layer below the outbox) have told by e-mail, through :mod:`clubs.hooks`."""

from __future__ import annotations

from django.urls import reverse

from clubs.models import JoinRequest, JoinRequestStatus, Role, User
from outbox.models import Kind
from outbox.services import email_user, site_url


def notify_join_request(join_request: JoinRequest) -> int:
    """Tell each owner and admin of the club of a new join request (a notice and an e-mail,
    key ``join-request:<request>:user:<admin>``) with a link to the club's manage page on
    ``SITE_URL``. Returns the number of e-mails queued."""
    club = join_request.club
    path = reverse("club_manage", args=[club.slug])
    admins = User.objects.filter(
        memberships__club=club, memberships__role__in=[Role.OWNER, Role.ADMIN]
    ).distinct()
    context = {"club": club, "join": join_request, "link": site_url(path)}
    return sum(
        email_user(
            key=f"join-request:{join_request.pk}:user:{admin.pk}",
            user=admin,
            template="outbox/email/join_request",
            context={**context, "user": admin},
            kind=Kind.CLUB,
            url=path,
        )
        is not None
        for admin in admins
    )


def notify_join_decided(join_request: JoinRequest) -> bool:
    """Tell the applicant that their join request was accepted or declined: a notice and an
    e-mail in their language, once per request (key ``join-decided:<request>``), linking the
    club's page when accepted and the list of clubs when declined (a members-only club's page
    is not for them). Returns whether an e-mail was queued; a request still pending or
    withdrawn tells nobody."""
    if join_request.status == JoinRequestStatus.ACCEPTED:
        template = "outbox/email/join_accepted"
        path = reverse("club_detail", args=[join_request.club.slug])
    elif join_request.status == JoinRequestStatus.DECLINED:
        template = "outbox/email/join_declined"
        path = reverse("club_list")
    else:
        return False
    applicant = join_request.user
    message = email_user(
        key=f"join-decided:{join_request.pk}",
        user=applicant,
        template=template,
        context={
            "club": join_request.club,
            "join": join_request,
            "user": applicant,
            "link": site_url(path),
        },
        kind=Kind.CLUB,
        url=path,
    )
    return message is not None
